// What a step says when it cannot go on: each error one line, naming the DaemonSet, what was done, what to do.
import type {DaemonSetRef} from '../../cluster/cluster-source.js';
import {
  budgetWayForward,
  type ClusterState,
  landingWords,
  type NodeLanding,
  PAUSED_STRATEGY_ANNOTATION,
  type StepDeletion,
  type StepProblem,
  type StepWave,
} from '../../core/index.js';
import {DsRolloutError, InputError, RolloutStuckError, UsageError} from '../../platform/errors.js';
import {formatDuration} from '../../output/format.js';
import {describeRef} from '../pause.js';

/** `45s`, `5m`, `2m30s`, `1h1m`: the same words as every other output. */
export function formatMs(ms: number): string {
  return formatDuration(ms / 1000);
}

export function describeLanding(node: NodeLanding): string {
  return `${node.node}: ${landingWords(node)}`;
}

export function whyKept(target: StepDeletion, state: ClusterState, fresh: StepWave): string {
  const pod = state.pods.find((p) => p.metadata.name === target.pod);
  if (!pod || pod.metadata.uid !== target.uid) return 'it is gone';
  if (pod.metadata.deletionTimestamp) return 'it is already terminating';
  const using = fresh.unavailable.map((use) => `${use.node}: ${use.reason}`);
  return `the budget no longer allows it (maxUnavailable ${fresh.budget.maxUnavailable}, ${using.length} unavailable: ${using.join('; ')})`;
}

export function problemError(ref: DaemonSetRef, problem: StepProblem): DsRolloutError {
  const name = `${ref.name} -n ${ref.namespace}`;
  switch (problem.kind) {
    case 'not-paused':
      return new InputError(`${describeRef(ref)} is not paused (updateStrategy ${problem.type || 'unset'}): run 'kubectl ds-rollout pause ${name}' first`);
    case 'invalid-record':
      return new InputError(
        `${describeRef(ref)} has a pause record that cannot be read (${problem.error}): pass --max-unavailable, or fix the annotation ${PAUSED_STRATEGY_ANNOTATION}`,
      );
    case 'needs-budget':
      return problem.why === 'surge'
        ? new InputError(
            `the recorded strategy of ${describeRef(ref)} surges (maxSurge ${problem.maxSurge}, maxUnavailable 0) and a paused DaemonSet cannot surge: pass --controller to let the controller run one surge wave, or --max-unavailable N to replace N pods at a time in place`,
          )
        : new InputError(`${describeRef(ref)} uses OnDelete and was not paused by ds-rollout, so there is no recorded budget: pass --max-unavailable N`);
    case 'invalid-budget':
      return new UsageError(`invalid --max-unavailable: ${problem.errors.join('; ')}`);
    case 'unknown-nodes':
      return new InputError(`no such ${problem.nodes.length === 1 ? 'node' : 'nodes'}: ${problem.nodes.join(', ')}`);
  }
}

/** No wave can start: who holds the budget, and the one line that moves the rollout on (`via`: the command to rerun). */
export function stuckError(ref: DaemonSetRef, wave: StepWave, waitedMs?: number, via: 'step' | 'abort' = 'step'): RolloutStuckError {
  const users = wave.unavailable.map((use) => `${use.node} (${use.reason})`).join('; ');
  const waited = waitedMs !== undefined ? ` after waiting ${formatMs(waitedMs)}` : '';
  return new RolloutStuckError(
    `no wave can start${waited}: maxUnavailable ${wave.budget.maxUnavailable} of ${describeRef(ref)} is in use by ${wave.unavailable.length} unavailable ${wave.unavailable.length === 1 ? 'node' : 'nodes'}: ${users}; ${budgetWayForward(wave.hold, via, wave.unavailable.length)}`,
  );
}

class ProgressError extends DsRolloutError {
  constructor(
    message: string,
    readonly exitCode: number,
    options: {cause: unknown},
  ) {
    super(message, options);
  }
}

/** The error with what was done before it, so that the one stderr line tells the whole story. */
export function withProgress(error: unknown, progress: string): unknown {
  if (!(error instanceof DsRolloutError)) return error;
  return new ProgressError(`${error.message} (${progress})`, error.exitCode, {cause: error});
}
