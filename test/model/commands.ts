// The one file of the generated-sequence suite that calls the system under test: each ds-rollout command as the
// CLI runs it (the services in-process, with the command layer's refusals), the three views of the gated phase
// (status -o json, ds-plan -o json, the dashboard's header) and what an ended rollout may still block. When the
// services change shape, this is the file to adapt.
import {
  type DaemonSet,
  type GatedRecord,
  type GatedStrategy,
  type IntOrString,
  effectiveGatedRecord,
  gatedRecordOf,
  gatedViewOf,
  gatedRefusalReason,
} from '../../src/core/index.js';
import {clockFrom} from '../../src/platform/clock.js';
import type {DaemonSetRef} from '../../src/cluster/cluster-source.js';
import {connectLiveCluster, type LiveCluster} from '../../src/cluster/live/index.js';
import {DsRolloutError} from '../../src/platform/errors.js';
import {gatedRefusal} from '../../src/cli/gated-command.js';
import {abortGatedRollout, runGatedRollout} from '../../src/services/gated-rollout.js';
import {pauseDaemonSet} from '../../src/services/pause.js';
import {planDaemonSet} from '../../src/services/plan.js';
import {resumeDaemonSet} from '../../src/services/resume.js';
import {statusService} from '../../src/services/status.js';
import {stepService} from '../../src/services/step.js';
import {applyUndo, previewUndo} from '../../src/services/undo.js';
import {type LiveSession, liveSession, sessionOf} from '../../src/cluster/session.js';
import {toDashboardViewModel} from '../../src/ui/dashboard/view-model.js';
import {initialDashboardState} from '../../src/ui/dashboard/dashboard-state.js';

/** One driver process: its own connection to the API server, on the simulated cluster's clock. */
export interface Driver {
  readonly live: LiveCluster;
  /** The driver's session: the connection, on the simulated cluster's clock. */
  readonly session: LiveSession;
  /** kill -9: every request of this connection from now on fails, those in flight are dropped. */
  kill(): void;
}

/**
 * A connection whose clock is the simulated cluster's own (exact, not the last Date header plus this machine's
 * time since), so bakes and the budget are judged on the test's clock, never the wall clock. One request each:
 * a killed driver's later requests fail at once rather than after the retry policy's real-time waits.
 */
export function connectDriver(kubeconfig: string, now: () => number): Driver {
  const live = connectLiveCluster({kubeconfig, attempts: 1});
  return {
    live,
    // Watch events delivered as they come: the services' 100 ms batching is real time, which would let the test's
    // clock run on between two deliveries.
    session: liveSession({...live, watch: (ref, options) => live.watch(ref, {...options, throttleMs: 0})}, clockFrom(now)),
    kill: () => live.client.close(),
  };
}

/** What a command's process would end with: its exit status and message (0: success). */
export interface Outcome {
  readonly exit: number;
  readonly message?: string;
}

/** Moments inside a run where a kill may be generated: after a record write, after a pod deletion. */
export interface DriverHooks {
  readonly onRecordWrite?: () => void;
  readonly onPodDeleted?: () => void;
}

export interface GatedFlags {
  readonly strategy: GatedStrategy;
  readonly maxUnavailable?: IntOrString;
}

async function outcomeOf(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    await run();
    return {exit: 0};
  } catch (error) {
    if (error instanceof DsRolloutError) return {exit: error.exitCode, message: error.message};
    throw error;
  }
}

function gatedOptions(driver: Driver, ref: DaemonSetRef, hooks: DriverHooks) {
  return {
    session: driver.session,
    ref,
    timeoutMs: 0,
    tickMs: 5,
    onTransition: () => hooks.onRecordWrite?.(),
    onEvent: (event: {kind: string; event?: {kind: string}}) => {
      if (event.kind === 'step' && event.event?.kind === 'deleted') hooks.onPodDeleted?.();
    },
  };
}

/** `kubectl ds-rollout step NAME --until-complete --canary ... --yes` (a rerun continues the record). */
export function gatedStep(driver: Driver, ref: DaemonSetRef, flags: GatedFlags, hooks: DriverHooks = {}): Promise<Outcome> {
  return outcomeOf(() =>
    runGatedRollout({
      ...gatedOptions(driver, ref, hooks),
      strategy: flags.strategy,
      ...(flags.maxUnavailable !== undefined ? {maxUnavailable: flags.maxUnavailable} : {}),
    }),
  );
}

/** `kubectl ds-rollout promote NAME --yes`. */
export function promote(driver: Driver, ref: DaemonSetRef, hooks: DriverHooks = {}): Promise<Outcome> {
  return outcomeOf(() => runGatedRollout({...gatedOptions(driver, ref, hooks), promote: true}));
}

/** `kubectl ds-rollout abort NAME [--max-unavailable N] --yes`. */
export function abort(driver: Driver, ref: DaemonSetRef, maxUnavailable: IntOrString | undefined, hooks: DriverHooks = {}): Promise<Outcome> {
  return outcomeOf(() => abortGatedRollout({...gatedOptions(driver, ref, hooks), ...(maxUnavailable !== undefined ? {maxUnavailable} : {})}));
}

/** `kubectl ds-rollout step NAME --until-complete --yes`: refused while a gated rollout is under way. */
export function plainStep(driver: Driver, ref: DaemonSetRef, hooks: DriverHooks = {}): Promise<Outcome> {
  return outcomeOf(() =>
    stepService(driver.session, {
      ref,
      untilComplete: true,
      timeoutMs: 0,
      tickMs: 5,
      onEvent: (event) => {
        if (event.kind === 'deleted') hooks.onPodDeleted?.();
      },
    }),
  );
}

/** `kubectl ds-rollout pause NAME`. */
export function pause(driver: Driver, ref: DaemonSetRef): Promise<Outcome> {
  return outcomeOf(() => pauseDaemonSet({writer: driver.live.writer, clock: driver.session.clock}, {ref}));
}

/** `kubectl ds-rollout resume NAME` or `resume NAME --force --max-unavailable N`. */
export function resume(driver: Driver, ref: DaemonSetRef, force: IntOrString | undefined): Promise<Outcome> {
  return outcomeOf(() =>
    resumeDaemonSet({writer: driver.live.writer}, {ref, ...(force !== undefined ? {force: {maxUnavailable: force}, abandonGated: true} : {})}),
  );
}

/** `kubectl ds-rollout undo NAME --yes`: refused while a gated rollout is under way (the command's check). */
export function undo(driver: Driver, ref: DaemonSetRef): Promise<Outcome> {
  return outcomeOf(async () => {
    const session = liveSession(driver.live, driver.session.clock.now());
    const preview = await previewUndo(session, {ref, toRevision: 0});
    const refusal = gatedRefusal(preview.daemonSet, ref, 'undo');
    if (refusal) throw refusal;
    await applyUndo(driver.live.writer, preview, {follow: session.follow(ref)});
  });
}

/** The gated phase each view shows (undefined: no gated rollout shown). */
export interface GatedViews {
  readonly status: string | undefined;
  readonly plan: string | undefined;
  readonly dashboard: string | undefined;
}

/** The phase a dashboard header's words name: `awaiting approval (...)`, `superseded by revision 3`, `baking`. */
function dashboardPhase(words: string): string {
  return words
    .replace(/ \(.*$/, '')
    .replace(/ by .*$/, '')
    .replace(/ /g, '-');
}

/** `status -o json`, `ds-plan -o json` and the dashboard's header, read at `now` on the simulated clock. */
export async function gatedViews(driver: Driver, ref: DaemonSetRef, now: number): Promise<GatedViews> {
  const session = sessionOf({source: driver.live.source, namespace: ref.namespace, live: driver.live, objects: driver.live.source}, now);
  const report = await statusService(session, {ref});
  const {plan} = await planDaemonSet({source: driver.live.source, ref, clock: {now: () => now}, kubeVersion: 31});
  const vm = toDashboardViewModel(
    {
      plan,
      verdict: {verdict: report.verdict, detail: report.detail},
      context: {name: ref.name, namespace: ref.namespace, kubeContext: 'sim'},
      connection: 'live',
    },
    initialDashboardState(),
    {columns: 400, rows: 60},
    now,
  );
  const header = vm.header.lines.map((line) => line.map((segment) => segment.text).join('')).join('\n');
  // `gated rollout: stage 1/2 canary, baking, 5s left`: the phase is the text after the stage's name.
  const shown = /gated rollout: stage \d+\/\d+ [^,]*, ([^,;]+(?: \([^)]*\))?)/.exec(header)?.[1]?.trim();
  return {status: report.gated?.phase, plan: plan.gated?.phase, dashboard: shown === undefined ? undefined : dashboardPhase(shown)};
}

/** The record as stored (raw) and as the cluster has it now (effective: ended behind its back). */
export function recordOf(ds: DaemonSet): {readonly raw?: GatedRecord; readonly effective?: string} {
  const found = gatedRecordOf(ds);
  if (found.kind !== 'record') return {};
  return {raw: found.record, effective: effectiveGatedRecord(ds, found.record).phase};
}

/**
 * Which of a new gated step, a plain step, resume and undo the DaemonSet's record refuses (the commands' own
 * checks, without running them): after a rollout ended, none may be.
 */
export async function refusedByRecord(driver: Driver, ref: DaemonSetRef, ds: DaemonSet): Promise<string[]> {
  const refused: string[] = [];
  // A gated step continues an ongoing record instead of starting a new one.
  const view = gatedViewOf(ds);
  if (view.kind === 'view' && view.view.underWay) refused.push('gated step (continues the old record)');
  if (gatedRefusalReason(ds, ref, 'step') !== undefined) refused.push('step');
  if (gatedRefusalReason(ds, ref, 'undo') !== undefined) refused.push('undo');
  const resumed = await outcomeOf(() => resumeDaemonSet({writer: driver.live.writer}, {ref, dryRun: 'client'}));
  if (resumed.exit !== 0 && /gated rollout/.test(resumed.message ?? '')) refused.push('resume');
  return refused;
}
