// The plan every face shows (ds-plan, status, status -A, the dashboard, undo's preview): the controller's waves,
// timed by the durations this DaemonSet's own pods show. One function, so that a status and a dashboard of the
// same cluster at the same instant cannot count different waves.
import type {PlanOptions} from './plan.js';
import {planRollout} from './plan.js';
import {observePodTimings} from './timing.js';
import type {ClusterState, RolloutPlan} from './types.js';

export interface ObservedPlanOptions extends Omit<PlanOptions, 'timings'> {
  /** A pod start given by the user (ds-plan --pod-start): overrides what was observed. */
  readonly podStartMs?: number;
  /** Deletions watched to their end (finishedDeletions), ms each: only a follower of the cluster has them. */
  readonly deletions?: readonly number[];
}

export function planObserved(state: ClusterState, options: ObservedPlanOptions): RolloutPlan {
  const {podStartMs, deletions, ...plan} = options;
  const timings = observePodTimings(state, {
    now: options.now,
    ...(podStartMs !== undefined ? {podStartMs} : {}),
    ...(deletions !== undefined ? {deletions} : {}),
  });
  return planRollout(state, {...plan, timings});
}
