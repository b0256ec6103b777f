// Pod readiness, availability and lifecycle predicates.
import type {ContainerStatus, Node, Pod, PodCondition} from './types.js';

// Go's zero time.Time (0001-01-01T00:00:00Z): upstream treats it as "no transition time".
const GO_ZERO_TIME_MS = -62135596800000;

function readyCondition(pod: Pod): PodCondition | undefined {
  // Upstream reads the first condition of the type; later duplicates are ignored.
  return pod.status?.conditions?.find((c) => c.type === 'Ready');
}

/** Only the Ready condition counts: not the phase, container statuses or a deletionTimestamp. */
// upstream: pkg/api/v1/pod/util.go IsPodReady
export function isPodReady(pod: Pod): boolean {
  return readyCondition(pod)?.status === 'True';
}

function transitionTime(condition: PodCondition): number | undefined {
  if (condition.lastTransitionTime === undefined) return undefined;
  const t = Date.parse(condition.lastTransitionTime);
  return Number.isNaN(t) || t === GO_ZERO_TIME_MS ? undefined : t;
}

/**
 * The time (ms since the epoch) from which a Ready pod counts as available, so that
 * `isPodAvailable(pod, m, now) === (at !== undefined && at <= now)` for every `now`.
 * Undefined when the pod is not Ready, or when m > 0 and the Ready condition has no transition time
 * (such a pod never becomes available). With m == 0 a Ready pod is available at any instant: -Infinity.
 */
// upstream: pkg/api/v1/pod/util.go IsPodAvailable
export function podAvailableAt(pod: Pod, minReadySeconds: number): number | undefined {
  const condition = readyCondition(pod);
  if (condition?.status !== 'True') return undefined;
  if (minReadySeconds === 0) return Number.NEGATIVE_INFINITY;
  const t = transitionTime(condition);
  return t === undefined ? undefined : t + minReadySeconds * 1000;
}

/**
 * Ready for at least minReadySeconds at `now` (ms). The edge is inclusive (`t + m <= now`), the rule since
 * 1.34 (kubernetes#132122; earlier releases required `t + m < now`).
 */
// upstream: pkg/api/v1/pod/util.go IsPodAvailable
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  const at = podAvailableAt(pod, minReadySeconds);
  return at !== undefined && at <= now;
}

/** Has a deletionTimestamp: the API server is deleting it (possibly waiting on finalizers or grace). */
export function isPodTerminating(pod: Pod): boolean {
  return pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== '';
}

/** Phase Failed or Succeeded: its containers will not run again. */
// upstream: pkg/api/v1/pod/util.go IsPodTerminal
export function isPodTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Failed' || phase === 'Succeeded';
}

const STARTING = new Set(['ContainerCreating', 'PodInitializing']);

/** The reason a person would look for first: unschedulable, a container's waiting or terminated reason, else the pod's. */
export function podProblem(pod: Pod): string | undefined {
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False') return scheduled.reason ?? 'Unschedulable';
  return containerProblem(pod.status?.initContainerStatuses) ?? containerProblem(pod.status?.containerStatuses) ?? pod.status?.reason;
}

/** The first waiting reason other than starting, or terminated reason of a container that is not ready. */
function containerProblem(statuses: readonly ContainerStatus[] | undefined): string | undefined {
  if (statuses === undefined) return undefined;
  for (const c of statuses) {
    const waiting = c.state?.waiting?.reason;
    if (waiting && !STARTING.has(waiting)) return waiting;
    const terminated = c.state?.terminated?.reason;
    if (terminated && !c.ready && terminated !== 'Completed') return terminated;
  }
  return undefined;
}

/** How long a pod may take to come up before "not ready" stops meaning "still starting". */
export const STARTING_GRACE_MS = 5 * 60_000;

/**
 * A pod that will most likely become ready by itself: not ready yet, not terminating, created less than
 * STARTING_GRACE_MS ago on a Ready node, with no failure reason (CrashLoopBackOff, ImagePullBackOff,
 * Unschedulable, ...), and bound or still within SCHEDULING_GRACE_MS of being created. Everything else that is
 * not ready is taken to stay so.
 */
export function isPodStarting(pod: Pod, node: Node | undefined, now: number): boolean {
  if (pod.metadata.deletionTimestamp || isPodReady(pod) || podProblem(pod) !== undefined) return false;
  if (!isNodeReady(node)) return false;
  const created = Date.parse(pod.metadata.creationTimestamp ?? '');
  if (!Number.isFinite(created)) return false;
  // Nothing bound it, and no scheduler even said why: no scheduler is running, and nothing will.
  if (isAwaitingScheduler(pod) && now - created >= SCHEDULING_GRACE_MS) return false;
  return now - created < STARTING_GRACE_MS;
}

/** How long a scheduler may take to bind a daemon pod (it takes well under a second when one runs). */
export const SCHEDULING_GRACE_MS = 30_000;

/** podProblem, and at `now` a pod no scheduler has bound for longer than it takes one (what to look at, said). */
export function podProblemAt(pod: Pod, now: number): string | undefined {
  const problem = podProblem(pod);
  if (problem !== undefined) return problem;
  // The scheduler first: Date.parse is the costly part, and a plan asks this of every pod.
  if (!isAwaitingScheduler(pod)) return undefined;
  const created = Date.parse(pod.metadata.creationTimestamp ?? '');
  if (!(now - created >= SCHEDULING_GRACE_MS)) return undefined;
  return `not scheduled for ${Math.floor((now - created) / 1000)}s: is a scheduler running?`;
}

/** Not bound to a node, and no scheduler has written its PodScheduled condition. */
export function isAwaitingScheduler(pod: Pod): boolean {
  return !pod.spec.nodeName && pod.status?.conditions?.find((c) => c.type === 'PodScheduled') === undefined;
}

/** The node's kubelet reports Ready. Only this condition tells whether anything on the node will move. */
export function isNodeReady(node: Node | undefined): boolean {
  return node?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
}

/**
 * Terminating within its grace period where something will finish it: a Ready node's kubelet, or, for a node
 * that is gone (undefined), the pod garbage collector. On a NotReady node nothing confirms the deletion.
 */
export function isTerminatingOnTime(pod: Pod, node: Node | undefined, now: number): boolean {
  const at = pod.metadata.deletionTimestamp;
  return at !== undefined && Date.parse(at) >= now && (node === undefined || isNodeReady(node));
}

/** Past its deletionTimestamp (which already includes the grace period), a pod this much later counts as stuck. */
const STUCK_AFTER_MS = 60_000;

/** A terminating pod whose deletion nobody will confirm: its node is gone or not Ready, or its grace period ended a while ago. */
export function isStuckTerminating(pod: Pod, node: Node | undefined, now: number): boolean {
  if (!node || !isNodeReady(node)) return true;
  const deadline = Date.parse(pod.metadata.deletionTimestamp ?? '');
  return Number.isFinite(deadline) && deadline + STUCK_AFTER_MS < now;
}
