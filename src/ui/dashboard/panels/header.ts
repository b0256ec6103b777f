// The header: the DaemonSet, the rollout's progress, the connection, then its revisions, a gated stage and the pause.
import {describeGatedProgress} from '../../../output/gated-text.js';
import type {RevisionEntry} from '../../../services/dashboard/feed.js';
import type {DashboardLayout} from '../layout.js';
import {fitLine, type Line, seg, type Segment} from '../text.js';
import {type DashboardInput, verdictOf} from './input.js';
import {revisionLabel} from './revisions.js';

function progressOf(input: DashboardInput): Segment {
  const verdict = verdictOf(input);
  if (verdict === 'complete') return seg('rollout complete', 'ok');
  if (input.paused) return seg('rollout paused', 'warn');
  if (verdict === 'progressing') return seg('rollout in progress', 'accent');
  return input.plan.strategy.type === 'OnDelete' ? seg('waiting for pods to be deleted (OnDelete)', 'warn') : seg('rollout stuck', 'error');
}

export function headerLines(input: DashboardInput, revisions: readonly RevisionEntry[], layout: DashboardLayout): Line[] {
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
