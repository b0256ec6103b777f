// `ds-rollout step`: one wave (or every wave) of a paused DaemonSet's rollout. The use case: read and check the
// DaemonSet, refuse when another step holds the step lease, run the plugin's waves (step/waves.ts) or one
// controller wave (step/controller-wave.ts), and give the lease back. Every wait follows the cluster through the
// one follower, so a cluster that stops answering ends the step with exit 2, not a wait to --timeout.
import {ClusterUnreachableError, InputError} from '../platform/errors.js';
import {formatInvalid, gatedRefusalReason, templateKeyOf, validateDaemonSet} from '../core/index.js';
import {type ServerDryRun, sendServerDryRun} from './step-dry-run.js';
import {runControllerWave} from './step/controller-wave.js';
import {StepRun} from './step/run.js';
import type {StepOptions, StepResult, StepSession} from './step/types.js';
import {runWaves} from './step/waves.js';

export type {StepEvent} from '../core/index.js';
export {thisProcess} from './step/lease.js';
export {InterruptedError} from './step/run.js';
export type {Answer, ConfirmRequest, StepHolder, StepOptions, StepResult, StepSession, WaveReport} from './step/types.js';

export async function stepDaemonSet(options: StepOptions): Promise<StepResult> {
  const run = new StepRun(options);
  let failure: unknown;
  try {
    // A shared follower's state is as good as a read for the first decision: each deletion decides again anyway.
    const state = run.watched ?? (await run.read());
    const errors = validateDaemonSet(state.daemonSet);
    if (errors.length > 0) throw new InputError(formatInvalid('daemonset', `${options.ref.namespace}/${options.ref.name}`, errors));
    run.template = templateKeyOf(state.daemonSet);
    if (!options.dryRun) run.lease.check(state.daemonSet);
    return options.controller ? await runControllerWave(run, state) : await runWaves(run, state);
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    run.stop();
    // A cluster that stopped answering would only make the release wait: the lease lapses on its own.
    if (failure instanceof ClusterUnreachableError || (failure instanceof Error && failure.cause instanceof ClusterUnreachableError)) run.lease.abandon();
    else await run.lease.release();
  }
}

export interface StepCommandOptions extends Omit<StepOptions, 'session'> {
  /** --dry-run=server: the dry run's first writes are sent with dryRun=All (admission, RBAC, preconditions). */
  readonly serverDryRun?: boolean;
}

export interface StepCommandResult {
  readonly result: StepResult;
  /** What the API server accepted of the dry run's writes (--dry-run=server only). */
  readonly serverDryRun?: ServerDryRun;
}

/** `ds-rollout step` on a live session: refused while a gated rollout is under way, then the step itself. */
export async function stepService(session: StepSession, options: StepCommandOptions): Promise<StepCommandResult> {
  const refusal = gatedRefusalReason(await session.live.source.readDaemonSet(options.ref), options.ref, 'step');
  if (refusal !== undefined) throw new InputError(refusal);
  const {serverDryRun, ...step} = options;
  const result = await stepDaemonSet({...step, session});
  return serverDryRun ? {result, serverDryRun: await sendServerDryRun(session.writer, options.ref, result)} : {result};
}
