// "Now" on a live cluster is the API server's clock, also during a long watch: a watch brings no Date header after
// it starts, so the clock follows the times written on the objects it delivers, and a wait that judges time alone
// (minReadySeconds) asks the server again. Before, a watch judged on this machine's elapsed time since its first
// list: on a server running faster (the simulated cluster at --speed 10, or here one whose clock the test moves) the
// dashboard and `status -w` saw pods "waiting out minReadySeconds" that a one-shot `status` saw available, and
// revisions created a minute ago read 0s.
import {afterEach, describe, expect, test} from 'vitest';
import {connectLiveCluster} from '../../src/cluster/live/index.js';
import {newestWrittenTime} from '../../src/cluster/live/server-time.js';
import type {DaemonSet} from '../../src/core/index.js';
import {historyService} from '../../src/services/history.js';
import {readStatusList} from '../../src/services/status-all.js';
import {statusService, watchStatus} from '../../src/services/status.js';
import {liveSession} from '../../src/cluster/session.js';
import {START, startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

const FLUENTD = {namespace: 'kube-system', name: 'fluentd'};
let t: TestCluster | undefined;

afterEach(async () => {
  await t?.stop();
  t = undefined;
});

function rollOut(cluster: TestCluster, image: string): void {
  cluster.cluster.store.modify('daemonsets', FLUENTD.namespace, FLUENTD.name, (raw) => {
    const ds = raw as unknown as DaemonSet;
    const container = {...ds.spec.template.spec.containers[0]!, image};
    return {...ds, spec: {...ds.spec, template: {...ds.spec.template, spec: {...ds.spec.template.spec, containers: [container]}}}} as never;
  });
}

describe('newestWrittenTime', () => {
  test('the newest of creation, managed-fields and condition times; never the deletion deadline', () => {
    const pod = {
      metadata: {
        creationTimestamp: '2026-11-21T12:00:00Z',
        deletionTimestamp: '2026-11-21T13:00:00Z',
        managedFields: [{time: '2026-11-21T12:00:05Z'}],
      },
      status: {conditions: [{lastTransitionTime: '2026-11-21T12:00:09Z'}, {lastHeartbeatTime: '2026-11-21T12:00:07Z'}]},
    };
    expect(newestWrittenTime(pod)).toBe(Date.parse('2026-11-21T12:00:09Z'));
    expect(newestWrittenTime({metadata: {}})).toBeNaN();
    expect(newestWrittenTime(null)).toBeNaN();
  });
});

describe('the session clock follows the server through a watch', () => {
  test('status -w reaches complete on the server clock (minReadySeconds 10), and agrees with a one-shot status', async () => {
    t = await startTestCluster({scenario: 'large', nodes: 6, kubelet: {startDelayMs: 30_000}});
    const cluster = t;
    const session = liveSession(connectLiveCluster({kubeconfig: cluster.kubeconfig}));
    let rolled = false;
    let clockWhenAllUpdated: number | undefined;
    rollOut(cluster, 'fluent/fluentd:v2');
    const done = watchStatus({
      follow: session.follow(FLUENTD),
      clock: session.clock,
      timeoutMs: 60_000,
      stuckAfterMs: 60_000,
      tickMs: 100,
      onReport: (report) => {
        // The pods' own events, not the DaemonSet's status (its watch may deliver first): all six updated pods seen.
        if (report.observedGeneration === 2 && report.counts.updated === 6) clockWhenAllUpdated ??= session.clock.now();
        // The first report came from the lists; now let ten simulated minutes pass at once.
        if (rolled) return;
        rolled = true;
        cluster.advance(600_000, 250);
      },
    });
    const result = await done;
    expect(result.outcome).toBe('complete');
    expect(result.report?.revisions.update.revision).toBe(2);
    // As soon as the watch delivered the last new pod, the clock had reached that pod's creation (the rollout took
    // simulated minutes; this machine, seconds): nothing waited for a probe's Date header.
    const created = cluster.cluster.store
      .list('pods', {namespace: FLUENTD.namespace})
      .items.map((pod) => Date.parse((pod as {metadata: {creationTimestamp: string}}).metadata.creationTimestamp));
    expect(Math.max(...created)).toBeGreaterThan(START + 60_000);
    expect(clockWhenAllUpdated).toBeGreaterThanOrEqual(Math.max(...created));
    // The clock the watch judged on is the server's (whole seconds: within one of it), not START plus real time.
    expect(session.clock.now()).toBeGreaterThan(cluster.cluster.clock.now() - 1500);
    const once = await statusService(session, {ref: FLUENTD});
    expect([once.verdict, once.counts]).toEqual([result.report!.verdict, result.report!.counts]);
    const list = await readStatusList(session, {namespace: 'kube-system'});
    expect(list.items.map((item) => item.verdict)).toEqual(['complete']);
    session.close();
  }, 90_000);

  test('history ages revisions on the server clock, not this machine', async () => {
    t = await startTestCluster({scenario: 'demo', agents: false});
    t.advance(3_600_000, 60_000);
    const session = liveSession(connectLiveCluster({kubeconfig: t.kubeconfig}));
    const {report} = await historyService(session, {ref: FLUENTD});
    // The demo's revisions were created at START; the server's clock reads START + 1 h (this machine's: days later).
    expect(report.revisions.map((r) => Math.round((r.ageSeconds ?? 0) / 60))).toEqual([60, 60]);
    expect(START).toBeLessThan(Date.now());
    session.close();
  });
});
