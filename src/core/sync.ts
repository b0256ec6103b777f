// One sync of the upstream DaemonSet controller (daemon_controller.go syncDaemonSet) as a pure function.
import {allowsSurge, rolloutBudgets, unavailableCount} from './budgets.js';
import {claimObjects} from './claim.js';
import {type NodeSlot, type UpdateTarget, buildNodeSlots, updateTargetFor} from './daemon-pods.js';
import {CONTROLLER_REVISION_HASH_LABEL} from './pod-template.js';
import {type EngineSettings, type EngineSync, NO_ACTIONS, ReconcileEngine} from './engine.js';
import type {BackoffEntry} from './manage.js';
import {type HistoryDecision, cleanupHistory, constructHistory} from './revisions.js';
import {isEmptyLabelSelector} from './selectors.js';
import {computeDaemonSetStatus} from './status.js';
import {type ControllerMinor, hasSurge, NEWEST_MODELLED_MINOR} from './versions.js';
import type {ClusterState, ControllerRevision, CoreEvent, DaemonSet, DaemonSetStatusCounters, Pod, RolloutBudgets, SyncActions} from './types.js';

export interface SyncOptions {
  /** The controller's clock, epoch ms. */
  readonly now: number;
  readonly burstReplicas?: number;
  /** The Kubernetes minor whose controller is modelled (default: the newest modelled). */
  readonly controllerMinor?: ControllerMinor;
  /** The controller's failed-pod backoff entries of this DaemonSet, by node name. */
  readonly failedPodBackoff?: ReadonlyMap<string, BackoffEntry>;
}

/** Everything a sync derives from the cluster state before deciding anything. */
export interface ReconcileInput {
  readonly ds: DaemonSet;
  readonly daemonPods: readonly Pod[];
  readonly adopt: readonly Pod[];
  readonly release: readonly Pod[];
  readonly revisions: readonly ControllerRevision[];
  readonly adoptRevisions: readonly ControllerRevision[];
  readonly releaseRevisions: readonly ControllerRevision[];
  readonly history: HistoryDecision;
  readonly target: UpdateTarget;
  readonly slots: readonly NodeSlot[];
  readonly strategyType: string;
  readonly budgets: RolloutBudgets | {readonly error: string};
  readonly surge: boolean;
  readonly controllerMinor: ControllerMinor;
}

// upstream: pkg/controller/daemon/daemon_controller.go syncDaemonSet (steps before manage)
export function prepareReconcile(state: ClusterState, controllerMinor: ControllerMinor = NEWEST_MODELLED_MINOR): ReconcileInput {
  const ds = state.daemonSet;
  const claimedPods = claimObjects(ds, state.pods);
  const claimedRevisions = claimObjects(ds, state.revisions);
  const history = constructHistory(ds, claimedRevisions.owned, claimedPods.owned);
  const daemonPods = relabel(claimedPods.owned, history.relabelPods);
  const target = updateTargetFor(ds, history.update.hash);
  const slots = buildNodeSlots(ds, state.nodes, daemonPods, target);
  const desired = slots.reduce((n, slot) => n + (slot.node && slot.eligibility.shouldRun ? 1 : 0), 0);
  const scaled = hasSurge(controllerMinor) ? rolloutBudgets(ds, desired) : budgetsBefore121(ds, desired);
  const strategyType = ds.spec.updateStrategy?.type ?? '';
  return {
    ds,
    daemonPods,
    adopt: claimedPods.adopt,
    release: claimedPods.release,
    revisions: claimedRevisions.owned,
    adoptRevisions: claimedRevisions.adopt,
    releaseRevisions: claimedRevisions.release,
    history,
    target,
    slots,
    strategyType,
    budgets: scaled.ok ? scaled.budgets : {error: scaled.error},
    surge: hasSurge(controllerMinor) && allowsSurge(ds),
    controllerMinor,
  };
}

/** Before 1.21 there is no maxSurge (the API server drops it) and no both-zero fallback. */
// upstream (1.20): pkg/controller/daemon/update.go getUnavailableNumbers
function budgetsBefore121(ds: DaemonSet, desired: number): ReturnType<typeof rolloutBudgets> {
  if (ds.spec.updateStrategy?.type !== 'RollingUpdate') return {ok: true, budgets: {maxUnavailable: 0, maxSurge: 0}};
  const unavailable = unavailableCount(ds, desired);
  return unavailable.ok
    ? {ok: true, budgets: {maxUnavailable: unavailable.value, maxSurge: 0}}
    : {ok: false, error: `invalid value for MaxUnavailable: ${unavailable.error}`};
}

/** dedupCurHistories relabels pods to the kept revision's hash before anything else looks at them. */
function relabel(pods: readonly Pod[], relabels: readonly {pod: string; hash: string}[]): Pod[] {
  if (relabels.length === 0) return [...pods];
  const byPod = new Map(relabels.map((r) => [r.pod, r.hash]));
  return pods.map((pod) => {
    const hash = byPod.get(pod.metadata.name);
    if (hash === undefined) return pod;
    return {...pod, metadata: {...pod.metadata, labels: {...pod.metadata.labels, [CONTROLLER_REVISION_HASH_LABEL]: hash}}};
  });
}

export function engineFor(
  input: ReconcileInput,
  options: {burstReplicas?: number; failedPodBackoff?: ReadonlyMap<string, BackoffEntry>; backoffAcrossSyncs?: boolean} = {},
): ReconcileEngine {
  const settings: EngineSettings = {
    ds: input.ds,
    target: input.target,
    rollingUpdate: input.strategyType === 'RollingUpdate',
    surge: input.surge,
    budgets: input.budgets,
    controllerMinor: input.controllerMinor,
    ...(options.burstReplicas !== undefined ? {burstReplicas: options.burstReplicas} : {}),
    ...(options.failedPodBackoff ? {backoff: options.failedPodBackoff} : {}),
    ...(options.backoffAcrossSyncs !== undefined ? {backoffAcrossSyncs: options.backoffAcrossSyncs} : {}),
  };
  return new ReconcileEngine(settings, input.slots);
}

export interface SyncResult {
  /** Set when the sync stops early and decides nothing (not even status). */
  readonly skipped?: 'selects-all' | 'being-deleted';
  readonly input?: ReconcileInput;
  /** Pod creations and deletions of manage, then of rollingUpdate (observed model), each capped at 250. */
  readonly manage: SyncActions;
  readonly rollingUpdate: SyncActions;
  readonly actions: SyncActions;
  readonly rollingUpdateError?: string;
  /** ControllerRevisions to delete after the rolling update (cleanupHistory). */
  readonly cleanupHistory: readonly string[];
  /** The status counters for the state as it was read (before this sync's actions). */
  readonly status?: DaemonSetStatusCounters;
  readonly failedPodBackoff: ReadonlyMap<string, BackoffEntry>;
  readonly requeueAfterMs?: number;
  readonly events: readonly CoreEvent[];
}

export interface SyncGate {
  readonly skipped: 'selects-all' | 'being-deleted';
  readonly events: readonly CoreEvent[];
}

/** Why syncDaemonSet returns before doing anything for `ds`, and the events it records then; undefined: it syncs. */
// upstream: pkg/controller/daemon/daemon_controller.go syncDaemonSet (the early returns)
export function syncGate(ds: DaemonSet): SyncGate | undefined {
  if (isEmptyLabelSelector(ds.spec.selector)) {
    return {
      skipped: 'selects-all',
      events: [{type: 'Warning', reason: 'SelectingAll', message: 'This daemon set is selecting all pods. A non-empty selector is required.'}],
    };
  }
  // Foreground deletion keeps the object (with a finalizer) while its pods go.
  if (ds.metadata.deletionTimestamp) return {skipped: 'being-deleted', events: []};
  return undefined;
}

// upstream: pkg/controller/daemon/daemon_controller.go syncDaemonSet / updateDaemonSet
export function syncDaemonSet(state: ClusterState, options: SyncOptions): SyncResult {
  const ds = state.daemonSet;
  const empty = {
    manage: NO_ACTIONS,
    rollingUpdate: NO_ACTIONS,
    actions: NO_ACTIONS,
    cleanupHistory: [],
    failedPodBackoff: options.failedPodBackoff ?? new Map(),
  };
  const gate = syncGate(ds);
  if (gate) return {...empty, ...gate};

  const input = prepareReconcile(state, options.controllerMinor);
  const status = computeDaemonSetStatus(input.slots, options.now);
  const engine = engineFor(input, options);
  const step: EngineSync = engine.sync(options.now);
  const events: CoreEvent[] = step.manage.delete
    .filter((d) => d.reason === 'failed')
    .map((d) => ({
      type: 'Warning' as const,
      reason: 'FailedDaemonPod',
      message: `Found failed daemon pod ${ds.metadata.namespace ?? 'default'}/${d.pod} on node ${d.node}, will try to kill it`,
    }));
  return {
    input,
    manage: step.manage,
    rollingUpdate: step.rollingUpdate,
    actions: {create: [...step.manage.create, ...step.rollingUpdate.create], delete: [...step.manage.delete, ...step.rollingUpdate.delete]},
    ...(step.rollingUpdateError ? {rollingUpdateError: step.rollingUpdateError} : {}),
    // upstream runs cleanup after the rolling update, on every daemon pod including terminating and terminal ones.
    cleanupHistory: cleanupHistory(ds, input.history.old, input.daemonPods),
    status,
    failedPodBackoff: engine.backoffEntries(),
    ...(step.requeueAfterMs !== undefined ? {requeueAfterMs: step.requeueAfterMs} : {}),
    events,
  };
}
