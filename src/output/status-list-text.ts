// `ds-rollout status -A` for people: one row per DaemonSet, kubectl get style (upper-case header, no borders).
import type {Revision, RolloutVerdict} from '../core/index.js';
import {palette, type Palette, visibleLength} from './color.js';
import {renderTable} from './table.js';

// What the table shows of the status service's list (services/status-all.ts), declared here as output imports inward.
type RowVerdict = RolloutVerdict | 'invalid';

interface DaemonSetStatusSummary {
  readonly daemonSet: {readonly namespace: string; readonly name: string};
  readonly verdict: RowVerdict;
  readonly revisions?: {readonly current: Revision; readonly update: Revision};
  readonly strategy?: {readonly type: string; readonly maxUnavailable: number; readonly maxSurge: number};
  readonly budget?: {readonly spends: 'maxUnavailable' | 'maxSurge'; readonly used: number; readonly limit: number};
  readonly updated?: number;
  readonly desired?: number;
  readonly blocker?: string;
}

export interface StatusListView {
  readonly namespace?: string;
  readonly items: readonly DaemonSetStatusSummary[];
}

export interface StatusListTextOptions {
  readonly color: boolean;
  /** -o wide: strategy, updated/desired and kubectl's line too. */
  readonly wide?: boolean;
  /** Terminal width: the blocker column is cut to fit (undefined: not cut). */
  readonly width?: number;
}

/** A verdict's colour. */
export function tint(verdict: RowVerdict, c: Palette): (text: string) => string {
  return verdict === 'complete' ? c.green : verdict === 'stuck' || verdict === 'invalid' ? c.red : verdict === 'paused' ? c.yellow : c.cyan;
}

/** The first thing that holds a rollout, as a row shows it: its first blocker, else why it is stuck or paused. */
export function firstBlocker(report: {
  readonly blockers: readonly {readonly message: string}[];
  readonly verdict: string;
  readonly detail: string;
}): string | undefined {
  return report.blockers[0]?.message ?? (report.verdict === 'stuck' || report.verdict === 'paused' ? report.detail : undefined);
}

/** `2`, or `1->2` while a rollout moves pods from one revision to the next. */
export function revisions(item: Pick<DaemonSetStatusSummary, 'revisions'>): string {
  if (!item.revisions) return '-';
  const {current, update} = item.revisions;
  return current === update ? `${update}` : `${current}->${update}`;
}

/** `1/1 unavailable`: the budget the rolling update spends and how much of it is used; `-` when none is. */
export function budget(item: Pick<DaemonSetStatusSummary, 'budget'>): string {
  if (!item.budget) return '-';
  return `${item.budget.used}/${item.budget.limit} ${item.budget.spends === 'maxSurge' ? 'surge' : 'unavailable'}`;
}

function strategy(item: DaemonSetStatusSummary): string {
  const s = item.strategy;
  if (!s) return '-';
  return s.type === 'RollingUpdate' ? `RollingUpdate ${s.maxUnavailable}/${s.maxSurge}` : s.type;
}

function cut(text: string, room: number | undefined): string {
  const line = text.split('\n')[0]!;
  if (room === undefined || line.length <= room) return line;
  return room <= 1 ? '' : `${line.slice(0, room - 1)}…`;
}

export function renderStatusListText(report: StatusListView, options: StatusListTextOptions): string {
  if (report.items.length === 0) {
    return report.namespace === undefined ? 'No DaemonSets found.\n' : `No DaemonSets found in ${report.namespace} namespace.\n`;
  }
  const c = palette(options.color);
  const header = ['NAMESPACE', 'NAME', 'VERDICT', 'REVISION', 'BUDGET', ...(options.wide ? ['STRATEGY', 'UPDATED'] : []), 'BLOCKER'];
  const rows = report.items.map((item) => [
    item.daemonSet.namespace,
    item.daemonSet.name,
    tint(item.verdict, c)(item.verdict),
    revisions(item),
    budget(item),
    ...(options.wide ? [strategy(item), item.desired === undefined ? '-' : `${item.updated}/${item.desired}`] : []),
    item.blocker ?? '',
  ]);
  return renderTableCuttingLast(header, rows, options.wide ? undefined : options.width);
}

/**
 * A table whose last column (a blocker, an error) is cut to what the other columns leave of a terminal `width` wide
 * (at least 20 characters; undefined: not cut, as in a pipe). One line per row, the table's text with its newline.
 */
export function renderTableCuttingLast(header: readonly string[], rows: readonly (readonly string[])[], width: number | undefined): string {
  const lines = renderTable(
    rows.map((row) => [...row.slice(0, -1), '']),
    {header: [...header.slice(0, -1), '']},
  );
  const used = Math.max(...lines.map(visibleLength)) + 2;
  const room = width === undefined ? undefined : Math.max(20, width - used);
  const full = renderTable(
    rows.map((row) => [...row.slice(0, -1), cut(row.at(-1)!, room)]),
    {header},
  );
  return `${full.join('\n')}\n`;
}
