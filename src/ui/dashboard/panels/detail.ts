// The node detail pane: why the selected node is where it is (eligibility, blockers, warnings, its pods, what
// the next sync does to it).
import type {NodePlan} from '../../../core/index.js';
import type {RevisionEntry} from '../../../services/dashboard/feed.js';
import {NODE_GLYPHS, NODE_MEANINGS, nodeToken} from '../node-tokens.js';
import {fitLine, type Line, seg, type Segment, wrapLine} from '../text.js';
import type {DashboardInput, TextPaneVm} from './input.js';
import {yesNo} from './nodes.js';

/** The detail pane, naming the node it shows. */
export type DetailPaneVm = TextPaneVm & {readonly node?: string};

export function detailPane(
  input: DashboardInput,
  revisions: readonly RevisionEntry[],
  node: NodePlan | undefined,
  paneWidth: number,
  height: number,
  expanded: boolean,
): DetailPaneVm {
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
