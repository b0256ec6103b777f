// The plan's wave times against a whole rollout on the simulated cluster (manual clock, default 2 s pod start,
// 0.5 s stop): the plan made at the start, from durations observed on the cluster's own pods, puts every sync
// that changes something within 20% of when the controller made it, and the ETA within 20% of completion.
import {afterEach, describe, expect, it} from 'vitest';
import {observePodTimings, planRollout, prepareDaemonSetUpdate, type DaemonSet, type Pod} from '../../src/core/index.js';
import {ManualClock, startSimulatedCluster, type SimulatedCluster} from '../../src/sim/index.js';

let cluster: SimulatedCluster | undefined;
afterEach(async () => cluster?.stop());

const NODES = 40;

function withImage(ds: DaemonSet, image: string): DaemonSet {
  const [first, ...rest] = ds.spec.template.spec.containers;
  return {...ds, spec: {...ds.spec, template: {...ds.spec.template, spec: {...ds.spec.template.spec, containers: [{...first!, image}, ...rest]}}}};
}

describe('planned wave times on the simulated cluster', () => {
  it('are within 20% of the controller’s syncs for a whole rollout (maxUnavailable 2, minReadySeconds 10)', async () => {
    const clock = new ManualClock();
    cluster = await startSimulatedCluster({clock, agents: true, scenario: 'large', scenarioOptions: {nodes: NODES}});
    const store = cluster.store;
    clock.advance(1000);
    const start = clock.now();

    // The plan made at the start: the new template as the API server will store it, on the cluster as it is.
    const current = store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet;
    const next = prepareDaemonSetUpdate(current, withImage(current, 'fluent/fluentd:v1.17.0'));
    const state = {
      daemonSet: next,
      nodes: store.list('nodes').items as never,
      pods: store.list('pods', {namespace: 'kube-system'}).items as unknown as Pod[],
      revisions: store.list('controllerrevisions', {namespace: 'kube-system'}).items as never,
    };
    const timings = observePodTimings(state, {now: start});
    expect(timings.podStart).toEqual({ms: 2000, basis: 'observed', observations: NODES});
    const plan = planRollout(state, {now: start, timings});
    expect(plan.converges).toBe(true);

    // When the controller acted: instants at which it created or began deleting daemon pods.
    const acted: number[] = [];
    store.subscribe(
      (event) => {
        const pod = event.object as unknown as Pod;
        const created = event.type === 'ADDED';
        const deleting = event.type === 'MODIFIED' && pod.metadata.deletionTimestamp !== undefined && event.oldObject?.metadata.deletionTimestamp === undefined;
        if ((created || deleting) && acted[acted.length - 1] !== clock.now()) acted.push(clock.now());
      },
      {resource: 'pods'},
    );
    store.modify('daemonsets', 'kube-system', 'fluentd', (object) => withImage(object as DaemonSet, 'fluent/fluentd:v1.17.0'));
    let completedAt: number | undefined;
    for (let step = 0; step < 20_000 && completedAt === undefined; step++) {
      clock.advance(100);
      const status = (store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet).status;
      if (status?.observedGeneration === next.metadata.generation && status?.updatedNumberScheduled === NODES && status?.numberAvailable === NODES) {
        completedAt = clock.now();
      }
    }
    expect(completedAt).toBeDefined();

    const actual = acted.map((at) => (at - start) / 1000);
    const planned = plan.waves.map((wave) => wave.at);
    expect(actual).toHaveLength(planned.length);
    // Within 20%, or within a second for the first few (timestamps, and so observed durations, have one-second resolution).
    planned.forEach((at, index) => {
      const real = actual[index]!;
      expect(Math.abs(at - real), `wave ${index + 1}: planned +${at}s, actual +${real}s`).toBeLessThanOrEqual(Math.max(0.2 * real, 1));
    });
    expect(Math.abs(planned.at(-1)! - actual.at(-1)!)).toBeLessThanOrEqual(0.2 * actual.at(-1)!);
    const took = (completedAt! - start) / 1000;
    expect(Math.abs(plan.timing!.etaSeconds! - took), `ETA ${plan.timing!.etaSeconds}s, took ${took}s`).toBeLessThanOrEqual(0.2 * took);
  });

  it('without observations, the plan assumes the stated default and says so', async () => {
    const clock = new ManualClock();
    cluster = await startSimulatedCluster({clock, scenario: 'large', scenarioOptions: {nodes: 3}});
    const store = cluster.store;
    const ds = store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet;
    // Pods whose Ready condition is missing say nothing about how long a start takes.
    const pods = (store.list('pods', {namespace: 'kube-system'}).items as unknown as Pod[]).map((pod) => ({...pod, status: {phase: 'Pending'}}));
    const state = {daemonSet: ds, nodes: store.list('nodes').items as never, pods, revisions: []};
    expect(observePodTimings(state, {now: clock.now()}).podStart).toEqual({ms: 10_000, basis: 'assumed', observations: 0});
    expect(observePodTimings(state, {now: clock.now(), podStartMs: 4000}).podStart).toEqual({ms: 4000, basis: 'given', observations: 0});
  });
});
