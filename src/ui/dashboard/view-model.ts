// The dashboard's view model: everything the screen shows, computed from the plan, the revisions and the
// interaction state for a given terminal size. Pure and synchronous; the components only lay it out.
// Only what is visible is materialised (the list window, the grid rows), so a 5,000-node plan stays cheap
// to build and to compare.
import {compareRevisions, type GatedProgress, higherRevision, type NodePlan, type Revision, type RolloutPlan} from '../../core/index.js';
import {formatCount, formatDuration} from '../../output/format.js';
import type {DashboardState} from './dashboard-state.js';
import type {Connection, PausedInfo, RevisionEntry, RolloutVerdict, StepPreview} from '../../services/dashboard/feed.js';
import {KEY_HELP} from './key-bindings.js';
import {computeLayout, type CompactionLevel, type DashboardLayout, type TerminalSize} from './layout.js';
import {
  isNextWave,
  NEXT_WAVE_GLYPH,
  NODE_GLYPHS,
  NODE_LABELS,
  NODE_MEANINGS,
  NODE_TOKENS,
  type NodeToken,
  nodeMatchesFilter,
  nodeToken,
  TOKEN_PRIORITY,
} from './node-tokens.js';
import {describeGatedProgress} from '../../output/gated-text.js';
import {compactImages} from './revision-diff.js';
import {fit, fitLine, type Line, lineWidth, mergeSegments, seg, type Segment, truncate, width, wrapLine} from './text.js';

export interface DashboardContext {
  readonly name: string;
  readonly namespace: string;
  readonly kubeContext: string;
  /** The API server (live): confirmation prompts name the context and the server they act on. */
  readonly server?: string;
}

export interface DashboardInput {
  readonly plan: RolloutPlan;
  /** The core's verdict (the status report's): the dashboard derives none of its own. */
  readonly verdict: RolloutVerdict;
  readonly revisions?: readonly RevisionEntry[];
  readonly context: DashboardContext;
  readonly paused?: PausedInfo;
  /** While paused: what the next step wave deletes. */
  readonly step?: StepPreview;
  readonly connection: Connection;
  /** Observed updated pods per minute. */
  readonly pace?: number;
  /** A feed problem to show in the status line. */
  readonly error?: string;
  /** Template diff of two revisions (the container passes a memoised one). Without it, no diff is shown. */
  readonly diff?: (from: RevisionEntry, to: RevisionEntry) => readonly string[];
}

export interface GaugeVm {
  readonly label: string;
  readonly used: number;
  /** Undefined when there is no such budget (OnDelete). */
  readonly max: number | undefined;
  readonly full: boolean;
}

export interface NodeRowVm {
  readonly name: string;
  readonly selected: boolean;
  readonly line: Line;
}

export interface NodePaneVm {
  readonly title: Line;
  readonly grid?: {readonly rows: readonly Line[]; readonly nodesPerCell: number};
  readonly legend?: Line;
  readonly header: Line;
  readonly rows: readonly NodeRowVm[];
  /** Nodes that pass the filter. */
  readonly total: number;
  /** Index (in the filtered list) of the first row shown. */
  readonly first: number;
  readonly selected?: string;
  /** Rows the list has room for (the component pads to it). */
  readonly listRows: number;
  readonly width: number;
  readonly height: number;
}

export interface TextPaneVm {
  readonly title: Line;
  readonly lines: readonly Line[];
  readonly width: number;
  readonly height: number;
}

export interface RevisionPaneVm extends TextPaneVm {
  readonly focused: boolean;
  /** The diff shown: from and to revision numbers. */
  readonly diff?: {readonly from: Revision; readonly to: Revision; readonly lineCount: number};
}

export interface DashboardViewModel {
  readonly level: CompactionLevel;
  readonly columns: number;
  readonly height: number;
  readonly bodyHeight: number;
  readonly split: boolean;
  readonly takeover: DashboardLayout['takeover'];
  readonly header: {readonly lines: readonly Line[]; readonly paused: boolean; readonly connection: Connection};
  readonly gauges: {readonly items: readonly GaugeVm[]; readonly eta: string; readonly lines: readonly Line[]};
  /** The gates panel: each gate's reading for the stage under way (a gated rollout that has written them). */
  readonly gates?: {readonly lines: readonly Line[]};
  readonly nodes?: NodePaneVm;
  readonly detail?: TextPaneVm & {readonly node?: string};
  readonly revisions?: RevisionPaneVm;
  readonly help?: TextPaneVm;
  readonly status: Line;
  readonly footer: Line;
  /** What the container needs to complete key actions. */
  readonly nav: {
    readonly nodes: number;
    readonly revisions: number;
    readonly page: number;
    /** Revision numbers in the pane's order: a key that moved the cursor since this frame still finds its row. */
    readonly revisionOrder: readonly Revision[];
  };
}

export function toDashboardViewModel(input: DashboardInput, ui: DashboardState, size: TerminalSize, now: number): DashboardViewModel {
  const {plan} = input;
  const revisions = revisionEntries(input);
  const layout = computeLayout(size, {
    nodeCount: plan.nodes.length,
    revisionCount: revisions.length,
    showDiff: ui.showDiff || ui.confirm?.action === 'undo',
    expanded: ui.expanded,
    help: ui.mode === 'help',
    gateLines: gatesPanelLines(plan.gated, Number.POSITIVE_INFINITY).length,
  });

  const filtered = ui.filter.trim() === '' ? plan.nodes : plan.nodes.filter((node) => nodeMatchesFilter(node, ui.filter, plan));
  const cursor = Math.max(0, Math.min(ui.cursor, filtered.length - 1));
  const selectedNode = filtered[cursor];

  const header = headerLines(input, revisions, layout);
  const gauges = gaugeLines(input, layout);
  const revisionCursor = Math.max(0, Math.min(ui.revisionCursor, revisions.length - 1));
  const ordered = [...revisions].sort((a, b) => compareRevisions(b.revision, a.revision));

  const vm: DashboardViewModel = {
    level: layout.level,
    columns: layout.columns,
    height: layout.height,
    bodyHeight: layout.bodyHeight,
    split: layout.split,
    takeover: layout.takeover,
    header: {lines: header, paused: input.paused !== undefined, connection: input.connection},
    gauges,
    ...(layout.gateLines > 0 ? {gates: {lines: gatesPanelLines(plan.gated, layout.columns).slice(0, layout.gateLines)}} : {}),
    ...(layout.nodes.height > 0 ? {nodes: nodePane(plan, filtered, cursor, selectedNode, ui, layout)} : {}),
    ...(layout.detail ? {detail: detailPane(input, revisions, selectedNode, layout.detail.width, layout.detail.height, layout.takeover === 'detail')} : {}),
    ...(layout.revisions ? {revisions: revisionPane(input, ordered, ui, revisionCursor, layout, now)} : {}),
    ...(layout.takeover === 'help' ? {help: helpPane(layout.columns, layout.bodyHeight, ui.readonly)} : {}),
    status: fitStatus(statusLine(input, ui, revisions, filtered.length), layout.columns),
    footer: footerLine(ui, layout.columns),
    nav: {
      nodes: filtered.length,
      revisions: ordered.length,
      page: Math.max(1, layout.listRows - 1),
      revisionOrder: ordered.map((entry) => entry.revision),
    },
  };
  return vm;
}

// ----------------------------------------------------------------------------------------------------------------
// Gates

const VERDICT_MARKS = {pass: ['ok', 'pass'], fail: ['error', 'FAIL'], inconclusive: ['warn', '??'], pending: ['muted', '...']} as const;

/**
 * The gates panel of a gated rollout: a title naming the stage, then one line per gate (its verdict, name, value
 * and bound), cut to `columns`. Empty without readings (no gated rollout, or none judged yet).
 */
export function gatesPanelLines(gated: GatedProgress | undefined, columns: number): Line[] {
  const readings = gated?.readings ?? [];
  if (!gated || readings.length === 0) return [];
  const nameWidth = Math.max(...readings.map((r) => width(r.name)));
  const fitTo = (line: Line) => (Number.isFinite(columns) ? fitLine(line, columns) : line);
  return [
    fitTo([seg(`Gates of stage ${gated.stage}/${gated.stages} ${gated.name}`, 'title')]),
    ...readings.map((reading) => {
      const [token, mark] = VERDICT_MARKS[reading.verdict];
      return fitTo([
        seg(`  ${mark.padEnd(4)} `, token),
        seg(`${reading.name.padEnd(nameWidth)}  `, 'text'),
        seg(reading.value, reading.verdict === 'fail' ? 'error' : 'text'),
        seg(`  (bound ${reading.bound})`, 'muted'),
      ]);
    }),
  ];
}

// ----------------------------------------------------------------------------------------------------------------
// Revisions

/** The feed's revisions, or (without them) the two the plan names, so the header and the pane still say something. */
function revisionEntries(input: DashboardInput): readonly RevisionEntry[] {
  if (input.revisions && input.revisions.length > 0) return input.revisions;
  const {current, update} = input.plan.revisions;
  const entries: RevisionEntry[] = [{revision: update.revision, hash: update.hash, name: update.name ?? `(${update.hash})`}];
  if (current.revision !== update.revision) entries.push({revision: current.revision, hash: current.hash, name: current.name ?? `(${current.hash})`});
  return entries;
}

function findRevision(revisions: readonly RevisionEntry[], revision: Revision): RevisionEntry | undefined {
  return revisions.find((r) => r.revision === revision);
}

function revisionLabel(revisions: readonly RevisionEntry[], ref: {revision: Revision; hash: string}): string {
  const images = compactImages(findRevision(revisions, ref.revision)?.template);
  return images ? `${ref.revision} (${images})` : `${ref.revision} (${ref.hash})`;
}

/** The revision `kubectl rollout undo` goes back to: the newest one older than the update revision. */
export function previousRevision(plan: RolloutPlan, revisions: readonly RevisionEntry[]): Revision | undefined {
  const older = revisions.filter((r) => r.revision < plan.revisions.update.revision).map((r) => r.revision);
  return older.length > 0 ? older.reduce(higherRevision) : undefined;
}

export interface DiffChoice {
  readonly from: Revision;
  readonly to: Revision;
  readonly why: string;
}

/**
 * Which two revisions the diff pane compares: the undo being confirmed (update -> target), two marked revisions,
 * one marked against the update revision, or by default current -> update (the previous one when they are equal).
 */
export function chooseRevisionDiff(plan: RolloutPlan, revisions: readonly RevisionEntry[], ui: DashboardState): DiffChoice | undefined {
  const update = plan.revisions.update.revision;
  if (ui.confirm?.action === 'undo') {
    const target = ui.confirm.toRevision ?? previousRevision(plan, revisions);
    return target === undefined ? undefined : {from: update, to: target, why: 'undo would apply'};
  }
  if (ui.marked.length === 2) {
    const [a, b] = [...ui.marked].sort(compareRevisions) as [Revision, Revision];
    return {from: a, to: b, why: 'marked'};
  }
  if (ui.marked.length === 1) return {from: ui.marked[0]!, to: update, why: 'marked -> update'};
  const current = plan.revisions.current.revision;
  if (current !== update) return {from: current, to: update, why: 'current -> update'};
  const previous = previousRevision(plan, revisions);
  return previous === undefined ? undefined : {from: previous, to: update, why: 'previous -> current'};
}

// ----------------------------------------------------------------------------------------------------------------
// Header and gauges

/** The core's verdict, as `ds-rollout status` gives it. */
function verdictOf(input: DashboardInput): RolloutVerdict['verdict'] {
  return input.verdict.verdict;
}

function progressOf(input: DashboardInput): Segment {
  const verdict = verdictOf(input);
  if (verdict === 'complete') return seg('rollout complete', 'ok');
  if (input.paused) return seg('rollout paused', 'warn');
  if (verdict === 'progressing') return seg('rollout in progress', 'accent');
  return input.plan.strategy.type === 'OnDelete' ? seg('waiting for pods to be deleted (OnDelete)', 'warn') : seg('rollout stuck', 'error');
}

function headerLines(input: DashboardInput, revisions: readonly RevisionEntry[], layout: DashboardLayout): Line[] {
  const {plan, context} = input;
  const sep = seg('  ', 'muted');
  const connection = input.connection === 'live' ? seg('● live', 'ok') : seg('◌ reconnecting…', 'warn');
  const {current, update} = plan.revisions;
  const same = current.revision === update.revision && current.hash === update.hash;
  const revisionText = same
    ? `revision ${revisionLabel(revisions, update)}`
    : `revision ${revisionLabel(revisions, current)} → ${revisionLabel(revisions, update)}`;
  const steps = input.paused?.steps ? `, ${input.paused.steps} ${input.paused.steps === 1 ? 'wave' : 'waves'} stepped` : '';
  const pausedText = input.paused
    ? `PAUSED by ds-rollout${steps} (resume restores maxUnavailable ${input.paused.maxUnavailable}, maxSurge ${input.paused.maxSurge})`
    : '';
  // Most telling first: a narrow terminal cuts from the right.
  const first: Segment[] = [
    seg(`DaemonSet ${context.namespace}/${context.name}`, 'title'),
    sep,
    progressOf(input),
    sep,
    connection,
    sep,
    seg(plan.strategy.type, 'text'),
    sep,
    seg(`context ${context.kubeContext}`, 'muted'),
  ];
  if (layout.level === 'minimal') {
    return [fitLine([...first, ...(input.paused ? [sep, seg('PAUSED', 'warn')] : [])], layout.columns)];
  }
  const second: Segment[] = [seg(revisionText, 'text'), ...(update.exists ? [] : [seg(' (update revision not created yet)', 'muted')])];
  // A gated rollout's stage and bake countdown before the pause line: a narrow terminal cuts from the right.
  if (plan.gated) second.push(sep, seg(describeGatedProgress(plan.gated), plan.gated.failures.length > 0 ? 'error' : 'accent'));
  if (pausedText) second.push(sep, seg(pausedText, 'warn'));
  // The core's warning in full is in the plan; the header only flags it, where the pause would be shown.
  if (plan.warnings.some((w) => w.kind === 'unpaused'))
    second.push(sep, seg('UN-PAUSED by someone else: a stale pause record is left (p pauses again)', 'warn'));
  return [fitLine(first, layout.columns), fitLine(second, layout.columns)];
}

function bar(used: number, max: number, size: number): Segment[] {
  const ratio = max <= 0 ? (used > 0 ? 1 : 0) : Math.min(1, used / max);
  const filled = Math.round(ratio * size);
  return [seg('█'.repeat(filled), used >= max && max > 0 ? 'gauge-full' : 'gauge-used'), seg('░'.repeat(size - filled), 'gauge-free')];
}

/** `ETA ~4m at 3.0 nodes/min` (the pace observed), `ETA ~4m planned` (before any), or why there is none. */
export function etaText(
  plan: RolloutPlan,
  paused: boolean,
  pace: number | undefined,
  verdict: RolloutVerdict['verdict'],
): {text: string; token: Segment['token']} {
  if (verdict === 'complete') return {text: 'done', token: 'ok'};
  if (paused) return {text: 'ETA — paused', token: 'warn'};
  if (plan.strategy.type === 'OnDelete') return {text: 'ETA — OnDelete', token: 'muted'};
  const remaining = Math.max(0, plan.status.desiredNumberScheduled - plan.status.updatedNumberScheduled);
  if (verdict === 'stuck') return {text: 'ETA — stuck', token: 'error'};
  if (pace === undefined || pace <= 0) {
    // Until the pace shows, the plan's own estimate (its wave times rest on the pod starts the cluster showed).
    const planned = plan.timing?.etaSeconds;
    if (planned !== undefined) return {text: `ETA ~${formatDuration(planned)} planned`, token: 'muted'};
    return {text: 'ETA — no progress observed yet', token: 'muted'};
  }
  const rate = pace >= 10 ? pace.toFixed(0) : pace.toFixed(1);
  return {text: `ETA ~${formatDuration((remaining / pace) * 60)} at ${rate} nodes/min`, token: 'text'};
}

function gaugeLines(input: DashboardInput, layout: DashboardLayout): DashboardViewModel['gauges'] {
  const {plan} = input;
  // The core's count of who uses each budget: the recorded budget while paused; no limit for plain OnDelete.
  const {maxUnavailable, maxSurge} = plan.budget;
  const limited = plan.strategy.type === 'RollingUpdate' || input.paused !== undefined;
  const items: GaugeVm[] = [
    {
      label: 'unavailable',
      used: maxUnavailable.used,
      max: limited ? maxUnavailable.limit : undefined,
      full: limited && maxUnavailable.used >= maxUnavailable.limit,
    },
    {label: 'surge', used: maxSurge.used, max: limited ? maxSurge.limit : undefined, full: limited && maxSurge.limit > 0 && maxSurge.used >= maxSurge.limit},
    {label: 'updated', used: plan.status.updatedNumberScheduled, max: plan.status.desiredNumberScheduled, full: plan.complete},
  ];
  const eta = etaText(plan, input.paused !== undefined, input.pace, verdictOf(input));
  const full = layout.level === 'full';
  const barSize = full ? Math.min(20, Math.max(8, Math.floor((layout.columns - 90) / 3))) : layout.level === 'compact' ? 5 : 0;
  const gap = full ? '   ' : '  ';
  const line: Segment[] = [];
  for (const gauge of items) {
    if (line.length > 0) line.push(seg(gap, 'muted'));
    line.push(seg(`${full || gauge.label !== 'unavailable' ? gauge.label : 'unavail'} `, 'muted'));
    if (gauge.max === undefined) {
      line.push(seg(`${formatCount(gauge.used)} (no budget)`, 'muted'));
      continue;
    }
    if (barSize > 0) line.push(...bar(gauge.used, gauge.max, barSize), seg(' ', 'text'));
    const percent = gauge.label === 'updated' && gauge.max > 0 && full ? ` (${Math.floor((gauge.used / gauge.max) * 100)}%)` : '';
    line.push(
      seg(
        `${formatCount(gauge.used)}/${formatCount(gauge.max)}${percent}`,
        gauge.full && gauge.label !== 'updated' ? 'gauge-full' : gauge.full ? 'ok' : 'text',
      ),
    );
  }
  line.push(seg(gap, 'muted'), seg(eta.text, eta.token));
  const lines: Line[] = [fitLine(line, layout.columns)];
  if (layout.gaugeLines > 1) lines.push(fitLine(outlookLine(plan, input.verdict), layout.columns));
  return {items, eta: eta.text, lines};
}

function names(list: readonly string[], max: number): string {
  const shown = list.slice(0, max).join(', ');
  return list.length > max ? `${shown} +${formatCount(list.length - max)}` : shown;
}

/** The second gauge line: what the next sync does, how many waves remain, and the first thing that blocks. */
function outlookLine(plan: RolloutPlan, verdict: RolloutVerdict | undefined): Line {
  if (plan.complete) return [seg(`Every node runs revision ${plan.revisions.update.revision}.`, 'ok')];
  const {create, delete: deletions} = plan.nextSync;
  const parts: Segment[] = [];
  if (create.length + deletions.length === 0) {
    parts.push(seg('Next sync: nothing to do', 'muted'));
  } else {
    const touched = [...new Set([...deletions.map((d) => d.node), ...create.map((c) => c.node)])].sort();
    const verbs = [
      deletions.length > 0 ? `delete ${formatCount(deletions.length)}` : '',
      create.length > 0 ? `create ${formatCount(create.length)}` : '',
    ].filter(Boolean);
    parts.push(seg(`Next sync: ${verbs.join(', ')} on ${names(touched, 4)}`, 'text'));
  }
  if (plan.waves.length > 0) parts.push(seg(`  ·  ${formatCount(plan.waves.length)} ${plan.waves.length === 1 ? 'wave' : 'waves'} to go`, 'muted'));
  if (verdict?.verdict === 'progressing' && plan.blockers.length > 0) {
    // Something the plan cannot move is still in flight (a pod starting): say that, not "blocked".
    parts.push(seg('  ·  ', 'muted'), seg(verdict.detail, 'warn'));
  } else if (plan.blockers.length > 0) {
    const more = plan.blockers.length > 1 ? ` (+${plan.blockers.length - 1} more)` : '';
    parts.push(seg('  ·  ', 'muted'), seg(`✖ ${plan.blockers[0]!.message}${more}`, 'error'));
  } else if (plan.warnings.length > 0) {
    parts.push(seg('  ·  ', 'muted'), seg(`! ${formatCount(plan.warnings.length)} ${plan.warnings.length === 1 ? 'warning' : 'warnings'}`, 'warn'));
  }
  return parts;
}

// ----------------------------------------------------------------------------------------------------------------
// Nodes

function countTokens(nodes: readonly NodePlan[], plan: Pick<RolloutPlan, 'nextSync'>): {counts: Map<NodeToken, number>; next: number} {
  const counts = new Map<NodeToken, number>();
  let next = 0;
  for (const node of nodes) {
    const token = nodeToken(node);
    counts.set(token, (counts.get(token) ?? 0) + 1);
    if (isNextWave(node, plan)) next++;
  }
  return {counts, next};
}

function legendLine(nodes: readonly NodePlan[], plan: Pick<RolloutPlan, 'nextSync'>, width_: number): Line {
  const {counts, next} = countTokens(nodes, plan);
  const parts: Segment[] = [];
  for (const token of NODE_TOKENS) {
    const count = counts.get(token) ?? 0;
    if (count === 0) continue;
    if (parts.length > 0) parts.push(seg('  ', 'muted'));
    parts.push(seg(NODE_GLYPHS[token], token), seg(` ${NODE_LABELS[token]} ${formatCount(count)}`, 'text'));
  }
  if (next > 0) parts.push(seg('  ', 'muted'), seg(NEXT_WAVE_GLYPH, 'accent'), seg(` next wave ${formatCount(next)}`, 'text'));
  return fitLine(parts, width_);
}

/** One cell per node (or per group of nodes in a large cluster), in list order; the selected node's cell inverted. */
function gridRows(
  nodes: readonly NodePlan[],
  plan: Pick<RolloutPlan, 'nextSync'>,
  selectedIndex: number,
  columns: number,
  rows: number,
  perCell: number,
): Line[] {
  const out: Line[] = [];
  const cells = Math.ceil(nodes.length / perCell);
  const selectedCell = selectedIndex < 0 ? -1 : Math.floor(selectedIndex / perCell);
  for (let row = 0; row < rows; row++) {
    const line: Segment[] = [];
    for (let col = 0; col < columns; col++) {
      const cell = row * columns + col;
      if (cell >= cells) break;
      let best: NodeToken = 'not-eligible';
      let next = false;
      for (let i = cell * perCell; i < Math.min(nodes.length, (cell + 1) * perCell); i++) {
        const node = nodes[i]!;
        const token = nodeToken(node);
        if (TOKEN_PRIORITY[token] > TOKEN_PRIORITY[best]) best = token;
        if (isNextWave(node, plan)) next = true;
      }
      const glyph = next ? NEXT_WAVE_GLYPH : NODE_GLYPHS[best];
      line.push(seg(glyph, cell === selectedCell ? 'selected' : best));
    }
    out.push(mergeSegments(line));
  }
  return out;
}

interface Columns {
  readonly name: number;
  readonly pod: number;
  readonly showPod: boolean;
  readonly showHash: boolean;
  readonly showReady: boolean;
}

const STATE_WIDTH = 12;
const WAVE_WIDTH = 5;
const HASH_WIDTH = 10;
const READY_WIDTH = 7;
const MIN_REASON = 16;

function chooseColumns(rows: readonly NodePlan[], paneWidth: number): Columns {
  const name = Math.min(28, Math.max(4, ...rows.map((n) => width(n.name))));
  const pod = Math.min(24, Math.max(3, ...rows.map((n) => width(podCell(n)))));
  const base = 4 + name + 1 + STATE_WIDTH + 1 + WAVE_WIDTH + 1;
  let showPod = true;
  let showHash = true;
  let showReady = true;
  const used = () => base + (showPod ? pod + 1 : 0) + (showHash ? HASH_WIDTH + 1 : 0) + (showReady ? READY_WIDTH + 1 : 0);
  // Drop the least telling columns first until the reason has room.
  if (used() + MIN_REASON > paneWidth) showHash = false;
  if (used() + MIN_REASON > paneWidth) showReady = false;
  if (used() + MIN_REASON > paneWidth) showPod = false;
  return {name, pod, showPod, showHash, showReady};
}

function podCell(node: NodePlan): string {
  const first = node.pods[0];
  if (!first) return '-';
  return node.pods.length > 1 ? `${first.name} +${node.pods.length - 1}` : first.name;
}

function waveCell(node: NodePlan, next: boolean): string {
  if (node.wave === undefined) return '-';
  return next ? 'next' : String(node.wave);
}

function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}

function remarkOf(node: NodePlan): {text: string; token: Segment['token']} {
  if (node.blocker) return {text: node.blocker, token: 'error'};
  if (node.warning) return {text: node.warning, token: 'warn'};
  const problem = node.pods.find((p) => p.problem)?.problem;
  if (problem) return {text: problem, token: 'warn'};
  return {text: node.shouldRun ? '' : node.reason, token: 'muted'};
}

function nodeRow(node: NodePlan, plan: Pick<RolloutPlan, 'nextSync'>, columns: Columns, paneWidth: number, selected: boolean): Line {
  const token = nodeToken(node);
  const next = isNextWave(node, plan);
  const pod = node.pods[0];
  const parts: Segment[] = [
    seg(selected ? '› ' : '  ', selected ? 'accent' : 'text'),
    seg(next ? NEXT_WAVE_GLYPH : NODE_GLYPHS[token], token),
    seg(' ', 'text'),
    seg(fit(node.name, columns.name), 'text'),
    seg(' ', 'text'),
    seg(fit(NODE_LABELS[token], STATE_WIDTH), token),
    seg(' ', 'text'),
    seg(fit(waveCell(node, next), WAVE_WIDTH), next ? 'accent' : 'muted'),
    seg(' ', 'text'),
  ];
  if (columns.showPod) parts.push(seg(fit(podCell(node), columns.pod), 'text'), seg(' ', 'text'));
  if (columns.showHash) parts.push(seg(fit(pod?.hash ?? '', HASH_WIDTH), pod?.updated ? 'updated' : 'old'), seg(' ', 'text'));
  if (columns.showReady) {
    const ready = pod ? `${yesNo(pod.ready)}/${yesNo(pod.available)}` : '';
    parts.push(seg(fit(ready, READY_WIDTH), pod && !pod.available ? 'warn' : 'text'), seg(' ', 'text'));
  }
  const remark = remarkOf(node);
  parts.push(seg(remark.text, remark.token));
  return fitLine(mergeSegments(parts), paneWidth);
}

function listHeader(columns: Columns, paneWidth: number): Line {
  let text = `    ${fit('NODE', columns.name)} ${fit('STATE', STATE_WIDTH)} ${fit('WAVE', WAVE_WIDTH)} `;
  if (columns.showPod) text += `${fit('POD', columns.pod)} `;
  if (columns.showHash) text += `${fit('HASH', HASH_WIDTH)} `;
  if (columns.showReady) text += `${fit('RDY/AV', READY_WIDTH)} `;
  text += 'REASON';
  return [seg(truncate(text, paneWidth), 'muted')];
}

function nodePane(
  plan: RolloutPlan,
  filtered: readonly NodePlan[],
  cursor: number,
  selected: NodePlan | undefined,
  ui: DashboardState,
  layout: DashboardLayout,
): NodePaneVm {
  const paneWidth = layout.nodes.width;
  const listRows = layout.listRows;
  // Keep the cursor in the middle of the window where the list allows it (no scroll state to keep).
  const first = Math.max(0, Math.min(cursor - Math.floor(listRows / 2), filtered.length - listRows));
  const windowNodes = filtered.slice(first, first + listRows);
  const columns = chooseColumns(windowNodes, paneWidth);
  const filterText =
    ui.filter !== '' || ui.mode === 'filter' ? `  filter "${ui.filter}": ${formatCount(filtered.length)} of ${formatCount(plan.nodes.length)}` : '';
  const title: Segment[] = [seg(`Nodes ${formatCount(plan.nodes.length)}`, ui.focus === 'nodes' ? 'title' : 'muted'), seg(filterText, 'accent')];
  if (layout.grid && layout.grid.nodesPerCell > 1) title.push(seg(`  (grid: 1 cell = ${layout.grid.nodesPerCell} nodes)`, 'muted'));
  const selectedIndex = selected ? plan.nodes.indexOf(selected) : -1;
  return {
    title: fitLine(title, paneWidth),
    ...(layout.grid
      ? {
          grid: {
            rows: gridRows(plan.nodes, plan, selectedIndex, layout.grid.width, layout.grid.height, layout.grid.nodesPerCell),
            nodesPerCell: layout.grid.nodesPerCell,
          },
        }
      : {}),
    ...(layout.legendLines > 0 ? {legend: legendLine(plan.nodes, plan, paneWidth)} : {}),
    header: listHeader(columns, paneWidth),
    rows: windowNodes.map((node) => ({name: node.name, selected: node === selected, line: nodeRow(node, plan, columns, paneWidth, node === selected)})),
    total: filtered.length,
    first,
    ...(selected ? {selected: selected.name} : {}),
    listRows,
    width: paneWidth,
    height: layout.nodes.height,
  };
}

// ----------------------------------------------------------------------------------------------------------------
// Detail

function detailPane(
  input: DashboardInput,
  revisions: readonly RevisionEntry[],
  node: NodePlan | undefined,
  paneWidth: number,
  height: number,
  expanded: boolean,
): TextPaneVm & {node?: string} {
  if (!node) {
    return {title: [seg('Node', 'muted')], lines: [[seg('No node matches the filter.', 'muted')]], width: paneWidth, height};
  }
  const {plan} = input;
  const token = nodeToken(node);
  const wave = node.wave === undefined ? 'no wave' : node.wave === 1 ? 'next wave' : `wave ${node.wave}`;
  const title: Line = [
    seg(node.name, 'title'),
    seg('  ', 'muted'),
    seg(`${NODE_GLYPHS[token]} ${NODE_MEANINGS[token]}`, token),
    seg(`  ·  ${wave}`, node.wave === 1 ? 'accent' : 'muted'),
  ];
  const lines: Segment[][] = [];
  const eligibility = node.shouldRun
    ? 'eligible: runs the daemon'
    : node.pods.length === 0
      ? `not eligible: ${node.reason}`
      : node.shouldContinueRunning
        ? `keeps its pod but gets no new one: ${node.reason}`
        : `not eligible, its pod goes: ${node.reason}`;
  lines.push([seg(eligibility, node.shouldRun ? 'muted' : 'warn')]);
  const blocks = [
    ...new Set([node.blocker, ...plan.blockers.filter((b) => b.nodes?.includes(node.name)).map((b) => b.message)].filter((m): m is string => !!m)),
  ];
  for (const message of blocks) lines.push([seg('✖ blocks: ', 'error'), seg(message, 'error')]);
  const warnings = [
    ...new Set([node.warning, ...plan.warnings.filter((w) => w.nodes?.includes(node.name)).map((w) => w.message)].filter((m): m is string => !!m)),
  ];
  for (const message of warnings) lines.push([seg('! ', 'warn'), seg(message, 'warn')]);
  const deletions = plan.nextSync.delete.filter((d) => d.node === node.name);
  const creates = plan.nextSync.create.filter((c) => c.node === node.name);
  if (deletions.length + creates.length > 0) {
    const what = [...deletions.map((d) => `delete ${d.pod} (${d.reason})`), ...(creates.length > 0 ? ['create a pod'] : [])].join(', ');
    lines.push([seg('next sync: ', 'accent'), seg(what, 'text')]);
  }
  if (node.pods.length === 0) lines.push([seg('no daemon pod', 'muted')]);
  const byHash = new Map(revisions.map((r) => [r.hash, r.revision]));
  for (const pod of node.pods) {
    const revision = byHash.get(pod.hash);
    const extra = [pod.phase, pod.terminating ? 'terminating' : '', pod.problem ?? ''].filter(Boolean).join(' ');
    lines.push([
      seg(pod.updated ? NODE_GLYPHS.updated : NODE_GLYPHS.old, pod.updated ? 'updated' : 'old'),
      seg(` ${pod.name}`, 'text'),
      seg(`  ${revision === undefined ? '' : `rev ${revision} `}${pod.hash}${pod.updated ? ' (update)' : ''}`, pod.updated ? 'updated' : 'old'),
      seg(`  ready ${yesNo(pod.ready)}`, pod.ready ? 'text' : 'warn'),
      seg(`  available ${yesNo(pod.available)}`, pod.available ? 'text' : 'warn'),
      seg(`  ${extra}`, pod.problem || pod.terminating ? 'warn' : 'muted'),
    ]);
  }
  if (expanded && node.reason && node.shouldRun) lines.push([seg(`note: ${node.reason}`, 'muted')]);
  const room = Math.max(0, height - 1);
  // Wrapped, not cut: why a node blocks is the point of this pane.
  const fitted = lines.flatMap((line) => wrapLine(line, paneWidth));
  const shown =
    fitted.length > room ? [...fitted.slice(0, Math.max(0, room - 1)), [seg(`… ${fitted.length - room + 1} more (enter: full screen)`, 'muted')]] : fitted;
  return {title: fitLine(title, paneWidth), lines: shown, width: paneWidth, height, node: node.name};
}

// ----------------------------------------------------------------------------------------------------------------
// Revisions pane

function age(createdAt: string | undefined, now: number): string {
  if (!createdAt) return '';
  const at = Date.parse(createdAt);
  return Number.isNaN(at) ? '' : formatDuration((now - at) / 1000);
}

function revisionPane(
  input: DashboardInput,
  ordered: readonly RevisionEntry[],
  ui: DashboardState,
  cursor: number,
  layout: DashboardLayout,
  now: number,
): RevisionPaneVm {
  const box = layout.revisions!;
  const {plan} = input;
  const focused = ui.focus === 'revisions';
  const title: Line = fitLine(
    [
      seg(`Revisions ${ordered.length}`, focused ? 'title' : 'muted'),
      seg(focused ? '  ↑↓ move · enter mark two to diff · u undo to this one · esc back' : '  tab to choose', 'muted'),
    ],
    box.width,
  );
  const lines: Line[] = [];
  const historyRows = Math.min(layout.historyRows, box.height - 1);
  const first = Math.max(0, Math.min(cursor - Math.floor(historyRows / 2), ordered.length - historyRows));
  for (const entry of ordered.slice(first, first + historyRows)) {
    const roles = [
      entry.revision === plan.revisions.current.revision ? 'current' : '',
      entry.revision === plan.revisions.update.revision ? 'update' : '',
    ].filter(Boolean);
    const role = roles.length === 2 ? 'current=update' : (roles[0] ?? '');
    const atCursor = focused && ordered[cursor] === entry;
    const marked = ui.marked.includes(entry.revision);
    const images = compactImages(entry.template) || entry.hash;
    const line: Segment[] = [
      seg(atCursor ? '›' : ' ', 'accent'),
      seg(marked ? '*' : ' ', 'accent'),
      seg(` ${fit(String(entry.revision), 4)}`, 'text'),
      seg(fit(role, 15), role === 'update' || role === 'current=update' ? 'updated' : role === 'current' ? 'old' : 'muted'),
      seg(fit(entry.hash, 11), 'muted'),
      seg(fit(age(entry.createdAt, now), 7), 'muted'),
      seg(images, 'text'),
      seg(entry.changeCause ? `  ${entry.changeCause}` : '', 'muted'),
    ];
    lines.push(fitLine(atCursor ? line.map((s) => ({...s, token: 'selected' as const})) : line, box.width));
  }
  const showDiff = ui.showDiff || ui.confirm?.action === 'undo';
  let diffInfo: RevisionPaneVm['diff'];
  if (showDiff) {
    const room = box.height - 1 - lines.length - 1;
    const choice = chooseRevisionDiff(plan, ordered, ui);
    const preview = ui.confirm?.action === 'undo' ? ui.confirm.preview : undefined;
    if (!choice) {
      lines.push([seg('No other revision to compare with.', 'muted')]);
    } else {
      const from = findRevision(ordered, choice.from);
      const to = findRevision(ordered, choice.to);
      const diff = preview?.diff ?? (from && to && input.diff ? input.diff(from, to) : undefined);
      lines.push(fitLine([seg(`Diff revision ${choice.from} → ${choice.to}`, 'title'), seg(` (${choice.why})`, 'muted')], box.width));
      if (diff === undefined) {
        lines.push([
          seg(from && to ? "The revisions' templates are not available." : `Revision ${from ? choice.to : choice.from} is not in the history.`, 'muted'),
        ]);
      } else if (diff.length === 0) {
        lines.push([seg('The templates are identical.', 'muted')]);
      } else {
        // Short of room, the changed lines matter more than their context.
        const dense = diff.length > room ? diff.filter((text) => !text.startsWith(' ')) : diff;
        const shown = dense.length > room ? dense.slice(0, Math.max(0, room - 1)) : dense;
        for (const text of shown) lines.push(fitLine([seg(text, diffToken(text))], box.width));
        if (dense.length > shown.length && room > 0) lines.push([seg(`… ${dense.length - shown.length} more lines (d hides, esc clears marks)`, 'muted')]);
      }
      diffInfo = {from: choice.from, to: choice.to, lineCount: diff?.length ?? 0};
    }
  }
  return {title, lines: lines.slice(0, Math.max(0, box.height - 1)), width: box.width, height: box.height, focused, ...(diffInfo ? {diff: diffInfo} : {})};
}

function diffToken(line: string): Segment['token'] {
  if (line === 'images:' || line === 'template:') return 'title';
  if (line.startsWith('@@')) return 'diff-hunk';
  if (line.startsWith('+')) return 'diff-add';
  if (line.startsWith('-')) return 'diff-remove';
  return 'muted';
}

// ----------------------------------------------------------------------------------------------------------------
// Status line, footer, help

function clock(at: number): string {
  const d = new Date(at);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

function confirmPrompt(input: DashboardInput, ui: DashboardState, revisions: readonly RevisionEntry[]): Line {
  const confirm = ui.confirm!;
  const {plan, context} = input;
  const ds = `${context.namespace}/${context.name}${context.server === undefined ? '' : ` on context ${context.kubeContext} (${context.server})`}`;
  const yn = seg('  [y/n]', 'key');
  switch (confirm.action) {
    case 'step': {
      if (input.step) {
        const {deletions, blocked} = input.step;
        const listed = deletions.slice(0, 3).map((d) => `${d.pod} on ${d.node}`);
        const more = deletions.length > listed.length ? ` and ${formatCount(deletions.length - listed.length)} more` : '';
        const what = deletions.length === 0 ? `nothing to delete now: ${blocked ?? 'no old pod can go'}` : `deletes ${listed.join(', ')}${more}`;
        return [seg(`Step one wave of ${ds}? (${what})`, 'warn'), yn];
      }
      const n = plan.nextSync.delete.length + plan.nextSync.create.length;
      const what =
        n === 0 ? 'the next sync has nothing to do' : `the next sync deletes ${plan.nextSync.delete.length} and creates ${plan.nextSync.create.length} pods`;
      return [seg(`Step one wave of ${ds}? (${what})`, 'warn'), yn];
    }
    case 'pause':
      return [seg(`Pause the rollout of ${ds}? (no more old pods are replaced until resume)`, 'warn'), yn];
    case 'resume':
      return [seg(`Resume the rollout of ${ds}?`, 'warn'), yn];
    case 'promote':
      return [
        seg(
          `Promote the gated rollout of ${ds}? (${plan.gated ? `after stage ${plan.gated.stage}/${plan.gated.stages} ${plan.gated.name}: ` : ''}the rest of its stages)`,
          'warn',
        ),
        yn,
      ];
    case 'abort':
      return [seg(`Abort the gated rollout of ${ds}? (the previous template; the nodes on the new one stepped back)`, 'warn'), yn];
    case 'undo': {
      if (ui.running?.preview) return [seg('Undo: working out what would change…', 'muted')];
      const target = confirm.toRevision ?? previousRevision(plan, revisions);
      const images = target === undefined ? '' : compactImages(findRevision(revisions, target)?.template);
      const label = target === undefined ? 'the previous revision' : `revision ${target}${images ? ` (${images})` : ''}`;
      const said = confirm.preview?.message ? ` ${confirm.preview.message}` : ' The diff pane shows the change.';
      return [seg(`Undo ${ds} to ${label}?${said}`, 'warn'), yn];
    }
  }
}

function statusLine(input: DashboardInput, ui: DashboardState, revisions: readonly RevisionEntry[], matching: number): Line {
  if (ui.mode === 'filter') {
    return [
      seg('/', 'key'),
      seg(ui.filter, 'text'),
      seg('▏', 'accent'),
      seg(`  ${formatCount(matching)} match · name, state (old, blocked, missing…), next, wave:N · enter keep · esc cancel`, 'muted'),
    ];
  }
  if (ui.mode === 'confirm' && ui.confirm) return confirmPrompt(input, ui, revisions);
  if (ui.status) {
    const token = ui.status.kind === 'error' ? 'error' : ui.status.kind === 'success' ? 'ok' : 'text';
    return [...(ui.status.at === undefined ? [] : [seg(`${clock(ui.status.at)} `, 'muted')]), seg(ui.status.text, token)];
  }
  if (input.error) return [seg(input.error, 'error')];
  if (input.connection === 'reconnecting') return [seg('Connection lost: re-listing and watching again…', 'warn')];
  return [seg('? for help', 'muted')];
}

/** Cuts the status line from the middle so that a prompt's `[y/n]` always shows. */
function fitStatus(line: Line, columns: number): Line {
  const last = line[line.length - 1];
  if (!last || last.token !== 'key' || lineWidth(line) <= columns) return fitLine(line, columns);
  return [...fitLine(line.slice(0, -1), columns - width(last.text)), last];
}

function footerLine(ui: DashboardState, columns: number): Line {
  // Long labels, then short ones with single keys, then keys alone: whatever fits the terminal.
  const forms: Array<(entry: (typeof KEY_HELP)[number]) => [string, string]> = [
    (entry) => [entry.keys, ` ${entry.label}`],
    (entry) => [entry.keys.split(' ')[0]!, ` ${entry.short}`],
    (entry) => [entry.keys.split(' ')[0]!, ''],
  ];
  let line: Segment[] = [];
  for (const form of forms) {
    line = [];
    for (const entry of KEY_HELP) {
      if (entry.helpOnly) continue;
      if (line.length > 0) line.push(seg(form === forms[2] ? ' ' : '  ', 'muted'));
      const [keys, label] = form(entry);
      line.push(seg(keys, entry.mutating === true && ui.readonly ? 'muted' : 'key'), seg(label, 'muted'));
    }
    if (ui.readonly) line.push(seg(form === forms[2] ? ' read-only' : '  read-only', 'warn'));
    if (lineWidth(line) <= columns) return line;
  }
  return fitLine(line, columns);
}

function helpPane(columns: number, height: number, readonly: boolean): TextPaneVm {
  const lines: Line[] = [];
  for (const entry of KEY_HELP) {
    const note = entry.mutating ? (readonly ? '  (disabled: --readonly)' : '  (asks y/n first)') : '';
    lines.push([seg(`  ${fit(entry.keys, 10)}`, 'key'), seg(entry.label, 'text'), seg(note, 'muted')]);
  }
  lines.push([seg('  pgup pgdn g G  page, first, last    esc  close, clear marks or filter', 'muted')]);
  lines.push([]);
  lines.push([seg('  Node states', 'title')]);
  for (const token of NODE_TOKENS)
    lines.push([seg(`  ${NODE_GLYPHS[token]} `, token), seg(fit(NODE_LABELS[token], 14), token), seg(NODE_MEANINGS[token], 'muted')]);
  lines.push([seg(`  ${NEXT_WAVE_GLYPH} `, 'accent'), seg(fit('next wave', 14), 'accent'), seg('the next controller sync changes this node', 'muted')]);
  lines.push([]);
  lines.push([seg('  Filter terms: part of a name, a state (old, blocked, missing…), next, wave:N; all terms must match.', 'muted')]);
  lines.push([seg("  ETA: from the pace observed since the dashboard started; before any, the plan's (marked planned).", 'muted')]);
  return {
    title: [seg('Help', 'title'), seg('  (? or esc to close)', 'muted')],
    lines: lines.slice(0, Math.max(0, height - 1)).map((l) => fitLine(l, columns)),
    width: columns,
    height,
  };
}
