// Safety property 1: a step never makes more nodes unavailable than the budget, counting the nodes that are
// unavailable already (a NotReady node, a pod stuck terminating, a node whose pod is still being created) exactly
// as the controller counts them. The witness samples the store after every change during the whole rollout.
import {afterEach, expect, test, vi} from 'vitest';
import {stepDaemonSet} from '../../src/services/step.js';
import {makeNode} from '../../src/sim/index.js';
import {NAMESPACE, REF, type RolloutSim, startRolloutSim, Witness} from './rollout-sim.js';

// The simulated cluster runs in (sped-up) real time.
vi.setConfig({testTimeout: 30_000});

let sim: RolloutSim | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

test('never more unavailable than maxUnavailable, counting unavailable, missing and terminating pods', async () => {
  sim = await startRolloutSim({nodes: 8, maxUnavailable: 3, minReadySeconds: 2});
  const {store, kubelets} = sim.test.cluster;
  const podOn = (node: string) => sim!.pods().find((p) => p.spec.nodeName === node && !p.metadata.deletionTimestamp)!;

  // Unavailable already: node-8 stops reporting (its pod turns unready); node-7's pod is stuck terminating
  // (a finalizer holds it); a new node-9 joins and gets its pod from the controller (missing, then starting).
  kubelets!.setNodeReady('node-8', false);
  const stuck = podOn('node-7');
  store.modify('pods', NAMESPACE, stuck.metadata.name, (p) => ({...p, metadata: {...p.metadata, finalizers: ['example.com/hold']}}));
  store.delete('pods', NAMESPACE, stuck.metadata.name, {});
  store.create(makeNode('node-9', {index: 9}));
  await sim.until(() => podOn('node-8')?.status?.conditions?.some((c) => c.type === 'Ready' && c.status !== 'True') === true, 5_000, 'node-8 unready');

  const witness = new Witness(sim);
  const ours: string[] = [];
  const result = await stepDaemonSet({
    session: sim.session,
    ref: REF,
    untilComplete: true,
    timeoutMs: 15_000,
    tickMs: 50,
    onEvent: (e) => {
      if (e.kind === 'deleted') ours.push(e.node);
    },
  });
  witness.stop();

  expect(witness.max.count).toBeLessThanOrEqual(3);
  expect(witness.max.count).toBe(3); // the budget was used, not left idle
  expect(result).toMatchObject({outcome: 'done', oldLeft: 0});
  // node-8's unready old pod goes in the first wave (it uses no budget, as upstream); then the six available ones,
  // one at a time: node-7 and node-8 hold two of the three units for the whole rollout (node-9 a third while it
  // starts). On a busy machine node-9's pod may be available before the first wave, which then also takes node-1,
  // and node-8's pod may turn unready only between that wave's plan and its deletions: either order in that wave.
  expect(result.waves[0]!.deleted.map((d) => d.node)).toContain('node-8');
  expect([...ours].sort()).toEqual(['node-1', 'node-2', 'node-3', 'node-4', 'node-5', 'node-6', 'node-8']);
  expect(ours.slice(2)).toEqual(['node-2', 'node-3', 'node-4', 'node-5', 'node-6']);
  for (const wave of result.waves) expect(wave.deleted.filter((d) => d.available).length).toBeLessThanOrEqual(1);
  const images = sim.images();
  for (const node of ['node-1', 'node-2', 'node-3', 'node-4', 'node-5', 'node-6', 'node-9']) expect(images[node]).toEqual(['agent:v2']);
  expect(sim.daemonSet().spec.updateStrategy?.type).toBe('OnDelete');
  // Nothing was deleted that the step did not decide (the controller, paused, deletes nothing here).
  expect(witness.deleted).toHaveLength(7);
});
