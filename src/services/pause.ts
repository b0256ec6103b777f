// `ds-rollout pause`: record the RollingUpdate settings and switch the DaemonSet to OnDelete, in one patch made
// against the resourceVersion it was decided on. No oclif here; the command renders the result.
import type {DaemonSetRef} from '../cluster/cluster-source.js';
import type {ClusterWriter, DryRunMode} from '../cluster/cluster-writer.js';
import {
  type DaemonSet,
  GATED_ROLLOUT_ANNOTATION,
  PAUSED_STRATEGY_ANNOTATION,
  type PauseDecision,
  type PausedStrategy,
  formatGatedRecord,
  pauseDecision,
  settledGatedRecord,
} from '../core/index.js';
import {InputError} from '../errors.js';

export interface PauseOptions {
  readonly writer: Pick<ClusterWriter, 'patchDaemonSet'>;
  readonly ref: DaemonSetRef;
  /** The server's clock (ms since the epoch), asked when the patch is built: the record's pausedAt. */
  readonly now: () => number;
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

/** RFC3339 in whole seconds, as the API server writes times. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export function describeRef(ref: DaemonSetRef): string {
  return `daemonset ${ref.namespace}/${ref.name}`;
}

export async function pauseDaemonSet(options: PauseOptions): Promise<PauseResult> {
  const {ref} = options;
  let decision: PauseDecision | undefined;
  // The writer may call build again after a conflict: the last decision is the one that was sent.
  await options.writer.patchDaemonSet(
    ref,
    (current: DaemonSet) => {
      decision = pauseDecision(current, rfc3339(options.now()));
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
