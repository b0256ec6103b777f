// The fleet's generated sequences (test/model/fleet-sequences.ts) on fixed seeds: pure, so hundreds run in a second;
// a failure prints fast-check's shrunk sequence of steps.
import fc from 'fast-check';
import {expect, test} from 'vitest';
import {FleetInvariantViolation, FleetModel, fleetSequencesHold} from './fleet-sequences.js';

test('500 generated fleet sequences (seed 27) keep every invariant', () => {
  const details = fc.check(fleetSequencesHold(), {seed: 27, numRuns: 500});
  expect(details.failed, fc.defaultReportMessage(details) ?? '').toBe(false);
});

test('the model itself: an unreachable first cluster holds the fleet; once it answers, two rounds complete it', () => {
  const model = new FleetModel(
    {
      namespace: 'default',
      name: 'agent',
      contexts: ['a', 'b'],
      waves: [1, 2],
      release: {images: {main: 'agent:v2'}},
      strategy: {canaryBakeMs: 0, waves: [], bakeMs: 0, approve: false, maxRestarts: 0, progressDeadlineMs: 1, onFailure: 'pause'},
    },
    new Set(),
  );
  model.apply({kind: 'unreachable', cluster: 0});
  expect(model.view().action).toEqual({kind: 'unreachable', wave: 0, contexts: ['a']});
  model.apply({kind: 'reachable', cluster: 0});
  model.apply({kind: 'round'});
  model.apply({kind: 'round'});
  expect(model.view().phase).toBe('complete');
});

test('the model itself: a driver that starts a cluster after the fleet failed breaks an invariant', () => {
  const plan = {
    namespace: 'default',
    name: 'agent',
    contexts: ['a', 'b'],
    waves: [1, 2],
    release: {images: {main: 'agent:v2'}},
    strategy: {canaryBakeMs: 0, waves: [], bakeMs: 0, approve: false, maxRestarts: 0, progressDeadlineMs: 1, onFailure: 'pause' as const},
  };
  const model = new FleetModel(plan, new Set([0]));
  model.apply({kind: 'round'});
  expect(model.view().phase).toBe('failed');
  model.apply({kind: 'round'});
  // A machine that would go on: the failed cluster's record taken for complete.
  model.clusters[0]!.gated = 'complete';
  expect(() => model.apply({kind: 'round'})).toThrow(FleetInvariantViolation);
});
