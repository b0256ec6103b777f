// planRollout: the incremental wave simulation must equal syncDaemonSet applied again and again.
import {describe, expect, test} from 'vitest';
import {planRollout, syncDaemonSet} from '../../src/core/index.js';
import type {ClusterState, DaemonSet, Node, Pod, Taint} from '../../src/core/types.js';
import {NOW, T0, newDaemonSet, newNode, newNodes, newPod, newRevision, withTaints} from '../helpers/builders.js';
import {FakeCluster} from '../helpers/fake-cluster.js';

function withImage(ds: DaemonSet, image: string, extra: Record<string, unknown> = {}): DaemonSet {
  return {...ds, spec: {...ds.spec, template: {...ds.spec.template, spec: {...ds.spec.template.spec, ...extra, containers: [{name: 'main', image}]}}}};
}

/** Mulberry32: a seeded generator, so every scenario is reproducible from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function scenario(seed: number): ClusterState {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const surge = rnd() < 0.4;
  const base = newDaemonSet('ds', surge ? {maxUnavailable: 0, maxSurge: pick([1, 2, '25%'])} : {maxUnavailable: pick([1, 2, 3, '30%']), maxSurge: 0});
  const ds = withImage(base, 'img:2', rnd() < 0.3 ? {nodeSelector: {pool: 'a'}} : {});
  const taints: Taint[] = [
    {key: 'x', effect: 'NoSchedule'},
    {key: 'y', effect: 'NoExecute'},
  ];
  const nodes: Node[] = newNodes(3 + Math.floor(rnd() * 25)).map((n) => {
    let node = rnd() < 0.8 ? newNode(n.metadata.name, {pool: 'a'}) : n;
    if (rnd() < 0.15) node = withTaints(node, pick(taints));
    return node;
  });
  const pods: Pod[] = [];
  let k = 0;
  for (const node of nodes) {
    const count = pick([0, 1, 1, 1, 1, 2, 3]);
    for (let i = 0; i < count; i++) {
      const created = new Date(Date.parse(T0) + Math.floor(rnd() * 100) * 1000).toISOString().replace('.000Z', 'Z');
      const phase = rnd() < 0.05 ? 'Failed' : undefined;
      pods.push(
        newPod(`p-${k++}`, node.metadata.name, ds, {
          hash: rnd() < 0.35 ? 'h2' : 'h1',
          ready: phase ? false : rnd() < 0.85,
          created,
          ...(phase ? {phase} : {}),
          // Half of the deletions are fresh (they finish), half an hour overdue (stuck).
          ...(rnd() < 0.05 ? {deleting: rnd() < 0.5 ? T0 : new Date(NOW - 5_000).toISOString()} : {}),
        }),
      );
    }
  }
  return {daemonSet: ds, nodes, pods, revisions: [newRevision(base, 'h1', 1), newRevision(ds, 'h2', 2)]};
}

/** What the planner promises, replayed with the one-sync function: apply, let new pods start, repeat. */
function replay(initial: ClusterState): {create: string[]; delete: string[]}[] {
  const cluster = new FakeCluster(initial);
  const waves: {create: string[]; delete: string[]}[] = [];
  // Terminating pods finish, unless their deletion is long overdue (every node here is Ready).
  const terminating = new Set(
    initial.pods.filter((p) => p.metadata.deletionTimestamp && Date.parse(p.metadata.deletionTimestamp) + 60_000 >= NOW).map((p) => p.metadata.name),
  );
  for (let i = 0; i < 500; i++) {
    const r = cluster.sync({now: NOW});
    const changed = r.actions.create.length + r.actions.delete.length > 0;
    if (changed) {
      // The plan lists a sync's actions by node name (docs/design/plan-contract.md); the controller issues them in any order.
      waves.push({
        create: r.actions.create.map((c) => c.node).sort(),
        delete: r.actions.delete.map((d) => `${d.node}/${d.reason}/${d.pod.includes('-new-') ? 'new' : d.pod}`).sort(),
      });
      cluster.markPodsReady(NOW, (p) => p.metadata.name.includes('-new-'));
    }
    let dropped = false;
    if (i === 0 && terminating.size > 0) {
      cluster.withState((s) => ({...s, pods: s.pods.filter((p) => !terminating.has(p.metadata.name))}));
      dropped = true;
    }
    if (!changed && !dropped) break;
  }
  return waves;
}

describe('planRollout equals syncDaemonSet iterated', () => {
  test.each(Array.from({length: 150}, (_, i) => ({seed: i + 1})))('scenario seed $seed', ({seed}) => {
    const state = scenario(seed);
    const plan = planRollout(state, {now: NOW});
    const planned = plan.waves.map((w) => ({
      create: w.create.map((c) => c.node).sort(),
      delete: w.delete.map((d) => `${d.node}/${d.reason}/${d.pod.includes('(new-') ? 'new' : d.pod}`).sort(),
    }));
    expect(planned).toEqual(replay(state));
    const first = syncDaemonSet(state, {now: NOW});
    const byNode = <T extends {node: string}>(actions: readonly T[]) => [...actions].sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
    expect(plan.nextSync).toEqual({create: byNode(first.actions.create), delete: byNode(first.actions.delete)});
    for (const wave of [plan.nextSync, ...plan.waves]) {
      expect(wave.create.map((c) => c.node)).toEqual(wave.create.map((c) => c.node).sort());
      expect(wave.delete.map((d) => d.node)).toEqual(wave.delete.map((d) => d.node).sort());
    }
    expect(plan.status).toEqual(first.status);
  });
});

function rolloutState(nodes: Node[], ds: DaemonSet, base: DaemonSet, podsFor: (node: Node, i: number) => Pod[]): ClusterState {
  return {daemonSet: ds, nodes, pods: nodes.flatMap(podsFor), revisions: [newRevision(base, 'h1', 1), newRevision(ds, 'h2', 2)]};
}

describe('planRollout', () => {
  const base = newDaemonSet('fluentd', {maxUnavailable: 1});
  const ds = withImage(base, 'fluentd:2');

  test('a plain rollout converges in two syncs per node with maxUnavailable 1', () => {
    const nodes = newNodes(4);
    const plan = planRollout(
      rolloutState(nodes, ds, base, (n, i) => [newPod(`old-${i}`, n.metadata.name, ds, {hash: 'h1'})]),
      {now: NOW},
    );
    expect(plan.waves).toHaveLength(8);
    expect(plan.waves.map((w) => [w.create.length, w.delete.length])).toEqual([
      [0, 1],
      [1, 0],
      [0, 1],
      [1, 0],
      [0, 1],
      [1, 0],
      [0, 1],
      [1, 0],
    ]);
    expect(plan.converges).toBe(true);
    expect(plan.complete).toBe(false);
    expect(plan.nodes.map((n) => [n.name, n.state, n.wave])).toEqual([
      ['node-0', 'old', 1],
      ['node-1', 'old', 3],
      ['node-2', 'old', 5],
      ['node-3', 'old', 7],
    ]);
    expect(plan.revisions).toEqual({
      current: {revision: 1, hash: 'h1', name: 'fluentd-h1'},
      update: {revision: 2, hash: 'h2', exists: true, name: 'fluentd-h2'},
    });
    expect(plan.notes.some((n) => n.includes('name order'))).toBe(true);
  });

  test('waves wait minReadySeconds for new pods to become available', () => {
    const slow = withImage(newDaemonSet('fluentd', {maxUnavailable: 1, minReadySeconds: 30}), 'fluentd:2');
    const nodes = newNodes(2);
    const plan = planRollout(
      rolloutState(nodes, slow, base, (n, i) => [newPod(`old-${i}`, n.metadata.name, slow, {hash: 'h1'})]),
      {now: NOW},
    );
    expect(plan.waves.map((w) => w.at)).toEqual([0, 0, 30, 30]);
    expect(plan.converges).toBe(true);
  });

  test('a complete rollout has no waves', () => {
    const nodes = newNodes(3);
    const plan = planRollout(
      rolloutState(nodes, ds, base, (n, i) => [newPod(`new-${i}`, n.metadata.name, ds, {hash: 'h2'})]),
      {now: NOW},
    );
    expect(plan).toMatchObject({complete: true, converges: true, waves: [], nextSync: {create: [], delete: []}});
    expect(plan.nodes.every((n) => n.state === 'updated')).toBe(true);
  });

  test('names the unavailable pods that use the whole budget when nothing can proceed', () => {
    const nodes = newNodes(4);
    const crash = (p: Pod): Pod => ({
      ...p,
      status: {...p.status, containerStatuses: [{name: 'main', ready: false, restartCount: 7, state: {waiting: {reason: 'CrashLoopBackOff'}}}]},
    });
    const state = rolloutState(nodes, ds, base, (n, i) =>
      i === 0 ? [crash(newPod('new-0', n.metadata.name, ds, {hash: 'h2', ready: false}))] : [newPod(`old-${i}`, n.metadata.name, ds, {hash: 'h1'})],
    );
    const plan = planRollout(state, {now: NOW});
    expect(plan.waves).toEqual([]);
    expect(plan.converges).toBe(false);
    expect(plan.blockers).toEqual([
      {kind: 'pod-unavailable', message: 'pod new-0 on node-0 is not ready (CrashLoopBackOff)', nodes: ['node-0']},
      {kind: 'budget-exhausted', message: '1 node that never becomes available uses the whole maxUnavailable budget (1): 3 old pods wait', nodes: ['node-0']},
    ]);
    expect(plan.nodes[0]).toMatchObject({state: 'updating', blocker: 'pod new-0 on node-0 is not ready (CrashLoopBackOff)'});
  });

  test('reports nodes kept from the daemon by a NoSchedule taint the template does not tolerate', () => {
    const nodes = [newNode('a'), withTaints(newNode('b'), {key: 'dedicated', value: 'gpu', effect: 'NoSchedule'})];
    const plan = planRollout(
      rolloutState(nodes, ds, base, (n) => (n.metadata.name === 'a' ? [newPod('new-a', 'a', ds, {hash: 'h2'})] : [])),
      {now: NOW},
    );
    expect(plan.blockers).toEqual([]);
    expect(plan.warnings.map((b) => [b.kind, b.nodes])).toEqual([['untolerated-taint', ['b']]]);
    expect(plan.nodes[1]).toMatchObject({state: 'not-eligible', shouldRun: false, shouldContinueRunning: true});
    expect(plan.converges).toBe(true);
  });

  test('warns that the rolling update removes an old pod from a NoSchedule-tainted node and nothing replaces it', () => {
    const nodes = [newNode('a'), withTaints(newNode('b'), {key: 'dedicated', value: 'gpu', effect: 'NoSchedule'})];
    const plan = planRollout(
      rolloutState(nodes, ds, base, (n) => [newPod(`old-${n.metadata.name}`, n.metadata.name, ds, {hash: 'h1'})]),
      {now: NOW},
    );
    expect(plan.warnings).toEqual([
      {
        kind: 'node-loses-daemon',
        message:
          'b loses its daemon pod: the rolling update deletes the old pod (old-b, wave 3) and the taint dedicated=gpu:NoSchedule keeps a new one from being created',
        nodes: ['b'],
      },
    ]);
    expect(plan.nodes[1]).toMatchObject({state: 'misscheduled', wave: 3});
    expect(plan.converges).toBe(true);
  });

  test('hostPort with maxSurge never converges: the surge pod cannot start next to the old one', () => {
    const surgeBase = newDaemonSet('agent', {maxUnavailable: 0, maxSurge: 1});
    const template = {
      ...surgeBase.spec.template,
      spec: {...surgeBase.spec.template.spec, containers: [{name: 'main', image: 'agent:2', ports: [{containerPort: 9100, hostPort: 9100}]}]},
    };
    const surgeDs = {...surgeBase, spec: {...surgeBase.spec, template}};
    const nodes = newNodes(2);
    const plan = planRollout(
      rolloutState(nodes, surgeDs, surgeBase, (n, i) => [newPod(`old-${i}`, n.metadata.name, surgeDs, {hash: 'h1'})]),
      {now: NOW},
    );
    expect(plan.waves).toHaveLength(1);
    expect(plan.converges).toBe(false);
    expect(plan.blockers[0]).toMatchObject({kind: 'host-port-surge', nodes: ['node-0']});
    expect(plan.warnings).toEqual([]);
  });

  test('a pod terminating on a NotReady node never finishes: it keeps holding the budget', () => {
    const two = withImage(newDaemonSet('fluentd', {maxUnavailable: 1}), 'fluentd:2');
    const down = {
      ...withTaints(newNode('node-0'), {key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule'}, {key: 'node.kubernetes.io/not-ready', effect: 'NoExecute'}),
      status: {conditions: [{type: 'Ready', status: 'Unknown'}]},
    };
    const nodes = [down, newNode('node-1'), newNode('node-2')];
    const state = rolloutState(nodes, two, base, (n, i) => [
      newPod(`old-${i}`, n.metadata.name, two, {hash: 'h1', ...(i === 0 ? {deleting: new Date(NOW + 20_000).toISOString(), ready: false} : {})}),
    ]);
    const plan = planRollout(state, {now: NOW});
    // node-0 is not desired, but its terminating pod keeps the node in the rolling update's count as empty.
    expect(plan.waves).toEqual([]);
    expect(plan.converges).toBe(false);
    expect(plan.warnings.map((w) => w.message)).toContain('pod old-0 on node-0 is stuck terminating: its node is not Ready, so nothing confirms the deletion');
    expect(plan.blockers.map((b) => b.kind)).toEqual(['budget-exhausted']);
  });

  test('OnDelete: nothing happens until pods are deleted', () => {
    const onDeleteBase = newDaemonSet('x', {type: 'OnDelete'});
    const onDelete = withImage(onDeleteBase, 'x:2');
    const nodes = newNodes(2);
    const plan = planRollout(
      rolloutState(nodes, onDelete, onDeleteBase, (n, i) => [newPod(`old-${i}`, n.metadata.name, onDelete, {hash: 'h1'})]),
      {now: NOW},
    );
    expect(plan.strategy).toEqual({type: 'OnDelete', maxUnavailable: 0, maxSurge: 0});
    expect(plan.waves).toEqual([]);
    expect(plan.blockers.map((b) => b.kind)).toEqual(['on-delete']);
  });

  test('an update revision that does not exist yet gets the next number and a stand-in hash', () => {
    const nodes = newNodes(1);
    const state: ClusterState = {daemonSet: ds, nodes, pods: [newPod('old', 'node-0', ds, {hash: 'h1'})], revisions: [newRevision(base, 'h1', 1)]};
    const plan = planRollout(state, {now: NOW});
    expect(plan.revisions.update).toMatchObject({revision: 2, exists: false});
    expect(plan.revisions.update.hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(plan.converges).toBe(true);
  });

  test('a 300-node rollout with maxUnavailable 100% is capped at 250 deletions per sync', () => {
    const wide = withImage(newDaemonSet('w', {maxUnavailable: '100%'}), 'w:2');
    const nodes = newNodes(300);
    const plan = planRollout(
      rolloutState(nodes, wide, newDaemonSet('w'), (n, i) => [newPod(`old-${i}`, n.metadata.name, wide, {hash: 'h1'})]),
      {now: NOW},
    );
    expect(plan.waves.map((w) => [w.create.length, w.delete.length])).toEqual([
      [0, 250],
      [250, 50],
      [50, 0],
    ]);
  });
});

describe('planRollout as the controller acts on a stored DaemonSet', () => {
  const base = newDaemonSet('fluentd', {maxUnavailable: 1});
  const target = withImage(base, 'fluentd:2');
  test.each([
    {
      name: 'being deleted: upstream syncDaemonSet returns at once, nothing is planned',
      ds: {...target, metadata: {...target.metadata, deletionTimestamp: T0}},
      waves: 0,
      blockers: ['being-deleted'],
      warnings: [] as string[],
      maxUnavailable: 1,
    },
    {
      name: 'an empty selector: SelectingAll, nothing is planned, the API server would not admit it',
      ds: {...target, spec: {...target.spec, selector: {}}},
      waves: 0,
      blockers: ['selects-all'],
      warnings: ['not-admissible'],
      maxUnavailable: 1,
    },
    {
      name: 'both budgets zero: maxUnavailable falls back to 1, the API server would not admit it',
      ds: withImage(newDaemonSet('fluentd', {maxUnavailable: 0, maxSurge: 0}), 'fluentd:2'),
      waves: 6,
      blockers: [] as string[],
      warnings: ['not-admissible'],
      maxUnavailable: 1,
    },
  ])('$name', ({ds, waves, blockers, warnings, maxUnavailable}) => {
    const state = rolloutState(newNodes(3), ds, base, (n, i) => [newPod(`old-${i}`, n.metadata.name, ds, {hash: 'h1'})]);
    const plan = planRollout(state, {now: NOW});
    expect(plan.waves).toHaveLength(waves);
    expect(plan.nextSync.create.length + plan.nextSync.delete.length > 0).toBe(waves > 0);
    expect(plan.blockers.map((b) => b.kind)).toEqual(blockers);
    expect(plan.warnings.map((w) => w.kind)).toEqual(warnings);
    expect(plan.strategy.maxUnavailable).toBe(maxUnavailable);
    // The simulated controller's sync agrees: it does nothing either, or the same first wave.
    const sync = syncDaemonSet(state, {now: NOW});
    expect(sync.actions).toEqual(plan.nextSync);
  });
});

describe('pods that are merely starting', () => {
  const base = newDaemonSet('fluentd', {maxUnavailable: 1});
  const ds = withImage(base, 'fluentd:2');
  const fresh = new Date(NOW - 20_000).toISOString().replace('.000Z', 'Z');

  test('a new pod created seconds ago is assumed to come up; the rollout goes on', () => {
    const nodes = newNodes(3);
    const state = rolloutState(nodes, ds, base, (n, i) =>
      i === 0 ? [newPod('new-0', n.metadata.name, ds, {hash: 'h2', ready: false, created: fresh})] : [newPod(`old-${i}`, n.metadata.name, ds, {hash: 'h1'})],
    );
    const plan = planRollout(state, {now: NOW});
    // The next sync waits for it (the budget of 1 is in use), then the waves carry on.
    expect(plan.nextSync).toEqual({create: [], delete: []});
    expect(plan.waves).toHaveLength(4);
    expect(plan.converges).toBe(true);
    expect(plan.blockers).toEqual([]);
  });

  test.each([
    {
      name: 'crash-looping',
      status: {
        phase: 'Running',
        conditions: [{type: 'Ready', status: 'False'}],
        containerStatuses: [{name: 'main', ready: false, restartCount: 3, state: {waiting: {reason: 'CrashLoopBackOff'}}}],
      },
    },
    {name: 'unschedulable', status: {phase: 'Pending', conditions: [{type: 'PodScheduled', status: 'False', reason: 'Unschedulable'}]}},
  ])('a $name new pod stays not ready and blocks', ({name, status}) => {
    const nodes = newNodes(3);
    const state = rolloutState(nodes, ds, base, (n, i) =>
      i === 0
        ? [{...newPod('new-0', n.metadata.name, ds, {hash: 'h2', ready: false, created: fresh}), status}]
        : [newPod(`old-${i}`, n.metadata.name, ds, {hash: 'h1'})],
    );
    const plan = planRollout(state, {now: NOW});
    expect(plan.converges).toBe(false);
    expect(plan.blockers[0]!.message).toBe(`pod new-0 on node-0 is not ready (${name === 'unschedulable' ? 'Unschedulable' : 'CrashLoopBackOff'})`);
  });
});
