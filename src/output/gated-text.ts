// What a gated rollout prints for people: its plan, stages, bakes and gate failures, and the one-line progress
// that status, ds-plan and the dashboard show.
import {
  type AbortResult,
  type DaemonSet,
  type GatedEvent,
  type GatedProgress,
  type GatedResult,
  type GatedStage,
  describeGateFailure,
  gatedProgressOf,
} from '../core/index.js';
import {palette} from './color.js';
import {formatDuration, formatList} from './format.js';
import {renderStepEvent} from './step-text.js';

interface Ref {
  readonly namespace: string;
  readonly name: string;
}

function stageNodes(stage: GatedStage): string {
  return stage.nodes ? formatList(stage.nodes, 8) : 'every node';
}

function bakeText(ms: number): string {
  return ms > 0 ? `, bake ${formatDuration(ms / 1000)}` : '';
}

export function renderGatedEvent(event: GatedEvent, ref: Ref, color: boolean): string | undefined {
  const c = palette(color);
  switch (event.kind) {
    case 'plan': {
      const head = event.resumed
        ? `Gated rollout of daemonset ${ref.namespace}/${ref.name} continues at stage ${event.stage + 1}/${event.stages.length}:`
        : `Gated rollout of daemonset ${ref.namespace}/${ref.name} in ${event.stages.length} stages:`;
      const rows = event.stages.map(
        (stage, i) => `  ${i + 1}. ${stage.name}: ${stageNodes(stage)}${bakeText(stage.bakeMs)}${stage.approve ? ', then wait for promote' : ''}`,
      );
      return [head, ...rows].join('\n');
    }
    case 'stage':
      return c.bold(`Stage ${event.number}/${event.total} ${event.stage.name}: ${stageNodes(event.stage)}`);
    case 'step':
      return renderStepEvent(event.event, ref, color);
    case 'baking':
      return `  baking ${event.stage.name}: ${formatDuration(event.leftMs / 1000)} left`;
    case 'bake-passed':
      return `  ${event.stage.name} passed its gate`;
    case 'gate-failed':
      return c.bold(`  gate failed at ${event.stage.name}: ${event.failures.map(describeGateFailure).join('; ')}`);
    case 'rolling-back':
      return `Rolling back to revision ${event.toRevision}${event.nodes.length > 0 ? `; stepping back ${formatList(event.nodes, 8)}` : ''}`;
    case 'aborted':
    case 'superseded':
      // The summary (or the error) says it.
      return undefined;
  }
}

export function renderGatedSummary(result: GatedResult, ref: Ref): string {
  const name = `${ref.name} -n ${ref.namespace}`;
  const record = result.record;
  if (result.outcome === 'unchanged' || !record) {
    const revision = result.revision !== undefined ? ` (revision ${result.revision})` : '';
    return `Nothing to roll out: every node of daemonset ${ref.namespace}/${ref.name} runs its template already${revision}; no gated rollout was recorded.`;
  }
  if (result.outcome === 'dry-run') {
    if (record.phase === 'awaiting-approval')
      return `Dry run: promote would continue the gated rollout at stage ${record.stage + 2}/${record.stages.length}; nothing was changed.`;
    return `Dry run: the gated rollout would ${record.stage === 0 && record.phase === 'rolling' ? 'start' : 'continue'} at stage ${record.stage + 1}/${record.stages.length}; nothing was changed.`;
  }
  if (result.outcome === 'awaiting-approval') {
    const stage = record.stages[record.stage]!;
    return `Stage ${stage.name} passed; waiting for approval. Continue: kubectl ds-rollout promote ${name}; roll back: kubectl ds-rollout abort ${name}`;
  }
  return `Gated rollout complete: every stage passed. The DaemonSet stays paused: kubectl ds-rollout resume ${name}`;
}

export function renderAbortSummary(result: AbortResult): string {
  const ds = `daemonset ${result.daemonSet.namespace}/${result.daemonSet.name}`;
  switch (result.outcome) {
    case 'already':
      return `Gated rollout already aborted: every node of ${ds} is on revision ${result.toRevision}; nothing to do.`;
    case 'dry-run':
      return `Dry run: abort would bring ${ds} back to revision ${result.toRevision}${result.nodes.length > 0 ? ` (stepping back ${formatList(result.nodes, 8)})` : ''}; nothing was changed.`;
    case 'aborted':
      return `Gated rollout aborted: ${ds} is back on revision ${result.toRevision}${result.nodes.length > 0 ? ` (stepped back: ${result.nodes.join(', ')})` : ''}; it stays paused.`;
  }
}

/** A phase as a person reads it, with the command that moves it on where there is one (core's gatedWayForward, short). */
const PHASE_WORDS: Partial<Record<GatedProgress['phase'], (progress: GatedProgress) => string>> = {
  'awaiting-approval': () => 'awaiting approval (kubectl ds-rollout promote, or abort)',
  failed: () => 'failed (kubectl ds-rollout abort rolls it back)',
  aborting: () => 'aborting (kubectl ds-rollout abort continues it)',
  superseded: (progress) => {
    const by = progress.supersededBy;
    const what = by === undefined ? 'another template' : 'revision' in by ? `revision ${by.revision}` : `template ${by.hash}`;
    return `superseded by ${what}, set by someone else (a new gated step rolls it out, or kubectl ds-rollout resume)`;
  },
};

/** `gated rollout: stage 2/3 wave 1 (50%), baking, 25s left`. */
export function describeGatedProgress(progress: GatedProgress): string {
  return `gated rollout: ${describeGatedStage(progress)}`;
}

/** `stage 2/3 wave 1 (50%), baking, 25s left`: for a line whose label already says it is the gated rollout. */
export function describeGatedStage(progress: GatedProgress): string {
  const phase = PHASE_WORDS[progress.phase]?.(progress) ?? progress.phase;
  const left = progress.bakeLeftSeconds !== undefined ? `, ${formatDuration(progress.bakeLeftSeconds)} left` : '';
  const failed = progress.failures.length > 0 ? `; gate failed: ${progress.failures.map(describeGateFailure).join('; ')}` : '';
  const job = progress.job !== undefined ? `, driven by Job ${progress.job}` : '';
  return `stage ${progress.stage}/${progress.stages} ${progress.name}, ${phase}${left}${job}${failed}`;
}

/**
 * `promote` and `abort` from a terminal while a Job drives (or drove) the rollout: one line naming it, and what
 * becomes of it, so that nobody wonders which of the two is in charge.
 */
export function detachedJobNote(ds: DaemonSet, mode: 'promote' | 'abort', now: number): string | undefined {
  const progress = gatedProgressOf(ds, now);
  const job = progress?.job;
  if (job === undefined) return undefined;
  // Stopped for approval, the Job has ended; otherwise its driver may still run (or be restarted).
  const ended = progress!.phase === 'awaiting-approval';
  return mode === 'abort'
    ? ended
      ? `Job ${job} drove this gated rollout until its approval point; a restart of it finds the rollout over.`
      : `Job ${job} drives this gated rollout: it stops at its next step, and its restarts find the rollout over.`
    : `Job ${job} drove this gated rollout until its approval point: promote continues it here (promote --detach runs the rest in a Job).`;
}
