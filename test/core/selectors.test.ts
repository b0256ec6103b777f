import {describe, expect, test} from 'vitest';
import {SelectorError} from '../../src/core/selectors.js';
import {
  formatLabelSelector,
  isEmptyLabelSelector,
  isValidLabelKey,
  isValidLabelValue,
  labelSelectorMatches,
  parseLabelSelector,
} from '../../src/core/selectors.js';
import type {LabelSelector} from '../../src/core/types.js';

describe('labelSelectorMatches', () => {
  const rows: {name: string; selector: LabelSelector | undefined; labels: Record<string, string> | undefined; want: boolean}[] = [
    {name: 'undefined selector matches nothing', selector: undefined, labels: {a: 'b'}, want: false},
    {name: 'empty selector matches everything', selector: {}, labels: {a: 'b'}, want: true},
    {name: 'empty selector matches unlabelled objects', selector: {}, labels: undefined, want: true},
    {name: 'matchLabels all equal', selector: {matchLabels: {a: 'b', c: 'd'}}, labels: {a: 'b', c: 'd', e: 'f'}, want: true},
    {name: 'matchLabels one differs', selector: {matchLabels: {a: 'b', c: 'd'}}, labels: {a: 'b', c: 'x'}, want: false},
    {name: 'matchLabels key missing', selector: {matchLabels: {a: 'b'}}, labels: {}, want: false},
    {name: 'matchLabels empty value needs the key', selector: {matchLabels: {a: ''}}, labels: {}, want: false},
    {name: 'matchLabels empty value present', selector: {matchLabels: {a: ''}}, labels: {a: ''}, want: true},
    {name: 'In', selector: {matchExpressions: [{key: 'a', operator: 'In', values: ['x', 'y']}]}, labels: {a: 'y'}, want: true},
    {name: 'In, other value', selector: {matchExpressions: [{key: 'a', operator: 'In', values: ['x', 'y']}]}, labels: {a: 'z'}, want: false},
    {name: 'In, key absent', selector: {matchExpressions: [{key: 'a', operator: 'In', values: ['x']}]}, labels: {}, want: false},
    {name: 'NotIn, other value', selector: {matchExpressions: [{key: 'a', operator: 'NotIn', values: ['x']}]}, labels: {a: 'y'}, want: true},
    {name: 'NotIn, listed value', selector: {matchExpressions: [{key: 'a', operator: 'NotIn', values: ['x']}]}, labels: {a: 'x'}, want: false},
    {name: 'NotIn, key absent', selector: {matchExpressions: [{key: 'a', operator: 'NotIn', values: ['x']}]}, labels: {}, want: true},
    {name: 'Exists', selector: {matchExpressions: [{key: 'a', operator: 'Exists'}]}, labels: {a: ''}, want: true},
    {name: 'Exists, absent', selector: {matchExpressions: [{key: 'a', operator: 'Exists'}]}, labels: {b: 'a'}, want: false},
    {name: 'DoesNotExist', selector: {matchExpressions: [{key: 'a', operator: 'DoesNotExist'}]}, labels: {b: 'x'}, want: true},
    {name: 'DoesNotExist, present', selector: {matchExpressions: [{key: 'a', operator: 'DoesNotExist'}]}, labels: {a: 'x'}, want: false},
    {name: 'unknown operator matches nothing', selector: {matchExpressions: [{key: 'a', operator: 'Gt', values: ['1']}]}, labels: {a: '5'}, want: false},
    {name: 'In without values matches nothing', selector: {matchExpressions: [{key: 'a', operator: 'In', values: []}]}, labels: {a: 'x'}, want: false},
    {name: 'NotIn without values matches nothing', selector: {matchExpressions: [{key: 'a', operator: 'NotIn'}]}, labels: {}, want: false},
    {
      name: 'matchLabels and expressions ANDed',
      selector: {matchLabels: {app: 'web'}, matchExpressions: [{key: 'canary', operator: 'DoesNotExist'}]},
      labels: {app: 'web', canary: 'true'},
      want: false,
    },
    {name: 'inherited property names are not labels', selector: {matchExpressions: [{key: 'constructor', operator: 'Exists'}]}, labels: {}, want: false},
  ];
  test.each(rows)('$name', ({selector, labels, want}) => {
    expect(labelSelectorMatches(selector, labels)).toBe(want);
  });
});

describe('isEmptyLabelSelector', () => {
  const rows: {name: string; selector: LabelSelector | undefined; want: boolean}[] = [
    {name: '{}', selector: {}, want: true},
    {name: 'empty matchLabels and expressions', selector: {matchLabels: {}, matchExpressions: []}, want: true},
    {name: 'undefined selects nothing, so it is not "empty"', selector: undefined, want: false},
    {name: 'one label', selector: {matchLabels: {a: 'b'}}, want: false},
    {name: 'one expression', selector: {matchExpressions: [{key: 'a', operator: 'Exists'}]}, want: false},
  ];
  test.each(rows)('$name', ({selector, want}) => {
    expect(isEmptyLabelSelector(selector)).toBe(want);
  });
});

describe('formatLabelSelector', () => {
  const rows: {name: string; selector: LabelSelector | undefined; want: string}[] = [
    {name: 'undefined', selector: undefined, want: ''},
    {name: 'empty', selector: {}, want: ''},
    {name: 'matchLabels sorted by key', selector: {matchLabels: {name: 'fluentd', app: 'logging'}}, want: 'app=logging,name=fluentd'},
    {
      name: 'every operator, sorted by key',
      selector: {
        matchLabels: {a: 'b'},
        matchExpressions: [
          {key: 'e', operator: 'Exists'},
          {key: 'd', operator: 'DoesNotExist'},
          {key: 'c', operator: 'In', values: ['y', 'x']},
          {key: 'f', operator: 'NotIn', values: ['z']},
        ],
      },
      want: 'a=b,c in (x,y),!d,e,f notin (z)',
    },
    {name: 'values de-duplicated', selector: {matchExpressions: [{key: 'c', operator: 'In', values: ['x', 'x']}]}, want: 'c in (x)'},
    {name: 'prefixed keys', selector: {matchLabels: {'app.kubernetes.io/name': 'x'}}, want: 'app.kubernetes.io/name=x'},
    {
      name: 'same key: matchLabels before expressions',
      selector: {matchLabels: {a: 'b'}, matchExpressions: [{key: 'a', operator: 'Exists'}]},
      want: 'a=b,a',
    },
  ];
  test.each(rows)('$name', ({selector, want}) => {
    expect(formatLabelSelector(selector)).toBe(want);
  });

  const invalid: {name: string; selector: LabelSelector}[] = [
    {name: 'unknown operator', selector: {matchExpressions: [{key: 'a', operator: 'Gt', values: ['1']}]}},
    {name: 'In without values', selector: {matchExpressions: [{key: 'a', operator: 'In', values: []}]}},
    {name: 'Exists with values', selector: {matchExpressions: [{key: 'a', operator: 'Exists', values: ['x']}]}},
    {name: 'invalid key', selector: {matchLabels: {'a b': 'c'}}},
    {name: 'invalid value', selector: {matchLabels: {a: 'b c'}}},
  ];
  test.each(invalid)('rejects $name', ({selector}) => {
    expect(() => formatLabelSelector(selector)).toThrow(SelectorError);
  });
});

describe('parseLabelSelector', () => {
  const rows: {name: string; text: string; want: LabelSelector}[] = [
    {name: 'empty string selects everything', text: '', want: {}},
    {name: 'whitespace only', text: '   ', want: {}},
    {name: 'equality', text: 'a=b', want: {matchLabels: {a: 'b'}}},
    {name: 'double equals', text: 'a==b', want: {matchLabels: {a: 'b'}}},
    {name: 'not equals', text: 'a!=b', want: {matchExpressions: [{key: 'a', operator: 'NotIn', values: ['b']}]}},
    {name: 'in', text: 'a in (x,y)', want: {matchExpressions: [{key: 'a', operator: 'In', values: ['x', 'y']}]}},
    {name: 'notin with spaces', text: 'a notin ( x , y )', want: {matchExpressions: [{key: 'a', operator: 'NotIn', values: ['x', 'y']}]}},
    {name: 'exists', text: 'a', want: {matchExpressions: [{key: 'a', operator: 'Exists'}]}},
    {name: 'does not exist', text: '!a', want: {matchExpressions: [{key: 'a', operator: 'DoesNotExist'}]}},
    {name: 'empty value', text: 'a=', want: {matchLabels: {a: ''}}},
    {name: 'empty slot in a set', text: 'a in (x,)', want: {matchExpressions: [{key: 'a', operator: 'In', values: ['x', '']}]}},
    {name: 'repeated equality key becomes In', text: 'a=b,a=c', want: {matchLabels: {a: 'b'}, matchExpressions: [{key: 'a', operator: 'In', values: ['c']}]}},
    {
      name: 'combined, with prefixed key',
      text: 'app.kubernetes.io/name=web, tier in (fe,be),!canary,env',
      want: {
        matchLabels: {'app.kubernetes.io/name': 'web'},
        matchExpressions: [
          {key: 'tier', operator: 'In', values: ['fe', 'be']},
          {key: 'canary', operator: 'DoesNotExist'},
          {key: 'env', operator: 'Exists'},
        ],
      },
    },
  ];
  test.each(rows)('$name', ({text, want}) => {
    expect(parseLabelSelector(text)).toEqual(want);
  });

  const garbage = [
    'a=b,',
    ',a',
    'a in x',
    'a in ()',
    'a in (x',
    'a in (x y)',
    'a b',
    'a=b=c',
    '!',
    '!a=b',
    '=b',
    'a>1',
    'a<1',
    'a b c',
    'in (x)',
    'a in (x) b',
    'a b=c',
    'bad key=1',
    'a=b c',
    'a=-x-',
    '(a)',
  ];
  test.each(garbage.map((text) => ({name: JSON.stringify(text), text})))('rejects $name', ({text}) => {
    expect(() => parseLabelSelector(text)).toThrow(SelectorError);
  });

  const roundTrips = ['a=b', 'a=b,c in (x,y),!d,e', 'a notin (x),b=', 'x.io/k in (1,2,3),y', ''];
  test.each(roundTrips.map((text) => ({name: JSON.stringify(text), text})))('round-trips $name', ({text}) => {
    expect(formatLabelSelector(parseLabelSelector(text))).toBe(text);
  });

  test('parsed selector matches like the text says', () => {
    const selector = parseLabelSelector('app=web,tier notin (db),!canary');
    expect(labelSelectorMatches(selector, {app: 'web', tier: 'fe'})).toBe(true);
    expect(labelSelectorMatches(selector, {app: 'web', tier: 'db'})).toBe(false);
    expect(labelSelectorMatches(selector, {app: 'web', canary: '1'})).toBe(false);
  });
});

describe('label syntax', () => {
  const keys: {name: string; key: string; want: boolean}[] = [
    {name: 'simple', key: 'app', want: true},
    {name: 'prefixed', key: 'app.kubernetes.io/name', want: true},
    {name: 'upper case name', key: 'GPU', want: true},
    {name: 'space', key: 'invalid key', want: false},
    {name: 'empty', key: '', want: false},
    {name: 'empty prefix', key: '/name', want: false},
    {name: 'upper case prefix', key: 'Example.com/name', want: false},
    {name: 'two slashes', key: 'a/b/c', want: false},
    {name: '63-char name', key: 'a'.repeat(63), want: true},
    {name: '64-char name', key: 'a'.repeat(64), want: false},
    {name: 'leading dash', key: '-a', want: false},
  ];
  test.each(keys)('key $name', ({key, want}) => {
    expect(isValidLabelKey(key)).toBe(want);
  });
  const values: {name: string; value: string; want: boolean}[] = [
    {name: 'empty', value: '', want: true},
    {name: 'digits with leading zero', value: '0204', want: true},
    {name: 'negative number', value: '-1', want: false},
    {name: 'punctuation', value: 'invalid value: ___@#$%^', want: false},
    {name: '64 chars', value: 'a'.repeat(64), want: false},
  ];
  test.each(values)('value $name', ({value, want}) => {
    expect(isValidLabelValue(value)).toBe(want);
  });
});
