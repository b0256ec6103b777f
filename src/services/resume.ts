// `ds-rollout resume`: restore the recorded RollingUpdate settings and drop the record, in one patch. A DaemonSet
// the tool did not pause is switched to RollingUpdate only with an explicit strategy (--force).
import type {DaemonSetRef} from '../cluster/cluster-source.js';
import type {ClusterWriter, DryRunMode} from '../cluster/cluster-writer.js';
import {
  type DaemonSet,
  GATED_ROLLOUT_ANNOTATION,
  type IntOrString,
  formatGatedRecord,
  gatedDecision,
  pauseStateOf,
  type RecordedRollingUpdate,
  type ResumeDecision,
  resumeDecision,
  settledGatedRecord,
} from '../core/index.js';
import {InputError} from '../platform/errors.js';
import {describeRef, wrongStateMessage} from './pause.js';

/** What resume needs of a session: a writer. */
export interface ResumeSession {
  readonly writer: Pick<ClusterWriter, 'patchDaemonSet'>;
}

export interface ResumeOptions {
  readonly ref: DaemonSetRef;
  /** `--force --max-unavailable X [--max-surge Y]`: this strategy instead of the record. */
  readonly force?: {readonly maxUnavailable: IntOrString; readonly maxSurge?: IntOrString};
  /** Store nothing: client sends nothing, server sends the patch with dryRun=All. */
  readonly dryRun?: DryRunMode;
  /** `--force`: a gated rollout under way is ended (its record says abandoned) rather than refused. */
  readonly abandonGated?: boolean;
}

export interface ResumeResult {
  readonly daemonSet: DaemonSetRef;
  /** `resumed`, or `stale-record-removed`: the DaemonSet was running already and only a leftover record went. */
  readonly outcome: 'resumed' | 'stale-record-removed';
  /** The RollingUpdate settings now in force. */
  readonly restored?: RecordedRollingUpdate;
  readonly from?: 'record' | 'flags';
  /** When the pause began, for a DaemonSet the tool had paused. */
  readonly pausedAt?: string;
  readonly dryRun: boolean;
  /** The gated rollout this resume ended (`--force`), at its stage and phase. */
  readonly abandoned?: {readonly stage: string; readonly phase: string};
}

export async function resumeDaemonSet(session: ResumeSession, options: ResumeOptions): Promise<ResumeResult> {
  const {ref} = options;
  let decision: ResumeDecision | undefined;
  let pausedAt: string | undefined;
  let abandoned: ResumeResult['abandoned'];
  await session.writer.patchDaemonSet(
    ref,
    (current: DaemonSet) => {
      decision = resumeDecision(current, options.force);
      const state = pauseStateOf(current);
      pausedAt = state.kind === 'paused' ? state.strategy.pausedAt : undefined;
      // A gated rollout holds the DaemonSet paused between its stages: resuming hands every node to the controller,
      // so the state machine refuses it, or with --force ends the rollout (abandoned) in the same patch.
      const gated = decision.kind === 'patch' ? gatedDecision(current, options.abandonGated ? 'resume-force' : 'resume', {ref}) : undefined;
      if (gated?.kind === 'refuse') throw new InputError(gated.message);
      const ended = gated?.kind === 'abandon' ? {...gated.view.record, phase: 'abandoned' as const, bakeUntil: undefined} : settledGatedRecord(current);
      abandoned = gated?.kind === 'abandon' ? {stage: gated.view.record.stages[gated.view.record.stage]?.name ?? '', phase: gated.view.phase} : undefined;
      if (options.dryRun === 'client') return undefined;
      if (decision.kind !== 'patch' && decision.kind !== 'stale') return undefined;
      if (!ended) return {type: 'merge', body: decision.body};
      const body = decision.body as {metadata?: {annotations?: Record<string, unknown>}};
      const annotations = {...body.metadata?.annotations, [GATED_ROLLOUT_ANNOTATION]: formatGatedRecord(ended)};
      return {type: 'merge', body: {...body, metadata: {...body.metadata, annotations}}};
    },
    {dryRun: options.dryRun === 'server'},
  );
  const final = decision!;
  const dryRun = options.dryRun !== undefined;
  switch (final.kind) {
    case 'patch':
      return {
        daemonSet: ref,
        outcome: 'resumed',
        restored: final.restored,
        from: final.from,
        ...(pausedAt ? {pausedAt} : {}),
        ...(abandoned ? {abandoned} : {}),
        dryRun,
      };
    case 'stale':
      return {daemonSet: ref, outcome: 'stale-record-removed', dryRun};
    case 'not-paused':
      throw new InputError(wrongStateMessage(ref, 'is not paused'));
    case 'needs-force':
      throw new InputError(
        final.state === 'invalid'
          ? `${describeRef(ref)} has a pause record that cannot be read (${final.error}): to resume it, pass --force --max-unavailable N [--max-surge M]`
          : `${describeRef(ref)} uses OnDelete but was not paused by ds-rollout: to switch it to RollingUpdate, pass --force --max-unavailable N [--max-surge M]`,
      );
    case 'invalid-strategy':
      throw new InputError(`invalid strategy for ${describeRef(ref)}: ${final.errors.join('; ')}`);
  }
}
