// `ds-rollout dashboard`'s use cases: the plan feed (cluster states from the session's watches, each one planned
// with the core) and the actions the dashboard's keys run (the same services as the commands). Wiring them to a
// terminal, or to `status`'s output without one, is src/cli/dashboard-app.ts's (the composition root).
import type {Clock} from '../platform/clock.js';
import type {ClusterSource, DaemonSetRef} from '../cluster/cluster-source.js';
import type {ClusterWriter} from '../cluster/cluster-writer.js';
import {type Follow, Follower} from '../cluster/live/follower.js';
import {
  type ClusterState,
  type DaemonSet,
  deepEqualJson,
  formatInvalid,
  type IntOrString,
  pausedInfoOf,
  finishedDeletions,
  planObserved,
  gatedRefusalReason,
  planStepWave,
  validateDaemonSet,
} from '../core/index.js';
import {type DsRolloutError, InputError} from '../platform/errors.js';
import type {PodsFollow} from '../cluster/live/pod-watch.js';
import type {EventSink} from './rollout-events.js';
import type {
  ActionHandler,
  ActionOutcome,
  Connection,
  DashboardSnapshot,
  PausedInfo,
  PlanFeed,
  SnapshotListener,
  StepPreview,
  UndoRequest,
} from './dashboard/feed.js';
import {toRevisionEntries} from './dashboard/revision-entries.js';
import {rolloutStatusOf} from './status.js';
import type {StepSession} from './step.js';

// ---------------------------------------------------------------------------------------------------------------
// The plan feed

// The feed follows through the one follower of the live adapter (`live.watch`), in the mode that keeps trying
// while the cluster does not answer: the dashboard shows it and recovers by itself.
export type {Follow, FollowHandlers} from '../cluster/live/follower.js';

/** Reads whether ds-rollout paused the DaemonSet (and the budgets resume restores). */
export type PausedOf = (daemonSet: DaemonSet, desired: number) => PausedInfo | undefined;

/** The pause record as the dashboard shows it (the core reads it, as for `status` and `ds-plan`). */
export function pausedOf(daemonSet: DaemonSet, desired: number): PausedInfo | undefined {
  const info = pausedInfoOf(daemonSet, desired);
  if (!info) return undefined;
  return {by: 'ds-rollout', maxUnavailable: info.strategy.maxUnavailable, maxSurge: info.strategy.maxSurge, pausedAt: info.pausedAt, steps: info.steps};
}

export interface PlanFeedOptions {
  readonly follow: Follow;
  /** The session's clock: availability and ages are judged on the server's. */
  readonly clock: Clock;
  /** Default: the core's reading of the pause record. */
  readonly pausedOf?: PausedOf;
  /** Re-plan this often without an event while availability waits on time (minReadySeconds). */
  readonly tickMs?: number;
}

export interface ClusterPlanFeed extends PlanFeed {
  /** Resolves with the first snapshot; rejects when following fails before it (nothing to show then). */
  ready(): Promise<DashboardSnapshot>;
  stop(): void;
}

export const DEFAULT_TICK_MS = 1000;

function invalidMessage(ds: DaemonSet): string | undefined {
  const errors = validateDaemonSet(ds);
  return errors.length > 0 ? formatInvalid('daemonset', `${ds.metadata.namespace ?? 'default'}/${ds.metadata.name}`, errors) : undefined;
}

/** What `s` would delete while paused: the same wave `ds-rollout step` computes, from the core. */
function stepPreview(state: ClusterState, now: number, ref: DaemonSetRef): StepPreview {
  // The refusal `ds-rollout step` would meet comes before any budget reason.
  const gated = gatedRefusalReason(state.daemonSet, ref, 'step');
  if (gated) return {deletions: [], blocked: gated.replace(/^daemonset \S+ /, '')};
  const wave = planStepWave(state, {now});
  if (!wave.ok) return {deletions: [], blocked: `no wave can run (${wave.problem.kind})`};
  if (wave.wave.delete.length === 0) {
    const why = wave.wave.done
      ? 'no old pod is left'
      : `the budget (maxUnavailable ${wave.wave.budget.maxUnavailable}) is in use: ${wave.wave.unavailable.map((use) => use.node).join(', ')}`;
    return {deletions: [], blocked: why};
  }
  return {deletions: wave.wave.delete.map((d) => ({pod: d.pod, node: d.node}))};
}

/** A pod that is ready but not yet available becomes available with time alone: the plan must be redone then. */
function waitsOnTime(snapshot: DashboardSnapshot): boolean {
  return snapshot.plan.nodes.some((node) => node.pods.some((pod) => pod.ready && !pod.available && !pod.terminating));
}

/** Deletions kept for the ETA: the newest, as many as the pod starts it reads. */
const RECENT_DELETIONS = 50;

/** What the feed says beside the plan: whether the watches are live, and the error line if any. */
interface FeedStatus {
  readonly connection: Connection;
  readonly error: string | undefined;
  /** The error line is the cluster not answering (it goes when the cluster answers again). */
  readonly unreachable: boolean;
}

/** The status once the watches' connection is `next`. */
function reconnected(status: FeedStatus, next: Connection): FeedStatus {
  // Answering again: the line about the cluster not answering goes (a watch that stopped for good stays).
  return next === 'live' && status.unreachable ? {connection: next, error: undefined, unreachable: false} : {...status, connection: next};
}

/** One cluster state planned as the dashboard shows it, at `now`: the plan, its verdict, the revisions, the pause. */
function snapshotOf(state: ClusterState, now: number, deletions: number[], paused: PausedOf, status: FeedStatus): DashboardSnapshot {
  const plan = planObserved(state, {now, deletions});
  const report = rolloutStatusOf(state, now, plan);
  const pausedInfo = paused(state.daemonSet, plan.status.desiredNumberScheduled);
  return {
    plan,
    verdict: {verdict: report.verdict, detail: report.detail},
    revisions: toRevisionEntries(state.daemonSet, state.revisions),
    connection: status.connection,
    ...(pausedInfo
      ? {
          paused: pausedInfo,
          step: stepPreview(state, now, {namespace: state.daemonSet.metadata.namespace ?? 'default', name: state.daemonSet.metadata.name}),
        }
      : {}),
    ...(status.error ? {error: status.error} : {}),
  };
}

/**
 * The feed's subscribers and its first snapshot, apart from the planning: a snapshot is handed on only when it
 * differs from the last one, and the first one settles ready().
 */
function snapshotPublisher() {
  const listeners = new Set<SnapshotListener>();
  let latest: DashboardSnapshot | undefined;
  let settle: {resolve(s: DashboardSnapshot): void; reject(e: unknown): void} | undefined;
  const ready = new Promise<DashboardSnapshot>((resolve, reject) => {
    settle = {resolve, reject};
  });
  // Nobody may be waiting on ready() (tests that only subscribe): an unobserved rejection must not crash.
  ready.catch(() => undefined);
  return {
    ready,
    latest: () => latest,
    emit(snapshot: DashboardSnapshot): void {
      if (latest !== undefined && deepEqualJson(latest, snapshot)) return;
      latest = snapshot;
      if (settle) {
        settle.resolve(snapshot);
        settle = undefined;
      }
      for (const listener of listeners) listener(snapshot);
    },
    /** Rejects ready() if no snapshot came yet; false when one did (the failure is then shown on it instead). */
    rejectFirst(failure: unknown): boolean {
      if (!settle) return false;
      settle.reject(failure);
      settle = undefined;
      return true;
    },
    subscribe(listener: SnapshotListener): () => void {
      listeners.add(listener);
      if (latest) listener(latest);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

/**
 * Plans every cluster state the watches report and hands the result to the subscribers, only when it changed.
 * Without events and without time-dependent availability it does nothing at all (no timers): an idle dashboard
 * costs no CPU.
 */
export function createPlanFeed(options: PlanFeedOptions): ClusterPlanFeed {
  const publisher = snapshotPublisher();
  const tickMs = options.tickMs ?? DEFAULT_TICK_MS;
  let state: ClusterState | undefined;
  const deletions: number[] = [];
  let status: FeedStatus = {connection: 'live', error: undefined, unreachable: false};
  let tick: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  const recompute = () => {
    if (tick !== undefined) clearTimeout(tick);
    tick = undefined;
    if (stopped || state === undefined) return;
    const latest = publisher.latest();
    const invalid = invalidMessage(state.daemonSet);
    if (invalid !== undefined) {
      if (latest === undefined) return fail(new InputError(invalid));
      return publisher.emit({...latest, connection: status.connection, error: invalid});
    }
    const snapshot = snapshotOf(state, options.clock.now(), deletions, options.pausedOf ?? pausedOf, status);
    publisher.emit(snapshot);
    if (waitsOnTime(snapshot)) {
      // Time alone moves these pods: judge them again on the server's clock as it is then.
      tick = setTimeout(() => {
        recompute();
        void options.clock.refresh().then(recompute, () => undefined);
      }, tickMs);
      tick.unref?.();
    }
  };

  /** The status changed: shown on the last snapshot at once (there is none before the first state). */
  const show = (next: FeedStatus) => {
    status = next;
    const latest = publisher.latest();
    if (!latest) return;
    const {error: _shown, ...rest} = latest;
    publisher.emit({...rest, connection: status.connection, ...(status.error ? {error: status.error} : {})});
  };

  const fail = (failure: DsRolloutError | Error) => {
    if (stopped) return;
    if (publisher.rejectFirst(failure)) return stop();
    show({...status, error: `watch stopped: ${failure.message.split('\n')[0]} (press q)`});
  };

  // The one follower, in the mode that keeps trying through an outage; stop() may run inside its constructor
  // (an error at once): it must find undefined there, not a TDZ.
  let follower: Follower | undefined;
  // eslint-disable-next-line prefer-const
  follower = new Follower(options.follow, {
    onState(next) {
      // Pods seen terminating in one state and gone in the next: deletions that finished, what the ETA rests on.
      if (state) deletions.push(...finishedDeletions(state.pods, next.pods, next.nodes, options.clock.now()));
      if (deletions.length > RECENT_DELETIONS) deletions.splice(0, deletions.length - RECENT_DELETIONS);
      state = next;
      recompute();
    },
    onError: fail,
    onConnection(next) {
      if (next !== status.connection) show(reconnected(status, next));
    },
    onUnreachable(failure) {
      show({...status, unreachable: true, error: `${failure.message.split('\n')[0]}; still trying`});
    },
  });

  function stop() {
    if (stopped) return;
    stopped = true;
    if (tick !== undefined) clearTimeout(tick);
    follower?.stop();
  }

  return {ready: () => publisher.ready, stop, subscribe: publisher.subscribe};
}

// ---------------------------------------------------------------------------------------------------------------
// Actions

export interface ActionServices {
  readonly source: ClusterSource;
  readonly writer: ClusterWriter;
  readonly ref: DaemonSetRef;
  /** The server's clock (minReadySeconds and the pause record are judged by it). */
  readonly clock: Clock;
  /** The live session `step`, `promote` and `abort` act through (watches too); without it, they are unavailable. */
  readonly session?: StepSession;
  /** Aborted when the dashboard closes: a running step stops at its next safe point. */
  readonly signal?: AbortSignal;
  /** How long one stepped wave may take to become available (default 5 minutes, as `ds-rollout step`). */
  readonly stepTimeoutMs?: number;
  /** Follows the DaemonSet's scope: undo waits on it for the controller to renumber the restored revision. */
  readonly follow?: Follow;
  /** Where promote and abort record the gated rollout's Events (docs/gated/detached.md). */
  readonly events?: EventSink;
  /** The cluster's pods for promote's neighbour gate (as `ds-rollout promote`); without it, the namespace's. */
  readonly neighbours?: () => PodsFollow;
}

/** The dashboard's keys, wired to the same services as `ds-rollout step`, `pause`, `resume` and `undo`. */
export function clusterActions(services: ActionServices): ActionHandler {
  return {
    step: (progress) => stepAction(services, progress),
    pause: () => pauseAction(services),
    resume: () => resumeAction(services),
    undo: (request) => undoAction(services, request),
    promote: (progress) => gatedAction(services, 'promote', progress),
    abort: (progress) => gatedAction(services, 'abort', progress),
  };
}

/** `ds-rollout promote` / `abort` from the dashboard: the gated rollout service, its progress in the status line. */
async function gatedAction(services: ActionServices, mode: 'promote' | 'abort', progress: ((message: string) => void) | undefined): Promise<ActionOutcome> {
  if (!services.session) throw new InputError(`${mode} needs a live cluster`);
  const [gated, {renderGatedEvent}, events] = await Promise.all([
    import('./gated-rollout.js'),
    import('../output/gated-text.js'),
    import('./rollout-events.js'),
  ]);
  const recorded = services.events
    ? events.gatedRunEvents(new events.RolloutEventRecorder(services.events, services.ref, (line) => progress?.(line)), mode)
    : undefined;
  const options = {
    session: services.session,
    ref: services.ref,
    timeoutMs: services.stepTimeoutMs ?? 5 * 60_000,
    onEvent: (event: Parameters<typeof renderGatedEvent>[0]) => {
      const line = renderGatedEvent(event, services.ref, false)?.split('\n')[0]?.trim();
      if (line) progress?.(line);
      recorded?.progress(event);
    },
    ...(services.signal ? {signal: services.signal} : {}),
    ...(services.neighbours ? {neighbours: services.neighbours} : {}),
  };
  try {
    if (mode === 'abort') {
      const undone = await gated.abortGatedRollout(options);
      return {
        message: `gated rollout aborted: back on revision ${undone.toRevision}${undone.nodes.length > 0 ? `; stepped back ${undone.nodes.join(', ')}` : ''}`,
      };
    }
    const result = await gated.runGatedRollout({...options, promote: true});
    recorded?.ended(result);
    return {message: result.outcome === 'complete' ? 'gated rollout complete: every stage passed' : 'gated rollout waits for approval again'};
  } finally {
    await recorded?.flush();
  }
}

function budgetText(budget: {readonly maxUnavailable: IntOrString; readonly maxSurge?: IntOrString}): string {
  return `maxUnavailable ${budget.maxUnavailable}, maxSurge ${budget.maxSurge ?? 0}`;
}

async function pauseAction(services: ActionServices): Promise<ActionOutcome> {
  const {pauseDaemonSet} = await import('./pause.js');
  const result = await pauseDaemonSet({writer: services.writer, clock: services.clock}, {ref: services.ref});
  if (result.outcome === 'already-paused') return {message: `already paused (since ${result.strategy.pausedAt})`};
  return {message: `paused: no more old pods are replaced; ${budgetText(result.strategy.rollingUpdate)} recorded for resume`};
}

async function resumeAction(services: ActionServices): Promise<ActionOutcome> {
  const {resumeDaemonSet} = await import('./resume.js');
  const result = await resumeDaemonSet(services, {ref: services.ref});
  if (result.outcome === 'stale-record-removed') return {message: 'it was running already: a leftover pause record was removed'};
  return {message: `resumed: RollingUpdate with ${budgetText(result.restored!)}; the controller carries on`};
}

async function stepAction(services: ActionServices, progress: ((message: string) => void) | undefined): Promise<ActionOutcome> {
  if (!services.session) throw new InputError('step needs a live cluster');
  // As `ds-rollout step`: refused while a gated rollout is under way (the prompt said so already).
  const refusal = gatedRefusalReason(await services.session.live.source.readDaemonSet(services.ref), services.ref, 'step');
  if (refusal) throw new InputError(refusal);
  const [{stepDaemonSet}, {oldPodsLeft, renderStepEvent}] = await Promise.all([import('./step.js'), import('../output/step-text.js')]);
  const result = await stepDaemonSet({
    session: services.session,
    ref: services.ref,
    timeoutMs: services.stepTimeoutMs ?? 5 * 60_000,
    // The dashboard asked already (y); the events go to the status line, one line each.
    onEvent: (event) => {
      const line = renderStepEvent(event, services.ref, false)?.split('\n')[0]?.trim();
      if (line) progress?.(line);
    },
    ...(services.signal ? {signal: services.signal} : {}),
  });
  const wave = result.waves[result.waves.length - 1];
  const left = oldPodsLeft(result.oldLeft);
  if (!wave) return {message: result.outcome === 'done' ? 'nothing to step: no old pods left' : `no wave ran; ${left}`};
  const nodes = wave.deleted.map((d) => d.node);
  const shown = nodes.length > 3 ? `${nodes.slice(0, 3).join(', ')} +${nodes.length - 3}` : nodes.join(', ');
  return {
    message: `wave ${wave.number} ${wave.landed ? `landed in ${wave.seconds}s` : 'ran'}: replaced ${nodes.length} ${nodes.length === 1 ? 'pod' : 'pods'} (${shown}); ${left}`,
  };
}

async function undoAction(services: ActionServices, request: UndoRequest): Promise<ActionOutcome> {
  const [{previewUndo, applyUndo}, {templateDiffLines}] = await Promise.all([import('./undo.js'), import('../output/revision-diff.js')]);
  const preview = await previewUndo({source: services.source, clock: services.clock}, {ref: services.ref, toRevision: request.toRevision ?? 0});
  const to = preview.to.revision;
  if (preview.skipped) throw new InputError(`skipped rollback: the template already matches revision ${to}`);
  const renumbered = preview.renumberedTo === undefined ? '' : `; the controller renumbers it ${preview.renumberedTo}`;
  if (request.preview) {
    const from = preview.from ? `revision ${preview.from.revision}` : 'the current template';
    const diff = templateDiffLines({label: from, template: preview.currentTemplate}, {label: `revision ${to}`, template: preview.targetTemplate});
    const restarts = preview.restartNodes.length;
    return {message: `${restarts === 1 ? '1 node restarts its daemon pod' : `${restarts} nodes restart their daemon pods`}${renumbered}.`, diff};
  }
  if (!services.follow) throw new InputError('undo needs a live cluster');
  const result = await applyUndo(services.writer, preview, {follow: services.follow});
  if (!result.applied) return {message: `nothing to do: the template already matches revision ${to}`};
  return {message: `rolled back to revision ${to}${renumbered}`};
}

/** For --readonly and snapshots: the dashboard never calls it (the reducer refuses first), but says why if it did. */
export const READ_ONLY_ACTIONS: ActionHandler = {
  step: () => Promise.reject(new Error('read-only')),
  pause: () => Promise.reject(new Error('read-only')),
  resume: () => Promise.reject(new Error('read-only')),
  undo: () => Promise.reject(new Error('read-only')),
  promote: () => Promise.reject(new Error('read-only')),
  abort: () => Promise.reject(new Error('read-only')),
};
