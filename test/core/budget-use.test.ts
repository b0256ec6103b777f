// Who uses the rolling update's budget: one rule in core (budget-use.ts), counted as the controller's tally counts
// it, read by ds-plan, status, the dashboard and step. Each row is one node shape of docs/design/reconcile.md §8.3 / §8.4.
import {describe, expect, test} from 'vitest';
import {budgetHold, budgetWayForward, holdBlocks, holdWords, planRollout, syncDaemonSet} from '../../src/core/index.js';
import type {ClusterState, DaemonSet, Node, Pod} from '../../src/core/types.js';
import {NOW, newDaemonSet, newNode, newPod, newRevision, withTaints} from '../helpers/builders.js';

function withImage(ds: DaemonSet, image: string): DaemonSet {
  return {...ds, spec: {...ds.spec, template: {...ds.spec.template, spec: {...ds.spec.template.spec, containers: [{name: 'main', image}]}}}};
}

const base = newDaemonSet('fluentd', {maxUnavailable: 2, maxSurge: 0});
const ds = withImage(base, 'img:2');
const surgeBase = newDaemonSet('fluentd', {maxUnavailable: 0, maxSurge: 2});
const surgeDs = withImage(surgeBase, 'img:2');
const notReady = (node: Node): Node => ({
  ...withTaints(node, {key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule'}),
  status: {conditions: [{type: 'Ready', status: 'False'}]},
});

function state(daemonSet: DaemonSet, baseSet: DaemonSet, node: Node, pods: (d: DaemonSet) => Pod[]): ClusterState {
  return {daemonSet, nodes: [node], pods: pods(daemonSet), revisions: [newRevision(baseSet, 'h1', 1), newRevision(daemonSet, 'h2', 2)]};
}

const ALMOST = new Date(NOW - 1000).toISOString();

describe('budget in use, counted as the rolling update counts it', () => {
  test.each([
    {name: 'an available old pod uses nothing', pods: (d: DaemonSet) => [newPod('o', 'a', d, {hash: 'h1'})], unavailable: 0, surge: 0},
    {name: 'an unavailable old pod', pods: (d: DaemonSet) => [newPod('o', 'a', d, {hash: 'h1', ready: false})], unavailable: 1, surge: 0},
    {name: 'an eligible empty node', pods: () => [], unavailable: 1, surge: 0},
    {name: 'only a terminating pod counts as empty', pods: (d: DaemonSet) => [newPod('o', 'a', d, {hash: 'h1', deleting: ALMOST})], unavailable: 1, surge: 0},
    {name: 'an unavailable new pod', pods: (d: DaemonSet) => [newPod('n', 'a', d, {hash: 'h2', ready: false})], unavailable: 1, surge: 0},
    {
      name: 'old and unavailable new side by side',
      pods: (d: DaemonSet) => [newPod('o', 'a', d, {hash: 'h1'}), newPod('n', 'a', d, {hash: 'h2', ready: false})],
      unavailable: 1,
      surge: 1,
    },
    {
      name: 'old and available new side by side',
      pods: (d: DaemonSet) => [newPod('o', 'a', d, {hash: 'h1'}), newPod('n', 'a', d, {hash: 'h2'})],
      unavailable: 1,
      surge: 0,
    },
    {
      name: 'two old pods',
      pods: (d: DaemonSet) => [newPod('o1', 'a', d, {hash: 'h1'}), newPod('o2', 'a', d, {hash: 'h1', created: '2026-11-21T11:30:00Z'})],
      unavailable: 1,
      surge: 1,
    },
  ])('$name', ({pods, unavailable, surge}) => {
    expect(planRollout(state(ds, base, newNode('a'), pods), {now: NOW}).budget).toMatchObject({
      spends: 'maxUnavailable',
      maxUnavailable: {limit: 2, used: unavailable},
      maxSurge: {used: surge},
    });
    expect(planRollout(state(surgeDs, surgeBase, newNode('a'), pods), {now: NOW}).budget).toMatchObject({
      spends: 'maxSurge',
      maxSurge: {limit: 2, used: surge},
    });
  });

  test('a pod stuck terminating on a NotReady node that no longer takes the daemon still uses the budget (the controller counts it)', () => {
    const plan = planRollout(
      state(ds, base, notReady(newNode('a')), (d) => [newPod('o', 'a', d, {hash: 'h1', deleting: '2026-11-21T11:50:00Z'})]),
      {now: NOW},
    );
    expect(plan.nodes[0]).toMatchObject({shouldRun: false});
    expect(plan.budget?.maxUnavailable.used).toBe(1);
    expect(plan.budget?.maxUnavailable.nodes[0]).toMatchObject({node: 'a', reason: 'pod o is stuck terminating (node not Ready)', settling: false});
  });

  test('plain OnDelete: the counts against limits of 0 (no budget)', () => {
    const onDelete = withImage(newDaemonSet('fluentd', {type: 'OnDelete'}), 'img:2');
    const plan = planRollout(
      state(onDelete, base, newNode('a'), (d) => [newPod('o', 'a', d, {hash: 'h1', ready: false})]),
      {now: NOW},
    );
    expect(plan.budget).toMatchObject({spends: 'maxUnavailable', maxUnavailable: {limit: 0, used: 1}, maxSurge: {limit: 0, used: 0}});
  });

  test("equals the controller's own numUnavailable on clusters where manage has nothing to do", () => {
    const nodes = Array.from({length: 12}, (_, i) => newNode(`n-${String(i).padStart(2, '0')}`));
    const pods = nodes.flatMap((node, i) => {
      const name = node.metadata.name;
      switch (i % 4) {
        case 0:
          return [newPod(`p${i}`, name, ds, {hash: 'h1'})];
        case 1:
          return [newPod(`p${i}`, name, ds, {hash: 'h2', ready: false})];
        case 2:
          return [newPod(`p${i}`, name, ds, {hash: 'h1', ready: false})];
        default:
          return [newPod(`p${i}`, name, ds, {hash: 'h2'})];
      }
    });
    const cluster: ClusterState = {daemonSet: newDaemonSet('fluentd', {maxUnavailable: 6, maxSurge: 0}), nodes, pods, revisions: []};
    const withTemplate = {
      ...cluster,
      daemonSet: withImage(cluster.daemonSet, 'img:2'),
      revisions: [newRevision(base, 'h1', 1), newRevision(withImage(cluster.daemonSet, 'img:2'), 'h2', 2)],
    };
    const sync = syncDaemonSet(withTemplate, {now: NOW});
    expect(sync.manage.create.length + sync.manage.delete.length).toBe(0);
    const plan = planRollout(withTemplate, {now: NOW});
    // 3 unavailable new + 3 unavailable old pods; the old ones go at once and use nothing more.
    expect(plan.budget?.maxUnavailable.used).toBe(6);
    expect(plan.budget?.maxUnavailable.nodes.map((use) => use.node)).toEqual(['n-01', 'n-02', 'n-05', 'n-06', 'n-09', 'n-10']);
  });
});

describe('a hold: budget used by nodes that do not clear by themselves, and the one line that moves the rollout on', () => {
  const ready = (name: string) => newNode(name);
  const nodes: Record<string, Node> = {a: notReady(newNode('a')), b: ready('b')};
  const nodeOf = (name: string) => nodes[name];
  const uses = [
    {node: 'a', reason: 'pod x is stuck terminating (node not Ready)', settling: false},
    {node: 'b', reason: 'new pod y is not ready (CrashLoopBackOff)', settling: false},
    {node: 'c', reason: 'new pod z is ready, available in 3s (minReadySeconds)', settling: true},
  ];

  test('NotReady nodes hold until Ready again, others until their pods come up; settling ones do not hold', () => {
    const hold = budgetHold(uses, nodeOf, 2);
    expect(hold).toEqual({limit: 2, untilReady: ['a'], other: ['b']});
    expect(holdBlocks(hold)).toBe(true);
    expect(holdBlocks({...hold, limit: 3})).toBe(false);
    expect(holdWords(hold)).toBe(
      'a holds 1 of maxUnavailable 2 until it is Ready again (a pod deleted there stays terminating until its kubelet confirms it); b holds 1 of maxUnavailable 2 until its pod becomes available',
    );
  });

  test('the way on: the smallest budget that lets one old pod go, counting every unit in use; waiting; fixing', () => {
    const hold = budgetHold(uses, nodeOf, 2);
    expect(budgetWayForward(hold, 'step')).toBe('to go on: step with --max-unavailable 3, wait for a to be Ready again, or fix the pod on b');
    expect(budgetWayForward(hold, 'step', 3)).toBe('to go on: step with --max-unavailable 4, wait for a to be Ready again, or fix the pod on b');
    expect(budgetWayForward({limit: 1, untilReady: ['a'], other: []}, 'controller')).toBe(
      'to go on: maxUnavailable 2 (in the DaemonSet, or pause and step with --max-unavailable 2), or wait for a to be Ready again',
    );
  });
});
