// `status -A` in-process: the list service against the simulated cluster through the live adapter, once and
// followed through the watches (one list per resource, then only watches), judged on the session's clock.
import {afterEach, describe, expect, test} from 'vitest';
import {connectLiveCluster} from '../../src/cluster/live/index.js';
import type {DaemonSet} from '../../src/core/index.js';
import {readStatusList, runStatusList, statusListExit} from '../../src/services/status-all.js';
import {liveSession} from '../../src/cluster/session.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

let t: TestCluster | undefined;

afterEach(async () => {
  await t?.stop();
  t = undefined;
});

describe('status -A', () => {
  test('every DaemonSet of every namespace, sorted, each judged by the core; the exit code is the worst verdict', async () => {
    t = await startTestCluster({scenario: 'demo'});
    t.advance(120_000, 250);
    const session = liveSession(connectLiveCluster({kubeconfig: t.kubeconfig}));
    const report = await readStatusList(session, {namespace: undefined});
    expect(report.items.map((item) => [`${item.daemonSet.namespace}/${item.daemonSet.name}`, item.verdict])).toEqual([
      ['kube-system/fluentd', 'stuck'],
      ['monitoring/node-exporter', 'complete'],
    ]);
    expect(report.verdict).toBe('stuck');
    expect(statusListExit(report)).toBe(3);
    expect(report.items[0]!.blocker).toMatch(/CrashLoopBackOff|stuck terminating/);
    // One list per resource, however many DaemonSets.
    const lists = t.cluster.requestLog.entries.filter((e) => e.verb === 'list').map((e) => e.resource);
    expect(lists.sort()).toEqual(['controllerrevisions', 'daemonsets', 'nodes', 'pods']);
    session.close();
  });

  test('followed: a rollout that the cluster finishes ends the watch complete, with lists only at the start', async () => {
    t = await startTestCluster({scenario: 'large', nodes: 4});
    const cluster = t;
    cluster.cluster.store.modify('daemonsets', 'kube-system', 'fluentd', (raw) => {
      const ds = raw as unknown as DaemonSet;
      const containers = ds.spec.template.spec.containers.map((c) => ({...c, image: 'fluent/fluentd:v2'}));
      return {...ds, spec: {...ds.spec, template: {...ds.spec.template, spec: {...ds.spec.template.spec, containers}}}} as never;
    });
    const session = liveSession(connectLiveCluster({kubeconfig: cluster.kubeconfig}));
    const verdicts: string[] = [];
    const run = await runStatusList(session, {
      namespace: undefined,
      watch: true,
      timeoutMs: 60_000,
      stuckAfterMs: 60_000,
      onReport: (report) => {
        // The first report came from the lists; then ten simulated minutes pass at once.
        if (verdicts.length === 0) cluster.advance(600_000, 250);
        verdicts.push(report.verdict);
      },
    });
    expect(verdicts[0]).toBe('progressing');
    expect([run.report.verdict, run.exitCode, run.failure]).toEqual(['complete', 0, undefined]);
    expect(run.report.items[0]!.revisions).toEqual({current: 2, update: 2});
    const lists = cluster.cluster.requestLog.entries.filter((e) => e.verb === 'list');
    expect(lists).toHaveLength(4);
    session.close();
  }, 90_000);
});
