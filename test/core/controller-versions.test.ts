// The controller of a chosen Kubernetes minor: the pre-1.21 rolling update (update.go of 1.20), which counts
// old pods that are terminating but still Ready as available and may delete them again, against the newest.
import {describe, expect, test} from 'vitest';
import {planRollout, syncDaemonSet} from '../../src/core/index.js';
import type {ClusterState, DaemonSet, Pod} from '../../src/core/types.js';
import {NOW, newDaemonSet, newNodes, newPod, newRevision} from '../helpers/builders.js';

function withImage(ds: DaemonSet, image: string): DaemonSet {
  return {...ds, spec: {...ds.spec, template: {...ds.spec.template, spec: {...ds.spec.template.spec, containers: [{name: 'main', image}]}}}};
}

const DELETED_AT = '2026-11-21T11:59:00Z';

/** 8 nodes whose old pods (hash h1) are all available; the DaemonSet's template is now h2. */
function rolloutStart(maxUnavailable: number, count = 8): ClusterState {
  const v1 = newDaemonSet('foo', {maxUnavailable});
  const ds = withImage(v1, 'foo/bar:2');
  const nodes = newNodes(count);
  return {
    daemonSet: ds,
    nodes,
    pods: nodes.map((n) => newPod(`old-${n.metadata.name}`, n.metadata.name, ds, {hash: 'h1'})),
    revisions: [newRevision(v1, 'h1', 1), newRevision(ds, 'h2', 2)],
  };
}

type Transition = {kind: 'finish' | 'start'; pod: string; at: number};

/**
 * A world in which each transition a kubelet would make (a deleted pod going away, a created pod turning Ready)
 * waits in a queue, and the test releases one at a time, letting the controller sync after each: the way the
 * end-to-end suite drives the real controller. `pick` chooses which due transition happens next.
 */
function runWorld(start: ClusterState, minor: number, delays: {startMs: number; stopMs: number}) {
  let pods: Pod[] = [...start.pods];
  const due: Transition[] = [];
  const syncs: {create: string[]; delete: string[]}[] = [];
  let created = 0;
  let clock = 0;
  // The controller's expectations: a deletion is observed when the pod gains a deletionTimestamp, but deleting a
  // pod that already has one changes nothing, so that deletion is observed only when the pod is gone. Until
  // then the controller's syncs write status only.
  const awaitingGone = new Set<string>();
  for (let round = 0; round < 100; round++) {
    for (const name of awaitingGone) if (!pods.some((p) => p.metadata.name === name)) awaitingGone.delete(name);
    const r = awaitingGone.size > 0 ? undefined : syncDaemonSet({...start, pods}, {now: NOW, controllerMinor: minor});
    // When manage issued something, the informer has not yet seen it when updateDaemonSet checks expectations
    // again (the usual outcome of that race on a live cluster), so the rolling update waits for the next sync.
    const managed = r !== undefined && r.manage.create.length + r.manage.delete.length > 0;
    const actions = r === undefined ? {create: [], delete: []} : managed ? r.manage : r.actions;
    const create = actions.create.map((c) => c.node);
    const del = actions.delete.map((d) => d.pod);
    if (create.length + del.length > 0) syncs.push({create, delete: del});
    for (const name of del) {
      const pod = pods.find((p) => p.metadata.name === name)!;
      if (pod.metadata.deletionTimestamp) {
        awaitingGone.add(name);
        continue;
      }
      pods = pods.map((p) => (p === pod ? {...p, metadata: {...p.metadata, deletionTimestamp: DELETED_AT}} : p));
      due.push({kind: 'finish', pod: name, at: clock + delays.stopMs});
    }
    for (const node of create) {
      const name = `new-${++created}`;
      pods.push(newPod(name, node, start.daemonSet, {hash: 'h2', ready: false}));
      due.push({kind: 'start', pod: name, at: clock + delays.startMs});
    }
    if (managed) continue;
    if (due.length === 0) break;
    // The earliest due transition happens next (the first queued on a tie).
    const index = due.reduce((best, t, i) => (t.at < due[best]!.at ? i : best), 0);
    const [next] = due.splice(index, 1);
    clock = next!.at;
    if (next!.kind === 'finish') pods = pods.filter((p) => p.metadata.name !== next!.pod);
    else pods = pods.map((p) => (p.metadata.name === next!.pod ? newPod(p.metadata.name, p.spec.nodeName!, start.daemonSet, {hash: 'h2'}) : p));
  }
  const deletions = syncs.map((s) => s.delete.length).filter((n) => n > 0);
  const pods1 = syncs.flatMap((s) => s.delete);
  const deletedTwice = [...new Set(pods1.filter((p, i) => pods1.indexOf(p) !== i))];
  const converged = pods.length === start.nodes.length && pods.every((p) => p.metadata.labels?.['controller-revision-hash'] === 'h2');
  return {syncs, deletions, deletedTwice, converged};
}

// The kubelet agent's defaults: a pod is Ready 1 s after it is created, a deleted pod goes 0.5 s after.
const agentDefaults = {startMs: 1000, stopMs: 500};

describe('the 1.20 rolling update (pre-1.21 update.go)', () => {
  // The real 1.20 controller went 3,1,1,1,1,1 on 8 nodes at maxUnavailable 3, one pod deleted twice
  // (docs/plan.md, versions modelled). With the agent's
  // default delays and the candidates taken in node-name order (upstream's order is Go map order), the same
  // mechanism gives: 3 at once, then one at a time as new pods turn Ready, a terminating pod deleted again
  // (spending the budget while it frees nothing), never the 3/3/2 waves of the newest controller.
  test('8 nodes at maxUnavailable 3: deletions go 3, then one at a time, and terminating pods are deleted again', () => {
    const world = runWorld(rolloutStart(3), 20, agentDefaults);
    expect(world.deletions).toEqual([3, 1, 1, 2, 1, 1, 1]);
    expect(world.syncs[4]!.delete).toEqual(['old-node-3']);
    expect(world.syncs[5]!.delete).toEqual(['old-node-3']);
    expect(world.deletedTwice).toEqual(['old-node-3', 'old-node-6']);
    expect(world.converged).toBe(true);
  });

  test('the newest controller never deletes a terminating pod again in the same world', () => {
    const world = runWorld(rolloutStart(3), 36, agentDefaults);
    expect(world.deletions[0]).toBe(3);
    expect(world.deletedTwice).toEqual([]);
    expect(world.converged).toBe(true);
  });

  test('a terminating old pod that is still Ready is a candidate and spends budget', () => {
    const start = rolloutStart(3);
    // node-0 is updated; node-1 and node-2 still have their old pods, terminating but Ready.
    const pods = start.pods.map((p) =>
      p.spec.nodeName === 'node-0'
        ? newPod('new-0', 'node-0', start.daemonSet, {hash: 'h2'})
        : p.spec.nodeName === 'node-1' || p.spec.nodeName === 'node-2'
          ? {...p, metadata: {...p.metadata, deletionTimestamp: DELETED_AT}}
          : p,
    );
    const old = syncDaemonSet({...start, pods}, {now: NOW, controllerMinor: 20});
    // Two nodes unavailable (only terminating pods): one deletion left, and the first candidate by name is
    // node-1's terminating pod.
    expect(old.actions.delete.map((d) => d.pod)).toEqual(['old-node-1']);
    const newest = syncDaemonSet({...start, pods}, {now: NOW});
    expect(newest.actions.delete.map((d) => d.pod)).toEqual(['old-node-3']);
  });

  test('ds-plan text marks a re-deletion of a terminating pod: it frees nothing', async () => {
    const {renderPlanText} = await import('../../src/output/plan-text.js');
    const start = rolloutStart(3);
    const pods = start.pods.map((p) =>
      p.spec.nodeName === 'node-0'
        ? newPod('new-0', 'node-0', start.daemonSet, {hash: 'h2'})
        : p.spec.nodeName === 'node-1' || p.spec.nodeName === 'node-2'
          ? {...p, metadata: {...p.metadata, deletionTimestamp: DELETED_AT}}
          : p,
    );
    const text = renderPlanText(planRollout({...start, pods}, {now: NOW, controllerMinor: 20}), {color: false});
    expect(text).toContain('delete old-node-1 on node-1 (outdated; already terminating: deleted again, frees nothing)');
    expect(text).not.toMatch(/old-node-3 on node-3 \(outdated; already/);
  });

  test('an unavailable old pod that is not terminating goes at once; an unavailable terminating one is left alone', () => {
    const start = rolloutStart(1, 3);
    const pods = [
      newPod('old-node-0', 'node-0', start.daemonSet, {hash: 'h1', ready: false}),
      {...newPod('old-node-1', 'node-1', start.daemonSet, {hash: 'h1', ready: false}), metadata: {...start.pods[1]!.metadata, deletionTimestamp: DELETED_AT}},
      start.pods[2]!,
    ];
    const r = syncDaemonSet({...start, pods}, {now: NOW, controllerMinor: 20});
    expect(r.actions.delete.map((d) => d.pod)).toEqual(['old-node-0']);
  });

  test('maxSurge does not exist before 1.21: the plan deletes within maxUnavailable and says which controller it modelled', () => {
    const start = rolloutStart(1, 4);
    const surge = {
      ...start.daemonSet,
      spec: {...start.daemonSet.spec, updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: 2}}},
    };
    const plan = planRollout({...start, daemonSet: surge}, {now: NOW, controllerMinor: 20});
    expect(plan.controllerVersion).toBe('1.20');
    expect(plan.strategy).toEqual({type: 'RollingUpdate', maxUnavailable: 1, maxSurge: 0});
    expect(plan.nextSync).toMatchObject({create: [], delete: [{node: 'node-0'}]});
    expect(planRollout({...start, daemonSet: surge}, {now: NOW}).controllerVersion).toBe('1.36');
  });

  test('no both-zero fallback before 1.21: maxUnavailable 0 deletes no available old pod', () => {
    const start = rolloutStart(0, 3);
    expect(syncDaemonSet(start, {now: NOW, controllerMinor: 20}).actions.delete).toEqual([]);
    expect(syncDaemonSet(start, {now: NOW}).actions.delete).toHaveLength(1);
  });
});

describe('1.21 to 1.30: an unavailable old pod does not count against maxUnavailable (kubernetes#123233 came in 1.31)', () => {
  test('one unready old pod at maxUnavailable 1', () => {
    const start = rolloutStart(1, 3);
    const pods = [newPod('old-node-0', 'node-0', start.daemonSet, {hash: 'h1', ready: false}), ...start.pods.slice(1)];
    expect(syncDaemonSet({...start, pods}, {now: NOW, controllerMinor: 30}).actions.delete.map((d) => d.pod)).toEqual(['old-node-0', 'old-node-1']);
    expect(syncDaemonSet({...start, pods}, {now: NOW, controllerMinor: 31}).actions.delete.map((d) => d.pod)).toEqual(['old-node-0']);
  });
});
