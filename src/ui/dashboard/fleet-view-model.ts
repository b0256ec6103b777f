// The fleet screen's view model (`dashboard NAME --contexts`): one row per cluster (context, state, revision,
// updated pods, budget use, what holds it back), the count line `status --contexts` ends with, the key line, and
// the one line above a cluster's own screen once it is open. Pure: the fleet feed's snapshot, the interaction state
// and the terminal's size in, lines of segments out; the components only lay them out.
import {budget, firstBlocker, revisions} from '../../output/status-list-text.js';
import {fleetCountLine, planSummary} from '../../output/fleet-text.js';
import type {FleetMemberView, FleetSnapshot} from '../../services/dashboard/fleet-feed.js';
import {FLEET_KEY_HELP, type FleetState} from './fleet-state.js';
import type {TerminalSize} from './layout.js';
import type {ColorToken} from './theme-tokens.js';
import {fit, fitLine, type Line, seg, truncate, width} from './text.js';

export interface FleetInput {
  readonly snapshot: FleetSnapshot;
  /** The DaemonSet every cluster is asked for. */
  readonly name: string;
  /** -n, when given (otherwise each context's own namespace). */
  readonly namespace?: string;
}

/** One cluster's cells, before they are fitted to columns. */
export interface FleetRow {
  readonly context: string;
  readonly glyph: {readonly text: string; readonly token: ColorToken};
  readonly state: string;
  readonly stateToken: ColorToken;
  readonly revision: string;
  readonly updated: string;
  readonly budget: string;
  /** The last column: what holds the rollout back, the feed's trouble, or why the cluster has no answer. */
  readonly note: string;
  readonly noteToken: ColorToken;
  /** Why Enter opens nothing here (undefined: the cluster's screen can open). */
  readonly closed?: string;
}

export interface FleetRowVm {
  readonly context: string;
  readonly selected: boolean;
  readonly line: Line;
}

export interface FleetViewModel {
  readonly columns: number;
  readonly height: number;
  readonly header: readonly Line[];
  readonly table: {readonly header: Line; readonly rows: readonly FleetRowVm[]; readonly listRows: number};
  readonly help?: readonly Line[];
  readonly status: Line;
  readonly footer: Line;
  /** What the container needs to complete keys: the rows, a page, each row's context and why it cannot open. */
  readonly nav: {readonly rows: number; readonly page: number; readonly contexts: readonly string[]; readonly closed: readonly (string | undefined)[]};
}

const COLUMNS = ['CONTEXT', 'STATE', 'REVISION', 'UPDATED', 'BUDGET', 'BLOCKER'] as const;
// Title, count line, table header; then status and footer.
const CHROME_ROWS = 5;

const STATE_TOKENS: Readonly<Record<string, ColorToken>> = {
  complete: 'ok',
  progressing: 'accent',
  paused: 'warn',
  stuck: 'error',
  connecting: 'muted',
};

/** A member's row: its verdict and plan when followed, `connecting`, or the failure's state and message. Pure. */
export function fleetRowOf(member: FleetMemberView): FleetRow {
  const dashes = {revision: '-', updated: '-', budget: '-'};
  if (member.phase === 'connecting') {
    return {
      context: member.context,
      glyph: {text: '…', token: 'muted'},
      state: 'connecting',
      stateToken: 'muted',
      ...dashes,
      note: '',
      noteToken: 'muted',
      closed: 'still connecting: nothing to show yet',
    };
  }
  if (member.phase === 'failed') {
    return {
      context: member.context,
      glyph: {text: '✖', token: 'error'},
      state: member.state,
      stateToken: 'error',
      ...dashes,
      note: member.failure.message,
      noteToken: 'error',
      closed: `${member.state}: no screen to open${member.retrying ? ' (asked again shortly)' : ''}`,
    };
  }
  const {plan, verdict, connection, error} = member.snapshot;
  const summary = planSummary(plan);
  const blocker = firstBlocker({blockers: plan.blockers, verdict: verdict.verdict, detail: verdict.detail}) ?? '';
  return {
    context: member.context,
    glyph: connection === 'live' ? {text: '●', token: 'ok'} : {text: '○', token: 'warn'},
    state: verdict.verdict,
    stateToken: STATE_TOKENS[verdict.verdict] ?? 'text',
    revision: revisions(summary),
    updated: `${plan.status.updatedNumberScheduled}/${plan.status.desiredNumberScheduled}`,
    budget: budget(summary),
    // The feed's trouble (not answering, the watch stopped) first: the rest of the row may be old.
    note: error ?? blocker,
    noteToken: error !== undefined ? 'warn' : 'text',
  };
}

/** The count line of the fleet: `3 clusters: 1 complete, 1 progressing, 1 unreachable` (the words of `status --contexts`). */
export function fleetCounts(rows: readonly Pick<FleetRow, 'state'>[]): string {
  return fleetCountLine(rows).trimEnd();
}

function keyLine(columns: number): Line {
  const parts = FLEET_KEY_HELP.filter((entry) => entry.keys !== 'esc').flatMap((entry, index) => [
    ...(index > 0 ? [seg('  ')] : []),
    seg(entry.keys, 'key'),
    seg(` ${entry.label.split(' ')[0]}`, 'muted'),
  ]);
  return fitLine(parts, columns);
}

function helpLines(columns: number): Line[] {
  const keys = FLEET_KEY_HELP.map((entry) => [seg(fit(entry.keys, 8), 'key'), seg(entry.label)]);
  const legend: Line[] = [
    [
      seg('● ', 'ok'),
      seg('followed live  '),
      seg('○ ', 'warn'),
      seg('reconnecting  '),
      seg('… ', 'muted'),
      seg('connecting  '),
      seg('✖ ', 'error'),
      seg('no answer'),
    ],
  ];
  return [[seg('Keys', 'title')], ...keys, [], [seg('Rows', 'title')], ...legend].map((line) => fitLine(line, columns));
}

/** The row cells fitted to columns: each as wide as its longest cell, the last cut to what is left. */
function tableLines(rows: readonly FleetRow[], columns: number): {header: Line; lines: Line[]} {
  const cells = (row: FleetRow) => [row.context, row.state, row.revision, row.updated, row.budget];
  const widths = COLUMNS.slice(0, -1).map((title, index) => Math.max(width(title), ...rows.map((row) => width(cells(row)[index]!))));
  const pad = (text: string, index: number) => `${fit(text, widths[index]!)}  `;
  const lead = 4; // cursor mark and glyph
  const header = fitLine(
    [seg(' '.repeat(lead)), ...COLUMNS.slice(0, -1).map((title, index) => seg(pad(title, index), 'muted')), seg(COLUMNS.at(-1)!, 'muted')],
    columns,
  );
  const lines = rows.map((row) => {
    const [context, state, ...rest] = cells(row);
    return fitLine(
      [
        seg('  '),
        seg(`${row.glyph.text} `, row.glyph.token),
        seg(pad(context!, 0), 'title'),
        seg(pad(state!, 1), row.stateToken),
        ...rest.map((text, index) => seg(pad(text, index + 2))),
        seg(row.note, row.noteToken),
      ],
      columns,
    );
  });
  return {header, lines};
}

function statusLine(ui: FleetState, row: FleetRow | undefined, columns: number): Line {
  if (ui.notice) return [seg(truncate(ui.notice.text, columns), 'warn')];
  if (!row) return [];
  if (row.closed !== undefined) return fitLine([seg(`${row.context}: `, 'muted'), seg(row.closed, 'muted')], columns);
  return fitLine([seg('enter', 'key'), seg(` opens ${row.context}'s screen; esc there comes back here`, 'muted')], columns);
}

export function toFleetViewModel(input: FleetInput, ui: FleetState, size: TerminalSize): FleetViewModel {
  const columns = Math.max(20, size.columns);
  // One row short of the terminal, as the one-cluster screen: a frame as tall as the terminal scrolls it.
  const height = Math.max(CHROME_ROWS + 1, size.rows - 1);
  const rows = input.snapshot.members.map(fleetRowOf);
  const cursor = Math.max(0, Math.min(ui.cursor, rows.length - 1));
  const listRows = height - CHROME_ROWS;
  const first = cursor < listRows ? 0 : cursor - listRows + 1;
  const {header, lines} = tableLines(rows, columns);
  const ds = input.namespace === undefined ? input.name : `${input.namespace}/${input.name}`;
  return {
    columns,
    height,
    header: [
      fitLine(
        [seg(`DaemonSet ${ds}`, 'title'), seg(`  on ${rows.length} ${rows.length === 1 ? 'cluster' : 'clusters'}, each followed live`, 'muted')],
        columns,
      ),
      fitLine([seg(fleetCounts(rows))], columns),
    ],
    table: {
      header,
      rows: lines.slice(first, first + listRows).map((line, index) => {
        const selected = first + index === cursor;
        return {context: rows[first + index]!.context, selected, line: selected ? [seg('› ', 'accent'), ...line.slice(1)] : line};
      }),
      listRows,
    },
    ...(ui.help ? {help: helpLines(columns).slice(0, listRows + 1)} : {}),
    status: statusLine(ui, rows[cursor], columns),
    footer: keyLine(columns),
    nav: {rows: rows.length, page: Math.max(1, listRows), contexts: rows.map((row) => row.context), closed: rows.map((row) => row.closed)},
  };
}

/** The line above an open cluster's screen: where it sits in the fleet, how the fleet stands, the way back. */
export function drilledLine(input: FleetInput, context: string, columns: number): Line {
  const rows = input.snapshot.members.map(fleetRowOf);
  return fitLine(
    [seg('Fleet', 'title'), seg(' › ', 'muted'), seg(context, 'accent'), seg(`  ${fleetCounts(rows)}  `, 'muted'), seg('esc', 'key'), seg(' back', 'muted')],
    columns,
  );
}
