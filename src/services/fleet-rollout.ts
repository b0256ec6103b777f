// `fleet rollout`, `fleet status`, `fleet promote` and `fleet abort` (docs/commands/fleet.md): one release taken to
// several clusters in waves, each cluster's wave the gated rollout (services/gated-rollout.ts), in this process or
// handed to a Job in that cluster. The state lives in the clusters (core/fleet-machine.ts decides from it), so a
// driver killed anywhere continues when rerun from any machine with the same kubeconfig. A wave moves on only when
// every cluster of it has completed and baked; a failure stops the fleet there and no later cluster is touched.
import type {FleetSession, LiveSession} from '../cluster/session.js';
import {
  computeTemplateHash,
  conflictingFleet,
  controlledRevisions,
  type DaemonSet,
  FLEET_ROLLOUT_ANNOTATION,
  type FleetClusterInput,
  type FleetPlan,
  type FleetRecord,
  type FleetView,
  fleetClusterOf,
  fleetGenerationOf,
  fleetRecordBody,
  fleetRecordFor,
  fleetRecordOf,
  fleetReleaseText,
  fleetViewOf,
  formatGatedRecord,
  GATED_ROLLOUT_ANNOTATION,
  isTemplateRelease,
  revisionData,
  revisionHash,
  type RolloutOrigin,
  templateRevisionOf,
  gatedRunEnded,
  gatedViewOf,
  recordedFleetPlan,
  releaseOriginOf,
  reopenedForAbort,
  staleGatedRecord,
  templateWithRelease,
} from '../core/index.js';
import {ClusterUnreachableError, DsRolloutError, InputError, RolloutStuckError} from '../platform/errors.js';
import {type FleetEvent, fleetDocumentOf, type FleetRolloutResult} from '../output/fleet-rollout-text.js';
import {contextFailure} from './fleet.js';
import {abortGatedRollout, type GatedOptions, runGatedRollout} from './gated-rollout.js';
import {pauseDaemonSet} from './pause.js';
import {applyUndo, previewUndo} from './undo.js';
import {InterruptedError} from './step.js';

/** Hands one cluster's gated step (or promote) to a Job in that cluster: its name, and whether it was new. */
export type FleetDetach = (
  session: LiveSession,
  command: 'step' | 'promote',
  plan: FleetPlan,
) => Promise<{job: string; created: boolean; failed(): Promise<string | undefined>}>;

/** How often a driver asks whether a cluster's Job failed without its rollout saying so (its pod never ran it). */
const JOB_CHECK_MS = 10_000;

export interface FleetDriveOptions {
  /** A session per context of the plan (or why it could not be opened). */
  readonly members: readonly FleetSession[];
  readonly timeoutMs: number;
  /** Undefined: each cluster's gated rollout runs in this process (the driver waits for it). */
  readonly detach?: FleetDetach;
  /** What every in-process gated rollout also gets on its cluster (the metric and neighbour gates' openers). */
  readonly gated?: (session: LiveSession) => Partial<GatedOptions>;
  readonly onEvent?: (event: FleetEvent) => void;
  readonly signal?: AbortSignal;
  /** `fleet rollout --restart`: a fleet of this plan that was aborted (every cluster back) starts again from its first wave. */
  readonly restart?: boolean;
}

export function fleetResultOf(view: FleetView): FleetRolloutResult {
  return {kind: 'FleetRollout', ...fleetDocumentOf(view, view.clusters)};
}

/** The fleet rollout failed in one cluster (exit 3, as a failed gate). */
export class FleetFailedError extends RolloutStuckError {}

function sessionOf(members: readonly FleetSession[], context: string): LiveSession {
  const member = members.find((m) => m.context === context);
  if (member === undefined || !('session' in member)) throw new ClusterUnreachableError(`context ${context}: no session`);
  return member.session;
}

/** Every member's DaemonSet, read in parallel (a failure is that context's input, never the read's end). */
export async function readFleet(members: readonly FleetSession[], ref: {namespace: string; name: string}): Promise<FleetClusterInput[]> {
  return Promise.all(
    members.map(async (member): Promise<FleetClusterInput> => {
      if (!('session' in member)) return {context: member.context, error: contextFailure(member.error).message};
      try {
        return {context: member.context, ds: await member.session.live.source.readDaemonSet(ref)};
      } catch (error) {
        return {context: member.context, error: contextFailure(error).message};
      }
    }),
  );
}

/**
 * The patch that takes a cluster on: the fleet's record (of `generation`) and the release in its template
 * (undefined: taken already). A template release (-f) replaces the whole template, as an undo does; `origin` is
 * then the revision the cluster's template was, which its record keeps for `fleet abort`.
 */
function startPatch(plan: FleetPlan, context: string, generation: number, current: DaemonSet, origin?: RolloutOrigin) {
  const found = fleetRecordOf(current);
  const record = {...fleetRecordFor(plan, context), generation};
  if (found.kind === 'record' && found.record.id === record.id) return undefined;
  // Someone's own gated rollout holds this DaemonSet: the fleet would supersede it.
  const gated = gatedViewOf(current);
  if (gated.kind === 'view' && gated.view.underWay) {
    throw new InputError(
      `context ${context}: daemonset ${plan.namespace}/${plan.name} has a gated rollout under way (${gated.view.phase}): finish it or abort it there first; nothing was changed in this cluster`,
    );
  }
  const released = templateWithRelease(current.spec.template, plan.release);
  if ('missing' in released) {
    throw new InputError(`context ${context}: daemonset ${plan.namespace}/${plan.name} has no container "${released.missing}" to set the release's image on`);
  }
  const template = computeTemplateHash(released.template);
  const stale = staleGatedRecord(current, template);
  if (isTemplateRelease(plan.release)) {
    if (origin === undefined)
      throw new InputError(
        `context ${context}: daemonset ${plan.namespace}/${plan.name}'s template has no revision yet (its controller has not seen it): rerun in a moment`,
      );
    const body = fleetRecordBody({...record, template, originRevision: origin});
    if (stale) forgetGatedRecord(body);
    return {type: 'strategic' as const, body: {...body, ...revisionData(released.template)}};
  }
  const body = fleetRecordBody({...record, template, origin: releaseOriginOf(current.spec.template, plan.release)});
  if (stale) forgetGatedRecord(body);
  return {type: 'merge' as const, body: {...body, spec: {template: {spec: {containers: released.template.spec.containers}}}}};
}

/** An earlier attempt's gated record of this very template (an aborted fleet's) would be read as this one's: the patch removes it. */
function forgetGatedRecord(body: Record<string, unknown>): void {
  (body['metadata'] as {annotations: Record<string, unknown>}).annotations[GATED_ROLLOUT_ANNOTATION] = null;
}

/** The revision `ds`'s template is now, as a gated rollout names its origin (undefined: the controller has not written it). */
async function templateOrigin(session: LiveSession, ref: {namespace: string; name: string}): Promise<RolloutOrigin | undefined> {
  const state = await session.source.readState(ref);
  const revision = templateRevisionOf(state.daemonSet, state.revisions);
  return revision && {revision: revision.revision, hash: revisionHash(revision), template: computeTemplateHash(state.daemonSet.spec.template)};
}

/**
 * Takes one cluster into the fleet: paused (as `pause`), then its record (of `generation`: fleetGenerationOf) and the
 * release in one write on the resourceVersion it was read at. A cluster with the record already is left as it is (a rerun).
 */
async function startCluster(session: LiveSession, plan: FleetPlan, context: string, generation: number): Promise<void> {
  const ref = {namespace: plan.namespace, name: plan.name};
  try {
    await pauseDaemonSet({writer: session.writer, clock: session.clock}, {ref});
  } catch (error) {
    // The same error, saying which cluster (a plain OnDelete DaemonSet, RBAC, ...).
    if (!(error instanceof DsRolloutError)) throw error;
    const Same = error.constructor as new (message: string, options?: {cause?: unknown}) => DsRolloutError;
    throw new Same(`context ${context}: ${error.message}`, {cause: error});
  }
  const origin = isTemplateRelease(plan.release) ? await templateOrigin(session, ref) : undefined;
  const {after} = await session.writer.patchDaemonSet(ref, (current) =>
    startPatch(plan, context, generation, current, origin?.template === computeTemplateHash(current.spec.template) ? origin : undefined),
  );
  // The server may default what the template gained: the record names the template as stored.
  const found = fleetRecordOf(after);
  const stored = computeTemplateHash(after.spec.template);
  if (found.kind === 'record' && found.record.template !== stored && found.record.id === fleetRecordFor(plan, context).id) {
    await session.writer.patchDaemonSet(ref, (current) => {
      const now = fleetRecordOf(current);
      return now.kind === 'record' && now.record.template !== stored ? {type: 'merge', body: fleetRecordBody({...now.record, template: stored})} : undefined;
    });
  }
}

/** Follows one cluster's DaemonSet (its watch, not a poll) until `done` holds for it. */
function followUntil(session: LiveSession, ref: {namespace: string; name: string}, done: (ds: DaemonSet) => boolean, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let handle: {stop(): void} | undefined;
    const end = (error?: Error) => {
      if (settled) return;
      settled = true;
      handle?.stop();
      signal?.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve();
    };
    const onAbort = () => end(new InterruptedError('interrupted: the fleet rollout goes on in its clusters; rerun the command to follow it'));
    signal?.addEventListener('abort', onAbort);
    handle = session.follow(ref)({onState: (state) => done(state.daemonSet) && end(), onError: (error) => end(error)});
    if (settled) handle.stop();
  });
}

/** followUntil, ended early by the cluster's Job failing before its rollout recorded anything. */
async function followJob(
  session: LiveSession,
  ref: {namespace: string; name: string},
  done: (ds: DaemonSet) => boolean,
  failed: () => Promise<string | undefined>,
  signal?: AbortSignal,
): Promise<void> {
  const stop = new AbortController();
  const both = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
  let failure: string | undefined;
  const timer = setInterval(() => {
    failed().then(
      (message) => {
        if (message === undefined) return;
        failure = message;
        stop.abort();
      },
      () => undefined,
    );
  }, JOB_CHECK_MS);
  try {
    await followUntil(session, ref, done, both);
  } catch (error) {
    if (failure !== undefined) throw new RolloutStuckError(failure);
    throw error;
  } finally {
    clearInterval(timer);
  }
}

/** Drives each of `contexts` (one wave): their gated rollouts, here or in their Jobs, until each has ended its run. */
async function driveWave(options: FleetDriveOptions, plan: FleetPlan, contexts: readonly string[], promote: boolean): Promise<Map<string, unknown>> {
  const ref = {namespace: plan.namespace, name: plan.name};
  const errors = new Map<string, unknown>();
  await Promise.all(
    contexts.map(async (context) => {
      const session = sessionOf(options.members, context);
      try {
        if (options.detach) {
          const {job, created, failed} = await options.detach(session, promote ? 'promote' : 'step', plan);
          options.onEvent?.({kind: 'detached', context, job, created});
          // A promote's Job starts from awaiting-approval: the wait is over once the cluster has left it.
          const ended = (ds: DaemonSet) => {
            const {phase} = fleetClusterOf(plan, {context, ds});
            return gatedRunEnded(phase) && !(promote && phase === 'awaiting-approval');
          };
          await followJob(session, ref, ended, failed, options.signal);
          return;
        }
        await runGatedRollout({
          ...options.gated?.(session),
          session,
          ref,
          ...(promote ? {} : {strategy: plan.strategy}),
          promote,
          timeoutMs: options.timeoutMs,
          onEvent: (event) => options.onEvent?.({kind: 'gated', context, event}),
          ...(options.signal ? {signal: options.signal} : {}),
        });
      } catch (error) {
        if (error instanceof InterruptedError) throw error;
        errors.set(context, error);
      }
    }),
  );
  return errors;
}

/** A cluster whose drive failed, yet reads as still under way: not a gate's failure (the fleet's view says those), so the run ends with it. */
function unexplained(view: FleetView, errors: ReadonlyMap<string, unknown>): DsRolloutError | undefined {
  for (const [context, error] of errors) {
    const cluster = view.clusters.find((c) => c.context === context);
    if (cluster && gatedRunEnded(cluster.phase)) continue;
    const message = `context ${context}: ${error instanceof Error ? error.message : String(error)}`;
    if (error instanceof ClusterUnreachableError) return new ClusterUnreachableError(message);
    return error instanceof DsRolloutError && error.exitCode === 1 ? new InputError(message) : new RolloutStuckError(message);
  }
  return undefined;
}

/** What a fleet that stopped says, as the error its command exits with; undefined: it did not stop on one. */
function stopped(view: FleetView): DsRolloutError | undefined {
  const {action, plan} = view;
  const name = `${plan.name} -n ${plan.namespace}`;
  switch (action.kind) {
    case 'failed':
      return new FleetFailedError(
        `fleet rollout failed in context ${action.context} (wave ${action.wave + 1}/${plan.waves.length}): ${action.message}; no later cluster was touched (roll the touched clusters back: kubectl ds-rollout fleet abort ${name} --contexts ${plan.contexts.join(',')} --yes)`,
      );
    case 'unreachable':
      return new ClusterUnreachableError(
        `fleet rollout waits at wave ${action.wave + 1}/${plan.waves.length}: cannot read context ${action.contexts.join(', ')} (${view.clusters.find((c) => c.context === action.contexts[0])?.message ?? ''}); rerun the same command once it answers`,
      );
    case 'aborted':
      // docs/commands/fleet.md#after-an-abort
      return new InputError(
        action.contexts.length > 0
          ? `the fleet rollout of ${plan.namespace}/${plan.name} was aborted, and context ${action.contexts.join(', ')} is not back yet: nothing was changed (finish it: kubectl ds-rollout fleet abort ${name} --contexts ${plan.contexts.join(',')} --yes)`
          : `the fleet rollout of ${plan.namespace}/${plan.name} (${fleetReleaseText(plan.release)}) was aborted: every cluster it touched is back on its own origin, and nothing was changed; to roll the same release out again from its first wave, rerun the fleet rollout command with --restart`,
      );
    default:
      return undefined;
  }
}

/**
 * `--restart` of a fleet of this plan that was aborted, every cluster back: its records removed (each on the
 * resourceVersion it was read at), so the same plan starts again. Returns the clusters as they are then.
 */
async function restartAborted(options: FleetDriveOptions, plan: FleetPlan, inputs: FleetClusterInput[]): Promise<FleetClusterInput[]> {
  const view = fleetViewOf(plan, inputs);
  if (view.action.kind !== 'aborted' || view.action.contexts.length > 0) return inputs;
  // A cluster not read may hold the aborted record still: it would stop the plan again once it answers.
  const down = view.clusters.filter((c) => c.phase === 'unreachable').map((c) => c.context);
  if (down.length > 0)
    throw new ClusterUnreachableError(`--restart reads every cluster of the plan first: cannot read context ${down.join(', ')}; rerun once it answers`);
  const ref = {namespace: plan.namespace, name: plan.name};
  await Promise.all(
    view.clusters
      .filter((c) => c.touched)
      .map((c) =>
        sessionOf(options.members, c.context).writer.patchDaemonSet(ref, (current) => {
          const found = fleetRecordOf(current);
          if (found.kind !== 'record' || found.record.id !== view.id || !found.record.aborted) return undefined;
          return {type: 'merge', body: {metadata: {annotations: {[FLEET_ROLLOUT_ANNOTATION]: null}}}};
        }),
      ),
  );
  return readFleet(options.members, ref);
}

/**
 * `fleet rollout` (and, with `promote`, `fleet promote`): reads every cluster, then starts and drives wave after
 * wave until the fleet completes, waits for approval, or stops (a failure, a cluster that cannot be read).
 */
export async function driveFleet(options: FleetDriveOptions, plan: FleetPlan, mode: 'rollout' | 'promote'): Promise<FleetRolloutResult> {
  const ref = {namespace: plan.namespace, name: plan.name};
  let inputs = await readFleet(options.members, ref);
  if (mode === 'rollout') {
    const conflict = conflictingFleet(plan, inputs);
    if (conflict) throw new InputError(conflict);
    if (options.restart) inputs = await restartAborted(options, plan, inputs);
  }
  let promote = mode === 'promote';
  let errors = new Map<string, unknown>();
  // Each round takes a wave on, or waits for one: a wave needs one round, two when a run is interrupted under it.
  for (let round = 0; round <= 2 * plan.waves.length + 2; round++) {
    const view = fleetViewOf(plan, inputs);
    const error = unexplained(view, errors) ?? stopped(view);
    if (error) throw error;
    const {action} = view;
    if (promote && action.kind !== 'awaiting-approval')
      throw new InputError(`the fleet rollout of ${plan.namespace}/${plan.name} has no wave waiting for approval (it is ${view.phase})`);
    if (action.kind === 'complete' || (action.kind === 'awaiting-approval' && !promote)) return fleetResultOf(view);
    const contexts = action.kind === 'awaiting-approval' ? action.contexts : action.kind === 'run' ? action.drive : [];
    const name = plan.waveNames?.[view.wave];
    options.onEvent?.({kind: 'wave', wave: view.wave, waves: plan.waves.length, contexts, ...(name !== undefined ? {name} : {})});
    if (action.kind === 'run') {
      const generation = fleetGenerationOf(plan, inputs);
      await Promise.all(action.start.map((context) => startCluster(sessionOf(options.members, context), plan, context, generation)));
    }
    for (const context of action.kind === 'run' ? action.start : []) options.onEvent?.({kind: 'started', context});
    errors = await driveWave(options, plan, contexts, promote);
    promote = false;
    inputs = await readFleet(options.members, ref);
  }
  throw new RolloutStuckError(`the fleet rollout of ${plan.namespace}/${plan.name} made no progress: rerun the same command to continue`);
}

/** `fleet status`: where the fleet of `plan` stands in its clusters. */
export async function fleetRolloutStatus(members: readonly FleetSession[], plan: FleetPlan): Promise<FleetRolloutResult> {
  return fleetResultOf(fleetViewOf(plan, await readFleet(members, {namespace: plan.namespace, name: plan.name})));
}

/** The plan these clusters hold, or a one-line refusal naming where it looked. */
export async function recordedPlanOf(members: readonly FleetSession[], ref: {namespace: string; name: string}): Promise<FleetPlan> {
  const inputs = await readFleet(members, ref);
  const plan = recordedFleetPlan(inputs);
  if (plan !== undefined) return plan;
  const unread = inputs.filter((input) => 'error' in input);
  const where = `context ${members.map((m) => m.context).join(', ')}`;
  // Nothing could be read: the record may well be there.
  if (unread.length === inputs.length)
    throw new ClusterUnreachableError(`cannot read daemonset ${ref.namespace}/${ref.name} in ${where}: ${'error' in unread[0]! ? unread[0].error : ''}`);
  throw new InputError(`no fleet rollout of daemonset ${ref.namespace}/${ref.name} is recorded in ${where}`);
}

/** Marks one cluster aborted in its fleet record, reopening a completed gated rollout in the same write. */
async function markAborted(session: LiveSession, ref: {namespace: string; name: string}): Promise<void> {
  await session.writer.patchDaemonSet(ref, (current) => {
    const found = fleetRecordOf(current);
    if (found.kind !== 'record' || found.record.aborted) return undefined;
    const record: FleetRecord = {...found.record, aborted: true};
    const reopened = reopenedForAbort(current);
    const annotations = {
      [FLEET_ROLLOUT_ANNOTATION]: JSON.stringify(record),
      ...(reopened ? {[GATED_ROLLOUT_ANNOTATION]: formatGatedRecord(reopened)} : {}),
    };
    return {type: 'merge', body: {metadata: {annotations}}};
  });
}

/**
 * `fleet abort`: every cluster the fleet touched back on its own origin (the gated abort, per cluster); clusters
 * it never touched are left alone. Ends with the fleet as it stands; throws when a cluster could not be taken back.
 */
export async function abortFleet(options: FleetDriveOptions, plan: FleetPlan): Promise<FleetRolloutResult> {
  const ref = {namespace: plan.namespace, name: plan.name};
  const view = fleetViewOf(plan, await readFleet(options.members, ref));
  const failures: string[] = [];
  await Promise.all(
    view.clusters
      .filter((cluster) => cluster.touched && cluster.phase !== 'aborted')
      .map(async ({context}) => {
        const session = sessionOf(options.members, context);
        options.onEvent?.({kind: 'aborting', context});
        try {
          await markAborted(session, ref);
          await abortCluster(options, session, ref, context);
        } catch (error) {
          if (error instanceof InterruptedError) throw error;
          failures.push(`context ${context}: ${(error as Error).message}`);
        }
      }),
  );
  const after = fleetViewOf(plan, await readFleet(options.members, ref));
  const down = after.clusters.filter((c) => c.phase === 'unreachable').map((c) => c.context);
  if (failures.length > 0) throw new RolloutStuckError(`fleet abort stopped: ${failures.join('; ')}; run it again to continue`);
  if (down.length > 0) throw new ClusterUnreachableError(`fleet abort could not read context ${down.join(', ')}: run it again once it answers`);
  return fleetResultOf(after);
}

/** One touched cluster back on its origin: its gated abort, or (its gated rollout never begun) its template set back. */
async function abortCluster(options: FleetDriveOptions, session: LiveSession, ref: {namespace: string; name: string}, context: string): Promise<void> {
  const ds = await session.live.source.readDaemonSet(ref);
  const gated = gatedViewOf(ds);
  if (gated.kind === 'view' && gated.view.underWay) {
    await abortGatedRollout({
      session,
      ref,
      timeoutMs: options.timeoutMs,
      onEvent: (event) => options.onEvent?.({kind: 'gated', context, event}),
      ...(options.signal ? {signal: options.signal} : {}),
    });
    return;
  }
  const found = fleetRecordOf(ds);
  if (found.kind !== 'record' || (gated.kind === 'view' && gated.view.record.template === gated.view.template)) return;
  if (found.record.originRevision !== undefined) {
    await rollBackTemplate(session, ref, found.record.originRevision);
    return;
  }
  const origin = found.record.origin;
  if (origin === undefined) return;
  // Started, its gated rollout not begun: no pod was replaced, so the template going back is the whole way back.
  await session.writer.patchDaemonSet(ref, (current) => {
    const back = templateWithRelease(current.spec.template, origin);
    return 'template' in back && computeTemplateHash(back.template) !== computeTemplateHash(current.spec.template)
      ? {type: 'merge', body: {spec: {template: {spec: {containers: back.template.spec.containers}}}}}
      : undefined;
  });
}

/** A template release's cluster, its gated rollout never begun: its template back to its own origin revision, as `undo` does. */
async function rollBackTemplate(session: LiveSession, ref: {namespace: string; name: string}, origin: RolloutOrigin): Promise<void> {
  const state = await session.source.readState(ref);
  const target = controlledRevisions(state.daemonSet, state.revisions).find((r) => revisionHash(r) === origin.hash);
  if (target === undefined)
    throw new InputError(`the revision this cluster started from (${origin.revision}, ${origin.hash}) is no longer in its history: nothing was changed`);
  const preview = await previewUndo(session, {ref, toRevision: target.revision});
  if (!preview.skipped) await applyUndo(session.writer, preview, {follow: session.follow(ref)});
}

export type {FleetEvent, FleetRolloutResult};
