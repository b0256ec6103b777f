// `ds-rollout status`: the core's rollout report (kubectl's line, the verdict a CI job can act on, and why, node by
// node) read once or followed through the watches. The watch loop only re-evaluates the same pure function on every
// change the watches report.
import {manifestNamespace, readManifestObjects} from './plan.js';
import {type Clock, stopwatch} from '../platform/clock.js';
import type {ClusterObjectsSource, DaemonSetRef} from '../cluster/cluster-source.js';
import {type Follow, Follower} from '../cluster/live/follower.js';
import {
  type ClusterState,
  type DaemonSet,
  formatInvalid,
  labelSelectorMatches,
  parseLabelSelector,
  type RolloutPlan,
  type RolloutStatusReport,
  type RolloutVerdict,
  rolloutReport,
  validateDaemonSet,
} from '../core/index.js';
import {ClusterUnreachableError, EXIT_OK, EXIT_PAUSED, EXIT_PROGRESSING, EXIT_STUCK, InputError, UsageError} from '../platform/errors.js';
import type {Session} from '../cluster/session.js';

export type {NodeStatus, NodeStatusState, RolloutStatusReport, RolloutVerdict} from '../core/index.js';
export {kubectlStatusMessage} from '../core/index.js';

/** Exit codes of `ds-rollout status` (documented in its --help and docs/commands/status.md). */
export const STATUS_EXIT: Readonly<Record<RolloutVerdict, number>> = {complete: EXIT_OK, stuck: EXIT_STUCK, progressing: EXIT_PROGRESSING, paused: EXIT_PAUSED};

/** A row's verdict: the report's, or `invalid` for a DaemonSet the API server would not admit (nothing can roll it). */
export type RowVerdict = RolloutStatusReport['verdict'] | 'invalid';

// Worst first: what needs a change, then what needs a person (paused), then what is still moving.
const SEVERITY: Readonly<Record<RowVerdict, number>> = {invalid: 4, stuck: 3, paused: 2, progressing: 1, complete: 0};

/** The worst of several verdicts (complete for none). */
export function worstVerdict<V extends RowVerdict>(verdicts: readonly V[]): V | 'complete' {
  return verdicts.reduce<V | 'complete'>((worst, verdict) => (SEVERITY[verdict] > SEVERITY[worst] ? verdict : worst), 'complete');
}

/** The core's rollout report, for a DaemonSet the API server would admit (else an input error naming it). */
export function rolloutStatusOf(state: ClusterState, now: number, planned?: RolloutPlan): RolloutStatusReport {
  const ds = state.daemonSet;
  const errors = validateDaemonSet(ds);
  if (errors.length > 0) throw new InputError(formatInvalid('daemonset', `${ds.metadata.namespace ?? 'default'}/${ds.metadata.name}`, errors));
  return rolloutReport(state, now, planned);
}

export interface StatusOptions {
  readonly ref: DaemonSetRef;
}

/** One look: the state read once, judged on the session's clock read after it (live: the server's, just noted). */
export async function statusService(session: Pick<Session, 'source' | 'clock'>, options: StatusOptions): Promise<RolloutStatusReport> {
  return (await statusWithDaemonSet(session, options)).report;
}

/** One look, and the DaemonSet it judged: what else it carries (a fleet rollout's record) costs no second read. */
export async function statusWithDaemonSet(
  session: Pick<Session, 'source' | 'clock'>,
  options: StatusOptions,
): Promise<{readonly report: RolloutStatusReport; readonly daemonSet: DaemonSet}> {
  const state = await session.source.readState(options.ref);
  return {report: rolloutStatusOf(state, session.clock.now()), daemonSet: state.daemonSet};
}

/** How a watch ends: complete; paused or stuck (for stuckAfterMs: nothing moves without a step or a change); timeout. */
export type WatchOutcome = 'complete' | 'paused' | 'stuck' | 'timeout';

export interface WatchStatusOptions {
  /**
   * Starts following the cluster (live.watch); every state after the first full read and after each change. A
   * cluster that stops answering ends the watch with its error (exit 2).
   */
  readonly follow: Follow;
  readonly clock: Clock;
  /** Give up after this many ms (0 or undefined: never). */
  readonly timeoutMs?: number;
  /** How long the rollout must stay stuck before the watch ends with that verdict (0: at once). */
  readonly stuckAfterMs: number;
  /** Each report whose message, verdict or detail changed. */
  readonly onReport?: (report: RolloutStatusReport) => void;
  /** Re-evaluation without events (minReadySeconds, the stuck delay, starting pods growing old); default 2,000 ms. */
  readonly tickMs?: number;
}

/** Follows the rollout until it completes, stays stuck for stuckAfterMs, or the timeout ends. */
export async function watchStatus(options: WatchStatusOptions): Promise<{report: RolloutStatusReport | undefined; outcome: WatchOutcome}> {
  const follower = new Follower(options.follow);
  let report: RolloutStatusReport | undefined;
  let stillFor: (() => number) | undefined;
  let lastKey = '';
  try {
    const outcome = await follower.until<WatchOutcome>(
      (state) => {
        report = rolloutStatusOf(state, options.clock.now());
        const key = `${report.verdict}\n${report.message}\n${report.detail}`;
        if (key !== lastKey) {
          lastKey = key;
          options.onReport?.(report);
        }
        if (report.verdict === 'complete') return 'complete';
        if (!isStill(report)) {
          stillFor = undefined;
          return undefined;
        }
        // How long a person has waited: this machine's time, not the cluster's.
        stillFor ??= stopwatch();
        return stillFor() >= options.stuckAfterMs ? (report.verdict === 'paused' ? 'paused' : 'stuck') : undefined;
      },
      {
        timeoutMs: options.timeoutMs ?? 0,
        tickMs: options.tickMs ?? 2000,
        // Time alone moves a pod waiting out minReadySeconds or starting: judge it on the server's clock as it is now.
        onTick: () => (report !== undefined && waitsOnTime(report) ? options.clock.refresh().catch(() => undefined) : Promise.resolve()),
      },
    );
    return {report, outcome};
  } finally {
    follower.stop();
  }
}

/** Nothing moves without a step or a change: stuck, or paused with nothing in flight. */
function isStill(report: RolloutStatusReport): boolean {
  return report.verdict === 'stuck' || (report.verdict === 'paused' && report.inFlight.length === 0);
}

/**
 * The verdict changes with time alone: a pod ready but not yet available, or one starting (past the scheduling or
 * starting grace it is stuck, with no event to say so: no scheduler running leaves the cluster silent).
 */
function waitsOnTime(report: RolloutStatusReport): boolean {
  return report.inFlight.some((item) => item.kind === 'min-ready' || item.kind === 'starting');
}

export interface RolloutStatusRun {
  readonly report: RolloutStatusReport;
  readonly exitCode: number;
  /** Why a watch ended short of complete (stuck, paused, timed out): one line for stderr. */
  readonly failure?: string;
}

export interface RunStatusOptions {
  readonly ref: DaemonSetRef;
  /** Follow the rollout through the session's watches instead of looking once. */
  readonly watch?: boolean;
  readonly timeoutMs?: number;
  readonly stuckAfterMs?: number;
  readonly onReport?: (report: RolloutStatusReport) => void;
}

/** `ds-rollout status` and the dashboard without a terminal: the report once, or followed to an end, with its exit code. */
export async function runStatus(session: Pick<Session, 'source' | 'clock' | 'follow'>, options: RunStatusOptions): Promise<RolloutStatusRun> {
  if (!options.watch) {
    const report = await statusService(session, options);
    return {report, exitCode: STATUS_EXIT[report.verdict]};
  }
  const result = await watchStatus({
    follow: session.follow(options.ref),
    clock: session.clock,
    timeoutMs: options.timeoutMs,
    stuckAfterMs: options.stuckAfterMs ?? 10_000,
    onReport: options.onReport,
  });
  if (result.report === undefined) {
    throw new ClusterUnreachableError(`timed out after ${(options.timeoutMs ?? 0) / 1000}s before the cluster answered`);
  }
  const {report, outcome} = result;
  const name = JSON.stringify(options.ref.name);
  switch (outcome) {
    case 'complete':
      return {report, exitCode: STATUS_EXIT.complete};
    case 'timeout':
      return {
        report,
        exitCode: STATUS_EXIT[report.verdict],
        failure: `timed out after ${(options.timeoutMs ?? 0) / 1000}s waiting for daemon set ${name} to finish its rollout`,
      };
    case 'paused':
      return {report, exitCode: STATUS_EXIT.paused, failure: `rollout of daemon set ${name} is paused: ${report.detail}`};
    case 'stuck':
      return {report, exitCode: STATUS_EXIT.stuck, failure: `rollout of daemon set ${name} is stuck: ${report.detail}`};
  }
}

/** Without --watch, --timeout bounds the one look (a slow or hung cluster); a watch bounds itself. */
export async function boundedLook<T>(watch: boolean, limitMs: number | undefined, work: Promise<T>): Promise<T> {
  if (watch || !limitMs) return work;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ClusterUnreachableError(`timed out after ${limitMs / 1000}s waiting for the cluster to answer`)), limitMs);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

export interface StatusOfEachOptions extends Omit<RunStatusOptions, 'ref'> {
  readonly refs: readonly DaemonSetRef[];
  /** Each DaemonSet's run once it ended, before the next is followed (the command prints it). */
  readonly onRun?: (run: RolloutStatusRun) => Promise<void>;
}

/**
 * `status -l` and `-f`: each DaemonSet in turn, as kubectl rollout status does. Watching, it stops at the first
 * rollout that does not finish; looking once, it reports each and the worst verdict is the exit code.
 */
export async function runStatusOfEach(
  session: Pick<Session, 'source' | 'clock' | 'follow'>,
  options: StatusOfEachOptions,
): Promise<{reports: RolloutStatusReport[]; exitCode: number}> {
  const {refs, onRun, ...each} = options;
  const reports: RolloutStatusReport[] = [];
  let exitCode = EXIT_OK;
  for (const ref of refs) {
    const run = await boundedLook(each.watch === true, each.timeoutMs, runStatus(session, {...each, ref}));
    reports.push(run.report);
    await onRun?.(run);
    exitCode = run.exitCode;
    if (each.watch && run.exitCode !== EXIT_OK) return {reports, exitCode};
  }
  if (!each.watch && reports.length > 1) {
    exitCode = STATUS_EXIT[worstVerdict(reports.map((report) => report.verdict))];
  }
  return {reports, exitCode};
}

// ---------------------------------------------------------------------------------------------------------------
// Which DaemonSets: `status -l SELECTOR` and `status -f FILE`, as kubectl rollout status takes them

function byNamespaceAndName(a: DaemonSetRef, b: DaemonSetRef): number {
  return a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name);
}

/** `-l SELECTOR`: the DaemonSets of the namespace (undefined: of all) whose labels match, by namespace and name. */
export async function selectDaemonSets(source: ClusterObjectsSource, namespace: string | undefined, selector: string): Promise<DaemonSetRef[]> {
  let parsed;
  try {
    parsed = parseLabelSelector(selector);
  } catch (error) {
    // The parser's message names the selector: `invalid label selector "...": ...`.
    throw new UsageError((error as Error).message);
  }
  const {daemonSets} = await source.readObjects(namespace);
  return daemonSets
    .filter((ds) => labelSelectorMatches(parsed, ds.metadata.labels))
    .map((ds) => ({namespace: ds.metadata.namespace ?? 'default', name: ds.metadata.name}))
    .sort(byNamespaceAndName);
}

/**
 * `-f FILE` (`-` for stdin): the DaemonSets the manifest names, in its order; each in its own namespace, else -n's, else
 * the context's (a manifest namespace that -n contradicts is refused, as kubectl refuses it). Another kind is an error.
 */
export async function manifestDaemonSets(path: string, flagNamespace: string | undefined, defaultNamespace: string): Promise<DaemonSetRef[]> {
  const objects = await readManifestObjects(path);
  if (objects.length === 0) throw new InputError(`manifest "${path}" holds no DaemonSet`);
  return objects.map((object, index) => {
    const {kind, metadata} = (typeof object === 'object' && object !== null ? object : {}) as {
      kind?: unknown;
      metadata?: {name?: unknown; namespace?: unknown};
    };
    const name = typeof metadata?.name === 'string' ? metadata.name : undefined;
    if (kind !== 'DaemonSet' || name === undefined) {
      const which = `${typeof kind === 'string' ? kind : 'object'} ${name === undefined ? index + 1 : `"${name}"`}`;
      throw new InputError(`manifest "${path}": ${which.slice(0, 120)} is not a DaemonSet: ds-rollout works on daemonsets`);
    }
    const own = typeof metadata?.namespace === 'string' && metadata.namespace !== '' ? metadata.namespace : undefined;
    const namespace = manifestNamespace({metadata: {name, ...(own ? {namespace: own} : {})}} as DaemonSet, flagNamespace) ?? defaultNamespace;
    return {namespace, name};
  });
}
