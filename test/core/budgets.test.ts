import {describe, expect, test} from 'vitest';
import {allowsSurge, getScaledValueFromIntOrPercent, rolloutBudgets, surgeCount, unavailableCount, validateRollingUpdate} from '../../src/core/budgets.js';
import type {DaemonSet, DaemonSetUpdateStrategy, IntOrString} from '../../src/core/types.js';
import {newDaemonSet} from '../helpers/builders.js';

function withStrategy(strategy: DaemonSetUpdateStrategy | undefined): DaemonSet {
  const ds = newDaemonSet('foo');
  const {updateStrategy: _drop, ...spec} = ds.spec;
  return {...ds, spec: strategy === undefined ? spec : {...spec, updateStrategy: strategy}};
}

const rolling = (rollingUpdate: {maxUnavailable?: IntOrString; maxSurge?: IntOrString}): DaemonSet => withStrategy({type: 'RollingUpdate', rollingUpdate});

describe('getScaledValueFromIntOrPercent', () => {
  // Rows from intstr_test.go TestGetIntFromIntOrPercent, plus our own.
  const rows: {name: string; value: IntOrString | undefined; total: number; roundUp: boolean; want: number | string}[] = [
    {name: 'int as is', value: 123, total: 0, roundUp: false, want: 123},
    {name: '90% of 100, up', value: '90%', total: 100, roundUp: true, want: 90},
    {name: '90% of 95, up', value: '90%', total: 95, roundUp: true, want: 86},
    {name: '90% of 95, down', value: '90%', total: 95, roundUp: false, want: 85},
    {name: '1% of 1, up', value: '1%', total: 1, roundUp: true, want: 1},
    {name: '0% of 10', value: '0%', total: 10, roundUp: true, want: 0},
    {name: '10% of 0', value: '10%', total: 0, roundUp: true, want: 0},
    {name: 'signed percent is accepted (Atoi)', value: '+5%', total: 100, roundUp: true, want: 5},
    {name: 'bare %', value: '%', total: 10, roundUp: true, want: 'invalid value for IntOrString: invalid value "%": strconv.Atoi: parsing "": invalid syntax'},
    {name: '90#', value: '90#', total: 10, roundUp: true, want: 'invalid value for IntOrString: invalid type: string is not a percentage'},
    {name: '#%', value: '#%', total: 10, roundUp: true, want: 'invalid value for IntOrString: invalid value "#%": strconv.Atoi: parsing "#": invalid syntax'},
    {name: 'numeric string without %', value: '90', total: 10, roundUp: true, want: 'invalid value for IntOrString: invalid type: string is not a percentage'},
    {
      name: '40%%',
      value: '40%%',
      total: 10,
      roundUp: true,
      want: 'invalid value for IntOrString: invalid value "40%%": strconv.Atoi: parsing "40%": invalid syntax',
    },
    {name: 'undefined', value: undefined, total: 10, roundUp: true, want: 'nil value for IntOrString'},
    {name: 'fraction', value: 1.5, total: 10, roundUp: true, want: 'invalid value for IntOrString: invalid type: neither int nor percentage'},
  ];
  test.each(rows)('$name', ({value, total, roundUp, want}) => {
    const got = getScaledValueFromIntOrPercent(value, total, roundUp);
    expect(got).toEqual(typeof want === 'number' ? {ok: true, value: want} : {ok: false, error: want});
  });
});

describe('surgeCount / unavailableCount / allowsSurge', () => {
  const rows: {name: string; ds: DaemonSet; n: number; surge: number | 'error'; unavailable: number | 'error'; allows: boolean}[] = [
    {name: 'maxUnavailable 1', ds: rolling({maxUnavailable: 1, maxSurge: 0}), n: 10, surge: 0, unavailable: 1, allows: false},
    {name: 'maxSurge 25% of 10 rounds up', ds: rolling({maxUnavailable: 0, maxSurge: '25%'}), n: 10, surge: 3, unavailable: 0, allows: true},
    {name: 'maxSurge absent', ds: rolling({maxUnavailable: '10%'}), n: 15, surge: 0, unavailable: 2, allows: false},
    {name: 'maxUnavailable absent is an error', ds: rolling({maxSurge: 1}), n: 15, surge: 1, unavailable: 'error', allows: true},
    {name: 'invalid maxSurge', ds: rolling({maxUnavailable: 0, maxSurge: 'abc'}), n: 5, surge: 'error', unavailable: 0, allows: false},
    {name: 'OnDelete', ds: withStrategy({type: 'OnDelete', rollingUpdate: {maxUnavailable: 3, maxSurge: 2}}), n: 5, surge: 0, unavailable: 0, allows: false},
    {name: 'no strategy', ds: withStrategy(undefined), n: 5, surge: 0, unavailable: 0, allows: false},
    {name: 'RollingUpdate without rollingUpdate', ds: withStrategy({type: 'RollingUpdate'}), n: 5, surge: 0, unavailable: 0, allows: false},
    {name: '1% surge allows surge on any cluster', ds: rolling({maxUnavailable: 0, maxSurge: '1%'}), n: 3, surge: 1, unavailable: 0, allows: true},
  ];
  test.each(rows)('$name', ({ds, n, surge, unavailable, allows}) => {
    const s = surgeCount(ds, n);
    const u = unavailableCount(ds, n);
    expect(s.ok ? s.value : 'error').toBe(surge);
    expect(u.ok ? u.value : 'error').toBe(unavailable);
    expect(allowsSurge(ds)).toBe(allows);
  });
});

describe('rolloutBudgets', () => {
  const rows: {name: string; ds: DaemonSet; desired: number; want: {maxUnavailable: number; maxSurge: number; bothZeroFallback?: true} | string}[] = [
    {name: 'defaults', ds: rolling({maxUnavailable: 1, maxSurge: 0}), desired: 5, want: {maxUnavailable: 1, maxSurge: 0}},
    {name: 'percent unavailable', ds: rolling({maxUnavailable: '50%', maxSurge: 0}), desired: 5, want: {maxUnavailable: 3, maxSurge: 0}},
    {name: 'percent surge', ds: rolling({maxUnavailable: 0, maxSurge: '20%'}), desired: 11, want: {maxUnavailable: 0, maxSurge: 3}},
    {
      name: 'both zero falls back to maxUnavailable 1',
      ds: rolling({maxUnavailable: 0, maxSurge: 0}),
      desired: 5,
      want: {maxUnavailable: 1, maxSurge: 0, bothZeroFallback: true},
    },
    {
      name: 'both 0% falls back too',
      ds: rolling({maxUnavailable: '0%', maxSurge: '0%'}),
      desired: 5,
      want: {maxUnavailable: 1, maxSurge: 0, bothZeroFallback: true},
    },
    {name: 'no fallback without desired nodes', ds: rolling({maxUnavailable: 0, maxSurge: 0}), desired: 0, want: {maxUnavailable: 0, maxSurge: 0}},
    {name: 'percentages of zero nodes', ds: rolling({maxUnavailable: '25%', maxSurge: 0}), desired: 0, want: {maxUnavailable: 0, maxSurge: 0}},
    {name: 'both non-zero (unvalidated) kept as is', ds: rolling({maxUnavailable: 2, maxSurge: 1}), desired: 5, want: {maxUnavailable: 2, maxSurge: 1}},
    {name: 'OnDelete has no budgets', ds: withStrategy({type: 'OnDelete'}), desired: 5, want: {maxUnavailable: 0, maxSurge: 0}},
    {
      name: 'invalid maxUnavailable',
      ds: rolling({maxUnavailable: 'abc', maxSurge: 0}),
      desired: 5,
      want: 'invalid value for MaxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage',
    },
    {name: 'missing maxUnavailable', ds: rolling({maxSurge: 1}), desired: 5, want: 'invalid value for MaxUnavailable: nil value for IntOrString'},
    {
      name: 'invalid maxSurge',
      ds: rolling({maxUnavailable: 0, maxSurge: 'x%'}),
      desired: 5,
      want: 'invalid value for MaxSurge: invalid value for IntOrString: invalid value "x%": strconv.Atoi: parsing "x": invalid syntax',
    },
  ];
  test.each(rows)('$name', ({ds, desired, want}) => {
    expect(rolloutBudgets(ds, desired)).toEqual(typeof want === 'string' ? {ok: false, error: want} : {ok: true, budgets: want});
  });
});

describe('validateRollingUpdate', () => {
  const P = 'spec.updateStrategy.rollingUpdate';
  const PERCENT = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";
  const rows: {name: string; ds: DaemonSet; want: string[]}[] = [
    {name: 'maxUnavailable 1', ds: rolling({maxUnavailable: 1, maxSurge: 0}), want: []},
    {name: 'maxSurge only', ds: rolling({maxUnavailable: 0, maxSurge: '10%'}), want: []},
    {name: 'maxSurge absent counts as 0', ds: rolling({maxUnavailable: '100%'}), want: []},
    {name: 'OnDelete', ds: withStrategy({type: 'OnDelete'}), want: []},
    {
      name: 'over 100%',
      ds: rolling({maxUnavailable: '150%', maxSurge: 0}),
      want: [`${P}.maxUnavailable: Invalid value: "150%": must not be greater than 100%`],
    },
    {
      name: 'surge over 100%',
      ds: rolling({maxUnavailable: 0, maxSurge: '101%'}),
      want: [`${P}.maxSurge: Invalid value: "101%": must not be greater than 100%`],
    },
    {name: 'not a percent', ds: rolling({maxUnavailable: 'abc', maxSurge: 1}), want: [`${P}.maxUnavailable: Invalid value: "abc": ${PERCENT}`]},
    {
      name: 'numeric string counts as its number (and is invalid)',
      ds: rolling({maxUnavailable: '1', maxSurge: 0}),
      want: [`${P}.maxUnavailable: Invalid value: "1": ${PERCENT}`],
    },
    {
      name: 'x% is invalid and counts as zero',
      ds: rolling({maxUnavailable: 'x%', maxSurge: 0}),
      want: [`${P}.maxUnavailable: Invalid value: "x%": ${PERCENT}`, `${P}.maxUnavailable: Required value: cannot be 0 when maxSurge is 0`],
    },
    {name: 'negative', ds: rolling({maxUnavailable: -1, maxSurge: 0}), want: [`${P}.maxUnavailable: Invalid value: -1: must be greater than or equal to 0`]},
    {
      name: 'negative percent is not a percent, and counts as zero',
      ds: rolling({maxUnavailable: 0, maxSurge: '-5%'}),
      want: [`${P}.maxSurge: Invalid value: "-5%": ${PERCENT}`, `${P}.maxUnavailable: Required value: cannot be 0 when maxSurge is 0`],
    },
    {name: 'both zero', ds: rolling({maxUnavailable: 0, maxSurge: 0}), want: [`${P}.maxUnavailable: Required value: cannot be 0 when maxSurge is 0`]},
    {name: 'zero with absent maxSurge', ds: rolling({maxUnavailable: '0%'}), want: [`${P}.maxUnavailable: Required value: cannot be 0 when maxSurge is 0`]},
    {
      name: 'both non-zero',
      ds: rolling({maxUnavailable: 1, maxSurge: '25%'}),
      want: [`${P}.maxSurge: Invalid value: "25%": may not be set when maxUnavailable is non-zero`],
    },
    {
      name: 'unknown type',
      ds: withStrategy({type: 'Canary'}),
      want: ['spec.updateStrategy: Unsupported value: "Canary": supported values: "RollingUpdate", "OnDelete"'],
    },
    {name: 'missing type', ds: withStrategy(undefined), want: ['spec.updateStrategy: Unsupported value: "": supported values: "RollingUpdate", "OnDelete"']},
    {name: 'RollingUpdate without parameters', ds: withStrategy({type: 'RollingUpdate'}), want: [`${P}: Required value`]},
  ];
  test.each(rows)('$name', ({ds, want}) => {
    expect(validateRollingUpdate(ds)).toEqual(want);
  });
});
