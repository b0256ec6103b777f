// What a person wants to know before applying a new template over a DaemonSet, beyond the plan itself: the rule
// decided on the plan of the new template and on eligibility before and after; ds-plan -f renders it.
import {nodeShouldRunDaemonPod} from './eligibility.js';
import type {ClusterState, DaemonSet, RolloutPlan} from './types.js';
import {formatList} from './words.js';

export type UpdateWarningKind =
  'server-check-skipped' | 'dropped-field' | 'cannot-start' | 'host-port-surge' | 'node-loses-daemon' | 'node-gains-daemon' | 'on-delete';

export interface UpdateWarning {
  readonly kind: UpdateWarningKind;
  readonly message: string;
  readonly nodes?: readonly string[];
}

/** Warnings about applying `next` over the state's DaemonSet, from the plan of `next` and eligibility before and after. */
export function updateWarnings(state: ClusterState, next: DaemonSet, plan: RolloutPlan): UpdateWarning[] {
  const warnings: UpdateWarning[] = [];
  const current = state.daemonSet;

  if (plan.strategy.type === 'OnDelete') {
    warnings.push({
      kind: 'on-delete',
      message: 'updateStrategy is OnDelete: nothing happens until the old pods are deleted (kubectl delete pod, or ds-rollout step)',
    });
  } else if (plan.strategy.maxSurge === 0) {
    // Unavailable pods count against maxUnavailable (1.31+): when the ones that will not clear by themselves already
    // use all of it, no old pod is deleted until one of them becomes available. The core says who uses the budget.
    const holders = plan.budget.maxUnavailable.nodes.filter((use) => !use.settling);
    const startsNow = plan.nextSync.delete.some((d) => d.reason === 'outdated');
    if (holders.length > 0 && holders.length >= plan.strategy.maxUnavailable && !startsNow) {
      warnings.push({
        kind: 'cannot-start',
        message: `the rollout cannot start now: ${holders.length} unavailable ${holders.length === 1 ? 'node uses' : 'nodes use'} the whole maxUnavailable budget (${plan.strategy.maxUnavailable}): ${formatList(
          holders.map((use) => `${use.node} (${use.reason})`),
          5,
        )}`,
        nodes: holders.map((use) => use.node),
      });
    }
  }

  for (const finding of [...plan.blockers, ...plan.warnings]) {
    if (finding.kind === 'host-port-surge')
      warnings.push({kind: 'host-port-surge', message: finding.message, ...(finding.nodes && finding.nodes.length > 0 ? {nodes: finding.nodes} : {})});
  }

  // Nodes the new template takes the daemon away from, or gives it to (nodeSelector, affinity, tolerations).
  const removed = new Map<string, string[]>();
  const added: string[] = [];
  for (const node of state.nodes) {
    const before = nodeShouldRunDaemonPod(node, current);
    const after = nodeShouldRunDaemonPod(node, next);
    if (before.shouldRun && !after.shouldRun) {
      const list = removed.get(after.reason) ?? [];
      list.push(node.metadata.name);
      removed.set(after.reason, list);
    } else if (!before.shouldRun && after.shouldRun) {
      added.push(node.metadata.name);
    }
  }
  for (const [reason, nodes] of removed) {
    warnings.push({
      kind: 'node-loses-daemon',
      message: `the new template removes the daemon from ${nodes.length === 1 ? '1 node' : `${nodes.length} nodes`} (${reason}): ${formatList(nodes, 5)}`,
      nodes,
    });
  }
  if (added.length > 0) {
    warnings.push({
      kind: 'node-gains-daemon',
      message: `the new template also runs the daemon on ${added.length === 1 ? '1 node' : `${added.length} nodes`} that do not run it now: ${formatList(added, 5)}`,
      nodes: added,
    });
  }
  return warnings;
}
