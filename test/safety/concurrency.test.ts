// Safety property 3: concurrent changes. A new template applied during a step stops it; 409 conflicts are retried
// from a fresh read (the pod is decided again, never deleted blindly); a node going NotReady mid-wave makes the
// wave smaller, never larger. The DELETE delay makes each window observable.
import {afterEach, expect, test, vi} from 'vitest';
import type {StepEvent} from '../../src/core/index.js';
import {RolloutStuckError} from '../../src/platform/errors.js';
import {type StepOptions, stepDaemonSet} from '../../src/services/step.js';
import {NAME, NAMESPACE, REF, type RolloutSim, startRolloutSim, Witness} from './rollout-sim.js';

// The simulated cluster runs in (sped-up) real time.
vi.setConfig({testTimeout: 30_000});

let sim: RolloutSim | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

function step(s: RolloutSim, events: StepEvent[], options: Partial<StepOptions> = {}) {
  return stepDaemonSet({session: s.session, ref: REF, timeoutMs: 15_000, tickMs: 50, onEvent: (e) => events.push(e), ...options});
}

function deletesInFlight(s: RolloutSim) {
  return s.test.cluster.requestLog.filter({verb: 'delete', resource: 'pods', status: 0});
}

test('a template applied during a step stops it, and nothing more is deleted', async () => {
  sim = await startRolloutSim({nodes: 6, maxUnavailable: 2});
  const witness = new Witness(sim);
  sim.test.cluster.delay({verb: 'delete', resource: 'pods', ms: 300});
  const events: StepEvent[] = [];
  const running = step(sim, events, {untilComplete: true});
  await sim.until(() => deletesInFlight(sim!).length === 1, 10_000, 'the first DELETE in flight');
  sim.setImage('agent:v3');
  const error = await running.catch((e: unknown) => e);
  witness.stop();
  expect(error).toBeInstanceOf(RolloutStuckError);
  expect((error as Error).message).toBe(
    'the template of daemonset default/agent changed during the step (template generation 2 -> 3): stopped; pods deleted so far come back with the new template. Look at the new revision (kubectl ds-plan), then step again',
  );
  // The DELETE in flight landed (it was decided before the edit); no other one was sent.
  expect(sim.test.cluster.requestLog.filter({verb: 'delete', resource: 'pods'})).toHaveLength(1);
  expect(witness.max.count).toBeLessThanOrEqual(2);
  expect(sim.daemonSet().spec.updateStrategy?.type).toBe('OnDelete');
});

test('409s are retried from a fresh read: a pod that changed is decided again; the DaemonSet patch too', async () => {
  sim = await startRolloutSim({nodes: 4, maxUnavailable: 1});
  const {store, requestLog} = sim.test.cluster;
  // The set-up's pause may itself have been retried after a conflict with the controller's status write: only
  // the step's own requests are counted.
  requestLog.clear();
  const undoPatchDelay = sim.test.cluster.delay({verb: 'patch', resource: 'daemonsets', ms: 200});
  const undoDeleteDelay = sim.test.cluster.delay({verb: 'delete', resource: 'pods', ms: 200});
  const events: StepEvent[] = [];
  const running = step(sim, events);

  // The lease patch (the step's first write) is in flight: someone annotates the DaemonSet (new resourceVersion).
  await sim.until(
    () => {
      const patches = requestLog.filter({verb: 'patch', resource: 'daemonsets'});
      return patches.length === 1 && patches[0]!.status === 0;
    },
    10_000,
    'the lease patch in flight',
  );
  store.modify('daemonsets', NAMESPACE, NAME, (ds) => ({...ds, metadata: {...ds.metadata, annotations: {...ds.metadata.annotations, owner: 'team-a'}}}));
  undoPatchDelay();
  // The DELETE is in flight: the kubelet (say) updates the pod (new resourceVersion).
  await sim.until(() => deletesInFlight(sim!).length === 1, 10_000, 'the DELETE in flight');
  const target = deletesInFlight(sim)[0]!.name!;
  store.modify('pods', NAMESPACE, target, (pod) => ({...pod, metadata: {...pod.metadata, labels: {...pod.metadata.labels, touched: 'yes'}}}));
  undoDeleteDelay();
  const result = await running;

  const deletes = requestLog.filter({verb: 'delete', resource: 'pods'});
  expect(deletes.map((e) => [e.name, e.status])).toEqual([
    [target, 409],
    [target, 200],
  ]);
  expect(events.filter((e) => e.kind === 'retry').map((e) => (e as {what: string}).what)).toEqual([`delete pod ${target}`]);
  expect(result.waves[0]!.deleted.map((d) => d.pod)).toEqual([target]);
  // The lease: 409, then 200 from a fresh read; then the record (and renewals, and the release).
  const patches = requestLog.filter({verb: 'patch', resource: 'daemonsets'}).map((e) => e.status);
  expect(patches.slice(0, 2)).toEqual([409, 200]);
  expect(patches.slice(2).every((status) => status === 200 || status === 409)).toBe(true);
  const annotations = sim.daemonSet().metadata.annotations!;
  expect(annotations).toMatchObject({owner: 'team-a', 'ds-rollout.io/step': expect.stringMatching(/^\{"step":1,"of":4,/)});
  expect(annotations['kubernetes.io/change-cause']).toBeUndefined();
});

test('a node that goes NotReady mid-wave does not make the step delete more', async () => {
  sim = await startRolloutSim({nodes: 5, maxUnavailable: 2});
  const witness = new Witness(sim);
  sim.test.cluster.delay({verb: 'delete', resource: 'pods', ms: 300});
  const events: StepEvent[] = [];
  const running = step(sim, events);
  await sim.until(() => deletesInFlight(sim!).length === 1, 10_000, 'the first DELETE in flight');
  const node5Pod = sim.pods().find((p) => p.spec.nodeName === 'node-5')!.metadata.name;
  sim.test.cluster.kubelets!.setNodeReady('node-5', false);
  const result = await running;
  witness.stop();

  const wave = result.waves[0]!;
  expect(wave.planned.map((d) => d.node)).toEqual(['node-1', 'node-2']);
  expect(wave.deleted.map((d) => d.node)).toEqual(['node-1']);
  expect(wave.kept).toMatchObject([
    {
      node: 'node-2',
      why: expect.stringMatching(/^the budget no longer allows it \(maxUnavailable 2, 2 unavailable: node-1: .*; node-5: old pod .* is not ready/),
    },
  ]);
  // node-5's unready pod is not the step's to delete (it was not in the wave shown), whatever upstream would do.
  expect(witness.deleted).toEqual([wave.deleted[0]!.pod]);
  expect(sim.pods().some((p) => p.metadata.name === node5Pod && !p.metadata.deletionTimestamp)).toBe(true);
  expect(witness.max.count).toBeLessThanOrEqual(2);
});
