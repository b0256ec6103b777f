// Which nodes use the rolling update's budget, and why: the one home of that rule. The count is the controller's
// own (RollingUpdateTally's classes and countsAgainstBudget, docs/design/reconcile.md §8.3 and §8.4); the reasons explain each
// node in the controller's terms. ds-plan, status, the dashboard and step all read it from here.
import {isNodeReady, isPodStarting, isStuckTerminating, podProblem, podProblemAt} from './availability.js';
import {type DaemonPod, isDaemonPodAvailable, type NodeSlot} from './daemon-pods.js';
import {countsAgainstBudget, type NodeUpdateClass, tallyEntryFor} from './rolling-update.js';
import type {BudgetInUse, BudgetUse, Node} from './types.js';
import {formatList} from './words.js';

/** Every node the rolling update counts against each budget, at `now`. */
export function budgetInUse(slots: readonly NodeSlot[], budgets: {readonly maxUnavailable: number; readonly maxSurge: number}, now: number): BudgetInUse {
  const unavailable: BudgetUse[] = [];
  const surge: BudgetUse[] = [];
  // Indexed: a CLI run makes this pass cold, and a cold for-of allocates at every step.
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i]!;
    // The usual node, one pod that is available and not going, uses neither budget: no class to build for it.
    if (slot.pods.length === 1 && !slot.pods[0]!.terminating && isDaemonPodAvailable(slot.pods[0]!, now)) continue;
    const entry = tallyEntryFor({pods: slot.pods, exists: slot.node !== undefined, eligibility: slot.eligibility}, now);
    if (!entry) continue;
    const inUnavailable = countsAgainstBudget(entry.cls, false);
    const inSurge = countsAgainstBudget(entry.cls, true);
    if (!inUnavailable && !inSurge) continue;
    const use = {node: slot.name, ...(explainBudgetUse(entry.cls, slot, slot.node, now) ?? {reason: 'old and new pods side by side', settling: true})};
    if (inUnavailable) unavailable.push(use);
    if (inSurge) surge.push(use);
  }
  return {
    spends: budgets.maxSurge > 0 ? 'maxSurge' : 'maxUnavailable',
    maxUnavailable: {limit: budgets.maxUnavailable, used: unavailable.length, nodes: unavailable},
    maxSurge: {limit: budgets.maxSurge, used: surge.length, nodes: surge},
  };
}

/** Why the rolling update counts a node as unavailable (undefined when it does not), in the controller's terms. */
export function explainBudgetUse(cls: NodeUpdateClass, before: NodeSlot, node: Node | undefined, now: number): Omit<BudgetUse, 'node'> | undefined {
  const ready = isNodeReady(node);
  const notReady = node && !ready ? ' (node not Ready)' : '';
  switch (cls.kind) {
    case 'not-ok':
      return {reason: 'two pods of one revision (the controller removes one)', settling: true};
    case 'empty': {
      const leaving = before.pods.find((pod) => pod.terminating);
      if (leaving) {
        // A deletion nothing will confirm (node not Ready, or long overdue) does not clear by itself.
        const onTime = !isStuckTerminating(leaving.pod, node, now);
        return {reason: `pod ${leaving.name} is ${onTime ? '' : 'stuck '}terminating${notReady}`, settling: onTime};
      }
      return {reason: `no daemon pod${notReady}`, settling: ready};
    }
    case 'both':
      return {reason: `old pod ${cls.oldPod.name} and new pod ${cls.newPod.name} side by side`, settling: true};
    case 'new-only':
      if (cls.newAvailable) return undefined;
      return newPodUse(cls.newPod, ready, notReady, now);
    case 'old-only': {
      if (cls.oldAvailable) return undefined;
      // An old pod still coming up (the controller's replacement made before the template changed again) clears
      // by itself, like a new one: starting, or Ready and waiting out minReadySeconds.
      const waiting = cls.oldPod.ready && ready ? minReadyWait(cls.oldPod, 'old', now) : undefined;
      if (waiting) return waiting;
      const problem = podProblem(cls.oldPod.pod);
      return {
        reason: `old pod ${cls.oldPod.name} is not ${cls.oldPod.ready ? 'available' : 'ready'}${problem ? ` (${problem})` : ''}${notReady}`,
        settling: isPodStarting(cls.oldPod.pod, node, now),
      };
    }
  }
}

/** A Ready pod waiting out minReadySeconds: it becomes available by itself, at a known time. */
function minReadyWait(pod: DaemonPod, age: 'old' | 'new', now: number): Omit<BudgetUse, 'node'> | undefined {
  if (pod.availableAt === undefined || !Number.isFinite(pod.availableAt)) return undefined;
  return {
    reason: `${age} pod ${pod.name} is ready, available in ${Math.max(1, Math.ceil((pod.availableAt - now) / 1000))}s (minReadySeconds)`,
    settling: true,
    availableAt: pod.availableAt,
  };
}

function newPodUse(pod: DaemonPod, nodeReady: boolean, notReady: string, now: number): Omit<BudgetUse, 'node'> {
  if (pod.planned) return {reason: `no daemon pod yet: the controller creates one${notReady}`, settling: nodeReady};
  const waiting = pod.ready ? minReadyWait(pod, 'new', now) : undefined;
  if (waiting) return waiting;
  const problem = podProblemAt(pod.pod, now);
  return {
    reason: `new pod ${pod.name} is not ${pod.ready ? 'available' : 'ready'}${problem ? ` (${problem})` : ''}${notReady}`,
    settling: !problem && nodeReady,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Holds: budget used by nodes that do not clear by themselves, and what would move the rollout on.

/**
 * The nodes that hold maxUnavailable and will not give it back by themselves. A node that is not Ready holds it
 * until it is Ready again: nothing on it changes, and a pod deleted there stays terminating until its kubelet
 * confirms the deletion (the controller counts such a node against the budget the whole time).
 */
export interface BudgetHold {
  /** maxUnavailable, scaled. */
  readonly limit: number;
  /** Nodes that are not Ready: held until each is Ready again. */
  readonly untilReady: readonly string[];
  /** Other nodes whose pods do not become available by themselves (a crashing pod, a stuck deletion). */
  readonly other: readonly string[];
}

/** A node's hold ends only when the node is Ready again: it exists and is not Ready. */
export function holdsUntilReady(node: Node | undefined): boolean {
  return node !== undefined && !isNodeReady(node);
}

/** The hold of these budget users: the ones that do not clear by themselves, split by what ends it. */
export function budgetHold(uses: readonly BudgetUse[], nodeOf: (name: string) => Node | undefined, limit: number): BudgetHold {
  const untilReady: string[] = [];
  const other: string[] = [];
  for (const use of uses) {
    if (use.settling) continue;
    (holdsUntilReady(nodeOf(use.node)) ? untilReady : other).push(use.node);
  }
  return {limit, untilReady, other};
}

/** How many units the hold takes. */
export function heldUnits(hold: BudgetHold): number {
  return hold.untilReady.length + hold.other.length;
}

/** The hold takes the whole budget: no available old pod can go until it ends. */
export function holdBlocks(hold: BudgetHold): boolean {
  return heldUnits(hold) > 0 && heldUnits(hold) >= hold.limit;
}

const NAMED_HOLDERS = 3;

/** `worker-13 holds 1 of maxUnavailable 1 until it is Ready again`: who holds the budget, and until when. */
export function holdWords(hold: BudgetHold): string {
  const parts: string[] = [];
  if (hold.untilReady.length > 0) {
    const n = hold.untilReady.length;
    parts.push(
      `${formatList(hold.untilReady, NAMED_HOLDERS)} ${n === 1 ? 'holds' : 'hold'} ${n} of maxUnavailable ${hold.limit} until ${n === 1 ? 'it is' : 'they are'} Ready again (a pod deleted there stays terminating until its kubelet confirms it)`,
    );
  }
  if (hold.other.length > 0) {
    const n = hold.other.length;
    parts.push(
      `${formatList(hold.other, NAMED_HOLDERS)} ${n === 1 ? 'holds' : 'hold'} ${n} of maxUnavailable ${hold.limit} until ${n === 1 ? 'its pod becomes' : 'their pods become'} available`,
    );
  }
  return parts.join('; ');
}

/**
 * What would move a held rollout on, in one line with the numbers: the smallest maxUnavailable that lets one old
 * pod go (`used`: every unit in use, settling or not), or waiting for the nodes (or fixing their pods). `step`: said to a step (--max-unavailable); `controller`:
 * said of the DaemonSet's own strategy. Leaving the nodes out with --selector or --nodes does not help: a scoped
 * step still counts every node of the DaemonSet, as the controller does.
 */
export function budgetWayForward(hold: BudgetHold, via: 'step' | 'abort' | 'controller', used = heldUnits(hold)): string {
  const needed = Math.max(used, heldUnits(hold)) + 1;
  const ways = [
    via === 'controller'
      ? `maxUnavailable ${needed} (in the DaemonSet, or pause and step with --max-unavailable ${needed})`
      : `${via} with --max-unavailable ${needed}`,
  ];
  if (hold.untilReady.length > 0) ways.push(`wait for ${formatList(hold.untilReady, NAMED_HOLDERS)} to be Ready again`);
  if (hold.other.length > 0) ways.push(`fix the ${hold.other.length === 1 ? 'pod' : 'pods'} on ${formatList(hold.other, NAMED_HOLDERS)}`);
  return `to go on: ${ways.slice(0, -1).join(', ')}${ways.length > 1 ? ', or ' : ''}${ways.at(-1)!}`;
}
