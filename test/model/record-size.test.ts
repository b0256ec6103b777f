// The gated record stays under 4 KiB at 15,000 nodes whatever the flags (issue 26): generated strategies, long
// --canary-nodes lists and label selectors among them, many waves, up to 200 gate failures with long names, and
// (issue 31) every stage node troubled at the stage's start and long gate readings, planned by planGatedStages and
// written by formatGatedRecord as the rollout writes them.
import fc from 'fast-check';
import {expect, test} from 'vitest';
import {
  type ClusterState,
  type DaemonSet,
  type GatedRecord,
  type GatedStrategy,
  formatGatedRecord,
  nodeBaselineOf,
  planGatedStages,
  recordedFailures,
  recordedReadings,
  startRecordTooLarge,
} from '../../src/core/index.js';
import {newDaemonSet, newNodes, newPod, newRevision} from '../helpers/builders.js';

const NODES = 15_000;
const LIMIT = 4096;
const base = newDaemonSet('agent', {maxUnavailable: 1});
const ds: DaemonSet = {
  ...base,
  spec: {...base.spec, template: {...base.spec.template, spec: {...base.spec.template.spec, containers: [{name: 'main', image: 'a:2'}]}}},
};
// Node names as clouds make them (ip-10-0-1-2.eu-west-1.compute.internal): the long ones are the realistic ones.
const nodes = newNodes(NODES, 'ip-10-0-0-0.eu-west-1.compute.internal-');
const names = nodes.map((n) => n.metadata.name);
const state: ClusterState = {
  daemonSet: ds,
  nodes,
  pods: names.map((node, i) => newPod(`old-${i}`, node, ds, {hash: 'h1'})),
  revisions: [newRevision(base, 'h1', 1), newRevision(ds, 'h2', 2)],
};

// A run of consecutive names: a list as long as 2,000 nodes that still shrinks fast (two integers).
const chosenNodes = fc
  .record({first: fc.integer({min: 0, max: NODES - 1}), count: fc.integer({min: 1, max: 2000})})
  .map(({first, count}) => names.slice(first, first + count));
const canary = fc.oneof(
  fc.record({kind: fc.constant('count' as const), count: fc.integer({min: 1, max: NODES})}),
  fc.record({kind: fc.constant('percent' as const), percent: fc.integer({min: 1, max: 100})}),
  fc.record({kind: fc.constant('nodes' as const), nodes: chosenNodes}),
  chosenNodes.map((picked) => ({kind: 'selector' as const, selector: `kubernetes.io/hostname in (${picked.join(',')})`})),
);
const strategy: fc.Arbitrary<GatedStrategy> = fc.record({
  canary: fc.option(canary, {nil: undefined}),
  canaryBakeMs: fc.integer({min: 0, max: 86_400_000}),
  // Cumulative percentages, as the strategy file takes them.
  waves: fc.integer({min: 0, max: 100}).map((count) => Array.from({length: count}, (_, i) => Math.ceil(((i + 1) * 100) / count))),
  bakeMs: fc.integer({min: 0, max: 86_400_000}),
  approve: fc.boolean(),
  maxRestarts: fc.integer({min: 0, max: 1000}),
  progressDeadlineMs: fc.integer({min: 1000, max: 86_400_000}),
  onFailure: fc.constantFrom('pause' as const, 'undo' as const),
}) as fc.Arbitrary<GatedStrategy>;
// Failures with a long pod name and the longest reason the gate writes (a failing wait with its restarts).
const failures = fc.integer({min: 0, max: 200}).map((count) =>
  Array.from({length: count}, (_, i) => ({
    pod: `agent-${'x'.repeat(50)}-${String(i).padStart(5, '0')}`,
    node: names[i]!,
    reason: `CreateContainerConfigError (${2_147_483_647 - i} restarts)`,
  })),
);

// A strategy whose record would not fit (about 40 waves, or a long --canary-nodes list or selector) is refused with
// a clear message before anything is written; every other one stays under 4 KiB with any failures, its stage's
// troubled nodes and its gates' readings.
const troubledAtStart = nodeBaselineOf(0, names);
const readings = recordedReadings(
  ['pod', 'node', 'neighbour', 'metric', 'metric', 'metric'].map((gate, i) => ({
    gate: gate as 'pod',
    name: `gate-${i}-${'n'.repeat(200)}`,
    value: 'v'.repeat(500),
    bound: 'b'.repeat(500),
    verdict: 'inconclusive' as const,
  })),
);
test('the record of any strategy on 15,000 nodes, with any failures, stays under 4 KiB or is refused at its start', {timeout: 300_000}, () => {
  fc.assert(
    fc.property(
      strategy,
      failures,
      fc.option(fc.oneof(fc.integer({min: 1, max: NODES}), fc.constant('100%')), {nil: undefined}),
      (chosen, failed, maxUnavailable) => {
        let stages;
        try {
          stages = planGatedStages(state, chosen);
        } catch (error) {
          expect((error as Error).message).toMatch(/^the gated rollout's record would start at \d+ bytes/);
          return;
        }
        const record: GatedRecord = {
          template: 'h2',
          from: {revision: 1, hash: 'h1'},
          stages,
          stage: stages.length - 1,
          phase: failed.length > 0 ? 'failed' : 'baking',
          ...recordedFailures(failed),
          ...(failed.length > 0 ? {} : {bakeUntil: 8_640_000_000_000}),
          maxRestarts: chosen.maxRestarts,
          progressDeadlineMs: chosen.progressDeadlineMs,
          onFailure: chosen.onFailure,
          ...(maxUnavailable !== undefined ? {maxUnavailable} : {}),
          nodesTroubledAtStart: {...troubledAtStart, stage: stages.length - 1},
          readings,
        };
        const {nodesTroubledAtStart: _troubled, readings: _readings, ...started} = record;
        const refusal = startRecordTooLarge({...started, phase: 'rolling', stage: 0, failures: [], bakeUntil: undefined});
        if (refusal !== undefined) {
          expect(refusal).toMatch(/--canary-selector\), or use fewer waves$/);
          return;
        }
        const bytes = Buffer.byteLength(formatGatedRecord(record));
        expect(bytes, `${stages.length} stages, canary ${chosen.canary?.kind ?? 'none'}`).toBeLessThan(LIMIT);
      },
    ),
    {seed: 4096, numRuns: 200},
  );
});
