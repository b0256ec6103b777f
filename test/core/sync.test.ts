// syncDaemonSet: manage, rolling update and status, with rows taken from upstream's
// daemon_controller_test.go and update_test.go (reworded; the expected counts are upstream's).
import {describe, expect, test} from 'vitest';
import {syncDaemonSet} from '../../src/core/index.js';
import type {ClusterState, DaemonSet, Node, Pod} from '../../src/core/types.js';
import {NOW, T0, newDaemonSet, newNode, newNodes, newPod, newRevision, withTaints, withTolerations} from '../helpers/builders.js';
import {FakeCluster, counts} from '../helpers/fake-cluster.js';

function state(ds: DaemonSet, nodes: Node[], pods: Pod[] = [], revisions = [newRevision(ds, 'h1', 1)]): ClusterState {
  return {daemonSet: ds, nodes, pods, revisions};
}

function withImage(ds: DaemonSet, image: string): DaemonSet {
  return {...ds, spec: {...ds.spec, template: {...ds.spec.template, spec: {...ds.spec.template.spec, containers: [{name: 'main', image}]}}}};
}

function withNodeSelector(ds: DaemonSet, nodeSelector: Record<string, string>): DaemonSet {
  return {...ds, spec: {...ds.spec, template: {...ds.spec.template, spec: {...ds.spec.template.spec, nodeSelector}}}};
}

const strategies = [
  {name: 'RollingUpdate maxUnavailable 1', ds: () => newDaemonSet('foo')},
  {name: 'RollingUpdate maxSurge 1', ds: () => newDaemonSet('foo', {maxUnavailable: 0, maxSurge: 1})},
  {name: 'OnDelete', ds: () => newDaemonSet('foo', {type: 'OnDelete'})},
];

describe.each(strategies)('manage with $name', ({ds: makeDs}) => {
  test('launches a pod on every node', () => {
    const r = syncDaemonSet(state(makeDs(), newNodes(5)), {now: NOW});
    expect(counts(r)).toEqual([5, 0]);
    expect(r.actions.create.map((c) => c.node)).toEqual(['node-0', 'node-1', 'node-2', 'node-3', 'node-4']);
  });

  test('does nothing without nodes', () => {
    expect(counts(syncDaemonSet(state(makeDs(), []), {now: NOW}))).toEqual([0, 0]);
  });

  test('keeps the oldest of several pods and fills empty nodes', () => {
    const ds = makeDs();
    const nodes = newNodes(4);
    const pods = [
      newPod('a-1', 'node-1', ds, {hash: 'h1'}),
      newPod('b-2', 'node-2', ds, {hash: 'h1', created: '2026-11-21T11:00:05Z'}),
      newPod('a-2', 'node-2', ds, {hash: 'h1'}),
      newPod('c-3', 'node-3', ds, {hash: 'h1'}),
      newPod('b-3', 'node-3', ds, {hash: 'h1'}),
    ];
    const r = syncDaemonSet(state(ds, nodes, pods), {now: NOW});
    expect(r.manage.create.map((c) => c.node)).toEqual(['node-0']);
    // Without surge the extra pods are "surplus"; with surge two old pods on a node are "surge-extra".
    expect(r.manage.delete.map((d) => d.pod)).toEqual(['b-2', 'c-3']);
  });

  test('deletes pods from nodes the selector no longer picks', () => {
    const ds = withNodeSelector(makeDs(), {disk: 'ssd'});
    const nodes = [newNode('n1', {disk: 'ssd'}), newNode('n2'), newNode('n3', {disk: 'ssd'})];
    const pods = [newPod('p2', 'n2', ds, {hash: 'h1'}), newPod('p3', 'n3', ds, {hash: 'h1'})];
    const r = syncDaemonSet(state(ds, nodes, pods), {now: NOW});
    expect(r.manage.create).toEqual([{node: 'n1'}]);
    expect(r.manage.delete).toMatchObject([{pod: 'p2', node: 'n2', reason: 'not-eligible'}]);
  });

  test('does not touch a pod on a node that gained a NoSchedule taint', () => {
    const ds = makeDs();
    const nodes = [
      withTaints(newNode('n1'), {key: 'dedicated', value: 'gpu', effect: 'NoSchedule'}),
      withTaints(newNode('n2'), {key: 'dedicated', effect: 'NoSchedule'}),
    ];
    const r = syncDaemonSet(state(ds, nodes, [newPod('p1', 'n1', ds, {hash: 'h1'})]), {now: NOW});
    expect(r.manage).toEqual({create: [], delete: []});
    expect(r.status).toMatchObject({desiredNumberScheduled: 0, numberMisscheduled: 1});
  });

  test('evicts daemon pods from a node with an untolerated NoExecute taint', () => {
    const ds = makeDs();
    const nodes = [withTaints(newNode('n1'), {key: 'dedicated', effect: 'NoExecute'})];
    const pods = [newPod('p1', 'n1', ds, {hash: 'h1'}), newPod('p2', 'n1', ds, {hash: 'h1', phase: 'Failed', ready: false})];
    const r = syncDaemonSet(state(ds, nodes, pods), {now: NOW});
    expect(r.manage.delete.map((d) => [d.pod, d.reason])).toEqual([
      ['p1', 'not-eligible'],
      ['p2', 'not-eligible'],
    ]);
  });

  test('launches a pod on a node that tolerates the taint', () => {
    const ds = withTolerations(makeDs(), {key: 'dedicated', operator: 'Exists', effect: 'NoSchedule'});
    const nodes = [withTaints(newNode('n1'), {key: 'dedicated', value: 'gpu', effect: 'NoSchedule'})];
    expect(syncDaemonSet(state(ds, nodes), {now: NOW}).manage.create).toEqual([{node: 'n1'}]);
  });

  test('launches on a NotReady node carrying only the NoExecute not-ready taint (default toleration)', () => {
    const nodes = [withTaints(newNode('n1'), {key: 'node.kubernetes.io/not-ready', effect: 'NoExecute'})];
    expect(syncDaemonSet(state(makeDs(), nodes), {now: NOW}).manage.create).toEqual([{node: 'n1'}]);
  });

  test('does not launch on a real NotReady node (NoSchedule + NoExecute), but keeps its pod', () => {
    const ds = makeDs();
    const notReady = withTaints(
      newNode('n1'),
      {key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule'},
      {key: 'node.kubernetes.io/not-ready', effect: 'NoExecute'},
    );
    expect(syncDaemonSet(state(ds, [notReady]), {now: NOW}).manage.create).toEqual([]);
    expect(syncDaemonSet(state(ds, [notReady], [newPod('p1', 'n1', ds, {hash: 'h1'})]), {now: NOW}).manage.delete).toEqual([]);
  });

  test('launches on unschedulable (cordoned) nodes: only the taint would count, and it is tolerated by default', () => {
    const cordoned = {
      ...withTaints(newNode('n1'), {key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule'}),
      spec: {unschedulable: true, taints: [{key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule'}]},
    };
    expect(syncDaemonSet(state(makeDs(), [cordoned]), {now: NOW}).manage.create).toEqual([{node: 'n1'}]);
  });

  test('deletes an unscheduled pod whose node no longer exists, leaves a bound one to the pod GC', () => {
    const ds = makeDs();
    const pods = [newPod('unbound', 'gone', ds, {hash: 'h1', bound: false}), newPod('bound', 'gone-too', ds, {hash: 'h1'})];
    const r = syncDaemonSet(state(ds, [newNode('n1')], pods), {now: NOW});
    expect(r.manage.delete).toMatchObject([{pod: 'unbound', node: 'gone', reason: 'orphaned-unscheduled'}]);
    expect(r.status).toMatchObject({desiredNumberScheduled: 1, currentNumberScheduled: 0, numberMisscheduled: 0});
  });

  test('ignores pods controlled by another object and adopts matching orphans', () => {
    const ds = makeDs();
    const other = {...ds, metadata: {...ds.metadata, uid: 'other-uid', name: 'other'}};
    const pods = [newPod('foreign', 'n1', ds, {hash: 'h1', owner: other}), newPod('orphan', 'n2', ds, {hash: 'h1', owner: null})];
    const r = syncDaemonSet(
      state(
        ds,
        newNodes(3, 'n').map((n, i) => newNode(`n${i}`)),
        pods,
      ),
      {now: NOW},
    );
    expect(r.input!.adopt.map((p) => p.metadata.name)).toEqual(['orphan']);
    expect(r.manage.create.map((c) => c.node)).toEqual(['n0', 'n1']);
  });
});

describe('failed pods (TestDaemonKillFailedPods)', () => {
  test.each([
    {name: 'normal pod: nothing to do', failed: 0, normal: 1, creates: 0, deletes: 0, events: 0},
    {name: 'no pods: create one', failed: 0, normal: 0, creates: 1, deletes: 0, events: 0},
    {name: 'one failed pod: delete it, create in a later sync', failed: 1, normal: 0, creates: 0, deletes: 1, events: 1},
    {name: 'one failed and three normal pods: delete the failed one and two surplus', failed: 1, normal: 3, creates: 0, deletes: 3, events: 1},
    {name: 'two failed pods: the second waits out the backoff', failed: 2, normal: 1, creates: 0, deletes: 1, events: 1},
  ])('$name', ({failed, normal, creates, deletes, events}) => {
    const ds = newDaemonSet('foo');
    const pods = [
      ...Array.from({length: failed}, (_, i) => newPod(`failed-${i}`, 'n1', ds, {hash: 'h1', phase: 'Failed', ready: false})),
      ...Array.from({length: normal}, (_, i) => newPod(`normal-${i}`, 'n1', ds, {hash: 'h1'})),
    ];
    const r = syncDaemonSet(state(ds, [newNode('n1')], pods), {now: NOW});
    expect(counts(r)).toEqual([creates, deletes]);
    expect(r.events.filter((e) => e.reason === 'FailedDaemonPod')).toHaveLength(events);
    if (failed === 2) expect(r.requeueAfterMs).toBe(1000);
  });

  test('a node in backoff keeps its failed pod until the delay passed', () => {
    const ds = newDaemonSet('foo');
    const pods = [newPod('failed', 'n1', ds, {hash: 'h1', phase: 'Failed', ready: false})];
    const first = syncDaemonSet(state(ds, [newNode('n1')], pods), {now: NOW});
    expect(first.failedPodBackoff.get('n1')).toEqual({delayMs: 1000, lastUpdate: NOW});
    const during = syncDaemonSet(state(ds, [newNode('n1')], pods), {now: NOW + 500, failedPodBackoff: first.failedPodBackoff});
    expect(counts(during)).toEqual([0, 0]);
    const after = syncDaemonSet(state(ds, [newNode('n1')], pods), {now: NOW + 1000, failedPodBackoff: first.failedPodBackoff});
    expect(counts(after)).toEqual([0, 1]);
    expect(after.failedPodBackoff.get('n1')).toEqual({delayMs: 2000, lastUpdate: NOW + 1000});
  });
});

describe('terminating pods', () => {
  test('without surge, a node whose only pod is terminating gets nothing (TestDaemonSetRespectsTermination)', () => {
    const ds = newDaemonSet('foo');
    const pods = [newPod('p1', 'n1', ds, {hash: 'h1', deleting: T0})];
    expect(counts(syncDaemonSet(state(ds, [newNode('n1')], pods), {now: NOW}))).toEqual([0, 0]);
  });

  test('with surge, it gets a new pod at once even when the surge budget is used (TestSurgeCreatesNewPodWhenAtMaxSurgeAndOldPodDeleted)', () => {
    const ds = newDaemonSet('foo', {maxUnavailable: 0, maxSurge: 1});
    const pods = [newPod('p1', 'n1', ds, {hash: 'h1', deleting: T0})];
    expect(syncDaemonSet(state(ds, [newNode('n1')], pods), {now: NOW}).manage.create).toEqual([{node: 'n1'}]);
  });

  test('a terminal pod that is being deleted no longer counts: the node gets a replacement (1.28)', () => {
    const ds = newDaemonSet('foo');
    const pods = [newPod('p1', 'n1', ds, {hash: 'h1', deleting: T0, phase: 'Failed', ready: false})];
    const r = syncDaemonSet(state(ds, [newNode('n1')], pods), {now: NOW});
    expect(r.manage.create).toEqual([{node: 'n1'}]);
    expect(r.status).toMatchObject({currentNumberScheduled: 0});
  });
});

describe('surge pruning in manage', () => {
  const ds = withImage(newDaemonSet('foo', {maxUnavailable: 0, maxSurge: 1, minReadySeconds: 10}), 'foo/bar:2');
  const revisions = [newRevision(newDaemonSet('foo'), 'h1', 1), newRevision(ds, 'h2', 2)];
  const run = (pods: Pod[], now = NOW) => syncDaemonSet(state(ds, [newNode('n1')], pods, revisions), {now}).manage.delete.map((d) => [d.pod, d.reason]);

  test.each([
    {
      name: 'deletes an unready old pod next to a new one',
      pods: [newPod('old', 'n1', ds, {hash: 'h1', ready: false}), newPod('new', 'n1', ds, {hash: 'h2', ready: false, created: '2026-11-21T11:30:00Z'})],
      expected: [['old', 'old-unready']],
    },
    {
      name: 'keeps a ready old pod while the new one is not ready',
      pods: [newPod('old', 'n1', ds, {hash: 'h1'}), newPod('new', 'n1', ds, {hash: 'h2', ready: false, created: '2026-11-21T11:30:00Z'})],
      expected: [],
    },
    {
      name: 'keeps a ready old pod while minReadySeconds has not passed',
      pods: [newPod('old', 'n1', ds, {hash: 'h1'}), newPod('new', 'n1', ds, {hash: 'h2', readySince: '2026-11-21T11:59:55Z', created: '2026-11-21T11:30:00Z'})],
      expected: [],
    },
    {
      name: 'deletes the old pod once the new one is available',
      pods: [newPod('old', 'n1', ds, {hash: 'h1'}), newPod('new', 'n1', ds, {hash: 'h2', readySince: '2026-11-21T11:59:50Z', created: '2026-11-21T11:30:00Z'})],
      expected: [['old', 'replaced']],
    },
    {
      name: 'deletes a third pod and a second new pod',
      pods: [
        newPod('old', 'n1', ds, {hash: 'h1'}),
        newPod('new', 'n1', ds, {hash: 'h2', ready: false, created: '2026-11-21T11:30:00Z'}),
        newPod('new2', 'n1', ds, {hash: 'h2', created: '2026-11-21T11:40:00Z'}),
      ],
      expected: [['new2', 'surge-extra']],
    },
  ])('$name', ({pods, expected}) => {
    expect(run(pods)).toEqual(expected);
  });
});

/** Replaces the template and returns the DS plus revisions where revision 2 (hash h2) matches it. */
function updated(base: DaemonSet, image = 'foo/bar:2') {
  const ds = withImage(base, image);
  return {ds, revisions: [newRevision(base, 'h1', 1), newRevision(ds, 'h2', 2)]};
}

function readyOldPods(ds: DaemonSet, nodes: Node[], options: {ready?: boolean} = {}): Pod[] {
  return nodes.map((n, i) => newPod(`old-${i}`, n.metadata.name, ds, {hash: 'h1', ...options}));
}

describe('rolling update, maxSurge 0', () => {
  test('replaces maxUnavailable pods per wave (TestDaemonSetUpdatesPods)', () => {
    const base = newDaemonSet('foo', {maxUnavailable: 2});
    const {ds, revisions} = updated(base);
    const nodes = newNodes(5);
    const cluster = new FakeCluster(state(ds, nodes, readyOldPods(ds, nodes), revisions));
    const steps: [number, number][] = [];
    let now = NOW;
    for (let i = 0; i < 8; i++) {
      steps.push(counts(cluster.sync({now})));
      now += 1000;
      cluster.markPodsReady(now);
    }
    // delete 2, create 2, delete 2, create 2, delete 1, create 1, then done.
    expect(steps).toEqual([
      [0, 2],
      [2, 0],
      [0, 2],
      [2, 0],
      [0, 1],
      [1, 0],
      [0, 0],
      [0, 0],
    ]);
  });

  test('deletes every unavailable old pod whatever the budget (TestDaemonSetUpdatesAllOldPodsNotReady)', () => {
    const {ds, revisions} = updated(newDaemonSet('foo', {maxUnavailable: 3}));
    const nodes = newNodes(5);
    const r = syncDaemonSet(state(ds, nodes, readyOldPods(ds, nodes, {ready: false}), revisions), {now: NOW});
    expect(counts(r)).toEqual([0, 5]);
    expect(r.actions.delete.every((d) => d.reason === 'outdated')).toBe(true);
  });

  test('unready old pods count against the budget (1.31, TestDaemonSetUpdatesSomeOldPodsNotReady)', () => {
    const {ds, revisions} = updated(newDaemonSet('foo', {maxUnavailable: 2}));
    const nodes = newNodes(5);
    const pods = readyOldPods(ds, nodes).map((p, i) => (i < 2 ? newPod(p.metadata.name, p.spec.nodeName!, ds, {hash: 'h1', ready: false}) : p));
    const r = syncDaemonSet(state(ds, nodes, pods, revisions), {now: NOW});
    expect(r.actions.delete.map((d) => d.pod)).toEqual(['old-0', 'old-1']);
  });

  test('an empty eligible node uses the budget before any old pod goes', () => {
    const {ds, revisions} = updated(newDaemonSet('foo', {maxUnavailable: 1}));
    const nodes = newNodes(3);
    // node-0 has no pod: manage creates one (not ready yet), which uses the whole budget.
    const r = syncDaemonSet(state(ds, nodes, readyOldPods(ds, nodes).slice(1), revisions), {now: NOW});
    expect(r.manage.create).toEqual([{node: 'node-0'}]);
    expect(r.rollingUpdate.delete).toEqual([]);
  });

  test('does nothing for OnDelete', () => {
    const {ds, revisions} = updated(newDaemonSet('foo', {type: 'OnDelete'}));
    const nodes = newNodes(3);
    expect(counts(syncDaemonSet(state(ds, nodes, readyOldPods(ds, nodes), revisions), {now: NOW}))).toEqual([0, 0]);
  });

  test('does nothing when the template did not change (TestDaemonSetUpdatesNoTemplateChanged)', () => {
    const ds = newDaemonSet('foo', {maxUnavailable: 3});
    const nodes = newNodes(5);
    const r = syncDaemonSet(state(ds, nodes, readyOldPods(ds, nodes)), {now: NOW});
    expect(counts(r)).toEqual([0, 0]);
    expect(r.status?.updatedNumberScheduled).toBe(5);
  });

  test('percentages are rounded up against the desired count', () => {
    const {ds, revisions} = updated(newDaemonSet('foo', {maxUnavailable: '30%'}));
    const nodes = newNodes(5); // 30% of 5 = 1.5 -> 2
    expect(syncDaemonSet(state(ds, nodes, readyOldPods(ds, nodes), revisions), {now: NOW}).actions.delete).toHaveLength(2);
  });

  test('both budgets zero falls back to maxUnavailable 1', () => {
    const {ds, revisions} = updated(newDaemonSet('foo', {maxUnavailable: 0, maxSurge: 0}));
    const nodes = newNodes(4);
    expect(syncDaemonSet(state(ds, nodes, readyOldPods(ds, nodes), revisions), {now: NOW}).actions.delete).toHaveLength(1);
  });

  test('an invalid budget makes the rolling update fail and issue nothing', () => {
    const {ds, revisions} = updated(newDaemonSet('foo', {maxUnavailable: 'abc'}));
    const nodes = newNodes(2);
    const r = syncDaemonSet(state(ds, nodes, readyOldPods(ds, nodes), revisions), {now: NOW});
    expect(counts(r)).toEqual([0, 0]);
    expect(r.rollingUpdateError).toMatch(/MaxUnavailable/i);
  });
});

describe('rolling update, maxSurge > 0', () => {
  test('surges maxSurge pods per wave, deleting old pods as new ones become available (TestDaemonSetUpdatesPodsWithMaxSurge)', () => {
    const {ds, revisions} = updated(newDaemonSet('foo', {maxUnavailable: 0, maxSurge: 2}));
    const nodes = newNodes(5);
    const cluster = new FakeCluster(state(ds, nodes, readyOldPods(ds, nodes), revisions));
    const steps: [number, number][] = [];
    let now = NOW;
    for (let i = 0; i < 4; i++) {
      steps.push(counts(cluster.sync({now})));
      steps.push(counts(cluster.sync({now})));
      now += 1000;
      cluster.markPodsReady(now);
    }
    expect(steps).toEqual([
      [2, 0],
      [0, 0],
      [2, 2],
      [0, 0],
      [1, 2],
      [0, 0],
      [0, 1],
      [0, 0],
    ]);
  });

  test('gives every unavailable old pod a replacement beyond the budget (TestDaemonSetUpdatesAllOldPodsNotReadyMaxSurge)', () => {
    const {ds, revisions} = updated(newDaemonSet('foo', {maxUnavailable: 0, maxSurge: 3}));
    const nodes = newNodes(5);
    const r = syncDaemonSet(state(ds, nodes, readyOldPods(ds, nodes, {ready: false}), revisions), {now: NOW});
    expect(r.rollingUpdate.create).toHaveLength(5);
  });

  test('retires old pods of nodes the template no longer fits only while more pods are available than desired', () => {
    const {ds: fresh, revisions} = updated(newDaemonSet('foo', {maxUnavailable: 0, maxSurge: 1}));
    const ds = withNodeSelector(fresh, {pool: 'a'});
    const revs = [revisions[0]!, newRevision(ds, 'h2', 2)];
    const nodes = [newNode('a1', {pool: 'a'}), newNode('b1'), newNode('b2')];
    const pods = readyOldPods(ds, nodes);
    // The node selector change makes b1 and b2 not eligible: manage deletes their pods (not-eligible), so
    // rollingUpdate never sees them; the eligible node surges.
    const r = syncDaemonSet(state(ds, nodes, pods, revs), {now: NOW});
    expect(r.manage.delete.map((d) => [d.pod, d.reason])).toEqual([
      ['old-1', 'not-eligible'],
      ['old-2', 'not-eligible'],
    ]);
    expect(r.rollingUpdate.create).toEqual([{node: 'a1'}]);
  });

  test('keeps an available old pod on a NoSchedule-tainted node until more pods than desired are available (1.29)', () => {
    const {ds, revisions} = updated(newDaemonSet('foo', {maxUnavailable: 0, maxSurge: 1}));
    const tainted = withTaints(newNode('t1'), {key: 'dedicated', effect: 'NoSchedule'});
    const nodes = [newNode('n1'), tainted];
    const pods = readyOldPods(ds, nodes);
    const r = syncDaemonSet(state(ds, nodes, pods, revisions), {now: NOW});
    // desired = 1, available = 2 (both old pods): one extra, so the tainted node's old pod is retired.
    expect(r.rollingUpdate.delete.map((d) => [d.pod, d.reason])).toEqual([['old-1', 'retired']]);
    expect(r.rollingUpdate.create).toEqual([{node: 'n1'}]);
  });

  test('fails when an old pod is bound to a node that no longer exists (1.29)', () => {
    const {ds, revisions} = updated(newDaemonSet('foo', {maxUnavailable: 0, maxSurge: 1}));
    const pods = [newPod('ghost', 'gone', ds, {hash: 'h1'}), newPod('old', 'n1', ds, {hash: 'h1'})];
    const r = syncDaemonSet(state(ds, [newNode('n1')], pods, revisions), {now: NOW});
    expect(r.rollingUpdate).toEqual({create: [], delete: []});
    expect(r.rollingUpdateError).toMatch(/no longer exists/);
  });
});

describe('burst and order', () => {
  test('issues at most 250 creations per syncNodes call, by node name', () => {
    const r = syncDaemonSet(state(newDaemonSet('foo'), newNodes(300)), {now: NOW});
    expect(r.manage.create).toHaveLength(250);
    expect(r.manage.create[0]).toEqual({node: 'node-000'});
    expect(r.manage.create[249]).toEqual({node: 'node-249'});
  });

  test('deletions carry uid and resourceVersion preconditions', () => {
    const {ds, revisions} = updated(newDaemonSet('foo'));
    const r = syncDaemonSet(state(ds, [newNode('n1')], [newPod('old', 'n1', ds, {hash: 'h1'})], revisions), {now: NOW});
    expect(r.actions.delete).toEqual([{pod: 'old', node: 'n1', reason: 'outdated', uid: 'pod-uid-old', resourceVersion: '1'}]);
  });
});

describe('status counters', () => {
  test('count the oldest pod of each node, misscheduled pods and availability with minReadySeconds', () => {
    const {ds, revisions} = updated(newDaemonSet('foo', {maxUnavailable: 0, maxSurge: 1, minReadySeconds: 30}));
    const nodes = [newNode('n1'), newNode('n2'), newNode('n3'), withTaints(newNode('t1'), {key: 'x', effect: 'NoSchedule'}), newNode('n4')];
    const pods = [
      newPod('old1', 'n1', ds, {hash: 'h1'}),
      newPod('new1', 'n1', ds, {hash: 'h2', created: '2026-11-21T11:30:00Z'}),
      newPod('new2', 'n2', ds, {hash: 'h2', readySince: '2026-11-21T11:59:45Z'}),
      newPod('new3', 'n3', ds, {hash: 'h2', ready: false}),
      newPod('old-t', 't1', ds, {hash: 'h1'}),
    ];
    const r = syncDaemonSet(state(ds, nodes, pods, revisions), {now: NOW});
    expect(r.status).toEqual({
      desiredNumberScheduled: 4,
      currentNumberScheduled: 3,
      numberMisscheduled: 1,
      numberReady: 2,
      updatedNumberScheduled: 2,
      numberAvailable: 1,
      numberUnavailable: 3,
    });
  });

  test('availability at exactly lastTransitionTime + minReadySeconds counts (inclusive edge, 1.34)', () => {
    const ds = newDaemonSet('foo', {minReadySeconds: 60});
    const pods = [newPod('p', 'n1', ds, {hash: 'h1', readySince: '2026-11-21T11:59:00Z'})];
    expect(syncDaemonSet(state(ds, [newNode('n1')], pods), {now: NOW}).status?.numberAvailable).toBe(1);
    expect(syncDaemonSet(state(ds, [newNode('n1')], pods), {now: NOW - 1}).status?.numberAvailable).toBe(0);
  });
});

describe('skipped syncs', () => {
  test('an empty selector selects everything: nothing is done, a warning is recorded', () => {
    const ds = {...newDaemonSet('foo'), spec: {...newDaemonSet('foo').spec, selector: {}}};
    const r = syncDaemonSet(state(ds, newNodes(2)), {now: NOW});
    expect(r.skipped).toBe('selects-all');
    expect(r.events[0]).toMatchObject({type: 'Warning', reason: 'SelectingAll'});
    expect(counts(r)).toEqual([0, 0]);
  });

  test('a DaemonSet being deleted is left alone', () => {
    const base = newDaemonSet('foo');
    const ds = {...base, metadata: {...base.metadata, deletionTimestamp: T0}};
    expect(syncDaemonSet(state(ds, newNodes(2)), {now: NOW}).skipped).toBe('being-deleted');
  });
});
