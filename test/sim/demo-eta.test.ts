// The ETA on the demo cluster (manual clock): it rests only on transitions that finished, so it holds while
// nothing changes (the pod stuck terminating on the NotReady worker-13 does not feed it), and the planned waves
// come within 20% of when the controller's waves really come.
import {afterEach, describe, expect, it} from 'vitest';
import {finishedDeletions, observePodTimings, planRollout, type ClusterState, type DaemonSet, type Pod} from '../../src/core/index.js';
import {ManualClock, startSimulatedCluster, type SimulatedCluster} from '../../src/sim/index.js';

let cluster: SimulatedCluster | undefined;
afterEach(async () => cluster?.stop());

function stateOf(c: SimulatedCluster): ClusterState {
  return {
    daemonSet: c.store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet,
    nodes: c.store.list('nodes').items as never,
    pods: c.store.list('pods', {namespace: 'kube-system'}).items as unknown as Pod[],
    revisions: c.store.list('controllerrevisions', {namespace: 'kube-system'}).items as never,
  };
}

describe('the demo ETA', () => {
  it('holds over five minutes of unchanged state, and the planned waves come when the real ones do', async () => {
    const clock = new ManualClock();
    cluster = await startSimulatedCluster({clock, scenario: 'demo', agents: true});
    const t0 = clock.now();
    const first = stateOf(cluster);
    const plan = planRollout(first, {now: t0, timings: observePodTimings(first, {now: t0})});

    // The controller's deletions as they happen, and the deletions a watcher sees finish (state to state).
    const deletedAt: number[] = [];
    cluster.store.subscribe(
      (event) => {
        const pod = event.object as unknown as Pod;
        const began = event.type === 'MODIFIED' && pod.metadata.deletionTimestamp !== undefined && event.oldObject?.metadata.deletionTimestamp === undefined;
        if (began && pod.metadata.name.startsWith('fluentd') && deletedAt.at(-1) !== clock.now()) deletedAt.push(clock.now());
      },
      {resource: 'pods'},
    );
    const finished: number[] = [];
    let previous = first;
    let atMinute: {state: ClusterState; now: number} | undefined;
    for (let step = 1; step <= 600; step++) {
      clock.advance(100);
      const next = stateOf(cluster);
      finished.push(...finishedDeletions(previous.pods, next.pods, next.nodes, clock.now()));
      previous = next;
      if (step === 300) atMinute = {state: next, now: clock.now()};
    }

    // Waves that delete: planned against real, within 20% (or a second: timestamps have one-second resolution).
    const planned = plan.waves.filter((wave) => wave.delete.length > 0).map((wave) => wave.at);
    const actual = deletedAt.map((at) => (at - t0) / 1000);
    expect(actual.length, `planned ${planned.join(', ')}; actual ${actual.join(', ')}`).toBeGreaterThanOrEqual(4);
    for (let i = 0; i < 4; i++) {
      expect(Math.abs(planned[i]! - actual[i]!), `wave ${i + 1}: planned +${planned[i]}s, actual +${actual[i]}s`).toBeLessThanOrEqual(
        Math.max(0.2 * actual[i]!, 1),
      );
    }

    // Half a minute in, fluentd-z8wsd is stuck terminating on worker-13; the same state judged over five minutes.
    const {state, now} = atMinute!;
    expect(state.pods.some((pod) => pod.spec.nodeName === 'worker-13' && pod.metadata.deletionTimestamp)).toBe(true);
    const seen = finished.filter((_, i) => i < finished.length);
    const etas = [0, 1, 2, 3, 4, 5].map((minutes) => {
      const at = now + minutes * 60_000;
      const timed = planRollout(state, {now: at, timings: observePodTimings(state, {now: at, deletions: seen})});
      // Deletions from the ones that finished (the kubelet stops a pod in half a second), never the stuck one.
      expect(timed.timing!.podDeletion).toMatchObject({seconds: 0.5, basis: 'observed'});
      return timed.timing!.etaSeconds;
    });
    expect(etas[0]).toBeDefined();
    for (const eta of etas) expect(Math.abs(eta! - etas[0]!), `ETAs over five minutes: ${etas.join(', ')}`).toBeLessThanOrEqual(0.2 * etas[0]!);
  });
});
