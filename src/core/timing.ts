// How long the plan's simulated pods take, from transitions the cluster shows finished: this DaemonSet's recent
// pods, from creation to the Ready condition's transition, and deletions a caller watched to their end (a pod that
// left). Never from something still under way: a pod terminating for an hour (on a NotReady node, say) says how
// long it has been stuck, not how long a deletion takes. Medians (robust to the odd slow pod), with their counts.
// Pure: the pods' own timestamps in, durations out; the planner folds them into its wave times.
import {isStuckTerminating} from './availability.js';
import type {ClusterState, Node, Pod} from './types.js';

/** When nothing was observed: a pod of a small daemon pulls its image and passes its readiness probe in about this. */
export const DEFAULT_POD_START_MS = 10_000;
/** When nothing was observed: a daemon that handles SIGTERM stops in about this (never more than its grace period). */
export const DEFAULT_POD_DELETION_MS = 1_000;
/** The newest pods only: an old pod's start says little about the image and nodes of today. */
export const RECENT_PODS = 50;

export type DurationBasis = 'observed' | 'assumed' | 'given';

export interface DurationEstimate {
  readonly ms: number;
  readonly basis: DurationBasis;
  /** How many pods the estimate comes from (0 unless observed). */
  readonly observations: number;
}

export interface PodTimings {
  /** Creation to Ready of a new pod. */
  readonly podStart: DurationEstimate;
  /** Deletion to gone of an old pod. */
  readonly podDeletion: DurationEstimate;
}

export interface TimingOptions {
  /** The instant the state was read, epoch ms. */
  readonly now: number;
  /** A pod start given by the user (ds-plan --pod-start): overrides what was observed. */
  readonly podStartMs?: number;
  /** Deletions watched to their end (finishedDeletions), ms each, newest last. One state alone shows none. */
  readonly deletions?: readonly number[];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function ownedBy(pod: Pod, state: ClusterState): boolean {
  const ds = state.daemonSet;
  const owner = pod.metadata.ownerReferences?.find((ref) => ref.controller === true);
  if (!owner || owner.kind !== 'DaemonSet') return false;
  return ds.metadata.uid ? owner.uid === ds.metadata.uid : owner.name === ds.metadata.name;
}

/** Creation to Ready, for a pod whose Ready condition turned True after it was created; else undefined. */
export function observedStartMs(pod: Pod): number | undefined {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True' || !ready.lastTransitionTime || !pod.metadata.creationTimestamp) return undefined;
  const ms = Date.parse(ready.lastTransitionTime) - Date.parse(pod.metadata.creationTimestamp);
  // Earlier than creation is a restored or hand-made object, not a start.
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** How long each of the RECENT_PODS newest pods that are not terminating took to start (those that show it). */
function recentStarts(pods: readonly Pod[]): number[] {
  // Newest first; a start (two more dates to read) is worked out only until enough pods have shown one.
  const newestFirst = pods
    .filter((pod) => !pod.metadata.deletionTimestamp)
    .map((pod) => ({pod, created: Date.parse(pod.metadata.creationTimestamp ?? '')}))
    .filter((entry) => Number.isFinite(entry.created))
    .sort((a, b) => b.created - a.created);
  const starts: number[] = [];
  for (const {pod} of newestFirst) {
    if (starts.length === RECENT_PODS) break;
    const start = observedStartMs(pod);
    if (start !== undefined) starts.push(start);
  }
  return starts;
}

/** The durations the plan's waves use, with what each is based on. */
export function observePodTimings(state: ClusterState, options: TimingOptions): PodTimings {
  const pods = state.pods.filter((pod) => ownedBy(pod, state));

  const recent = options.podStartMs === undefined ? recentStarts(pods) : [];
  const podStart: DurationEstimate =
    options.podStartMs !== undefined
      ? {ms: options.podStartMs, basis: 'given', observations: 0}
      : recent.length > 0
        ? {ms: median(recent), basis: 'observed', observations: recent.length}
        : {ms: DEFAULT_POD_START_MS, basis: 'assumed', observations: 0};

  // A deletion is seen to finish only by whoever watched the pod leave; the grace period caps it (after that the
  // kubelet kills the containers).
  const graceMs = (state.daemonSet.spec.template.spec.terminationGracePeriodSeconds ?? 30) * 1000;
  const finished = (options.deletions ?? []).slice(-RECENT_PODS).filter((ms) => Number.isFinite(ms) && ms >= 0);
  const podDeletion: DurationEstimate =
    finished.length > 0
      ? {ms: Math.min(graceMs, median(finished)), basis: 'observed', observations: finished.length}
      : {ms: Math.min(graceMs, DEFAULT_POD_DELETION_MS), basis: 'assumed', observations: 0};
  return {podStart, podDeletion};
}

/**
 * The deletions that finished between two states of the same pods: pods terminating in `before` (and not stuck:
 * something was going to confirm them) that are gone in `after`, each from the deletion request (deletionTimestamp
 * less the grace period) to `now`, the instant `after` was seen. The watch delivers a DELETED event within moments,
 * so this is the deletion's length as closely as a client can see it.
 */
export function finishedDeletions(before: readonly Pod[], after: readonly Pod[], nodes: readonly Node[], now: number): number[] {
  const still = new Set(after.map((pod) => pod.metadata.uid ?? `${pod.metadata.namespace}/${pod.metadata.name}`));
  const byName = new Map(nodes.map((node) => [node.metadata.name, node]));
  const out: number[] = [];
  for (const pod of before) {
    const at = pod.metadata.deletionTimestamp;
    if (at === undefined || still.has(pod.metadata.uid ?? `${pod.metadata.namespace}/${pod.metadata.name}`)) continue;
    const node = pod.spec.nodeName === undefined ? undefined : byName.get(pod.spec.nodeName);
    // Gone although nothing was confirming it: removed by force (or with its node), not a deletion's length.
    if (node === undefined || isStuckTerminating(pod, node, now)) continue;
    const requested = Date.parse(at) - (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
    const ms = now - requested;
    if (Number.isFinite(ms) && ms >= 0) out.push(ms);
  }
  return out;
}
