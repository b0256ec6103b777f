// The one error printer: every failure becomes one line and the contract's exit code.
import {Errors} from '@oclif/core';
import {describe, expect, test} from 'vitest';
import {describeFailure, joinTypeAndName, normalizeArgv} from '../../src/cli/base-command.js';
import {ClusterUnreachableError, InputError, NotFoundError, UsageError} from '../../src/platform/errors.js';
import {dryRunFlag, parseDaemonSetName, parseOutputFormat, parseRfc3339} from '../../src/cli/flags.js';
import {nearest} from '../../src/cli/suggest.js';

const HELP = 'kubectl ds-plan';

describe('describeFailure', () => {
  test.each([
    {name: 'an InputError', error: new InputError('s.yaml: line 3: bad indentation'), line: 's.yaml: line 3: bad indentation', exitCode: 1},
    {name: 'a NotFoundError', error: new NotFoundError('daemonset "x" not found'), line: 'daemonset "x" not found', exitCode: 1},
    {name: 'a UsageError', error: new UsageError('live mode needs a cluster'), line: 'live mode needs a cluster', exitCode: 1},
    {
      name: 'a ClusterError exits 2',
      error: new ClusterUnreachableError('cannot reach https://10.0.0.1:6443: connection refused'),
      line: 'cannot reach https://10.0.0.1:6443: connection refused',
      exitCode: 2,
    },
  ])('$name', ({error, line, exitCode}) => {
    expect(describeFailure(error, HELP)).toEqual({line, exitCode});
  });

  test('unwraps what oclif makes of an error thrown by a flag parser', () => {
    const error = new Error('invalid --now "x": want an RFC3339 time');
    error.message = `Parsing --now \n\t${error.message}\nSee more help with --help`;
    Object.assign(error, {oclif: {exit: 1}});
    expect(describeFailure(error, HELP)).toEqual({line: `invalid --now "x": want an RFC3339 time; see '${HELP} --help'`, exitCode: 1});
  });

  test.each([
    {name: 'a nonexistent flag', message: 'Nonexistent flag: --bogus\nSee more help with --help', line: 'unknown flag: --bogus'},
    {
      name: 'a missing argument',
      message: 'Missing 1 required arg:\nname  Name of the DaemonSet.\nSee more help with --help',
      args: [{name: 'name'}],
      line: 'missing required argument NAME',
    },
    {
      name: 'a failed validation',
      message: 'The following error occurred:\n  \u001B[2mAll of the following must be provided when using --x: --y\u001B[22m\nSee more help with --help',
      line: 'all of the following must be provided when using --x: --y',
    },
    {
      name: 'a bad option',
      message: 'Expected --output=xml to be one of: text, json, yaml\nSee more help with --help',
      line: 'expected --output=xml to be one of: text, json, yaml',
    },
  ])('oclif parse errors: $name', ({message, args, line}) => {
    const error = Object.assign(new Errors.CLIError(message, {exit: 1}), args ? {args} : {});
    expect(describeFailure(error, HELP)).toEqual({line: `${line}; see '${HELP} --help'`, exitCode: 1});
  });

  test('keeps acronyms capitalised', () => {
    expect(describeFailure(new Errors.CLIError('JSON flags clash', {exit: 1}), HELP).line).toBe(`JSON flags clash; see '${HELP} --help'`);
  });

  test('anything else is an internal error, exit 1, still one line', () => {
    expect(describeFailure(new TypeError("Cannot read properties of undefined (reading 'spec')\n    at x"), HELP)).toEqual({
      line: "internal error: Cannot read properties of undefined (reading 'spec'); at x (set DEBUG=1 for details)",
      exitCode: 1,
    });
    expect(describeFailure('a string', HELP)).toEqual({line: 'internal error: a string (set DEBUG=1 for details)', exitCode: 1});
  });
});

describe('parseRfc3339', () => {
  test.each([
    ['2026-11-21T12:00:00Z', Date.UTC(2026, 10, 21, 12)],
    ['2026-11-21T12:00:00.250Z', Date.UTC(2026, 10, 21, 12, 0, 0, 250)],
    ['2026-11-21T13:00:00+01:00', Date.UTC(2026, 10, 21, 12)],
    ['2026-11-21t12:00:00z', Date.UTC(2026, 10, 21, 12)],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
  ])('%s', async (input, expected) => {
    expect(await parseRfc3339(input)).toBe(expected);
  });

  // Date.parse rolls 2024-02-30 over into 1 March; Go's time.Parse refuses it, and so does --now.
  test.each([
    'yesterday',
    '2026-11-21',
    '2026-11-21T12:00:00',
    '2026-11-21 12:00:00Z',
    '2026-13-40T12:00:00Z',
    '1700000000',
    '2024-02-30T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-11-21T24:00:00Z',
    '2026-11-21T12:60:00Z',
    '2026-11-21T12:00:00+24:00',
  ])('rejects %s', async (input) => {
    await expect(parseRfc3339(input)).rejects.toThrow(`invalid --now "${input}": want an RFC3339 time such as 2026-11-21T12:00:00Z`);
  });
});

describe('normalizeArgv: pflag spellings oclif lacks', () => {
  const flags = {
    watch: {type: 'boolean', char: 'w', allowNo: true},
    'all-nodes': {type: 'boolean'},
    // The real definition: it carries what a bare --dry-run means.
    'dry-run': dryRunFlag,
    output: {type: 'option', char: 'o'},
  };
  test.each([
    [['--watch=false'], ['--no-watch']],
    [['-w=false'], ['--no-watch']],
    [['--watch=true'], ['--watch']],
    [['-w=1'], ['--watch']],
    [['--all-nodes=false'], []],
    [['--all-nodes=T'], ['--all-nodes']],
    [['--dry-run'], ['--dry-run=client']],
    [['--dry-run=server'], ['--dry-run=server']],
    [
      ['-o=json', 'x'],
      ['-o=json', 'x'],
    ],
    [
      ['--', '--watch=false'],
      ['--', '--watch=false'],
    ],
  ])('%j', (argv, expected) => {
    expect(normalizeArgv(argv, flags)).toEqual(expected);
  });

  test('a boolean with another value is a one-line error', () => {
    expect(() => normalizeArgv(['--watch=maybe'], flags)).toThrow('invalid argument "maybe" for "--watch" flag: want true or false');
  });
});

describe("joinTypeAndName: kubectl's TYPE NAME, as two words", () => {
  const flags = {
    watch: {type: 'boolean', char: 'w', allowNo: true},
    namespace: {type: 'option', char: 'n'},
    'dry-run': dryRunFlag,
    diff: {type: 'option', multiple: true},
  };
  test.each([
    [['daemonset', 'agent'], ['daemonset/agent']],
    [
      ['ds', 'agent', '-n', 'kube-system'],
      ['ds/agent', '-n', 'kube-system'],
    ],
    [
      ['-n', 'ds', 'daemonsets.apps', 'agent'],
      ['-n', 'ds', 'daemonsets.apps/agent'],
    ],
    [
      ['--namespace', 'ds', 'agent'],
      ['--namespace', 'ds', 'agent'],
    ],
    [
      ['--namespace=ds', 'DaemonSet', 'agent'],
      ['--namespace=ds', 'DaemonSet/agent'],
    ],
    [
      ['-w', 'ds', 'agent'],
      ['-w', 'ds/agent'],
    ],
    // A bare --dry-run takes no value: the next word is TYPE.
    [
      ['--dry-run', 'ds', 'agent'],
      ['--dry-run', 'ds/agent'],
    ],
    // One word is NAME, unless it is the DaemonSet TYPE alone: the whole collection, no NAME.
    [['agent'], ['agent']],
    [['ds'], []],
    [['ds/agent'], ['ds/agent']],
    [
      ['--', 'ds', 'agent'],
      ['--', 'ds/agent'],
    ],
    [
      ['-nds', 'ds', 'agent'],
      ['-nds', 'ds/agent'],
    ],
    // A flag with several values takes the words up to the next flag.
    [
      ['ds', 'agent', '--diff', '2', '3'],
      ['ds/agent', '--diff', '2', '3'],
    ],
    [
      ['--diff', '2', '3', '-w', 'agent'],
      ['--diff', '2', '3', '-w', 'agent'],
    ],
    // An unknown flag: the words are left as they are, for oclif to name the flag.
    [
      ['--stuk-after', '1s', 'ds', 'agent'],
      ['--stuk-after', '1s', 'ds', 'agent'],
    ],
    [[], []],
  ])('%j', (argv, expected) => {
    expect(joinTypeAndName(argv, flags)).toEqual(expected);
  });

  test('another TYPE is the one-line error TYPE/NAME gets', () => {
    expect(() => joinTypeAndName(['deployment', 'agent'], flags)).toThrow(
      '"deployment" is not a DaemonSet type: ds-rollout works on daemonsets (NAME, ds NAME, ds/NAME or daemonset.apps/NAME)',
    );
  });
});

describe('parseDaemonSetName', () => {
  test.each(['x', 'ds/x', 'daemonset/x', 'daemonsets/x', 'daemonset.apps/x', 'daemonsets.v1.apps/x', 'DS/x'])('%s', (input) => {
    expect(parseDaemonSetName(input)).toBe('x');
  });
  test.each([
    ['deploy/x', '"deploy/x" is not a DaemonSet: ds-rollout works on daemonsets (NAME, ds NAME, ds/NAME or daemonset.apps/NAME)'],
    ['ds.batch/x', '"ds.batch/x" is not a DaemonSet: ds-rollout works on daemonsets (NAME, ds NAME, ds/NAME or daemonset.apps/NAME)'],
    ['Fluentd', 'invalid DaemonSet name "Fluentd": want a lower-case DNS name such as fluentd'],
    [`{"items": [\n${'x'.repeat(1000)}`, 'invalid DaemonSet name "{"items": [...": want a lower-case DNS name such as fluentd'],
  ])('refuses %s', (input, message) => {
    expect(() => parseDaemonSetName(input)).toThrow(message);
  });
});

describe('parseOutputFormat and nearest', () => {
  test('jsonpath keeps its template, quotes dropped; other formats only when offered', () => {
    const offered = ['text', 'json', 'name', 'jsonpath'];
    expect(parseOutputFormat("jsonpath='{.kind}'", offered)).toBe('jsonpath={.kind}');
    expect(parseOutputFormat('name', offered)).toBe('name');
    expect(() => parseOutputFormat('wide', offered)).toThrow('allowed formats are: text, json, name, jsonpath=TEMPLATE');
    expect(() => parseOutputFormat('jsonpath=', offered)).toThrow('-o jsonpath= needs a template');
  });

  test('the nearest word within two edits, or a word the input starts', () => {
    expect(nearest('stats', ['status', 'step', 'history'])).toBe('status');
    expect(nearest('hist', ['status', 'history'])).toBe('history');
    expect(nearest('frobnicate', ['status', 'history'])).toBeUndefined();
  });
});
