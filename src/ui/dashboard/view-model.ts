// The dashboard's view model: everything the screen shows, computed from the plan, the revisions and the
// interaction state for a given terminal size. Pure and synchronous; the components only lay it out.
// Only what is visible is materialised (the list window, the grid rows), so a 5,000-node plan stays cheap
// to build and to compare.
// Each panel's part is in panels/ (the header, the gauges, the gates, the nodes, the detail, the revisions, the
// status line, the footer, the help); this module puts them together and is what the components import.
import {compareRevisions, type Revision} from '../../core/index.js';
import type {Connection} from '../../services/dashboard/feed.js';
import type {DashboardState} from './dashboard-state.js';
import {computeLayout, type CompactionLevel, type DashboardLayout, type TerminalSize} from './layout.js';
import {nodeMatchesFilter} from './node-tokens.js';
import {type DetailPaneVm, detailPane} from './panels/detail.js';
import {footerLine} from './panels/footer.js';
import {gatesPanelLines} from './panels/gates.js';
import {gaugeLines, type GaugesVm} from './panels/gauges.js';
import {headerLines} from './panels/header.js';
import {helpPane} from './panels/help.js';
import type {DashboardInput, TextPaneVm} from './panels/input.js';
import {type NodePaneVm, nodePane} from './panels/nodes.js';
import {revisionEntries, revisionPane, type RevisionPaneVm} from './panels/revisions.js';
import {fitStatus, statusLine} from './panels/status.js';
import type {Line} from './text.js';

export type {DetailPaneVm} from './panels/detail.js';
export {gatesPanelLines} from './panels/gates.js';
export {etaText, type GaugesVm, type GaugeVm} from './panels/gauges.js';
export type {DashboardContext, DashboardInput, TextPaneVm} from './panels/input.js';
export type {NodePaneVm, NodeRowVm} from './panels/nodes.js';
export {chooseRevisionDiff, type DiffChoice, previousRevision, type RevisionPaneVm} from './panels/revisions.js';

export interface DashboardViewModel {
  readonly level: CompactionLevel;
  readonly columns: number;
  readonly height: number;
  readonly bodyHeight: number;
  readonly split: boolean;
  readonly takeover: DashboardLayout['takeover'];
  readonly header: {readonly lines: readonly Line[]; readonly paused: boolean; readonly connection: Connection};
  readonly gauges: GaugesVm;
  /** The gates panel: each gate's reading for the stage under way (a gated rollout that has written them). */
  readonly gates?: {readonly lines: readonly Line[]};
  readonly nodes?: NodePaneVm;
  readonly detail?: DetailPaneVm;
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
