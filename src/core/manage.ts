// The manage half of a sync: which nodes need a daemon pod and which daemon pods must go, node by node.
import {type DaemonPod, isDaemonPodAvailable, type NodeSlot} from './daemon-pods.js';
import type {DeleteReason, NodeEligibility} from './types.js';

export interface PodToDelete {
  readonly pod: DaemonPod;
  readonly reason: DeleteReason;
}

/** The controller's in-memory failed-pod backoff for one node (client-go flowcontrol.Backoff entry). */
export interface BackoffEntry {
  readonly delayMs: number;
  readonly lastUpdate: number;
}

export const FAILED_POD_BACKOFF_INITIAL_MS = 1_000;
export const FAILED_POD_BACKOFF_MAX_MS = 15 * 60_000;

export interface ManageContext {
  /** Surge allowed (AllowsSurge): decides between surplus deletion and surge pruning. */
  readonly surge: boolean;
  readonly now: number;
  /** Backoff entry of this node, if the controller remembers one. */
  readonly backoff?: BackoffEntry;
}

export interface NodeManageDecision {
  readonly create: boolean;
  readonly delete: readonly PodToDelete[];
  /** The node's new backoff entry when a failed pod was deleted. */
  readonly backoff?: BackoffEntry;
  /** Set when a failed pod was skipped because the node is in backoff: sync again after this many ms. */
  readonly requeueAfterMs?: number;
}

const NOTHING: NodeManageDecision = {create: false, delete: []};

// upstream: client-go util/flowcontrol/backoff.go IsInBackOffSinceUpdate / hasExpired
function inBackoff(entry: BackoffEntry | undefined, now: number): boolean {
  if (!entry) return false;
  const since = now - entry.lastUpdate;
  if (since > 2 * FAILED_POD_BACKOFF_MAX_MS) return false;
  return since < entry.delayMs;
}

// upstream: client-go util/flowcontrol/backoff.go Next
function nextBackoff(entry: BackoffEntry | undefined, now: number): BackoffEntry {
  if (!entry || now - entry.lastUpdate > 2 * FAILED_POD_BACKOFF_MAX_MS) return {delayMs: FAILED_POD_BACKOFF_INITIAL_MS, lastUpdate: now};
  return {delayMs: Math.min(entry.delayMs * 2, FAILED_POD_BACKOFF_MAX_MS), lastUpdate: now};
}

// upstream: pkg/controller/daemon/daemon_controller.go podsShouldBeOnNode
export function podsShouldBeOnNode(eligibility: NodeEligibility, hasEntry: boolean, pods: readonly DaemonPod[], ctx: ManageContext): NodeManageDecision {
  const {shouldRun, shouldContinueRunning} = eligibility;
  if (shouldRun && !hasEntry) return {create: true, delete: []};

  if (shouldContinueRunning) {
    if (!hasEntry) return NOTHING;
    // The common case, one running pod and nothing to do, allocates nothing: this runs for every touched node.
    if (pods.length === 1 && isRunning(pods[0]!)) return NOTHING;
    const toDelete: PodToDelete[] = [];
    const running: DaemonPod[] = [];
    let backoff = ctx.backoff;
    let backoffChanged = false;
    let requeueAfterMs: number | undefined;
    for (const pod of pods) {
      // A pod on its way out is neither counted nor deleted again.
      if (pod.terminating) continue;
      if (pod.phase === 'Failed') {
        if (inBackoff(backoff, ctx.now)) {
          const wait = backoff!.delayMs - (ctx.now - backoff!.lastUpdate);
          requeueAfterMs = requeueAfterMs === undefined ? wait : Math.min(requeueAfterMs, wait);
          continue;
        }
        backoff = nextBackoff(backoff, ctx.now);
        backoffChanged = true;
        toDelete.push({pod, reason: 'failed'});
      } else if (pod.phase === 'Succeeded') {
        toDelete.push({pod, reason: 'succeeded'});
      } else {
        running.push(pod);
      }
    }

    let create = false;
    if (!ctx.surge) {
      // Pods are already in the controller's order, so the first running pod is the oldest and survives.
      for (let i = 1; i < running.length; i++) toDelete.push({pod: running[i]!, reason: 'surplus'});
    } else if (running.length === 0) {
      create = shouldRun;
    } else if (running.length > 1) {
      pruneSurge(running, ctx.now, toDelete);
    }
    if (!create && toDelete.length === 0 && requeueAfterMs === undefined && !(backoffChanged && backoff)) return NOTHING;
    return {
      create,
      delete: toDelete,
      ...(backoffChanged && backoff ? {backoff} : {}),
      ...(requeueAfterMs !== undefined ? {requeueAfterMs} : {}),
    };
  }

  if (hasEntry) {
    // The node may no longer run the daemon: every pod not already terminating goes, whatever its phase.
    return {create: false, delete: pods.filter((pod) => !pod.terminating).map((pod) => ({pod, reason: 'not-eligible' as const}))};
  }
  return NOTHING;
}

/** Neither going nor done: a pod podsShouldBeOnNode counts as running. */
function isRunning(pod: DaemonPod): boolean {
  return !pod.terminating && pod.phase !== 'Failed' && pod.phase !== 'Succeeded';
}

// upstream: pkg/controller/daemon/daemon_controller.go podsShouldBeOnNode (surge branch)
// Keeps at most the oldest new pod and the oldest old pod; the old one goes once it is unready or the new one is available.
function pruneSurge(running: readonly DaemonPod[], now: number, toDelete: PodToDelete[]): void {
  let oldestNew: DaemonPod | undefined;
  let oldestOld: DaemonPod | undefined;
  for (const pod of running) {
    if (pod.hashMatches) {
      if (!oldestNew) {
        oldestNew = pod;
        continue;
      }
    } else if (!oldestOld) {
      oldestOld = pod;
      continue;
    }
    toDelete.push({pod, reason: 'surge-extra'});
  }
  if (oldestNew && oldestOld) {
    if (!oldestOld.ready) toDelete.push({pod: oldestOld, reason: 'old-unready'});
    else if (isDaemonPodAvailable(oldestNew, now)) toDelete.push({pod: oldestOld, reason: 'replaced'});
  }
}

// upstream: pkg/controller/daemon/daemon_controller.go getUnscheduledPodsWithoutNode
/** Never-bound pods whose target node is gone; bound ones are left to the pod garbage collector. */
export function getUnscheduledPodsWithoutNode(slot: NodeSlot): PodToDelete[] {
  if (slot.node) return [];
  return slot.pods.filter((pod) => !pod.pod.spec.nodeName).map((pod) => ({pod, reason: 'orphaned-unscheduled' as const}));
}
