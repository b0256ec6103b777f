// ds-plan's use case: read the state, refuse an invalid DaemonSet with one clear line, plan the rollout.
// No oclif here; the command turns thrown errors into exit codes.
import type {ClusterSource, DaemonSetRef} from '../cluster/cluster-source.js';
import {type DaemonSet, formatInvalid, planRollout, type RolloutPlan, validateDaemonSet} from '../core/index.js';
import {InputError} from '../errors.js';

export interface PlanOptions {
  readonly source: ClusterSource;
  readonly ref: DaemonSetRef;
  /** The instant readiness and minReadySeconds availability are judged at (ms since the epoch). */
  readonly now: number;
}

export interface PlanResult {
  readonly plan: RolloutPlan;
  /** The DaemonSet as read, for renderers that show its own values (percentages as written). */
  readonly daemonSet: DaemonSet;
}

export async function planService(options: PlanOptions): Promise<RolloutPlan> {
  return (await planDaemonSet(options)).plan;
}

export async function planDaemonSet(options: PlanOptions): Promise<PlanResult> {
  const state = await options.source.readState(options.ref);
  const errors = validateDaemonSet(state.daemonSet);
  if (errors.length > 0) {
    throw new InputError(formatInvalid('daemonset', `${options.ref.namespace}/${options.ref.name}`, errors));
  }
  return {plan: planRollout(state, {now: options.now}), daemonSet: state.daemonSet};
}
