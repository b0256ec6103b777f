// History and undo against the simulated cluster: kubectl's revision rules and rollback choice, the preview
// (restarts from the plan, the renumbering), the single patch, the change-cause on the reused revision, and a conflict retried.
import {afterEach, describe, expect, test} from 'vitest';
import {fixedClock} from '../../src/platform/clock.js';
import {connectLiveCluster, type FollowHandlers} from '../../src/cluster/live/index.js';
import type {ControllerRevision, DaemonSet} from '../../src/core/index.js';
import {controlledRevisions, findRevision, historyService} from '../../src/services/history.js';
import {applyUndo, previewUndo, undoTarget} from '../../src/services/undo.js';
import {toRevisionEntries} from '../../src/services/dashboard/revision-entries.js';
import {START, startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

const FLUENTD = {namespace: 'kube-system', name: 'fluentd'};
let t: TestCluster | undefined;

afterEach(async () => {
  await t?.stop();
  t = undefined;
});

function revision(name: string, n: number, owner: string | undefined, labels: Record<string, string> = {name: 'fluentd'}): ControllerRevision {
  return {
    metadata: {name, labels, ...(owner ? {ownerReferences: [{apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'fluentd', uid: owner, controller: true}]} : {})},
    revision: n,
    data: {spec: {template: {$patch: 'replace', metadata: {labels}, spec: {containers: [{name: 'c', image: `img:${n}`}]}}}},
  };
}

const DS = {
  metadata: {name: 'fluentd', uid: 'u1'},
  spec: {selector: {matchLabels: {name: 'fluentd'}}, template: {spec: {containers: []}}},
} as unknown as DaemonSet;

describe('kubectl rules', () => {
  test('history: controlled by the DaemonSet and matching its selector, one per number (the later wins), sorted', () => {
    const revisions = [
      revision('r3', 3, 'u1'),
      revision('r1', 1, 'u1'),
      revision('other-owner', 2, 'u2'),
      revision('orphan', 4, undefined),
      revision('released', 5, 'u1', {name: 'x'}),
      revision('r1-dup', 1, 'u1'),
    ];
    expect(controlledRevisions(DS, revisions).map((r) => r.metadata.name)).toEqual(['r1-dup', 'r3']);
    expect(() => findRevision(controlledRevisions(DS, revisions), 2)).toThrow('unable to find the specified revision 2');
  });

  test("the dashboard's revision pane lists exactly history's revisions (one rule, in the core)", () => {
    const revisions = [
      revision('r3', 3, 'u1'),
      revision('other-owner', 2, 'u2'),
      revision('released', 5, 'u1', {name: 'x'}),
      revision('r1', 1, 'u1'),
      revision('r1-dup', 1, 'u1'),
    ];
    expect(toRevisionEntries(DS, revisions).map((entry) => entry.name)).toEqual(controlledRevisions(DS, revisions).map((r) => r.metadata.name));
    expect(toRevisionEntries(DS, revisions).map((entry) => [entry.revision, entry.hash])).toEqual([
      [1, 'r1-dup'],
      [3, 'r3'],
    ]);
    // A DaemonSet read without a uid (a hand-written snapshot) owns the revisions a DaemonSet of its name controls.
    const noUid = {...DS, metadata: {name: 'fluentd'}} as DaemonSet;
    expect(controlledRevisions(noUid, revisions).map((r) => r.metadata.name)).toEqual(['r1-dup', 'other-owner', 'r3']);
  });

  test('undo target: the second highest by default, the exact number otherwise', () => {
    const revisions = controlledRevisions(DS, [revision('a', 1, 'u1'), revision('b', 4, 'u1'), revision('c', 2, 'u1')]);
    expect(undoTarget(revisions, 0).metadata.name).toBe('c');
    expect(undoTarget(revisions, 1).metadata.name).toBe('a');
    expect(() => undoTarget(revisions, 3)).toThrow('unable to find specified revision 3 in history');
    expect(() => undoTarget(revisions, -1)).toThrow('unable to find specified revision -1 in history');
    expect(() => undoTarget(revisions.slice(0, 1), 0)).toThrow('no last revision to roll back to');
  });
});

describe('history and undo on a live cluster', () => {
  test('history: hash, images, pods per revision, the current one', async () => {
    t = await startTestCluster({scenario: 'demo'});
    const live = connectLiveCluster({kubeconfig: t.kubeconfig});
    const {report} = await historyService({source: live.source, clock: fixedClock(START + 3_600_000)}, {ref: FLUENTD});
    expect(report.revisions.map((r) => [r.revision, r.images, r.pods, r.current, r.ageSeconds])).toEqual([
      [1, ['fluent/fluentd:v1.16.2'], 11, false, 3600],
      [2, ['fluent/fluentd:v1.17.0'], 6, true, 3600],
    ]);
  });

  test('undo: the preview, then one patch; the controller renumbers the target, which then gets the change-cause', async () => {
    t = await startTestCluster({scenario: 'demo', logBodies: true});
    const live = connectLiveCluster({kubeconfig: t.kubeconfig});
    const preview = await previewUndo({source: live.source, clock: fixedClock(START)}, {ref: FLUENTD, toRevision: 0});
    expect(preview).toMatchObject({skipped: false, from: {revision: 2}, to: {revision: 1}, renumberedTo: 3, changeCause: 'ds-rollout undo to revision 1'});
    // The six nodes on revision 2 go back; the rest already run revision 1 (their pods count as updated again).
    expect(preview.restartNodes).toEqual(['worker-01', 'worker-02', 'worker-03', 'worker-04', 'worker-05', 'worker-06']);

    const rv = t.cluster.store.resourceVersion;
    // The simulated controller runs on the test's clock: waiting for the renumbering moves it.
    const follow = (handlers: FollowHandlers) => live.watch(FLUENTD, handlers);
    // The controller moves once the rollback is in (a sync racing the patch would make it a conflict retried).
    const generation = t.cluster.store.get('daemonsets', 'kube-system', 'fluentd')!.metadata.generation;
    const patched = () => t!.cluster.store.get('daemonsets', 'kube-system', 'fluentd')!.metadata.generation !== generation;
    const result = await t.driveUntil(applyUndo(live.writer, preview, {follow}), {when: patched});
    expect(result).toMatchObject({applied: true, attempts: 1});
    // The renumbering was seen on the watch: the revision was never read (polled) on its own.
    expect(t.cluster.requestLog.filter({verb: 'get', resource: 'controllerrevisions'})).toHaveLength(0);
    expect(t.cluster.requestLog.filter({verb: 'patch', resource: 'controllerrevisions'})).toHaveLength(1);
    const patches = t.cluster.requestLog.filter({verb: 'patch', resource: 'daemonsets'});
    expect(patches).toHaveLength(1);
    const body = JSON.parse(patches[0]!.body!) as {spec: {template: {$patch: string}}; metadata: Record<string, unknown>};
    expect(body.spec.template.$patch).toBe('replace');
    // No change-cause on the DaemonSet: the controller would copy it into the next revision it creates.
    expect(body.metadata).toEqual({resourceVersion: expect.any(String)});
    expect(Number(t.cluster.store.resourceVersion)).toBeGreaterThan(Number(rv));
    // It goes onto the reused revision once the controller has renumbered it.
    expect(result.recorded).toEqual({revision: 3, renumbered: true});

    t.advance(1000);
    const {report} = await historyService({source: live.source, clock: fixedClock(START)}, {ref: FLUENTD});
    expect(report.revisions.map((r) => [r.revision, r.images[0], r.current, r.changeCause])).toEqual([
      [2, 'fluent/fluentd:v1.17.0', false, undefined],
      [3, 'fluent/fluentd:v1.16.2', true, 'ds-rollout undo to revision 1'],
    ]);
    const again = await previewUndo({source: live.source, clock: fixedClock(START)}, {ref: FLUENTD, toRevision: 3});
    expect(again.skipped).toBe(true);
  });

  test('undo retries a conflicting concurrent change from a fresh read', async () => {
    t = await startTestCluster({scenario: 'demo', agents: false});
    const live = connectLiveCluster({kubeconfig: t.kubeconfig});
    const preview = await previewUndo({source: live.source, clock: fixedClock(START)}, {ref: FLUENTD, toRevision: 1});
    // Someone else writes between our read and our patch: the first patch gets 409.
    const writer = live.writer;
    const original = writer.client.get.bind(writer.client);
    let reads = 0;
    writer.client.get = (async (...args: Parameters<typeof original>) => {
      const value = await original(...args);
      if (++reads === 1)
        t!.cluster.store.modify('daemonsets', 'kube-system', 'fluentd', (ds) => ({
          ...ds,
          metadata: {...ds.metadata, labels: {...ds.metadata.labels, touched: 'yes'}},
        }));
      return value;
    }) as typeof original;
    // No controller runs here, so nothing renumbers: the wait ends at its (short) bound and the cause goes on anyway.
    const follow = (handlers: FollowHandlers) => live.watch(FLUENTD, handlers);
    const result = await applyUndo(writer, preview, {follow, renumberTimeoutMs: 1});
    expect(result).toMatchObject({applied: true, attempts: 2, recorded: {revision: 1, renumbered: false}});
    const ds = t.cluster.store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet;
    expect(ds.metadata.labels?.['touched']).toBe('yes');
    expect(ds.spec.template.spec.containers[0]!.image).toBe('fluent/fluentd:v1.16.2');
  });

  test('dry run changes nothing', async () => {
    t = await startTestCluster({scenario: 'demo', agents: false});
    const live = connectLiveCluster({kubeconfig: t.kubeconfig});
    const rv = t.cluster.store.resourceVersion;
    const preview = await previewUndo({source: live.source, clock: fixedClock(START)}, {ref: FLUENTD, toRevision: 0});
    const result = await applyUndo(live.writer, preview, {dryRun: true});
    expect(result.after.spec.template.spec.containers[0]!.image).toBe('fluent/fluentd:v1.16.2');
    expect(t.cluster.store.resourceVersion).toBe(rv);
  });
});
