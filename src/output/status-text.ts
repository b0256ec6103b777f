// ds-rollout status for people: kubectl's line, the verdict, then every node that is not done and why.
import type {Blocker, DaemonSetStatusCounters, PodSummary, RolloutPlan} from '../core/index.js';
import {palette, type Palette} from './color.js';
import {formatCount, plural} from './format.js';
import {blockerText, NODE_TABLE_LIMIT, wrap} from './plan-text.js';
import {renderTable} from './table.js';

export type RolloutVerdict = 'complete' | 'progressing' | 'stuck';

export type NodeStatusState = 'updated' | 'waiting' | 'blocked' | 'not-eligible';

export interface NodeStatus {
  readonly name: string;
  readonly state: NodeStatusState;
  /** Why the node is not updated yet (empty when it is). */
  readonly reason: string;
  /** Node conditions that matter to a daemon pod: NotReady, cordoned. */
  readonly conditions: readonly string[];
  readonly pods: readonly PodSummary[];
}

export interface RolloutStatusReport {
  readonly kind: 'DaemonSetRolloutStatus';
  readonly daemonSet: {readonly namespace: string; readonly name: string};
  readonly verdict: RolloutVerdict;
  /** What `kubectl rollout status` prints (without its trailing newline). */
  readonly message: string;
  /** What stays in motion (progressing), or why nothing can move (stuck). */
  readonly detail: string;
  readonly generation: number;
  readonly observedGeneration: number;
  readonly strategy: RolloutPlan['strategy'];
  readonly revisions: RolloutPlan['revisions'];
  /** The counters as the controller last wrote them (kubectl's source). */
  readonly status: DaemonSetStatusCounters;
  readonly counts: Readonly<Record<NodeStatusState, number>>;
  readonly nodes: readonly NodeStatus[];
  readonly blockers: readonly Blocker[];
  readonly warnings: readonly Blocker[];
  /** The plan's view: whether the rollout reaches completion from here without a change. */
  readonly converges: boolean;
}


export interface StatusTextOptions {
  readonly color: boolean;
  /** Terminal width for wrapping findings; undefined: no wrapping. */
  readonly width?: number;
  /** List updated nodes too, also in large clusters. */
  readonly allNodes?: boolean;
}

const VERDICT_LABEL: Readonly<Record<RolloutVerdict, string>> = {complete: 'Rollout complete', progressing: 'Rollout in progress', stuck: 'Rollout stuck'};

function verdictLine(report: RolloutStatusReport, c: Palette): string {
  const tint = report.verdict === 'complete' ? c.green : report.verdict === 'stuck' ? c.red : c.cyan;
  return `${tint(VERDICT_LABEL[report.verdict])}: ${report.detail}`;
}

function summaryLine(report: RolloutStatusReport): string {
  const {current, update} = report.revisions;
  const revision = current.revision === update.revision ? `revision ${update.revision}` : `revision ${current.revision} -> ${update.revision}`;
  const {type, maxUnavailable, maxSurge} = report.strategy;
  const strategy = type === 'RollingUpdate' ? `RollingUpdate, maxUnavailable ${maxUnavailable}, maxSurge ${maxSurge}` : type;
  const counts = [
    `${formatCount(report.counts.updated)} updated`,
    `${formatCount(report.counts.waiting)} waiting`,
    `${formatCount(report.counts.blocked)} blocked`,
    ...(report.counts['not-eligible'] > 0 ? [`${formatCount(report.counts['not-eligible'])} not eligible`] : []),
  ];
  return `${report.daemonSet.namespace}/${report.daemonSet.name} ${revision} (${strategy}): ${plural(report.nodes.length, 'node')}, ${counts.join(', ')}`;
}

function stateCell(state: NodeStatusState, c: Palette): string {
  switch (state) {
    case 'updated':
      return c.green(state);
    case 'waiting':
      return c.cyan(state);
    case 'blocked':
      return c.red(state);
    case 'not-eligible':
      return c.dim('not eligible');
  }
}

function nodeSection(report: RolloutStatusReport, options: StatusTextOptions, c: Palette): string[] {
  const large = report.nodes.length > NODE_TABLE_LIMIT && !options.allNodes;
  const shown = large ? report.nodes.filter((node) => node.state !== 'updated') : report.nodes;
  const lines = shown.length === 0 ? [] : renderTable(shown.map((node) => [node.name, stateCell(node.state, c), node.state === 'blocked' ? c.red(node.reason) : node.reason]), {header: ['NODE', 'STATE', 'WHY'].map((title) => c.bold(title))});
  const hidden = report.nodes.length - shown.length;
  if (hidden > 0) lines.push(c.dim(`(${plural(hidden, 'updated node')} not shown; --all-nodes shows every node)`));
  return lines;
}

function findings(title: string, items: readonly Blocker[], options: StatusTextOptions, c: Palette, tint: (text: string) => string): string[] {
  if (items.length === 0) return [];
  return [c.bold(`${title}:`), ...items.flatMap((item) => wrap(blockerText(item), options.width, '  - ', '    ').map(tint))];
}

export function renderStatusText(report: RolloutStatusReport, options: StatusTextOptions): string {
  const c = palette(options.color);
  const sections = [
    [report.message, verdictLine(report, c), summaryLine(report)],
    nodeSection(report, options, c),
    findings('Blockers', report.blockers, options, c, c.red),
    findings('Warnings', report.warnings, options, c, c.yellow),
  ].filter((section) => section.length > 0);
  return `${sections.map((section) => section.join('\n')).join('\n\n')}\n`;
}

/** One line per change while watching, kubectl style: its message, then our verdict when it says more. */
export function renderStatusProgress(report: RolloutStatusReport, options: {color: boolean}): string {
  return `${report.message}\n  ${verdictLine(report, palette(options.color))}\n`;
}
