// The rollout report (core/report.ts): one verdict per state and clock, read by status, status --watch and the
// dashboard. Rows: verdict x state, each a finding that once made the faces disagree or mislead.
import {describe, expect, test} from 'vitest';
import {PAUSED_STRATEGY_ANNOTATION, rolloutReport} from '../../src/core/index.js';
import type {ClusterState, DaemonSet, Node, Pod} from '../../src/core/types.js';
import {renderStatusText} from '../../src/output/status-text.js';
import {NOW, newDaemonSet, newNodes, newPod, newRevision, withTaints} from '../helpers/builders.js';

function withImage(ds: DaemonSet, image: string): DaemonSet {
  return {...ds, spec: {...ds.spec, template: {...ds.spec.template, spec: {...ds.spec.template.spec, containers: [{name: 'main', image}]}}}};
}

function withStatus(ds: DaemonSet, desired: number, updated: number): DaemonSet {
  return {
    ...ds,
    metadata: {...ds.metadata, generation: 2},
    status: {observedGeneration: 2, desiredNumberScheduled: desired, updatedNumberScheduled: updated, numberAvailable: desired},
  };
}

const base = newDaemonSet('fluentd', {maxUnavailable: 1});

/** `count` nodes; node i runs what `podFor` says (default: an available old pod). */
function cluster(
  count: number,
  podFor: (node: string, i: number, ds: DaemonSet) => Pod[] = (node, i, ds) => [newPod(`old-${i}`, node, ds, {hash: 'h1'})],
  ds = withImage(base, 'img:2'),
  nodes: Node[] = newNodes(count),
): ClusterState {
  const next = withStatus(ds, count, 0);
  return {
    daemonSet: next,
    nodes,
    pods: nodes.flatMap((n, i) => podFor(n.metadata.name, i, next)),
    revisions: [newRevision(base, 'h1', 1), newRevision(next, 'h2', 2)],
  };
}

const recent = new Date(NOW - 5_000).toISOString();

describe('rolloutReport: the verdict', () => {
  test('a new pod the scheduler has not bound yet is starting, not blocked (the real controller creates pods unbound)', () => {
    const state = cluster(3, (node, i, ds) =>
      i === 0 ? [newPod('new-0', node, ds, {hash: 'h2', ready: false, bound: false, created: recent})] : [newPod(`old-${i}`, node, ds, {hash: 'h1'})],
    );
    const report = rolloutReport(state, NOW);
    expect(report.verdict).toBe('progressing');
    expect(report.detail).toContain('1 pod is starting');
    expect(report.nodes.find((n) => n.name === 'node-0')!.state).not.toBe('blocked');
  });

  test('a new pod nothing binds for 30s (no scheduler running) is not starting: the rollout is stuck, and says why', () => {
    const state = cluster(3, (node, i, ds) =>
      i === 0
        ? [newPod('new-0', node, ds, {hash: 'h2', ready: false, bound: false, created: new Date(NOW - 31_000).toISOString()})]
        : [newPod(`old-${i}`, node, ds, {hash: 'h1'})],
    );
    const report = rolloutReport(state, NOW);
    expect(report.verdict).toBe('stuck');
    expect(report.nodes.find((n) => n.name === 'node-0')!.reason).toContain('new-0 on node-0 is not ready (not scheduled for 31s: is a scheduler running?)');
    // Within the scheduler's grace, the same pod is still starting.
    expect(rolloutReport(state, NOW - 2_000).verdict).toBe('progressing');
  });

  test('paused by ds-rollout is a verdict of its own: nothing blocked, the recorded budget named', () => {
    const record = JSON.stringify({type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 2, maxSurge: 0}, pausedAt: '2026-11-21T11:30:00Z'});
    const ds = withImage(
      {...base, metadata: {...base.metadata, annotations: {[PAUSED_STRATEGY_ANNOTATION]: record}}, spec: {...base.spec, updateStrategy: {type: 'OnDelete'}}},
      'img:2',
    );
    const report = rolloutReport(cluster(4, undefined, ds), NOW);
    expect(report.verdict).toBe('paused');
    expect(report.counts.blocked).toBe(0);
    expect(report.blockers).toEqual([]);
    expect(report.detail).toBe(
      'paused by ds-rollout since 2026-11-21T11:30:00Z: 4 nodes run an old pod, waiting for `ds-rollout step` (or `resume`); recorded maxUnavailable 2, maxSurge 0',
    );
    expect(report.budget).toMatchObject({spends: 'maxUnavailable', maxUnavailable: {limit: 2, used: 0}});
    expect(renderStatusText(report, {color: false}).split('\n')[2]).toContain('(paused by ds-rollout; recorded maxUnavailable 2, maxSurge 0)');
  });

  test('paused: the detail and the warning count the same nodes (an old pod stuck terminating is not "running")', () => {
    const record = JSON.stringify({type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: 0}, pausedAt: '2026-11-21T11:30:00Z'});
    const ds = withImage(
      {...base, metadata: {...base.metadata, annotations: {[PAUSED_STRATEGY_ANNOTATION]: record}}, spec: {...base.spec, updateStrategy: {type: 'OnDelete'}}},
      'img:2',
    );
    const nodes = newNodes(4);
    nodes[0] = {
      ...withTaints(nodes[0]!, {key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule'}),
      status: {conditions: [{type: 'Ready', status: 'False'}]},
    };
    const state = cluster(4, (node, i, d) => [newPod(`old-${i}`, node, d, {hash: 'h1', ...(i === 0 ? {deleting: '2026-11-21T11:50:00Z'} : {})})], ds, nodes);
    const report = rolloutReport(state, NOW);
    expect(report.detail).toContain('3 nodes run an old pod');
    const paused = report.warnings.find((w) => w.kind === 'on-delete')!.message;
    expect(paused).toContain('3 nodes run an old pod');
    expect(paused).not.toMatch(/\b4\b/);
  });

  test('a pod stuck terminating on a NotReady node uses the budget, and the report names it', () => {
    const nodes = newNodes(3);
    nodes[0] = {
      ...withTaints(nodes[0]!, {key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule'}),
      status: {conditions: [{type: 'Ready', status: 'False'}]},
    };
    const state = cluster(
      3,
      (node, i, ds) => [newPod(`old-${i}`, node, ds, {hash: 'h1', ...(i === 0 ? {deleting: '2026-11-21T11:50:00Z'} : {})})],
      undefined,
      nodes,
    );
    const report = rolloutReport(state, NOW);
    expect(report.verdict).toBe('stuck');
    expect(report.budget.maxUnavailable).toMatchObject({limit: 1, used: 1, nodes: [{node: 'node-0', settling: false}]});
    expect(report.detail).toBe('no progress is possible without a change: 1 of 1 maxUnavailable in use (node-0)');
    expect(report.nodes[0]).toMatchObject({name: 'node-0', state: 'blocked'});
  });

  test('a crash-looping new pod: stuck, the pod and its node named', () => {
    const crash = (pod: Pod): Pod => ({
      ...pod,
      status: {...pod.status, containerStatuses: [{name: 'main', ready: false, restartCount: 5, state: {waiting: {reason: 'CrashLoopBackOff'}}}]},
    });
    const state = cluster(3, (node, i, ds) =>
      i === 0 ? [crash(newPod('new-0', node, ds, {hash: 'h2', ready: false}))] : [newPod(`old-${i}`, node, ds, {hash: 'h1'})],
    );
    const report = rolloutReport(state, NOW);
    expect(report.verdict).toBe('stuck');
    expect(report.nodes[0]).toMatchObject({name: 'node-0', state: 'blocked', reason: expect.stringContaining('CrashLoopBackOff')});
  });

  test('a ready pod waiting out minReadySeconds: progressing until the clock passes it, on the clock given', () => {
    const ds = withImage(newDaemonSet('fluentd', {maxUnavailable: 1, minReadySeconds: 30}), 'img:2');
    const state = cluster(
      2,
      (node, i, d) => (i === 0 ? [newPod('new-0', node, d, {hash: 'h2', readySince: recent})] : [newPod('new-1', node, d, {hash: 'h2'})]),
      ds,
    );
    const done = {...state, daemonSet: {...state.daemonSet, status: {...state.daemonSet.status, updatedNumberScheduled: 2, numberAvailable: 2}}};
    expect(rolloutReport(done, NOW).verdict).toBe('progressing');
    expect(rolloutReport(done, NOW).detail).toContain('1 pod is waiting out minReadySeconds');
    expect(rolloutReport(done, NOW + 60_000).verdict).toBe('complete');
  });
});

describe('status text stays readable at 2,000 nodes', () => {
  test('stuck: the blockers first, the rest counted by state, at most about 40 node rows', () => {
    const crash = (pod: Pod): Pod => ({
      ...pod,
      status: {...pod.status, containerStatuses: [{name: 'main', ready: false, restartCount: 5, state: {waiting: {reason: 'CrashLoopBackOff'}}}]},
    });
    const state = cluster(2000, (node, i, ds) =>
      i === 1000 ? [crash(newPod('new-1000', node, ds, {hash: 'h2', ready: false}))] : [newPod(`old-${i}`, node, ds, {hash: i < 500 ? 'h2' : 'h1'})],
    );
    const report = rolloutReport(state, NOW);
    expect(report.verdict).toBe('stuck');
    const text = renderStatusText(report, {color: false});
    const lines = text.split('\n');
    expect(lines.length).toBeLessThan(60);
    const header = lines.findIndex((line) => /^NODE +STATE +WHY/.test(line));
    expect(lines[header + 1]).toMatch(/^node-1000 +blocked/);
    expect(text).toMatch(/\n1,499 more +waiting +old pod, waiting for the budget\n500 more +updated/);
    expect(text).toContain('1,499 old pods wait');
    expect(text).toContain('nodes counted by state, not listed; --all-nodes lists every node');
    expect(renderStatusText(report, {color: false, allNodes: true}).split('\n').length).toBeGreaterThan(2000);
  });
});

describe('status text of 2,000 nodes counts honestly', () => {
  test('in progress: old pods over many waves are one reason with a range of waves, counted whole', () => {
    const ds = {
      ...withImage(base, 'img:2'),
      spec: {...withImage(base, 'img:2').spec, updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 2}}},
    };
    const text = renderStatusText(rolloutReport(cluster(2000, undefined, ds), NOW), {color: false});
    expect(text).toMatch(/\n1,998 more +waiting +old pod, deleted in waves 3-1999 of 2000\n/);
    expect(text).not.toContain('of them');
  });

  test('complete: nothing listed one by one, so no "more"', () => {
    const done = cluster(2000, (node, i, ds) => [newPod(`new-${i}`, node, ds, {hash: 'h2'})]);
    const text = renderStatusText(rolloutReport(done, NOW), {color: false});
    expect(text).toMatch(/\n2,000 +updated/);
    expect(text).not.toContain('more');
  });
});

describe('ds-plan text stays readable at 2,000 nodes', () => {
  test('stuck: blockers and the next sync listed, the rest counted by state', async () => {
    const {planRollout} = await import('../../src/core/index.js');
    const {renderPlanText} = await import('../../src/output/plan-text.js');
    const crash = (pod: Pod): Pod => ({
      ...pod,
      status: {...pod.status, containerStatuses: [{name: 'main', ready: false, restartCount: 5, state: {waiting: {reason: 'CrashLoopBackOff'}}}]},
    });
    const state = cluster(2000, (node, i, ds) =>
      i === 1000 ? [crash(newPod('new-1000', node, ds, {hash: 'h2', ready: false}))] : [newPod(`old-${i}`, node, ds, {hash: i < 500 ? 'h2' : 'h1'})],
    );
    const text = renderPlanText(planRollout(state, {now: NOW}), {color: false});
    expect(text.split('\n').length).toBeLessThan(80);
    expect(text).toMatch(/\nnode-1000 +old|\nnode-1000 +updating/);
    expect(text).toContain('nodes counted by state, not listed; --all-nodes lists every node');
    expect(text).not.toContain('(0 more nodes not shown');
  });
});

describe('a DaemonSet being deleted', () => {
  test('plans nothing, as upstream syncDaemonSet returns at once, and says why', async () => {
    const {planRollout} = await import('../../src/core/index.js');
    const state = cluster(3, (node, i, ds) => (i === 0 ? [] : [newPod(`old-${i}`, node, ds, {hash: 'h1'})]));
    const deleting = {
      ...state,
      daemonSet: {...state.daemonSet, metadata: {...state.daemonSet.metadata, deletionTimestamp: '2026-11-21T11:59:00Z', finalizers: ['foregroundDeletion']}},
    };
    expect(planRollout(state, {now: NOW}).nextSync.create).toEqual([{node: 'node-0'}]);
    const plan = planRollout(deleting, {now: NOW});
    expect(plan.nextSync).toEqual({create: [], delete: []});
    expect(plan.waves).toEqual([]);
    expect(plan.blockers).toEqual([
      {kind: 'being-deleted', message: 'the DaemonSet is being deleted (since 2026-11-21T11:59:00Z): the controller does nothing more for it'},
    ]);
    expect(rolloutReport(deleting, NOW).detail).toContain('being deleted');
  });
});
