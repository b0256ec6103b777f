// The fleet view for people and scripts: one table with a CONTEXT column (one line per cluster, the last column cut
// to the terminal, so tens of clusters stay readable), a last line counting the clusters by state, and the document
// that keys each context's result by its name. Pure: the service's results in, text or a document out.
import {type FleetCluster, type FleetStanding, fleetReleaseText, type RolloutPlan} from '../core/index.js';
import {escapeControlCharacters, palette, type Palette} from './color.js';
import {formatDuration} from './format.js';
import {fleetDocumentOf, type FleetRolloutResult, PHASE_WORDS} from './fleet-rollout-text.js';
import type {HistoryReport} from './history-text.js';
import {budget, renderTableCuttingLast, revisions, tint} from './status-list-text.js';

/** Why a context has no result, as a script reads it. */
export type FleetFailureReason = 'Unreachable' | 'Forbidden' | 'NotFound' | 'Invalid' | 'Error';

export interface ContextFailure {
  readonly reason: FleetFailureReason;
  /** One line; never a credential (URLs lose their user and password). */
  readonly message: string;
}

/** One context's outcome: its row's state (a verdict, or unreachable, forbidden, not found, ...) and its exit code. */
export type ContextResult<T> = {
  readonly context: string;
  /** The API server, when the context resolved to one. */
  readonly server?: string;
  readonly state: string;
  /** What the one-cluster command would have exited with. */
  readonly exitCode: number;
} & ({readonly result: T} | {readonly error: ContextFailure});

export interface FleetTextOptions {
  readonly color: boolean;
  /** Terminal width: the last column is cut to fit (undefined: not cut, as in a pipe). */
  readonly width?: number;
  /** -o wide: each context's API server too. */
  readonly wide?: boolean;
}

// Best first: the order the count line lists states in (others follow, as they first appear).
const STATE_ORDER = ['complete', 'current', 'progressing', 'mixed', 'paused', 'stuck', 'invalid', 'not found', 'error', 'forbidden', 'unreachable'];

/** The last line: `3 clusters: 2 complete, 1 unreachable`. */
export function fleetCountLine(results: readonly Pick<ContextResult<unknown>, 'state'>[]): string {
  const counts = new Map<string, number>();
  for (const {state} of results) counts.set(state, (counts.get(state) ?? 0) + 1);
  const rank = (state: string) => (STATE_ORDER.includes(state) ? STATE_ORDER.indexOf(state) : STATE_ORDER.length);
  const parts = [...counts].sort(([a], [b]) => rank(a) - rank(b)).map(([state, count]) => `${count} ${state}`);
  return `${results.length} ${results.length === 1 ? 'cluster' : 'clusters'}: ${parts.join(', ')}\n`;
}

function stateTint(state: string, c: Palette): (text: string) => string {
  if (state === 'current') return c.green;
  if (state === 'mixed') return c.cyan;
  if (['complete', 'progressing', 'paused', 'stuck', 'invalid'].includes(state)) return tint(state as 'complete', c);
  return c.red;
}

/** One context's cells before the last column; a failure's are dashes, its message goes last. */
export type Cells<T> = (result: T) => {readonly cells: readonly string[]; readonly last: string};

/** The fleet's table: a row per context (a failure's cells are dashes, its message last), then the count line. */
export function renderFleet<T>(header: readonly string[], results: readonly ContextResult<T>[], cells: Cells<T>, options: FleetTextOptions): string {
  const c = palette(options.color);
  const dashes = header.length - 3;
  const rows = results.map((entry) => {
    const {cells: middle, last} = 'result' in entry ? cells(entry.result) : {cells: Array<string>(dashes).fill('-'), last: entry.error.message};
    const server = options.wide ? [entry.server ?? '-'] : [];
    return [escapeControlCharacters(entry.context), stateTint(entry.state, c)(entry.state), ...middle, ...server, escapeControlCharacters(last)];
  });
  const columns = options.wide ? [...header.slice(0, -1), 'SERVER', header.at(-1)!] : header;
  return renderTableCuttingLast(columns, rows, options.wide ? undefined : options.width) + fleetCountLine(results);
}

/** One cluster's part in a fleet rollout, as `status --contexts` found it in the DaemonSet it read. */
export interface FleetPart {
  readonly standing: FleetStanding;
  readonly cluster: FleetCluster;
}

/** A status row: the one-cluster summary and, when a fleet rollout names this context, its part in it. */
export interface StatusFleetRow {
  readonly summary: Parameters<typeof budget>[0] & Parameters<typeof revisions>[0] & {readonly blocker?: string};
  readonly fleetRollout?: FleetPart;
}

/**
 * `status NAME --contexts`: verdict, revision, budget use and the first blocker of each cluster; with a fleet
 * rollout recorded, a line per fleet above the table and a FLEET column (the cluster's wave and its part's phase).
 */
export function renderStatusFleetText(
  results: readonly ContextResult<StatusFleetRow>[],
  options: FleetTextOptions,
  fleets: readonly FleetStanding[] = [],
): string {
  const c = palette(options.color);
  const lines = fleets.map((standing) => `${c.bold(escapeControlCharacters(fleetStandingLine(standing)))}\n`).join('');
  const fleet = fleets.length > 0;
  const header = ['CONTEXT', 'VERDICT', 'REVISION', 'BUDGET', ...(fleet ? ['FLEET'] : []), 'BLOCKER'];
  return (
    lines +
    renderFleet(
      header,
      results,
      ({summary, fleetRollout}) => ({
        cells: [revisions(summary), budget(summary), ...(fleet ? [fleetCell(fleetRollout)] : [])],
        last: summary.blocker ?? '',
      }),
      options,
    )
  );
}

/** A row's FLEET cell: `w1 complete`, `w2 rolling`; `-` for a cluster no fleet read here names. */
export function fleetCell(part: FleetPart | undefined): string {
  return part === undefined ? '-' : `w${part.cluster.wave + 1} ${part.cluster.phase}`;
}

/** How many not-asked contexts the line names before it counts the rest. */
const NAMED_NOT_ASKED = 4;

/** `Fleet rollout ID (main=agent:v2): rolling, wave 2/3; prod-us, prod-ap not asked here` */
export function fleetStandingLine(standing: FleetStanding): string {
  const {view, notAsked} = standing;
  const named = notAsked.length > NAMED_NOT_ASKED ? notAsked.slice(0, NAMED_NOT_ASKED - 1) : notAsked;
  const rest = notAsked.length - named.length;
  const others = notAsked.length === 0 ? '' : `; ${named.join(', ')}${rest > 0 ? ` and ${rest} more` : ''} not asked here`;
  return `Fleet rollout ${view.id} (${fleetReleaseText(view.plan.release)}): ${PHASE_WORDS[view.phase]}, wave ${view.wave + 1}/${view.plan.waves.length}${others}`;
}

/** A fleet rollout in the status document: where it stands, the clusters read here, the contexts not asked. */
export function fleetStandingDocument(standing: FleetStanding): Omit<FleetRolloutResult, 'kind'> & {readonly notAsked: readonly string[]} {
  return {...fleetDocumentOf(standing.view, standing.asked), notAsked: standing.notAsked};
}

/** A context's `fleetRollout` in the status document: its fleet's id and release, its wave, its part's phase. */
export function fleetPartDocument(part: FleetPart): Record<string, unknown> {
  const {view} = part.standing;
  const {cluster} = part;
  return {
    id: view.id,
    release: view.plan.release,
    wave: cluster.wave + 1,
    waves: view.plan.waves.length,
    phase: cluster.phase,
    ...(cluster.message === undefined ? {} : {message: cluster.message}),
    fleetPhase: view.phase,
  };
}

export type PlanView = Pick<RolloutPlan, 'revisions' | 'budget' | 'waves' | 'timing' | 'blockers' | 'complete'>;

/** A plan's revisions and budget use as a status row has them (no budget once complete): the cells `1->2`, `1/2 unavailable`. */
export function planSummary(plan: Pick<RolloutPlan, 'revisions' | 'budget' | 'complete'>): Parameters<typeof budget>[0] & Parameters<typeof revisions>[0] {
  const spends = plan.budget.spends;
  return {
    revisions: {current: plan.revisions.current.revision, update: plan.revisions.update.revision},
    ...(plan.complete ? {} : {budget: {spends, used: plan.budget[spends].used, limit: plan.budget[spends].limit}}),
  };
}

/** `ds-plan NAME --contexts`: each cluster's revision, budget use, waves left and time to complete, and what blocks it. */
export function renderPlanFleetText(results: readonly ContextResult<PlanView>[], options: FleetTextOptions): string {
  return renderFleet(
    ['CONTEXT', 'VERDICT', 'REVISION', 'BUDGET', 'WAVES', 'ETA', 'BLOCKER'],
    results,
    (plan) => ({cells: planCells(plan), last: plan.blockers[0]?.message ?? ''}),
    options,
  );
}

/** A plan's cells of a fleet row: revision, budget use, waves left, time to complete. */
export function planCells(plan: PlanView): string[] {
  const summary = planSummary(plan);
  const eta = plan.timing?.etaSeconds;
  return [revisions(summary), budget(summary), String(plan.waves.length), eta === undefined ? '-' : formatDuration(eta)];
}

/** `history NAME --contexts`: each cluster's current revision, how many it keeps, its pods on the current one, and its images. */
export function renderHistoryFleetText(results: readonly ContextResult<HistoryReport>[], options: FleetTextOptions): string {
  return renderFleet(
    ['CONTEXT', 'STATE', 'REVISION', 'REVISIONS', 'PODS', 'IMAGES'],
    results,
    (report) => {
      const current = report.revisions.find((entry) => entry.current);
      const pods = report.revisions.reduce((sum, entry) => sum + entry.pods, 0);
      return {
        cells: [current === undefined ? '-' : String(current.revision), String(report.revisions.length), `${current?.pods ?? 0}/${pods}`],
        last: current?.images.join(',') ?? '',
      };
    },
    options,
  );
}

/** Each context's entry of the fleet's document: its result or its error. */
export interface FleetDocumentEntry<D> {
  readonly server?: string;
  readonly state: string;
  readonly exitCode: number;
  readonly result?: D;
  readonly error?: ContextFailure;
}

export interface FleetDocument<D> {
  readonly kind: string;
  readonly daemonSet: {readonly name: string};
  /** The worst context's exit code, which the command exits with. */
  readonly exitCode: number;
  /** How many clusters, and how many in each state (as the count line). */
  readonly summary: {readonly clusters: number; readonly counts: Readonly<Record<string, number>>};
  /** `status --contexts`: each fleet rollout recorded in the clusters read (fleetStandingDocument). */
  readonly fleetRollouts?: readonly unknown[];
  /** Keyed by context name, in the order asked. */
  readonly contexts: Readonly<Record<string, FleetDocumentEntry<D>>>;
}

/** The fleet's document: each context's result (or its error) keyed by the context's name, the counts and the exit code. */
export function fleetDocument<T, D>(
  kind: string,
  daemonSet: string,
  results: readonly ContextResult<T>[],
  exitCode: number,
  document: (result: T) => D,
  extra: Pick<FleetDocument<D>, 'fleetRollouts'> = {},
): FleetDocument<D> {
  const contexts = Object.fromEntries(
    results.map((entry) => [
      entry.context,
      {
        ...(entry.server === undefined ? {} : {server: entry.server}),
        state: entry.state,
        exitCode: entry.exitCode,
        ...('result' in entry ? {result: document(entry.result)} : {error: entry.error}),
      },
    ]),
  );
  const counts: Record<string, number> = {};
  for (const {state} of results) counts[state] = (counts[state] ?? 0) + 1;
  return {kind, daemonSet: {name: daemonSet}, exitCode, summary: {clusters: results.length, counts}, ...extra, contexts};
}
