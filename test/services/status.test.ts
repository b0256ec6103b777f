// The status service against the simulated cluster (through the live adapter): kubectl's message, the verdict
// (complete / progressing / stuck) and the per-node reasons, once and while following watches.
import {afterEach, describe, expect, test} from 'vitest';
import {clockFrom, fixedClock} from '../../src/platform/clock.js';
import {connectLiveCluster} from '../../src/cluster/live/index.js';
import type {DaemonSet} from '../../src/core/index.js';
import {kubectlStatusMessage, rolloutStatusOf, statusService, watchStatus} from '../../src/services/status.js';
import {liveClock} from '../../src/cluster/session.js';
import {START, startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

const FLUENTD = {namespace: 'kube-system', name: 'fluentd'};
let t: TestCluster | undefined;

afterEach(async () => {
  await t?.stop();
  t = undefined;
});

async function report(cluster: TestCluster, ref = FLUENTD) {
  const live = connectLiveCluster({kubeconfig: cluster.kubeconfig});
  return statusService({source: live.source, clock: cluster.clock ? fixedClock(cluster.clock.now()) : liveClock(live)}, {ref});
}

function patchDaemonSet(cluster: TestCluster, ref: {namespace: string; name: string}, change: (ds: DaemonSet) => DaemonSet): void {
  cluster.cluster.store.modify('daemonsets', ref.namespace, ref.name, (ds) => change(ds as unknown as DaemonSet) as never);
}

describe('statusService', () => {
  test('a rollout in progress: kubectl message, what is in flight, every node with a reason', async () => {
    t = await startTestCluster({scenario: 'demo'});
    const r = await report(t);
    expect(r.message).toBe('Waiting for daemon set "fluentd" rollout to finish: 6 out of 18 new pods have been updated...');
    expect(r.verdict).toBe('progressing');
    expect(r.detail).toBe('1 pod is terminating');
    expect(r.counts).toEqual({updated: 6, waiting: 12, blocked: 0, 'not-eligible': 2});
    expect(r.nodes.find((n) => n.name === 'worker-09')).toMatchObject({
      state: 'waiting',
      reason: expect.stringMatching(/^old pod, deleted in wave \d+ of \d+$/),
    });
    expect(r.nodes.find((n) => n.name === 'worker-07')).toMatchObject({state: 'not-eligible', reason: 'taint dedicated=gpu:NoSchedule is not tolerated'});
    expect(r.nodes.find((n) => n.name === 'worker-13')).toMatchObject({state: 'not-eligible', conditions: ['NotReady']});
  });

  test('stuck: a crashing new pod and a pod stuck Terminating on a NotReady node use the whole budget', async () => {
    t = await startTestCluster({scenario: 'demo'});
    t.advance(120_000, 250);
    const r = await report(t);
    expect(r.verdict).toBe('stuck');
    expect(r.detail).toBe('no progress is possible without a change: 2 of 2 maxUnavailable in use (worker-13, worker-17)');
    const blocked = r.nodes.filter((n) => n.state === 'blocked');
    expect(blocked.map((n) => n.name)).toEqual(['worker-13', 'worker-17']);
    expect(blocked[0]!.reason).toMatch(/^node NotReady; pod fluentd-\w+ is stuck terminating \(node not Ready\): it uses the budget$/);
    expect(blocked[1]!.reason).toMatch(/^pod fluentd-\w+ on worker-17 is not ready \(CrashLoopBackOff\)$/);
    expect(r.nodes.filter((n) => n.state === 'waiting').map((n) => n.reason)).toEqual([
      'old pod, waiting for the budget',
      'old pod, waiting for the budget',
      'old pod, waiting for the budget',
    ]);
  });

  test('complete: the controller says so and the plan agrees', async () => {
    t = await startTestCluster({scenario: 'large', nodes: 5});
    const r = await report(t);
    expect(r).toMatchObject({verdict: 'complete', message: 'daemon set "fluentd" successfully rolled out', detail: '5 of 5 nodes run revision 1'});
  });

  test('a spec the controller has not observed yet is in flight', async () => {
    t = await startTestCluster({scenario: 'large', nodes: 3, agents: false});
    patchDaemonSet(t, FLUENTD, (ds) => ({...ds, spec: {...ds.spec, minReadySeconds: 0}}));
    const r = await report(t);
    expect(r.message).toBe('Waiting for daemon set spec update to be observed...');
    expect(r.verdict).toBe('progressing');
    expect(r.detail).toContain('the controller has not yet observed generation');
  });

  test('OnDelete: nothing moves until pods are deleted (kubectl refuses to say)', async () => {
    t = await startTestCluster({scenario: 'large', nodes: 3});
    patchDaemonSet(t, FLUENTD, (ds) => ({
      ...ds,
      spec: {
        ...ds.spec,
        updateStrategy: {type: 'OnDelete'},
        template: {...ds.spec.template, spec: {...ds.spec.template.spec, containers: [{...ds.spec.template.spec.containers[0]!, image: 'fluent/fluentd:v2'}]}},
      },
    }));
    t.advance(1000);
    const r = await report(t);
    expect(r.verdict).toBe('stuck');
    expect(r.detail).toBe('OnDelete: the controller replaces an old pod only after someone deletes it');
    expect(r.message).toBe('Waiting for daemon set "fluentd" rollout to finish: 0 out of 3 new pods have been updated...');
  });

  test('kubectl message thresholds', () => {
    const state = (status: object, generation = 2) =>
      ({daemonSet: {metadata: {name: 'x', generation}, spec: {template: {spec: {containers: []}}}, status}, nodes: [], pods: [], revisions: []}) as never;
    expect(kubectlStatusMessage(state({observedGeneration: 2, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 2})).message).toBe(
      'Waiting for daemon set "x" rollout to finish: 2 of 3 updated pods are available...',
    );
    expect(kubectlStatusMessage(state({observedGeneration: 2, desiredNumberScheduled: 0})).done).toBe(true);
    expect(kubectlStatusMessage(state({observedGeneration: 1})).message).toBe('Waiting for daemon set spec update to be observed...');
  });
});

describe('watchStatus', () => {
  test('follows a rollout through watches until it completes', async () => {
    t = await startTestCluster({scenario: 'large', nodes: 6, speed: 40, kubelet: {startDelayMs: 1000, stopDelayMs: 200}});
    const live = connectLiveCluster({kubeconfig: t.kubeconfig});
    const clock = t.cluster.clock;
    const messages: string[] = [];
    const done = watchStatus({
      follow: (handlers) => live.watch(FLUENTD, handlers),
      clock: clockFrom(() => clock.now()),
      timeoutMs: 20_000,
      stuckAfterMs: 0,
      tickMs: 100,
      onReport: (r) => messages.push(r.message),
    });
    patchDaemonSet(t, FLUENTD, (ds) => ({
      ...ds,
      spec: {
        ...ds.spec,
        template: {...ds.spec.template, spec: {...ds.spec.template.spec, containers: [{...ds.spec.template.spec.containers[0]!, image: 'fluent/fluentd:v2'}]}},
      },
    }));
    const result = await done;
    expect(result.outcome).toBe('complete');
    expect(result.report?.revisions.update.revision).toBe(2);
    expect(messages.at(-1)).toBe('daemon set "fluentd" successfully rolled out');
    expect(messages.some((m) => m.includes('new pods have been updated'))).toBe(true);
    // Watches, not polling: after the first lists, nothing but watch requests.
    const reads = t.cluster.requestLog.entries.filter((e) => e.verb === 'list' || e.verb === 'get').length;
    expect(reads).toBe(4);
  }, 30_000);

  test('ends with stuck once nothing can move, and with timeout while something still does', async () => {
    t = await startTestCluster({scenario: 'demo'});
    t.advance(120_000, 250);
    const live = connectLiveCluster({kubeconfig: t.kubeconfig});
    const clock = t.clock!;
    const stuck = await watchStatus({follow: (h) => live.watch(FLUENTD, h), clock: clockFrom(() => clock.now()), stuckAfterMs: 0});
    expect(stuck.outcome).toBe('stuck');
    const nodeExporter = {namespace: 'monitoring', name: 'node-exporter'};
    patchDaemonSet(t, nodeExporter, (ds) => ({...ds, spec: {...ds.spec, minReadySeconds: 30}}));
    const timeout = await watchStatus({follow: (h) => live.watch(nodeExporter, h), clock: clockFrom(() => clock.now()), stuckAfterMs: 0, timeoutMs: 3_000});
    expect(timeout.outcome).toBe('timeout');
    expect(timeout.report?.detail).toBe('the controller has not yet observed generation 2');
  });

  test('the report is pure: the same state and instant give the same report', async () => {
    t = await startTestCluster({scenario: 'demo', agents: false});
    const live = connectLiveCluster({kubeconfig: t.kubeconfig});
    const state = await live.source.readState(FLUENTD);
    expect(rolloutStatusOf(state, START)).toEqual(rolloutStatusOf(state, START));
  });
});
