// observePodTimings (what the plan's wave times rest on) and the planner's use of them.
import {describe, expect, test} from 'vitest';
import {finishedDeletions, observePodTimings, planRollout} from '../../src/core/index.js';
import type {ClusterState, Pod} from '../../src/core/types.js';
import {NOW, newDaemonSet, newNodes, newPod} from '../helpers/builders.js';

const ds = newDaemonSet('agent');
const other = {...newDaemonSet('other'), metadata: {...newDaemonSet('other').metadata, uid: 'other-uid'}};
const at = (secondsBeforeNow: number) => new Date(NOW - secondsBeforeNow * 1000).toISOString().replace('.000Z', 'Z');

/** A pod created `created` s before NOW that turned Ready `startS` s later. */
function started(name: string, created: number, startS: number, owner = ds): Pod {
  return newPod(name, 'node-0', owner, {created: at(created), readySince: at(created - startS)});
}

function deleting(name: string, requestedS: number, graceS: number): Pod {
  const pod = newPod(name, 'node-0', ds, {deleting: at(requestedS - graceS)});
  return {...pod, metadata: {...pod.metadata, deletionGracePeriodSeconds: graceS}};
}

function stateOf(pods: Pod[], grace?: number): ClusterState {
  const daemonSet =
    grace === undefined
      ? ds
      : {...ds, spec: {...ds.spec, template: {...ds.spec.template, spec: {...ds.spec.template.spec, terminationGracePeriodSeconds: grace}}}};
  return {daemonSet, nodes: newNodes(1), pods, revisions: []};
}

describe('observePodTimings', () => {
  test.each([
    {
      name: 'the median of the pods’ creation -> Ready',
      pods: [started('a', 100, 2), started('b', 90, 3), started('c', 80, 10)],
      want: {ms: 3000, basis: 'observed', observations: 3},
    },
    {
      name: 'another DaemonSet’s pods do not count',
      pods: [started('a', 100, 2), started('b', 90, 40, other)],
      want: {ms: 2000, basis: 'observed', observations: 1},
    },
    {
      name: 'Ready before creation (a restored or hand-made pod) is no observation',
      pods: [started('a', 100, -5)],
      want: {ms: 10_000, basis: 'assumed', observations: 0},
    },
    {name: 'a pod not Ready is no observation', pods: [newPod('a', 'node-0', ds, {ready: false})], want: {ms: 10_000, basis: 'assumed', observations: 0}},
    {
      name: 'only the 50 newest pods count',
      pods: [...Array.from({length: 50}, (_, i) => started(`new-${i}`, 100 + i, 2)), ...Array.from({length: 60}, (_, i) => started(`old-${i}`, 1000 + i, 30))],
      want: {ms: 2000, basis: 'observed', observations: 50},
    },
  ])('pod start: $name', ({pods, want}) => {
    expect(observePodTimings(stateOf(pods), {now: NOW}).podStart).toEqual(want);
  });

  test('--pod-start overrides what was observed', () => {
    expect(observePodTimings(stateOf([started('a', 100, 2)]), {now: NOW, podStartMs: 7000}).podStart).toEqual({ms: 7000, basis: 'given', observations: 0});
  });

  test.each([
    {
      name: 'none seen to finish: the assumed 1s',
      pods: [started('a', 100, 2)],
      deletions: [],
      grace: undefined,
      want: {ms: 1000, basis: 'assumed', observations: 0},
    },
    {name: 'a grace period under the default caps it', pods: [], deletions: [], grace: 0, want: {ms: 0, basis: 'assumed', observations: 0}},
    {
      name: 'pods terminating now are no observation, however long they have been going (stuck on a NotReady node)',
      pods: [deleting('a', 4, 30), deleting('b', 3600, 30)],
      deletions: [],
      grace: undefined,
      want: {ms: 1000, basis: 'assumed', observations: 0},
    },
    {
      name: 'deletions seen to finish: their median, robust to one slow one',
      pods: [],
      deletions: [800, 1200, 1000, 29_000],
      grace: undefined,
      want: {ms: 1100, basis: 'observed', observations: 4},
    },
    {name: 'capped by the grace period', pods: [], deletions: [40_000], grace: 20, want: {ms: 20_000, basis: 'observed', observations: 1}},
  ])('deletion: $name', ({pods, deletions, grace, want}) => {
    expect(observePodTimings(stateOf(pods, grace), {now: NOW, deletions}).podDeletion).toEqual(want);
  });
});

describe('finishedDeletions', () => {
  const nodes = newNodes(2);
  const notReady = {...nodes[1]!, status: {conditions: [{type: 'Ready', status: 'False'}]}};
  const on = (pod: Pod, node: string): Pod => ({...pod, spec: {...pod.spec, nodeName: node}});

  test('a pod that was terminating and left: from its deletion request to the state that no longer has it', () => {
    const a = deleting('a', 3, 30);
    expect(finishedDeletions([a, started('b', 100, 2)], [started('b', 100, 2)], nodes, NOW)).toEqual([3000]);
  });

  test('not a deletion: a pod still there, a pod that was not terminating, one stuck on a NotReady node (forced away)', () => {
    const still = deleting('a', 3, 30);
    const vanished = started('b', 100, 2);
    const stuck = on(deleting('c', 600, 30), 'node-1');
    expect(finishedDeletions([still, vanished, stuck], [still], [nodes[0]!, notReady], NOW)).toEqual([]);
  });
});

describe('planRollout with pod timings', () => {
  const nodes = newNodes(3);
  const old = nodes.map((node, i) => newPod(`old-${i}`, node.metadata.name, ds, {hash: 'old'}));
  const state: ClusterState = {daemonSet: ds, nodes, pods: old, revisions: []};
  const timings = {podStart: {ms: 2000, basis: 'observed', observations: 3}, podDeletion: {ms: 1000, basis: 'assumed', observations: 0}} as const;

  test('a new pod is Ready podStart after its wave; the next sync after a deletion comes when it is done', () => {
    const plan = planRollout(state, {now: NOW, timings});
    expect(plan.waves.map((wave) => [wave.at, wave.delete.map((d) => d.node), wave.create.map((c) => c.node)])).toEqual([
      [0, ['node-0'], []],
      [1, [], ['node-0']],
      [3, ['node-1'], []],
      [4, [], ['node-1']],
      [6, ['node-2'], []],
      [7, [], ['node-2']],
    ]);
    expect(plan.timing).toEqual({
      etaSeconds: 9,
      podStart: {seconds: 2, basis: 'observed', observations: 3},
      podDeletion: {seconds: 1, basis: 'assumed', observations: 0},
    });
  });

  test('without timings, everything is instant and there is no timing field (the earlier model)', () => {
    const plan = planRollout(state, {now: NOW});
    expect(plan.waves.map((wave) => wave.at)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(plan.timing).toBeUndefined();
  });
});
