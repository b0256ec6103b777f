// The gauges under the header: the budgets in use, the updated count, the ETA, and the outlook line below them.
import type {RolloutPlan} from '../../../core/index.js';
import {formatCount, formatDuration} from '../../../output/format.js';
import type {RolloutVerdict} from '../../../services/dashboard/feed.js';
import type {DashboardLayout} from '../layout.js';
import {fitLine, type Line, seg, type Segment} from '../text.js';
import {type DashboardInput, verdictOf} from './input.js';

export interface GaugeVm {
  readonly label: string;
  readonly used: number;
  /** Undefined when there is no such budget (OnDelete). */
  readonly max: number | undefined;
  readonly full: boolean;
}

export interface GaugesVm {
  readonly items: readonly GaugeVm[];
  readonly eta: string;
  readonly lines: readonly Line[];
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

export function gaugeLines(input: DashboardInput, layout: DashboardLayout): GaugesVm {
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
