// The gates that judge what a node agent breaks outside its own pod (docs/gated/gates.md): the node gate (a stage
// node that turns NotReady, gains a node lifecycle taint or a bad condition after its pod was replaced) and the
// neighbour gate (other workloads' pods on the stage's nodes that lose Ready, restart or fail, weighed against the
// rest of the cluster). Pure: the watched state, the stage and the baselines taken when the stage started in; the
// failures and each gate's reading out.
import {isPodReady} from './availability.js';
import {claimObjects} from './claim.js';
import {labelSelectorMatches, parseLabelSelector} from './selectors.js';
import {waveLanding} from './step-wave.js';
import type {ClusterState, GateFailure, GateReading, Node, Pod} from './types.js';

/** The node lifecycle controller's taints (and the kubelet's condition taints) that say a node is in trouble. */
export const NODE_TROUBLE_TAINTS: readonly string[] = [
  'node.kubernetes.io/not-ready',
  'node.kubernetes.io/unreachable',
  'node.kubernetes.io/network-unavailable',
  'node.kubernetes.io/memory-pressure',
  'node.kubernetes.io/disk-pressure',
  'node.kubernetes.io/pid-pressure',
];

/** Conditions whose `True` is bad news (Ready is the other way round). */
const BAD_CONDITIONS: readonly string[] = ['NetworkUnavailable', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

/** What is wrong with a node, one phrase each (empty: nothing): Ready not True, a bad condition, a trouble taint. */
export function nodeTroubles(node: Node): string[] {
  const troubles: string[] = [];
  const conditions = node.status?.conditions ?? [];
  const ready = conditions.find((c) => c.type === 'Ready');
  if (ready && ready.status !== 'True')
    troubles.push(`${ready.status === 'Unknown' ? 'Unknown' : 'NotReady'} (Ready=${ready.status}${ready.reason ? `: ${ready.reason}` : ''})`);
  for (const type of BAD_CONDITIONS) {
    const condition = conditions.find((c) => c.type === type);
    if (condition?.status === 'True') troubles.push(`${type}=True${condition.reason ? ` (${condition.reason})` : ''}`);
  }
  const taints = [...new Set((node.spec?.taints ?? []).filter((t) => NODE_TROUBLE_TAINTS.includes(t.key)).map((t) => t.key))];
  if (taints.length > 0) troubles.push(`taint ${taints.join(', ')}`);
  return troubles;
}

/** The nodes of `names` in trouble now, by name. */
export function troubledNodes(state: ClusterState, names: readonly string[] | undefined): string[] {
  const wanted = names === undefined ? undefined : new Set(names);
  return state.nodes
    .filter((n) => (wanted === undefined || wanted.has(n.metadata.name)) && nodeTroubles(n).length > 0)
    .map((n) => n.metadata.name)
    .sort();
}

/** How many bytes of node names a record keeps of the stage's nodes that were in trouble when it started. */
export const MAX_NODE_BASELINE_BYTES = 256;

/** The stage's troubled nodes at its start as the record keeps them: the first names that fit, and how many more. */
export interface NodeBaseline {
  readonly stage: number;
  readonly nodes: readonly string[];
  /** Troubled nodes left out for want of room: a rerun takes every node troubled then as troubled before. */
  readonly more?: number;
}

export function nodeBaselineOf(stage: number, troubled: readonly string[]): NodeBaseline {
  const nodes: string[] = [];
  let bytes = 0;
  for (const name of troubled) {
    bytes += new TextEncoder().encode(name).length + 3;
    if (bytes > MAX_NODE_BASELINE_BYTES) break;
    nodes.push(name);
  }
  return nodes.length < troubled.length ? {stage, nodes, more: troubled.length - nodes.length} : {stage, nodes};
}

/** The stage's nodes whose daemon pod the rollout has touched (replaced, being replaced, or created anew). */
export function touchedNodes(state: ClusterState, nodes: readonly string[] | undefined, now: number): Map<string, string | undefined> {
  const names = nodes ?? state.nodes.map((n) => n.metadata.name);
  const touched = new Map<string, string | undefined>();
  for (const landing of waveLanding(state, names, now).nodes) {
    if (landing.state !== 'old' && landing.state !== 'gone') touched.set(landing.node, landing.pod);
  }
  return touched;
}

export interface NodeGateInput {
  readonly state: ClusterState;
  readonly nodes?: readonly string[];
  readonly now: number;
  /** Stage nodes already in trouble when the stage started: reported, never failed. */
  readonly troubledBefore: ReadonlySet<string>;
  /** touchedNodes of the same state, when the caller has it already. */
  readonly touched?: ReadonlyMap<string, string | undefined>;
}

export interface GateJudgement {
  readonly failures: readonly GateFailure[];
  readonly reading: GateReading;
}

/**
 * The node gate: a stage node whose pod was replaced and that is in trouble now (NotReady or Unknown, a bad
 * condition, a trouble taint) fails the stage, unless it was so before the stage touched it (then it is counted
 * in the reading as reported).
 */
export function judgeNodeGate(input: NodeGateInput): GateJudgement {
  const touched = input.touched ?? touchedNodes(input.state, input.nodes, input.now);
  const byName = new Map(input.state.nodes.map((n) => [n.metadata.name, n]));
  const failures: GateFailure[] = [];
  let reported = 0;
  for (const [name, pod] of touched) {
    const node = byName.get(name);
    if (!node) continue;
    const troubles = nodeTroubles(node);
    if (troubles.length === 0) continue;
    if (input.troubledBefore.has(name)) {
      reported++;
      continue;
    }
    failures.push({gate: 'node', pod: pod ?? '', node: name, reason: troubles.join(', ')});
  }
  const before = reported > 0 ? `; ${reported} troubled before the stage (not failed)` : '';
  return {
    failures,
    reading: {
      gate: 'node',
      name: 'nodes',
      value: `${failures.length} of ${touched.size} in trouble${before}`,
      bound: '0',
      verdict: failures.length > 0 ? 'fail' : touched.size === 0 ? 'pending' : 'pass',
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Neighbours

/** A neighbour pod as the baseline keeps it: Ready when the stage started, with its containers' restarts then. */
export type NeighbourBaseline = ReadonlyMap<string, number>;

const podKey = (pod: Pod) => pod.metadata.uid ?? `${pod.metadata.namespace ?? ''}/${pod.metadata.name}`;

function restartsOf(pod: Pod): number {
  return [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].reduce((sum, c) => sum + (c.restartCount ?? 0), 0);
}

/** Pods that are the DaemonSet's own (judged by the pod gate) or left out by the selector are no neighbours. */
function neighbourFilter(state: ClusterState, selector: string | undefined): (pod: Pod) => boolean {
  const own = new Set(claimObjects(state.daemonSet, state.pods).owned.map(podKey));
  const dsUid = state.daemonSet.metadata.uid;
  const leaveOut = selector === undefined || selector === '' ? undefined : parseLabelSelector(selector);
  return (pod) =>
    pod.spec.nodeName !== undefined &&
    !own.has(podKey(pod)) &&
    !(dsUid !== undefined && pod.metadata.ownerReferences?.some((o) => o.uid === dsUid)) &&
    !(leaveOut !== undefined && labelSelectorMatches(leaveOut, pod.metadata.labels));
}

/** The neighbour pods Ready now, with their restarts: the baseline taken when a stage starts. */
export function neighbourBaselineOf(state: ClusterState, pods: readonly Pod[], selector: string | undefined): Map<string, number> {
  const isNeighbour = neighbourFilter(state, selector);
  const baseline = new Map<string, number>();
  for (const pod of pods) {
    if (!pod.metadata.deletionTimestamp && isNeighbour(pod) && isPodReady(pod)) baseline.set(podKey(pod), restartsOf(pod));
  }
  return baseline;
}

export interface NeighbourGateInput {
  readonly state: ClusterState;
  /** Every pod the gate may look at (all namespaces, or the DaemonSet's namespace when that is all it can see). */
  readonly pods: readonly Pod[];
  readonly nodes?: readonly string[];
  readonly now: number;
  readonly baseline: NeighbourBaseline;
  readonly maxFailures: number;
  /** Pods matching it are left out. */
  readonly selector?: string;
  readonly touched?: ReadonlyMap<string, string | undefined>;
}

export interface NeighbourJudgement extends GateJudgement {
  /** Baseline pods gone bad on the stage's touched nodes, and how many the baseline has there. */
  readonly stage: {readonly bad: number; readonly of: number};
  /** The same on the nodes outside the stage. */
  readonly rest: {readonly bad: number; readonly of: number};
}

/** What happened to a neighbour that was Ready at the baseline (undefined: nothing). */
function neighbourTrouble(pod: Pod, restartsBefore: number): string | undefined {
  if (pod.status?.phase === 'Failed') return 'failed';
  const restarts = restartsOf(pod);
  if (restarts > restartsBefore) return `restarted (${restartsBefore} -> ${restarts} restarts)`;
  if (!isPodReady(pod) && !pod.metadata.deletionTimestamp) return 'lost Ready';
  return undefined;
}

/**
 * The neighbour gate. Pods of other workloads that were Ready when the stage started (the baseline) and since
 * lost Ready, restarted or failed are counted on the stage's touched nodes and, as a baseline, on the nodes outside
 * the stage. The stage fails when more than `maxFailures` went bad on its nodes and their share of the stage's
 * baseline pods is above the share outside it: a cluster failing alike everywhere does not blame the stage.
 */
export function judgeNeighbourGate(input: NeighbourGateInput): NeighbourJudgement {
  const touched = input.touched ?? touchedNodes(input.state, input.nodes, input.now);
  const inStage = new Set(input.nodes ?? input.state.nodes.map((n) => n.metadata.name));
  const isNeighbour = neighbourFilter(input.state, input.selector);
  const candidates: GateFailure[] = [];
  const stage = {bad: 0, of: 0};
  const rest = {bad: 0, of: 0};
  for (const pod of input.pods) {
    const before = input.baseline.get(podKey(pod));
    if (before === undefined || !isNeighbour(pod)) continue;
    const node = pod.spec.nodeName!;
    const onStage = touched.has(node);
    if (!onStage && inStage.has(node)) continue;
    const count = onStage ? stage : rest;
    count.of++;
    const trouble = neighbourTrouble(pod, before);
    if (trouble === undefined) continue;
    count.bad++;
    if (onStage) candidates.push({gate: 'neighbour', pod: `${pod.metadata.namespace ?? ''}/${pod.metadata.name}`, node, reason: trouble});
  }
  const rate = (c: {bad: number; of: number}) => (c.of === 0 ? 0 : c.bad / c.of);
  const fails = stage.bad > input.maxFailures && rate(stage) > rate(rest);
  const numbers = `${stage.bad} of ${stage.of} on the stage's nodes, ${rest.bad} of ${rest.of} elsewhere`;
  const failures = fails ? candidates.map((f) => ({...f, reason: `${f.reason} (neighbours gone bad: ${numbers})`})) : [];
  return {
    failures,
    stage,
    rest,
    reading: {
      gate: 'neighbour',
      name: 'neighbours',
      value: numbers,
      bound: `at most ${input.maxFailures}, and not above the rate elsewhere`,
      verdict: fails ? 'fail' : touched.size === 0 ? 'pending' : 'pass',
    },
  };
}

/** The pod gate's reading: the new revision's pods on the stage's nodes that fail it. */
export function podGateReading(failures: number, touched: number, maxRestarts: number): GateReading {
  return {
    gate: 'pod',
    name: 'pods',
    value: `${failures} of ${touched} new pods failing`,
    bound: `0 (restarts at most ${maxRestarts})`,
    verdict: failures > 0 ? 'fail' : touched === 0 ? 'pending' : 'pass',
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Readings in the record

/** How many bytes of readings a record keeps (each gate's value and bound, a few at most). */
export const MAX_READING_BYTES = 640;
const MAX_READING_TEXT = 120;

const clip = (text: string) => (text.length > MAX_READING_TEXT ? `${text.slice(0, MAX_READING_TEXT - 3)}...` : text);

/** The readings a record keeps: each text clipped, the first ones that fit MAX_READING_BYTES. */
export function recordedReadings(readings: readonly GateReading[]): GateReading[] {
  const kept: GateReading[] = [];
  let bytes = 0;
  for (const reading of readings) {
    const clipped = {...reading, name: clip(reading.name), value: clip(reading.value), bound: clip(reading.bound)};
    bytes += new TextEncoder().encode(JSON.stringify(clipped)).length + 1;
    if (bytes > MAX_READING_BYTES) break;
    kept.push(clipped);
  }
  return kept;
}

/** `nodes: 0 of 1 in trouble (bound 0): pass`, as status and the progress lines show a reading. */
export function describeGateReading(reading: GateReading): string {
  return `${reading.name}: ${reading.value} (bound ${reading.bound}): ${reading.verdict}`;
}
