// LiveClusterWriter against the simulated cluster: resourceVersion preconditions, a conflict read again and
// decided again, the retry budget, delete preconditions, and dry runs that store nothing.
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {connectLiveCluster, type LiveCluster} from '../../../src/cluster/live/index.js';
import type {DaemonSet, Pod} from '../../../src/core/index.js';
import {ConflictError} from '../../../src/platform/errors.js';
import {startTestCluster, type TestCluster} from '../../helpers/sim-cluster.js';

const REF = {namespace: 'kube-system', name: 'fluentd'};
let t: TestCluster;
let live: LiveCluster;

beforeAll(async () => {
  t = await startTestCluster({scenario: 'demo', agents: false, logBodies: true});
  live = connectLiveCluster({kubeconfig: t.kubeconfig});
});

afterAll(async () => {
  await t.stop();
});

function stored(): DaemonSet {
  return t.cluster.store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet;
}

/** A concurrent writer: another client changes the DaemonSet between our read and our patch. */
function touchDaemonSet(value: string): void {
  t.cluster.store.modify('daemonsets', 'kube-system', 'fluentd', (ds) => ({
    ...ds,
    metadata: {...ds.metadata, labels: {...ds.metadata.labels, touched: value}},
  }));
}

describe('patchDaemonSet', () => {
  test('sends the resourceVersion it read as a precondition (strategic merge patch)', async () => {
    const before = stored().metadata.resourceVersion;
    const result = await live.writer.patchDaemonSet(REF, () => ({type: 'strategic', body: {metadata: {annotations: {note: 'one'}}}}));
    expect(result).toMatchObject({applied: true, attempts: 1});
    expect(result.after.metadata.annotations?.['note']).toBe('one');
    const patch = t.cluster.requestLog.filter({verb: 'patch', resource: 'daemonsets'}).at(-1)!;
    expect(patch.contentType).toBe('application/strategic-merge-patch+json');
    expect(JSON.parse(patch.body!)).toEqual({metadata: {annotations: {note: 'one'}, resourceVersion: before}});
  });

  test('a conflict is read again and decided again', async () => {
    const seen: string[] = [];
    const result = await live.writer.patchDaemonSet(REF, (current) => {
      seen.push(current.metadata.labels?.['touched'] ?? '-');
      if (seen.length === 1) touchDaemonSet('by-someone-else');
      return {type: 'strategic', body: {metadata: {annotations: {note: `saw ${current.metadata.labels?.['touched'] ?? '-'}`}}}};
    });
    expect(seen).toEqual(['-', 'by-someone-else']);
    expect(result.attempts).toBe(2);
    expect(stored().metadata.annotations?.['note']).toBe('saw by-someone-else');
    expect(
      t.cluster.requestLog
        .filter({verb: 'patch', resource: 'daemonsets'})
        .slice(-2)
        .map((e) => e.status),
    ).toEqual([409, 200]);
  });

  test('nothing to do: no patch is sent', async () => {
    const patches = t.cluster.requestLog.countMatching({verb: 'patch'});
    const result = await live.writer.patchDaemonSet(REF, () => undefined);
    expect(result.applied).toBe(false);
    expect(t.cluster.requestLog.countMatching({verb: 'patch'})).toBe(patches);
  });

  test('the retry budget: a DaemonSet that keeps changing is left alone, with a clear error', async () => {
    let n = 0;
    const error = await live.writer
      .patchDaemonSet(REF, () => {
        touchDaemonSet(String(++n));
        return {type: 'merge', body: {metadata: {annotations: {note: 'never'}}}};
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as Error).message).toBe(
      'cannot patch daemonset fluentd in namespace kube-system: it changed 5 times while being updated; nothing was changed, try again',
    );
    expect(stored().metadata.annotations?.['note']).not.toBe('never');
  });

  test('dry run: answered, not stored', async () => {
    const rv = t.cluster.store.resourceVersion;
    const result = await live.writer.patchDaemonSet(REF, () => ({type: 'merge', body: {metadata: {annotations: {note: 'dry'}}}}), {dryRun: true});
    expect(result.after.metadata.annotations?.['note']).toBe('dry');
    expect(t.cluster.store.resourceVersion).toBe(rv);
  });
});

describe('deletePod', () => {
  test('deletes only the same pod in the same version', async () => {
    const pod = (t.cluster.store.list('pods', {namespace: 'kube-system'}).items as Pod[]).find((p) => p.metadata.name.startsWith('fluentd-'))!;
    const stale = await live.writer.deletePod('kube-system', pod.metadata.name, {uid: 'another-uid'}).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ConflictError);
    expect(t.cluster.store.get('pods', 'kube-system', pod.metadata.name)?.metadata.deletionTimestamp).toBeUndefined();
    await live.writer.deletePod('kube-system', pod.metadata.name, {uid: pod.metadata.uid!, resourceVersion: pod.metadata.resourceVersion});
    expect(t.cluster.store.get('pods', 'kube-system', pod.metadata.name)?.metadata.deletionTimestamp ?? 'gone').toBeTruthy();
  });
});
