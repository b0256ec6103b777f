// The fleet view: one use case (status, plan, history) run on each context of a fleet command, a bounded number of
// clusters at a time, each on its own session (its own connection, clock and --request-timeout). A cluster that
// cannot be reached, forbids the read or lacks the DaemonSet is that context's result, never the command's end;
// the exit code is the worst context's, by the ranking below.
import {
  ClusterError,
  ClusterForbiddenError,
  ClusterUnreachableError,
  DsRolloutError,
  EXIT_INPUT,
  EXIT_OK,
  InputError,
  NotFoundError,
  withoutUrlUserinfo,
} from '../platform/errors.js';
import type {HistoryReport} from '../output/history-text.js';
import type {ContextFailure, ContextResult, FleetFailureReason, FleetPart} from '../output/fleet-text.js';
import {type FleetClusterInput, type FleetStanding, fleetPartOf, fleetStandingsOf, type RolloutPlan, type RolloutStatusReport} from '../core/index.js';
import type {FleetSession, LiveSession} from '../cluster/session.js';
import {historyService} from './history.js';
import {planDaemonSet} from './plan.js';
import {type DaemonSetStatusSummary, summarizeStatus} from './status-all.js';
import {boundedLook, STATUS_EXIT, statusWithDaemonSet} from './status.js';

export type {ContextFailure, ContextResult, FleetFailureReason};

/** How many clusters are asked at once: enough for tens of clusters in a few round trips, few enough for a laptop. */
export const FLEET_CONCURRENCY = 8;

/**
 * Worst first, for the exit code: a cluster the command could not read says nothing of the rollout there, so it
 * outranks any verdict; then a missing or invalid DaemonSet; then the verdicts as `status -A` ranks them. The
 * history's states (current, mixed) rank with progressing.
 */
const SEVERITY: Readonly<Record<string, number>> = {
  unreachable: 9,
  forbidden: 8,
  error: 7,
  'not found': 6,
  invalid: 5,
  stuck: 4,
  paused: 3,
  progressing: 2,
  mixed: 2,
  current: 0,
  complete: 0,
};

/** A context's failure: its row's state, the reason a script reads, and the exit code the one-cluster command would give. */
export function contextFailure(error: unknown): ContextFailure & {readonly state: string; readonly exitCode: number} {
  const message = withoutUrlUserinfo(error instanceof Error ? error.message : String(error));
  const of = (state: string, reason: FleetFailureReason, exitCode: number) => ({state, reason, message, exitCode});
  if (error instanceof ClusterForbiddenError) return of('forbidden', 'Forbidden', error.exitCode);
  if (error instanceof ClusterUnreachableError) return of('unreachable', 'Unreachable', error.exitCode);
  if (error instanceof NotFoundError) return of('not found', 'NotFound', error.exitCode);
  if (error instanceof InputError) return of('invalid', 'Invalid', error.exitCode);
  if (error instanceof ClusterError || error instanceof DsRolloutError) return of('error', 'Error', error.exitCode);
  // A bug in this program shows on its cluster's row rather than hiding the others'.
  return {...of('error', 'Error', EXIT_INPUT), message: `internal error: ${message}`};
}

/** The fleet's exit code: the worst-ranked context's (0 for none). */
export function fleetExitCode(results: readonly Pick<ContextResult<unknown>, 'state' | 'exitCode'>[]): number {
  let worst: Pick<ContextResult<unknown>, 'state' | 'exitCode'> | undefined;
  for (const result of results) if (worst === undefined || (SEVERITY[result.state] ?? 1) > (SEVERITY[worst.state] ?? 1)) worst = result;
  return worst?.exitCode ?? EXIT_OK;
}

/** What one cluster's use case gives: its result, the row's state and the one-cluster command's exit code. */
export interface Judged<T> {
  readonly result: T;
  readonly state: string;
  readonly exitCode: number;
}

/** Runs `run` on every member, at most `concurrency` at a time, in the members' order; each session is closed after its run. */
export async function eachContext<T>(
  members: readonly FleetSession[],
  run: (session: LiveSession) => Promise<Judged<T>>,
  concurrency = FLEET_CONCURRENCY,
): Promise<ContextResult<T>[]> {
  const results = new Array<ContextResult<T>>(members.length);
  let next = 0;
  const worker = async () => {
    while (next < members.length) {
      const index = next++;
      results[index] = await runOne(members[index]!, run);
    }
  };
  await Promise.all(Array.from({length: Math.max(1, Math.min(concurrency, members.length))}, worker));
  return results;
}

async function runOne<T>(member: FleetSession, run: (session: LiveSession) => Promise<Judged<T>>): Promise<ContextResult<T>> {
  if ('error' in member) {
    const {state, exitCode, ...error} = contextFailure(member.error);
    return {context: member.context, state, exitCode, error};
  }
  const {session, context} = member;
  const server = session.live.server;
  try {
    const {result, state, exitCode} = await run(session);
    return {context, server, state, exitCode, result};
  } catch (error) {
    const {state, exitCode, ...failure} = contextFailure(error);
    return {context, server, state, exitCode, error: failure};
  } finally {
    session.close();
  }
}

/** `status NAME --contexts`: each cluster's report and row, and the fleet rollouts recorded in the DaemonSets read. */
export interface StatusFleet {
  readonly results: readonly ContextResult<{
    readonly report: RolloutStatusReport;
    readonly summary: DaemonSetStatusSummary;
    readonly fleetRollout?: FleetPart;
  }>[];
  readonly fleets: readonly FleetStanding[];
}

/**
 * `status NAME --contexts`: one look per cluster (bounded by --timeout); the report and its row's summary. Where a
 * fleet rollout stands comes from the same DaemonSets (its record is an annotation on each): no request more.
 */
export async function fleetStatus(
  members: readonly FleetSession[],
  options: {readonly name: string; readonly timeoutMs?: number; readonly concurrency?: number},
): Promise<StatusFleet> {
  const read = await eachContext(
    members,
    async (session) => {
      const ref = {namespace: session.namespace, name: options.name};
      const {report, daemonSet} = await boundedLook(false, options.timeoutMs, statusWithDaemonSet(session, {ref}));
      return {result: {report, summary: summarizeStatus(report), daemonSet}, state: report.verdict, exitCode: STATUS_EXIT[report.verdict]};
    },
    options.concurrency,
  );
  const inputs = read.map((entry): FleetClusterInput =>
    'result' in entry ? {context: entry.context, ds: entry.result.daemonSet} : {context: entry.context, error: entry.error.message},
  );
  const fleets = fleetStandingsOf(inputs);
  const results = read.map((entry, index) => {
    if (!('result' in entry)) return entry;
    const {daemonSet: _read, ...result} = entry.result;
    const part = fleetPartOf(fleets, inputs[index]!);
    return {...entry, result: {...result, ...(part === undefined ? {} : {fleetRollout: part})}};
  });
  return {results, fleets};
}

/** The state a plan's row shows, in status's words: complete, paused, stuck (does not converge) or progressing. */
export function planState(plan: Pick<RolloutPlan, 'complete' | 'paused' | 'converges'>): string {
  return plan.complete ? 'complete' : plan.paused ? 'paused' : plan.converges ? 'progressing' : 'stuck';
}

/** `ds-plan NAME --contexts`: each cluster's plan, modelled on that cluster's own Kubernetes version. Exit 0 for a plan, as ds-plan. */
export function fleetPlan(
  members: readonly FleetSession[],
  options: {readonly name: string; readonly kubeVersion?: number; readonly podStartMs?: number; readonly concurrency?: number},
): Promise<ContextResult<RolloutPlan>[]> {
  return eachContext(
    members,
    async (session) => {
      const {plan} = await planDaemonSet({
        source: session.source,
        clock: session.clock,
        ref: {namespace: session.namespace, name: options.name},
        ...(options.kubeVersion === undefined ? {} : {kubeVersion: options.kubeVersion}),
        ...(options.podStartMs === undefined ? {} : {podStartMs: options.podStartMs}),
      });
      return {result: plan, state: planState(plan), exitCode: EXIT_OK};
    },
    options.concurrency,
  );
}

/** A history's state: `current` when every daemon pod runs the current revision, `mixed` while pods run several. */
export function historyState(report: HistoryReport): string {
  return report.revisions.every((entry) => entry.current || entry.pods === 0) ? 'current' : 'mixed';
}

/** `history NAME --contexts`: each cluster's revisions. Exit 0 for a history, as history. */
export function fleetHistory(
  members: readonly FleetSession[],
  options: {readonly name: string; readonly concurrency?: number},
): Promise<ContextResult<HistoryReport>[]> {
  return eachContext(
    members,
    async (session) => {
      const {report} = await historyService(session, {ref: {namespace: session.namespace, name: options.name}});
      return {result: report, state: historyState(report), exitCode: EXIT_OK};
    },
    options.concurrency,
  );
}
