// The node and neighbour gates in the core (core/node-gates.ts): what counts as a node in trouble, a node troubled
// before its stage reported and not failed, the neighbours' baseline rule (the stage's rate against the rest's),
// the selector and the bound, and the record's bounded share of baselines and readings.
import {describe, expect, test} from 'vitest';
import {
  judgeNeighbourGate,
  judgeNodeGate,
  MAX_NODE_BASELINE_BYTES,
  MAX_READING_BYTES,
  neighbourBaselineOf,
  nodeBaselineOf,
  nodeTroubles,
  recordedReadings,
  troubledNodes,
} from '../../src/core/index.js';
import type {ClusterState, DaemonSet, Node, Pod} from '../../src/core/types.js';
import {NOW, newDaemonSet, newNodes, newPod, newRevision} from '../helpers/builders.js';

const base = newDaemonSet('agent', {maxUnavailable: 1});
const ds: DaemonSet = {
  ...base,
  spec: {...base.spec, template: {...base.spec.template, spec: {...base.spec.template.spec, containers: [{name: 'main', image: 'a:2'}]}}},
};
const webBase = newDaemonSet('web', {maxUnavailable: 1});
const web: DaemonSet = {...webBase, metadata: {...webBase.metadata, uid: 'web-uid'}};

/** Four nodes: node-0 and node-1 on the release (h2), the rest on h1; one `web` pod per node (a neighbour). */
function cluster(change: {nodes?: (n: Node) => Node; neighbour?: (p: Pod) => Pod} = {}): ClusterState {
  const nodes = newNodes(4).map(change.nodes ?? ((n) => n));
  const daemon = nodes.map((n, i) => newPod(`agent-${i}`, n.metadata.name, ds, {hash: i < 2 ? 'h2' : 'h1'}));
  const neighbours = nodes.map((n, i) => (change.neighbour ?? ((p) => p))(newPod(`web-${i}`, n.metadata.name, web, {labels: {app: 'web'}})));
  return {daemonSet: ds, nodes, pods: [...daemon, ...neighbours], revisions: [newRevision(base, 'h1', 1), newRevision(ds, 'h2', 2)]};
}

const notReady = (n: Node): Node => ({
  ...n,
  spec: {taints: [{key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule'}]},
  status: {conditions: [{type: 'Ready', status: 'False', reason: 'KubeletNotReady'}]},
});

describe('nodeTroubles', () => {
  test('Ready not True, a bad condition, a trouble taint; a cordon is no trouble', () => {
    const [node] = newNodes(1);
    expect(nodeTroubles(node!)).toEqual([]);
    expect(nodeTroubles({...node!, spec: {unschedulable: true, taints: [{key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule'}]}})).toEqual([]);
    expect(nodeTroubles(notReady(node!))).toEqual(['NotReady (Ready=False: KubeletNotReady)', 'taint node.kubernetes.io/not-ready']);
    expect(
      nodeTroubles({
        ...node!,
        status: {
          conditions: [
            {type: 'Ready', status: 'True'},
            {type: 'DiskPressure', status: 'True'},
            {type: 'MemoryPressure', status: 'False'},
          ],
        },
      }),
    ).toEqual(['DiskPressure=True']);
  });
});

describe('judgeNodeGate', () => {
  test('a touched node in trouble fails the stage, naming the node, its pod and the trouble', () => {
    const state = cluster({nodes: (n) => (n.metadata.name === 'node-1' ? notReady(n) : n)});
    const {failures, reading} = judgeNodeGate({state, nodes: ['node-0', 'node-1'], now: NOW, troubledBefore: new Set()});
    expect(failures).toEqual([
      {gate: 'node', pod: 'agent-1', node: 'node-1', reason: 'NotReady (Ready=False: KubeletNotReady), taint node.kubernetes.io/not-ready'},
    ]);
    expect(reading).toEqual({gate: 'node', name: 'nodes', value: '1 of 2 in trouble', bound: '0', verdict: 'fail'});
  });

  test('a node in trouble before the stage is reported, not failed; an untouched one is not judged', () => {
    const state = cluster({nodes: (n) => (n.metadata.name === 'node-1' || n.metadata.name === 'node-2' ? notReady(n) : n)});
    const {failures, reading} = judgeNodeGate({state, nodes: ['node-0', 'node-1', 'node-2'], now: NOW, troubledBefore: new Set(['node-1'])});
    expect(failures).toEqual([]);
    expect(reading.value).toBe('0 of 2 in trouble; 1 troubled before the stage (not failed)');
    expect(reading.verdict).toBe('pass');
    expect(troubledNodes(state, ['node-0', 'node-1'])).toEqual(['node-1']);
  });

  test('the record keeps a bounded list of the troubled nodes, and how many more', () => {
    const names = Array.from({length: 100}, (_, i) => `a-rather-long-node-name-in-a-big-pool-${i}`);
    const kept = nodeBaselineOf(2, names);
    expect(kept.stage).toBe(2);
    expect(JSON.stringify(kept.nodes).length).toBeLessThanOrEqual(MAX_NODE_BASELINE_BYTES);
    expect(kept.nodes.length + kept.more!).toBe(100);
    expect(nodeBaselineOf(0, ['n1'])).toEqual({stage: 0, nodes: ['n1']});
  });
});

describe('judgeNeighbourGate', () => {
  const restarted = (p: Pod): Pod => ({
    ...p,
    status: {...p.status, containerStatuses: [{name: 'main', ready: true, restartCount: 1}]},
  });
  const before = cluster();
  const baseline = neighbourBaselineOf(before, before.pods, undefined);

  test('the baseline has the other workloads Ready now, never the DaemonSet own pods', () => {
    expect([...baseline.keys()].sort()).toEqual(['pod-uid-web-0', 'pod-uid-web-1', 'pod-uid-web-2', 'pod-uid-web-3']);
  });

  test('a neighbour on a touched node that restarted fails the stage; both numbers are said', () => {
    const state = cluster({neighbour: (p) => (p.metadata.name === 'web-0' ? restarted(p) : p)});
    const judged = judgeNeighbourGate({state, pods: state.pods, nodes: ['node-0', 'node-1'], now: NOW, baseline, maxFailures: 0});
    expect(judged.failures).toEqual([
      {
        gate: 'neighbour',
        pod: `${web.metadata.namespace}/web-0`,
        node: 'node-0',
        reason: "restarted (0 -> 1 restarts) (neighbours gone bad: 1 of 2 on the stage's nodes, 0 of 2 elsewhere)",
      },
    ]);
    expect(judged.reading.verdict).toBe('fail');
  });

  test('within --max-neighbour-failures, or left out by the selector: passes', () => {
    const state = cluster({neighbour: (p) => (p.metadata.name === 'web-0' ? restarted(p) : p)});
    const input = {state, pods: state.pods, nodes: ['node-0', 'node-1'], now: NOW, baseline};
    expect(judgeNeighbourGate({...input, maxFailures: 1}).failures).toEqual([]);
    expect(judgeNeighbourGate({...input, maxFailures: 0, selector: 'app=web'}).failures).toEqual([]);
  });

  test('the whole cluster failing alike does not blame the stage', () => {
    const lost = (p: Pod): Pod => ({...p, status: {...p.status, conditions: [{type: 'Ready', status: 'False'}]}});
    const state = cluster({neighbour: (p) => (p.metadata.name === 'web-0' || p.metadata.name === 'web-2' ? lost(p) : p)});
    const judged = judgeNeighbourGate({state, pods: state.pods, nodes: ['node-0', 'node-1'], now: NOW, baseline, maxFailures: 0});
    expect(judged.failures).toEqual([]);
    expect(judged.reading.value).toBe("1 of 2 on the stage's nodes, 1 of 2 elsewhere");
    expect(judged.reading.verdict).toBe('pass');
  });

  test('a neighbour not Ready at the baseline, or being deleted, is not counted', () => {
    const state = cluster({
      neighbour: (p) => (p.metadata.name === 'web-0' ? {...p, metadata: {...p.metadata, deletionTimestamp: new Date(NOW).toISOString()}} : p),
    });
    const lost = (p: Pod): Pod => ({...p, status: {...p.status, conditions: [{type: 'Ready', status: 'False'}]}});
    const judged = judgeNeighbourGate({
      state,
      pods: state.pods.map((p) => (p.metadata.name === 'web-0' ? lost(p) : p)),
      nodes: ['node-0'],
      now: NOW,
      baseline,
      maxFailures: 0,
    });
    expect(judged.failures).toEqual([]);
  });
});

test('the record keeps its readings within MAX_READING_BYTES, each text clipped', () => {
  const long = 'x'.repeat(500);
  const kept = recordedReadings(
    Array.from({length: 20}, (_, i) => ({gate: 'metric' as const, name: `q${i}`, value: long, bound: long, verdict: 'pass' as const})),
  );
  expect(kept.length).toBeGreaterThan(0);
  expect(kept.length).toBeLessThan(20);
  expect(JSON.stringify(kept).length).toBeLessThanOrEqual(MAX_READING_BYTES);
  expect(kept[0]!.value.length).toBeLessThanOrEqual(120);
});
