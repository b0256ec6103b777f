// Which nodes use the rolling update's budget, and why: the one home of that rule. The count is the controller's
// own (RollingUpdateTally's classes and countsAgainstBudget, docs/design/reconcile.md §8.3 and §8.4); the reasons explain each
// node in the controller's terms. ds-plan, status, the dashboard and step all read it from here.
import {isNodeReady, isStuckTerminating, podProblem, podProblemAt} from './availability.js';
import type {DaemonPod, NodeSlot} from './daemon-pods.js';
import {countsAgainstBudget, type NodeUpdateClass, tallyEntryFor} from './rolling-update.js';
import type {Node} from './types.js';

/** A node the rolling update counts against its budget, and whether it can be expected to clear by itself. */
export interface BudgetUse {
  readonly node: string;
  readonly reason: string;
  /** True when the node is on its way to an available pod (starting, minReadySeconds, a deletion finishing). */
  readonly settling: boolean;
  /** For a ready pod waiting out minReadySeconds: when it becomes available (server clock, epoch ms). */
  readonly availableAt?: number;
}

/** One budget: its size and the nodes the controller counts against it. */
export interface BudgetCount {
  /** The budget scaled against the nodes that should run the daemon (the recorded one while paused). */
  readonly limit: number;
  /** How many nodes the controller counts against it now. */
  readonly used: number;
  /** Those nodes, by name. */
  readonly nodes: readonly BudgetUse[];
}

/** Both budgets, counted as the rolling update counts them; `spends` is the one it spends (maxSurge when above zero). */
export interface BudgetInUse {
  readonly spends: 'maxUnavailable' | 'maxSurge';
  readonly maxUnavailable: BudgetCount;
  readonly maxSurge: BudgetCount;
}

/** Every node the rolling update counts against each budget, at `now`. */
export function budgetInUse(slots: readonly NodeSlot[], budgets: {readonly maxUnavailable: number; readonly maxSurge: number}, now: number): BudgetInUse {
  const unavailable: BudgetUse[] = [];
  const surge: BudgetUse[] = [];
  for (const slot of slots) {
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
      const problem = podProblem(cls.oldPod.pod);
      return {
        reason: `old pod ${cls.oldPod.name} is not ${cls.oldPod.ready ? 'available' : 'ready'}${problem ? ` (${problem})` : ''}${notReady}`,
        settling: false,
      };
    }
  }
}

function newPodUse(pod: DaemonPod, nodeReady: boolean, notReady: string, now: number): Omit<BudgetUse, 'node'> {
  if (pod.planned) return {reason: `no daemon pod yet: the controller creates one${notReady}`, settling: nodeReady};
  if (pod.ready && pod.availableAt !== undefined) {
    return {
      reason: `new pod ${pod.name} is ready, available in ${Math.max(1, Math.ceil((pod.availableAt - now) / 1000))}s (minReadySeconds)`,
      settling: true,
      availableAt: pod.availableAt,
    };
  }
  const problem = podProblemAt(pod.pod, now);
  return {
    reason: `new pod ${pod.name} is not ${pod.ready ? 'available' : 'ready'}${problem ? ` (${problem})` : ''}${notReady}`,
    settling: !problem && nodeReady,
  };
}
