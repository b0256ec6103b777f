// `ds-rollout status -A` (and `-n NS` without NAME): every DaemonSet in scope at a glance, from one list of each
// resource however many DaemonSets there are, each judged by core's rollout report (the same function as `status NAME`).
// Followed live, the same pure evaluation runs again on every change the watches report.
import {type Clock, stopwatch} from '../platform/clock.js';
import type {ClusterObjects} from '../cluster/cluster-source.js';
import {type ControllerRevision, jsonText, type Pod, type Revision, type RolloutStatusReport} from '../core/index.js';
import {ClusterUnreachableError, type DsRolloutError} from '../platform/errors.js';
import type {FollowObjectsHandlers, Session} from '../cluster/session.js';
import {rolloutStatusOf, type RowVerdict, STATUS_EXIT, worstVerdict} from './status.js';
import {firstBlocker} from '../output/status-list-text.js';

export interface DaemonSetStatusSummary {
  readonly daemonSet: {readonly namespace: string; readonly name: string};
  readonly verdict: RowVerdict;
  /** kubectl rollout status's line. */
  readonly message: string;
  readonly detail: string;
  /** What can still move without a change (the report's, as data). */
  readonly inFlight?: RolloutStatusReport['inFlight'];
  /** Revision numbers: the one most pods run, and the one being rolled out. */
  readonly revisions?: {readonly current: Revision; readonly update: Revision};
  readonly strategy?: RolloutStatusReport['strategy'];
  /** The budget the rolling update spends, and how much of it is used; absent when the rollout is complete. */
  readonly budget?: {readonly spends: 'maxUnavailable' | 'maxSurge'; readonly used: number; readonly limit: number};
  readonly updated?: number;
  readonly desired?: number;
  /** The first thing that holds the rollout, when something does. */
  readonly blocker?: string;
}

export interface StatusListReport {
  readonly kind: 'DaemonSetRolloutStatusList';
  /** The namespace in scope; absent for all namespaces. */
  readonly namespace?: string;
  /** The worst verdict of all (complete when there is no DaemonSet). */
  readonly verdict: RowVerdict;
  readonly items: readonly DaemonSetStatusSummary[];
}

/** The exit code of a list: the worst verdict's, as `status NAME` documents them (invalid counts as stuck). */
export function statusListExit(report: StatusListReport): number {
  return report.verdict === 'invalid' ? STATUS_EXIT.stuck : STATUS_EXIT[report.verdict];
}

function byNamespace<T extends Pod | ControllerRevision>(items: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const namespace = item.metadata.namespace ?? 'default';
    const list = out.get(namespace);
    if (list) list.push(item);
    else out.set(namespace, [item]);
  }
  return out;
}

/** Every DaemonSet's summary, sorted by namespace and name. Pure: objects and a clock in, the list out. */
export function statusList(objects: ClusterObjects, now: number, namespace: string | undefined): StatusListReport {
  const pods = byNamespace(objects.pods);
  const revisions = byNamespace(objects.revisions);
  const items = objects.daemonSets
    .map((daemonSet): DaemonSetStatusSummary => {
      const ns = daemonSet.metadata.namespace ?? 'default';
      const ref = {namespace: ns, name: daemonSet.metadata.name};
      try {
        const state = {daemonSet, nodes: objects.nodes, pods: pods.get(ns) ?? [], revisions: revisions.get(ns) ?? []};
        return summarizeStatus(rolloutStatusOf(state, now));
      } catch (error) {
        return {daemonSet: ref, verdict: 'invalid', message: '', detail: (error as Error).message, blocker: (error as Error).message};
      }
    })
    .sort((a, b) => a.daemonSet.namespace.localeCompare(b.daemonSet.namespace) || a.daemonSet.name.localeCompare(b.daemonSet.name));
  const verdict = worstVerdict(items.map((item) => item.verdict));
  return {kind: 'DaemonSetRolloutStatusList', ...(namespace === undefined ? {} : {namespace}), verdict, items};
}

/** A DaemonSet's row: the verdict, revisions, budget use and first blocker of its report (also a fleet's row). */
export function summarizeStatus(report: RolloutStatusReport): DaemonSetStatusSummary {
  const spends = report.budget.spends;
  const first = firstBlocker(report);
  return {
    daemonSet: report.daemonSet,
    verdict: report.verdict,
    message: report.message,
    detail: report.detail,
    inFlight: report.inFlight,
    revisions: {current: report.revisions.current.revision, update: report.revisions.update.revision},
    strategy: report.strategy,
    // A complete rollout spends no budget: a pod that is unavailable then (on a NotReady node) holds nothing back.
    ...(report.verdict === 'complete' ? {} : {budget: {spends, used: report.budget[spends].used, limit: report.budget[spends].limit}}),
    updated: report.counts.updated,
    desired: report.status.desiredNumberScheduled,
    ...(first ? {blocker: first} : {}),
  };
}

export interface StatusListOptions {
  /** undefined: every namespace (-A). */
  readonly namespace: string | undefined;
}

/** One look: four list requests (daemonsets, pods, nodes, controllerrevisions), whatever the number of DaemonSets. */
export async function readStatusList(session: Pick<Session, 'objects' | 'clock'>, options: StatusListOptions): Promise<StatusListReport> {
  const objects = await session.objects.readObjects(options.namespace);
  return statusList(objects, session.clock.now(), options.namespace);
}

/** How a followed list ends: every DaemonSet complete; nothing progressing for stuckAfterMs; the timeout. */
export type ListWatchOutcome = 'complete' | 'settled' | 'timeout';

export interface WatchStatusListOptions {
  /** Starts the watches (live.watchObjects); every set of objects after the first full read and each change. */
  readonly follow: (handlers: FollowObjectsHandlers) => {stop(): void};
  readonly namespace: string | undefined;
  readonly clock: Clock;
  readonly timeoutMs?: number;
  /** How long nothing may be progressing (everything complete, stuck or paused) before the watch ends. */
  readonly stuckAfterMs: number;
  /** Each list that differs from the last one reported. */
  readonly onReport?: (report: StatusListReport) => void;
  /** Re-evaluation without events (minReadySeconds, starting pods growing old); default 2,000 ms. */
  readonly tickMs?: number;
}

/** Follows every DaemonSet in scope until all are complete, none has moved for stuckAfterMs, or the timeout ends. */
export function watchStatusList(options: WatchStatusListOptions): Promise<{report: StatusListReport | undefined; outcome: ListWatchOutcome}> {
  return new Promise((resolve, reject) => {
    let latest: ClusterObjects | undefined;
    let report: StatusListReport | undefined;
    let lastKey = '';
    let stillFor: (() => number) | undefined;
    let finished = false;
    let handle: {stop(): void} | undefined;
    const finish = (outcome: ListWatchOutcome | Error) => {
      if (finished) return;
      finished = true;
      clearInterval(tick);
      clearTimeout(deadline);
      handle?.stop();
      if (outcome instanceof Error) reject(outcome);
      else resolve({report, outcome});
    };
    const evaluate = () => {
      if (finished || latest === undefined) return;
      report = statusList(latest, options.clock.now(), options.namespace);
      const key = jsonText(report.items.map((item) => [item.daemonSet, item.verdict, item.message, item.budget, item.revisions, item.blocker]));
      if (key !== lastKey) {
        lastKey = key;
        options.onReport?.(report);
      }
      if (report.items.every((item) => item.verdict === 'complete')) return finish('complete');
      if (report.items.some((item) => item.verdict === 'progressing')) {
        stillFor = undefined;
        return;
      }
      // How long a person has waited: this machine's time, not the cluster's.
      stillFor ??= stopwatch();
      if (stillFor() >= options.stuckAfterMs) finish('settled');
    };
    let refreshing = false;
    const tick = setInterval(() => {
      // Time alone moves a pod waiting out minReadySeconds: judge it on the server's clock as it is now.
      if (refreshing || !report?.items.some((item) => item.inFlight?.some((f) => f.kind === 'min-ready'))) return evaluate();
      refreshing = true;
      void options.clock
        .refresh()
        .catch(() => undefined)
        .finally(() => {
          refreshing = false;
          evaluate();
        });
    }, options.tickMs ?? 2000);
    const deadline = options.timeoutMs ? setTimeout(() => finish('timeout'), options.timeoutMs) : undefined;
    handle = options.follow({
      onObjects: (objects) => {
        latest = objects;
        evaluate();
        return undefined;
      },
      onError: (error: DsRolloutError | Error) => finish(error),
    });
    if (finished) handle.stop();
  });
}

export interface RunStatusListOptions extends StatusListOptions {
  /** Follow the scope through the session's watches instead of looking once. */
  readonly watch?: boolean;
  readonly timeoutMs?: number;
  /** While watching: end once nothing has progressed this long (default 10 s). */
  readonly stuckAfterMs?: number;
  readonly onReport?: (report: StatusListReport) => void;
}

export interface StatusListRun {
  readonly report: StatusListReport;
  readonly exitCode: number;
  /** Why a watch ended short of complete: one line for stderr. */
  readonly failure?: string;
}

/** `ds-rollout status` without NAME: the list once, or followed to an end, with its exit code. */
export async function runStatusList(session: Pick<Session, 'objects' | 'clock' | 'followObjects'>, options: RunStatusListOptions): Promise<StatusListRun> {
  if (!options.watch) {
    const report = await readStatusList(session, options);
    return {report, exitCode: statusListExit(report)};
  }
  const result = await watchStatusList({
    follow: (handlers) => session.followObjects(options.namespace, handlers),
    namespace: options.namespace,
    clock: session.clock,
    timeoutMs: options.timeoutMs,
    stuckAfterMs: options.stuckAfterMs ?? 10_000,
    onReport: options.onReport,
  });
  const seconds = (options.timeoutMs ?? 0) / 1000;
  if (result.report === undefined) throw new ClusterUnreachableError(`timed out after ${seconds}s before the cluster answered`);
  const failure = result.outcome === 'timeout' ? `timed out after ${seconds}s waiting for every DaemonSet to finish its rollout` : undefined;
  return {report: result.report, exitCode: statusListExit(result.report), ...(failure ? {failure} : {})};
}
