// ds-rollout status for people: kubectl's line, the verdict, then every node that is not done and why.
import {type Blocker, describeGateReading, type NodeStatusState, type RolloutStatusReport, type RolloutVerdict} from '../core/index.js';
import {palette, type Palette} from './color.js';
import {formatCount, plural} from './format.js';
import {blockerText, NODE_TABLE_LIMIT, wrap} from './plan-text.js';
import {describeGatedProgress} from './gated-text.js';
import {renderTable} from './table.js';

export interface StatusTextOptions {
  readonly color: boolean;
  /** Terminal width for wrapping findings; undefined: no wrapping. */
  readonly width?: number;
  /** List updated nodes too, also in large clusters. */
  readonly allNodes?: boolean;
  /** Start with kubectl's line and the verdict (default); a watch that printed them as they changed leaves them out. */
  readonly headline?: boolean;
}

const VERDICT_LABEL: Readonly<Record<RolloutVerdict, string>> = {
  complete: 'Rollout complete',
  progressing: 'Rollout in progress',
  paused: 'Rollout paused',
  stuck: 'Rollout stuck',
};

function verdictLine(report: RolloutStatusReport, c: Palette): string {
  const tint = report.verdict === 'complete' ? c.green : report.verdict === 'stuck' ? c.red : report.verdict === 'paused' ? c.yellow : c.cyan;
  return `${tint(VERDICT_LABEL[report.verdict])}: ${report.detail}`;
}

function summaryLine(report: RolloutStatusReport): string {
  const {current, update} = report.revisions;
  const revision = current.revision === update.revision ? `revision ${update.revision}` : `revision ${current.revision} -> ${update.revision}`;
  const {type, maxUnavailable, maxSurge} = report.strategy;
  const recorded = report.paused?.budgets;
  const strategy = recorded
    ? `paused by ds-rollout; recorded maxUnavailable ${recorded.maxUnavailable}, maxSurge ${recorded.maxSurge}`
    : type === 'RollingUpdate'
      ? `RollingUpdate, maxUnavailable ${maxUnavailable}, maxSurge ${maxSurge}`
      : type;
  const counts = [
    `${formatCount(report.counts.updated)} updated and available`,
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

/** A reason's wave: `deleted in wave 3 of 40`. */
const WAVE_OF = /\bwave (\d+) of (\d+)/;

/** Rows shown one by one before the rest of a large cluster is grouped by state. */
const INDIVIDUAL_ROWS = 30;

function nodeSection(report: RolloutStatusReport, options: StatusTextOptions, c: Palette): string[] {
  const header = ['NODE', 'STATE', 'WHY'].map((title) => c.bold(title));
  const row = (node: RolloutStatusReport['nodes'][number]) => [
    node.name,
    stateCell(node.state, c),
    node.state === 'blocked' ? c.red(node.reason) : node.reason,
  ];
  if (report.nodes.length <= NODE_TABLE_LIMIT || options.allNodes) return report.nodes.length === 0 ? [] : renderTable(report.nodes.map(row), {header});
  // A large cluster: the blocked nodes and the next sync's nodes one by one (the report's order); every other node
  // only as a count per state, with its most common reason.
  const individual = report.nodes.filter((node) => node.state === 'blocked' || (node.state === 'waiting' && node.wave === 1)).slice(0, INDIVIDUAL_ROWS);
  const shown = new Set(individual);
  // Reasons that differ only by their wave ("deleted in wave 3 of 40") are one reason over a range of waves.
  const groups = new Map<NodeStatusState, {count: number; reasons: Map<string, {count: number; first: number; last: number}>}>();
  for (const node of report.nodes) {
    if (shown.has(node)) continue;
    const group = groups.get(node.state) ?? {count: 0, reasons: new Map()};
    group.count++;
    const wave = WAVE_OF.exec(node.reason);
    const key = wave ? node.reason.replace(WAVE_OF, 'wave # of $2') : node.reason;
    const seen = group.reasons.get(key) ?? {count: 0, first: Number.POSITIVE_INFINITY, last: 0};
    seen.count++;
    if (wave) {
      seen.first = Math.min(seen.first, Number(wave[1]));
      seen.last = Math.max(seen.last, Number(wave[1]));
    }
    group.reasons.set(key, seen);
    groups.set(node.state, group);
  }
  const grouped = [...groups].map(([state, group]) => {
    const [key, seen] = [...group.reasons].sort((a, b) => b[1].count - a[1].count)[0]!;
    const reason = seen.last === 0 ? key : key.replace('wave #', seen.first === seen.last ? `wave ${seen.first}` : `waves ${seen.first}-${seen.last}`);
    const why = reason === '' ? '' : seen.count === group.count ? reason : `${reason} (${formatCount(seen.count)} of them)`;
    // "more" only after nodes listed one by one.
    return [c.dim(`${formatCount(group.count)}${individual.length > 0 ? ' more' : ''}`), stateCell(state, c), why];
  });
  const lines = renderTable([...individual.map(row), ...grouped], {header});
  const hidden = report.nodes.length - individual.length;
  lines.push(c.dim(`(${plural(hidden, 'node')} counted by state, not listed; --all-nodes lists every node)`));
  return lines;
}

function findings(title: string, items: readonly Blocker[], options: StatusTextOptions, c: Palette, tint: (text: string) => string): string[] {
  if (items.length === 0) return [];
  return [c.bold(`${title}:`), ...items.flatMap((item) => wrap(blockerText(item), options.width, '  - ', '    ').map(tint))];
}

export function renderStatusText(report: RolloutStatusReport, options: StatusTextOptions): string {
  const c = palette(options.color);
  const sections = [
    [
      ...(options.headline === false ? [] : [report.message, verdictLine(report, c)]),
      summaryLine(report),
      ...(report.gated ? [c.yellow(describeGatedProgress(report.gated))] : []),
      // Each gate's last reading, as the record has it.
      ...(report.gated?.readings ?? []).map((reading) => `  gate ${describeGateReading(reading)}`),
    ],
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
