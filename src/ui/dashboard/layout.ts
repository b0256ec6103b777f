// Screen arithmetic as pure functions of the terminal size, in the manner of oclif/multi-stage-output's
// determineCompactionLevel: the view model asks "how many lines does each pane get" and never measures a terminal.

export interface TerminalSize {
  readonly columns: number;
  readonly rows: number;
}

/** full: nodes left, detail and revisions right. compact: stacked panes. minimal: one pane at a time. */
export type CompactionLevel = 'full' | 'compact' | 'minimal';

export function determineCompactionLevel(rows: number, columns: number): CompactionLevel {
  if (rows >= 34 && columns >= 110) return 'full';
  if (rows >= 18 && columns >= 64) return 'compact';
  return 'minimal';
}

export interface PaneBox {
  readonly width: number;
  /** Lines including the pane's title line. */
  readonly height: number;
}

export interface GridBox extends PaneBox {
  /** How many nodes one cell stands for (1 unless the cluster is larger than the grid). */
  readonly nodesPerCell: number;
}

export interface DashboardLayout {
  readonly level: CompactionLevel;
  readonly columns: number;
  /** Lines drawn: one less than the terminal so that Ink updates in place instead of clearing the screen. */
  readonly height: number;
  readonly headerLines: number;
  readonly gaugeLines: number;
  /** The gates panel's lines (a gated rollout with readings; none on a minimal screen). */
  readonly gateLines: number;
  /** Lines between the gauges (and the gates panel) and the status line. */
  readonly bodyHeight: number;
  /** Side by side (full) or stacked. */
  readonly split: boolean;
  /** What the body shows instead of the node panes. */
  readonly takeover: 'none' | 'help' | 'detail' | 'revisions';
  /** The node pane: title, optional grid, legend, list header and rows. Zero height when taken over. */
  readonly nodes: PaneBox;
  readonly grid?: GridBox;
  readonly legendLines: number;
  readonly listRows: number;
  readonly detail?: PaneBox;
  readonly revisions?: PaneBox;
  /** Rows of revision history in the revision pane; the rest is the diff. */
  readonly historyRows: number;
}

export interface LayoutInput {
  readonly nodeCount: number;
  readonly revisionCount: number;
  readonly showDiff: boolean;
  readonly expanded: boolean;
  readonly help: boolean;
  /** Lines the gates panel would take (title and one per gate); 0: no panel. */
  readonly gateLines?: number;
}

const MIN_ROWS = 8;
/** The body keeps at least this many lines when the gates panel is shown. */
const MIN_BODY_FOR_GATES = 6;
const MIN_COLUMNS = 40;

export function computeLayout(size: TerminalSize, input: LayoutInput): DashboardLayout {
  const columns = Math.max(MIN_COLUMNS, Math.floor(size.columns));
  const rows = Math.max(MIN_ROWS, Math.floor(size.rows));
  const level = determineCompactionLevel(rows, columns);
  const height = rows - 1;
  const headerLines = level === 'minimal' ? 1 : 2;
  const gaugeLines = level === 'minimal' ? 1 : 2;
  const gateLines = level === 'minimal' ? 0 : Math.min(input.gateLines ?? 0, Math.max(0, height - headerLines - gaugeLines - 2 - MIN_BODY_FOR_GATES));
  const bodyHeight = Math.max(1, height - headerLines - gaugeLines - gateLines - 2);
  const base = {level, columns, height, headerLines, gaugeLines, gateLines, bodyHeight};
  const historyFor = (paneHeight: number) => Math.max(1, Math.min(input.revisionCount || 1, Math.floor((paneHeight - 1) / 3), 8));

  const takeover = input.help ? 'help' : input.expanded ? 'detail' : input.showDiff && level === 'minimal' ? 'revisions' : 'none';
  if (takeover !== 'none') {
    const whole = {width: columns, height: bodyHeight};
    return {
      ...base,
      split: false,
      takeover,
      nodes: {width: columns, height: 0},
      legendLines: 0,
      listRows: 0,
      ...(takeover === 'detail' ? {detail: whole} : {}),
      ...(takeover === 'revisions' ? {revisions: whole} : {}),
      historyRows: takeover === 'revisions' ? historyFor(bodyHeight) : 0,
    };
  }

  if (level === 'full') {
    const left = Math.round(columns * 0.55);
    const right = columns - left - 1;
    const nodes = nodePane(left, bodyHeight, input.nodeCount, 0.4);
    // The revision pane keeps its history short unless the diff is asked for.
    const revisionHeight = input.showDiff ? Math.floor(bodyHeight * 0.6) : Math.min(Math.max(3, (input.revisionCount || 1) + 2), Math.floor(bodyHeight / 3));
    const detailHeight = bodyHeight - revisionHeight;
    return {
      ...base,
      split: true,
      takeover,
      ...nodes,
      detail: {width: right, height: detailHeight},
      revisions: {width: right, height: revisionHeight},
      historyRows: input.showDiff ? historyFor(revisionHeight) : revisionHeight - 1,
    };
  }

  if (level === 'compact') {
    const lowerHeight = input.showDiff ? Math.floor(bodyHeight / 2) : Math.min(7, Math.floor(bodyHeight / 3));
    const nodes = nodePane(columns, bodyHeight - lowerHeight, input.nodeCount, 0.3);
    const lower = {width: columns, height: lowerHeight};
    return {
      ...base,
      split: false,
      takeover,
      ...nodes,
      ...(input.showDiff ? {revisions: lower} : {detail: lower}),
      historyRows: input.showDiff ? historyFor(lowerHeight) : 0,
    };
  }

  // minimal: the list alone, no grid and no legend.
  return {
    ...base,
    split: false,
    takeover,
    nodes: {width: columns, height: bodyHeight},
    legendLines: 0,
    listRows: Math.max(0, bodyHeight - 2),
    historyRows: 0,
  };
}

/** Title, grid (when the list cannot show every node), legend, list header, list rows. */
function nodePane(width: number, height: number, nodeCount: number, gridShare: number): Pick<DashboardLayout, 'nodes' | 'grid' | 'legendLines' | 'listRows'> {
  const legendLines = 1;
  const fixed = 1 + legendLines + 1; // title, legend, list header
  const listIfNoGrid = height - fixed;
  if (nodeCount <= listIfNoGrid || height - fixed < 4) {
    return {nodes: {width, height}, legendLines, listRows: Math.max(0, listIfNoGrid)};
  }
  const maxGridRows = Math.max(1, Math.floor(height * gridShare));
  const nodesPerCell = Math.max(1, Math.ceil(nodeCount / (maxGridRows * width)));
  const gridRows = Math.min(maxGridRows, Math.ceil(Math.ceil(nodeCount / nodesPerCell) / width));
  return {
    nodes: {width, height},
    grid: {width, height: gridRows, nodesPerCell},
    legendLines,
    listRows: Math.max(0, height - fixed - gridRows),
  };
}
