// The nodes pane: its title, the grid of every node (a cell per node or per group), the legend, and the list
// window around the cursor.
import type {NodePlan, RolloutPlan} from '../../../core/index.js';
import {formatCount} from '../../../output/format.js';
import type {DashboardState} from '../dashboard-state.js';
import type {DashboardLayout} from '../layout.js';
import {isNextWave, NEXT_WAVE_GLYPH, NODE_GLYPHS, NODE_LABELS, NODE_TOKENS, type NodeToken, nodeToken, TOKEN_PRIORITY} from '../node-tokens.js';
import {fit, fitLine, type Line, mergeSegments, seg, type Segment, truncate, width} from '../text.js';

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

export function yesNo(value: boolean): string {
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

export function nodePane(
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
