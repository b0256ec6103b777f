// `ds-rollout pause`: record the RollingUpdate settings and switch the DaemonSet to OnDelete, in one patch made
// against the resourceVersion it was decided on. No oclif here; the command renders the result.
import type {Clock} from '../platform/clock.js';
import type {DaemonSetRef} from '../cluster/cluster-source.js';
import type {ClusterWriter, DryRunMode} from '../cluster/cluster-writer.js';
import {
  type DaemonSet,
  formatRfc3339,
  GATED_ROLLOUT_ANNOTATION,
  PAUSED_STRATEGY_ANNOTATION,
  type PauseDecision,
  type PausedStrategy,
  formatGatedRecord,
  pauseDecision,
  settledGatedRecord,
} from '../core/index.js';
import {InputError} from '../platform/errors.js';

/** What pause needs of a session: a writer, and the server's clock (asked when the patch is built: pausedAt). */
export interface PauseSession {
  readonly writer: Pick<ClusterWriter, 'patchDaemonSet'>;
  readonly clock: Pick<Clock, 'now'>;
}

export interface PauseOptions {
  readonly ref: DaemonSetRef;
  /** Decide and report, store nothing: client sends nothing, server sends the patch with dryRun=All. */
  readonly dryRun?: DryRunMode;
}

export interface PauseResult {
  readonly daemonSet: DaemonSetRef;
  /** `paused` now, or it `already-paused` (nothing was sent). */
  readonly outcome: 'paused' | 'already-paused';
  readonly strategy: PausedStrategy;
  /** A leftover record on a running DaemonSet was replaced by the strategy in force. */
  readonly replacedStale: boolean;
  readonly dryRun: boolean;
}

/** RFC3339 in whole seconds, as the API server writes times (the step code imports it by this name). */
export const rfc3339 = formatRfc3339;

export function describeRef(ref: DaemonSetRef): string {
  return `daemonset ${ref.namespace}/${ref.name}`;
}

/** kubectl's words for a resource in the wrong state (`daemonsets.apps "x" is not paused`), as rollout pause/resume print them. */
export function wrongStateMessage(ref: DaemonSetRef, problem: string): string {
  return `daemonsets.apps "${ref.name}" ${problem}`;
}

/** What `pause` of a paused DaemonSet says: kubectl's message for a paused Deployment. */
export function alreadyPausedMessage(ref: DaemonSetRef): string {
  return wrongStateMessage(ref, 'is already paused');
}

export async function pauseDaemonSet(session: PauseSession, options: PauseOptions): Promise<PauseResult> {
  const {ref} = options;
  let decision: PauseDecision | undefined;
  // The writer may call build again after a conflict: the last decision is the one that was sent.
  await session.writer.patchDaemonSet(
    ref,
    (current: DaemonSet) => {
      decision = pauseDecision(current, formatRfc3339(session.clock.now()));
      if (decision.kind !== 'patch' || options.dryRun === 'client') return undefined;
      const settled = settledGatedRecord(current);
      if (!settled) return {type: 'merge', body: decision.body};
      const body = decision.body as {metadata?: {annotations?: Record<string, unknown>}};
      const annotations = {...body.metadata?.annotations, [GATED_ROLLOUT_ANNOTATION]: formatGatedRecord(settled)};
      return {type: 'merge', body: {...body, metadata: {...body.metadata, annotations}}};
    },
    {dryRun: options.dryRun === 'server'},
  );
  const final = decision!;
  switch (final.kind) {
    case 'patch':
      return {daemonSet: ref, outcome: 'paused', strategy: final.strategy, replacedStale: final.replacedStale, dryRun: options.dryRun !== undefined};
    case 'already-paused':
      return {daemonSet: ref, outcome: 'already-paused', strategy: final.strategy, replacedStale: false, dryRun: options.dryRun !== undefined};
    case 'on-delete':
      throw new InputError(
        `${describeRef(ref)} already uses updateStrategy OnDelete and was not paused by ds-rollout: the controller replaces pods only when they are deleted, so there is nothing to pause (step it with --max-unavailable)`,
      );
    case 'invalid':
      throw new InputError(
        `${describeRef(ref)} is OnDelete with a pause record that cannot be read (${final.error}): fix or remove the annotation ${PAUSED_STRATEGY_ANNOTATION}`,
      );
  }
}
