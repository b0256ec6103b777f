// What `step`'s flags ask for, decided without a cluster: the gated and detached forms, the contradictions (one
// usage line each), the node scope, and whether to ask; and the line a server dry run adds.
import {describe, expect, test} from 'vitest';
import {UsageError} from '../../src/platform/errors.js';
import {renderServerDryRun} from '../../src/output/step-text.js';
import {type StepFlags, stepRequest} from '../../src/cli/step-request.js';

const BASE: StepFlags = {controller: false, 'dry-run': 'none', yes: true};

describe('stepRequest', () => {
  test('plain waves: the node list trimmed, the selector parsed, no question with --yes', () => {
    expect(stepRequest({...BASE, nodes: ' node-1, ,node-2 ', selector: 'zone=a'}, false)).toEqual({
      kind: 'waves',
      nodes: ['node-1', 'node-2'],
      selector: {matchLabels: {zone: 'a'}},
      ask: false,
      dryRun: false,
    });
    expect(stepRequest({...BASE, yes: false}, true)).toEqual({kind: 'waves', ask: true, dryRun: false});
    expect(stepRequest({...BASE, yes: false, 'dry-run': 'server'}, false)).toEqual({kind: 'waves', ask: false, dryRun: true});
  });

  test('gated and detached gated rollouts', () => {
    expect(stepRequest({...BASE, canary: '2'}, false)).toEqual({kind: 'gated'});
    expect(stepRequest({...BASE, canary: '2', detach: true}, false)).toEqual({kind: 'gated-detached'});
    expect(stepRequest({...BASE, yes: false, 'dry-run': 'client', canary: '2', detach: true}, false)).toEqual({kind: 'gated-detached'});
    expect(stepRequest({...BASE, yes: false, 'dry-run': 'client', canary: '2'}, false)).toEqual({kind: 'gated'});
  });

  test.each<[string, Partial<StepFlags>, boolean, string]>([
    [
      'no terminal to ask on',
      {yes: false},
      false,
      'refusing to delete pods without confirmation: there is no terminal to ask on; pass --yes, or --dry-run to only look',
    ],
    ['an empty --nodes', {nodes: ' , '}, true, '--nodes needs at least one node name'],
    [
      '--controller with a scope',
      {controller: true, nodes: 'a'},
      true,
      '--controller runs the recorded strategy as the controller does: it takes no --max-unavailable, --nodes or --selector',
    ],
    [
      '--detach without stages',
      {detach: true},
      true,
      '--detach runs a gated rollout in the cluster: give its stages (--canary, --canary-nodes, --strategy, ...)',
    ],
    ['a gated rollout without --yes', {canary: '2', yes: false}, true, 'a gated rollout runs its stages unattended: pass --yes (or --dry-run to only look)'],
    [
      'a gated rollout with --nodes',
      {canary: '2', nodes: 'a'},
      true,
      'a gated rollout (--canary, --strategy, ...) chooses its own nodes: it takes no --controller, --nodes or --selector',
    ],
    [
      'a detached one without --yes',
      {canary: '2', detach: true, yes: false},
      true,
      'a detached gated rollout runs its stages unattended: pass --yes (or --dry-run=client -o yaml to see the Job)',
    ],
  ])('refused: %s', (_name, flags, terminal, message) => {
    const attempt = () => stepRequest({...BASE, ...flags}, terminal);
    expect(attempt).toThrow(UsageError);
    expect(attempt).toThrow(message);
  });

  test('a selector that does not parse names the flag', () => {
    expect(() => stepRequest({...BASE, selector: 'a=(b'}, true)).toThrow(/^--selector: /);
  });
});

test('server dry run: what the API server accepted, nothing when nothing was sent', () => {
  expect(renderServerDryRun({deletions: 2, patches: 0})).toBe('The API server accepted the 2 deletions (server dry run: nothing was deleted).');
  expect(renderServerDryRun({deletions: 0, patches: 1})).toBe(
    'The API server accepted the resume for the controller wave (server dry run: nothing was changed).',
  );
  expect(renderServerDryRun({deletions: 0, patches: 0})).toBeUndefined();
});
