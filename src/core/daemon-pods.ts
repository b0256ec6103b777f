// The controller's working view of one sync: daemon pods grouped by target node, each pod reduced to the
// few facts the decisions read. Built once per sync (or once per plan) so that 50,000 pods are parsed once.
import {isPodReady, podAvailableAt} from './availability.js';
import {getNodesToDaemonPods} from './claim.js';
import {eligibilityCheckerFor} from './eligibility.js';
import {comparePodsByCreationTimestampAndPhase} from './pod-order.js';
import {CONTROLLER_REVISION_HASH_LABEL, isPodUpdated, templateGeneration} from './pod-template.js';
import type {DaemonSet, Node, NodeEligibility, Pod} from './types.js';

export interface DaemonPod {
  readonly pod: Pod;
  readonly name: string;
  /** The `controller-revision-hash` label equals the update hash (manage's surge pruning looks only at this). */
  readonly hashMatches: boolean;
  /** isPodUpdated: hash label, or the pod-template-generation fallback (rolling update and status look at this). */
  readonly updated: boolean;
  readonly terminating: boolean;
  readonly phase: string;
  readonly ready: boolean;
  /** Epoch ms from which the pod counts as available; -Infinity for always, undefined for never. */
  readonly availableAt: number | undefined;
  /** Created by the planner's simulation, not present in the cluster. */
  readonly planned: boolean;
}

export interface UpdateTarget {
  readonly hash: string;
  readonly generation: number | undefined;
  readonly minReadySeconds: number;
}

export function toDaemonPod(pod: Pod, target: UpdateTarget, planned = false): DaemonPod {
  const hash = pod.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL];
  const ready = isPodReady(pod);
  let availableAt: number | undefined;
  if (ready) availableAt = target.minReadySeconds <= 0 ? Number.NEGATIVE_INFINITY : podAvailableAt(pod, target.minReadySeconds);
  return {
    pod,
    name: pod.metadata.name,
    hashMatches: hash === target.hash,
    updated: isPodUpdated(pod, target.hash, target.generation),
    terminating: pod.metadata.deletionTimestamp !== undefined,
    phase: pod.status?.phase ?? '',
    ready,
    availableAt,
    planned,
  };
}

/**
 * The same pod turned Ready (the planner's pods that start): field by field, as spread with overrides is a slow path
 * in V8 and this runs for every pod a plan creates.
 */
export function readyDaemonPod(pod: DaemonPod, phase: string, availableAt: number): DaemonPod {
  return {
    pod: pod.pod,
    name: pod.name,
    hashMatches: pod.hashMatches,
    updated: pod.updated,
    terminating: pod.terminating,
    phase,
    ready: true,
    availableAt,
    planned: pod.planned,
  };
}

/** A node "runs an old pod" when one of its pods is outdated and not going already (one rule for every count of them). */
export function runsOldPod(pods: readonly {readonly updated: boolean; readonly terminating: boolean}[]): boolean {
  return pods.some((pod) => !pod.updated && !pod.terminating);
}

export function isDaemonPodAvailable(pod: DaemonPod, now: number): boolean {
  return pod.availableAt !== undefined && pod.availableAt <= now;
}

export function compareDaemonPods(a: DaemonPod, b: DaemonPod): number {
  return comparePodsByCreationTimestampAndPhase(a.pod, b.pod);
}

/** One row per node: the nodes of the node list sorted by name, then targets that are not in the node list. */
export interface NodeSlot {
  readonly name: string;
  readonly node: Node | undefined;
  readonly eligibility: NodeEligibility;
  /** Daemon pods targeting this node, in the controller's order (oldest first); empty means no map entry. */
  readonly pods: readonly DaemonPod[];
}

const VANISHED: NodeEligibility = {shouldRun: false, shouldContinueRunning: false, reason: 'node does not exist'};

export function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Groups daemon pods by target node (getNodesToDaemonPods) and attaches eligibility. Where upstream walks
 * the node lister or a Go map (arbitrary order), the core walks nodes sorted by name.
 */
export function buildNodeSlots(ds: DaemonSet, nodes: readonly Node[], daemonPods: readonly Pod[], target: UpdateTarget): NodeSlot[] {
  const checker = eligibilityCheckerFor(ds);
  const grouped = getNodesToDaemonPods(daemonPods);
  const slots: NodeSlot[] = [];
  const sortedNodes = [...nodes].sort((a, b) => byName(a.metadata.name, b.metadata.name));
  const known = new Set<string>();
  // Indexed: a CLI run makes this pass cold, and a cold for-of allocates at every step.
  for (let i = 0; i < sortedNodes.length; i++) {
    const node = sortedNodes[i]!;
    const name = node.metadata.name;
    known.add(name);
    const pods = grouped.get(name);
    slots.push({name, node, eligibility: checker(node), pods: toSortedDaemonPods(pods, target)});
  }
  const vanished = [...grouped.keys()].filter((name) => !known.has(name)).sort(byName);
  for (const name of vanished) {
    slots.push({name, node: undefined, eligibility: VANISHED, pods: toSortedDaemonPods(grouped.get(name), target)});
  }
  return slots;
}

function toSortedDaemonPods(pods: readonly Pod[] | undefined, target: UpdateTarget): DaemonPod[] {
  if (!pods || pods.length === 0) return [];
  const views = pods.map((pod) => toDaemonPod(pod, target));
  if (views.length > 1) views.sort(compareDaemonPods);
  return views;
}

export function updateTargetFor(ds: DaemonSet, hash: string): UpdateTarget {
  return {hash, generation: templateGeneration(ds), minReadySeconds: ds.spec.minReadySeconds ?? 0};
}
