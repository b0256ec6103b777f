// What one `step` run carries from wave to wave, and the plumbing both kinds of wave use: fresh reads, the wave
// decided on a state, the checks that stop a step (resumed, new template, lease taken over, Ctrl-C), writes tried
// again under the one retry policy, the bookkeeping, and the one follower every wait goes through.
import {DeadlineClock} from '../../platform/clock.js';
import type {DaemonSetRef} from '../../cluster/cluster-source.js';
import {Follower, type UntilOptions, withRetries} from '../../cluster/live/index.js';
import {
  type ClusterState,
  type DaemonSet,
  formatPausedStrategy,
  type IntOrString,
  pauseStateOf,
  planStepWave,
  sameTemplate,
  type StepEvent,
  stepProgressBody,
  stepProgressOf,
  type StepWave,
  type TemplateKey,
  templateKeyOf,
} from '../../core/index.js';
import {DsRolloutError, RolloutStuckError} from '../../platform/errors.js';
import {describeRef, rfc3339} from '../pause.js';
import {StepLeaseHolder, thisProcess} from './lease.js';
import type {ConfirmRequest, StepOptions, StepResult, StepSession, WaveReport} from './types.js';
import {problemError} from './words.js';

/** Ctrl-C: the step stopped where it was safe to. */
export class InterruptedError extends DsRolloutError {
  readonly exitCode = 130;
}

/** How long a deletion waits for the step's watch to show the previous ones before it reads the cluster instead. */
const WATCH_CATCH_UP_MS = 5_000;

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Steps run toward this template since the pause: the pause record keeps the count; an OnDelete DaemonSet without
 * one, the progress annotation. Steps recorded toward another template belong to an earlier rollout: none so far.
 */
export function stepsSoFar(ds: DaemonSet, templateHash: string): number {
  const recorded = stepProgressOf(ds)?.hash;
  if (recorded !== undefined && recorded !== templateHash) return 0;
  const state = pauseStateOf(ds);
  if (state.kind === 'paused') return state.strategy.steps;
  return stepProgressOf(ds)?.step ?? 0;
}

export class StepRun {
  readonly session: StepSession;
  readonly ref: DaemonSetRef;
  readonly emit: (event: StepEvent) => void;
  readonly tickMs: number;
  readonly lease: StepLeaseHolder;
  readonly reports: WaveReport[] = [];
  /** Set once a wave has begun: from then on a resumed DaemonSet or a new template stops the step. */
  started = false;
  template: TemplateKey | undefined;
  private follower: Follower | undefined;
  private askEveryWave: boolean;
  /** The server's clock for waits that only time ends. */
  private readonly clock: DeadlineClock;
  /** `a` at the prompt: every wave, as --until-complete. */
  allWaves = false;

  constructor(readonly options: StepOptions) {
    this.session = options.session;
    this.ref = options.ref;
    this.emit = options.onEvent ?? (() => {});
    this.tickMs = options.tickMs ?? 250;
    this.askEveryWave = options.confirm !== undefined;
    this.clock = options.deadlines ?? new DeadlineClock(this.session.clock);
    this.lease = new StepLeaseHolder(
      this.session,
      this.ref,
      options.holder ?? thisProcess(),
      options.force === true,
      this.emit,
      this.clock,
      () => this.watched?.daemonSet,
    );
  }

  stop(): void {
    if (this.follower !== this.options.follower) this.follower?.stop();
  }

  /** The latest state the watch showed, if it follows already (a shared follower may follow from the start). */
  get watched(): ClusterState | undefined {
    return (this.follower ?? this.options.follower)?.latest;
  }

  result(outcome: StepResult['outcome'], wave: StepWave, next?: StepWave): StepResult {
    return {
      kind: 'DaemonSetStep',
      daemonSet: this.ref,
      outcome,
      budget: wave.budget,
      waves: this.reports,
      oldLeft: wave.oldLeft,
      ...(next ? {next} : {}),
    };
  }

  /** The wave for `state`, or the reason there is none, as the error the command reports. */
  plan(state: ClusterState, maxUnavailable: IntOrString | undefined = this.options.maxUnavailable): StepWave {
    if (this.started) this.checkDaemonSet(state.daemonSet);
    const planned = planStepWave(state, {
      now: this.session.clock.now(),
      ...(maxUnavailable !== undefined ? {maxUnavailable} : {}),
      ...(this.options.nodes ? {nodes: this.options.nodes} : {}),
      ...(this.options.selector ? {selector: this.options.selector} : {}),
    });
    if (!planned.ok) throw problemError(this.ref, planned.problem);
    return planned.wave;
  }

  numbering(ds: DaemonSet, wave: StepWave): {number: number; total: number} {
    // The watch may not show this run's own last record yet.
    const done = Math.max(stepsSoFar(ds, wave.template.hash), this.reports.at(-1)?.number ?? 0);
    // An estimate over the whole DaemonSet: the old pods left after this wave, per wave what the budget leaves
    // once the nodes that are not getting better (NotReady, crashing) have taken their share.
    const held = wave.unavailable.filter((use) => !use.settling).length;
    const perWave = Math.max(1, wave.budget.maxUnavailable - held);
    return {number: done + 1, total: done + 1 + Math.ceil(Math.max(0, wave.allOldLeft - wave.delete.length) / perWave)};
  }

  async confirmed(request: ConfirmRequest): Promise<boolean> {
    if (!this.askEveryWave || !this.options.confirm) return true;
    const answer = await this.options.confirm(request);
    if (answer === 'all') {
      this.askEveryWave = false;
      this.allWaves = true;
    }
    return answer !== 'no';
  }

  /**
   * Records a wave that changed something: ds-rollout.io/step (never kubernetes.io/change-cause, which the next
   * revision would inherit) and the step count in the pause record, in one patch.
   */
  async recordProgress(number: number, total: number, hash: string): Promise<void> {
    await this.retryingWrite('record the step on the DaemonSet', () =>
      this.session.writer.patchDaemonSet(
        this.ref,
        (current) => {
          this.checkDaemonSet(current);
          const state = pauseStateOf(current);
          const record = state.kind === 'paused' ? formatPausedStrategy({...state.strategy, steps: number}) : undefined;
          return {type: 'merge', body: stepProgressBody({step: number, of: total, at: rfc3339(this.session.clock.now()), hash}, record)};
        },
        this.watchedBase(),
      ),
    );
    this.emit({kind: 'recorded', step: number, of: total});
  }

  /** The watched DaemonSet as a write's first base: saves a GET; a stale one meets a 409 and is read again. */
  watchedBase(): {base?: DaemonSet} {
    const base = this.watched?.daemonSet;
    return base ? {base} : {};
  }

  /** The DaemonSet must still be paused (OnDelete) with the template the step started from, and the lease ours. */
  checkDaemonSet(ds: DaemonSet): void {
    if (ds.spec.updateStrategy?.type !== 'OnDelete') {
      throw new RolloutStuckError(
        `${describeRef(this.ref)} was resumed during the step (updateStrategy ${ds.spec.updateStrategy?.type ?? 'unset'}): stopped; the controller carries on with the rollout`,
      );
    }
    this.checkTemplate(ds);
  }

  checkTemplate(ds: DaemonSet): void {
    this.lease.assertHeld(ds);
    const now = templateKeyOf(ds);
    if (this.template && !sameTemplate(this.template, now)) {
      const generations =
        this.template.generation !== undefined && now.generation !== undefined ? ` (template generation ${this.template.generation} -> ${now.generation})` : '';
      throw new RolloutStuckError(
        `the template of ${describeRef(this.ref)} changed during the step${generations}: stopped; pods deleted so far come back with the new template. Look at the new revision (kubectl ds-plan), then step again`,
      );
    }
  }

  checkAbort(where: string): void {
    if (this.options.signal?.aborted) throw new InterruptedError(`interrupted ${where}`);
  }

  /** A fresh read (the client tries it again after passing trouble, under the retry policy). */
  read(): Promise<ClusterState> {
    return this.session.source.readState(this.ref);
  }

  /**
   * A write tried again after passing trouble, under the same policy as reads. Each try is built again from a
   * fresh read (patchDaemonSet decides on the object it read), so a retry never sends a stale decision.
   */
  retryingWrite<T>(what: string, call: () => Promise<T>): Promise<T> {
    // A read inside `call` that failed its own tries in the client is not tried again here (one policy, not nested).
    return withRetries(call, {onRetry: (error) => this.emit({kind: 'retry', what, why: message(error)})});
  }

  /**
   * The watched state once it shows these pods deleted (gone or terminating): never older than this step's own
   * writes. A watch that does not catch up within a few seconds gets a fresh read instead.
   */
  async stateAfter(deletedPods: readonly string[]): Promise<ClusterState> {
    const names = new Set(deletedPods);
    const seen = await this.follow().until(
      (state) => (state.pods.some((pod) => names.has(pod.metadata.name) && !pod.metadata.deletionTimestamp) ? undefined : state),
      {timeoutMs: WATCH_CATCH_UP_MS, tickMs: this.tickMs, ...this.abortable()},
    );
    return seen === 'timeout' ? this.read() : seen;
  }

  /** The one follower of this run: started at the first wait, stopped with the run. */
  follow(): Follower {
    this.follower ??= this.options.follower ?? new Follower((handlers) => this.session.live.watch(this.ref, {throttleMs: 50, ...handlers}));
    return this.follower;
  }

  private abortable(): Pick<UntilOptions, 'signal' | 'onAbort'> {
    return {
      ...(this.options.signal ? {signal: this.options.signal} : {}),
      onAbort: () => new InterruptedError('interrupted while waiting; the DaemonSet stays paused'),
    };
  }

  /** `dueAt`: the server time at which something only time changes falls due (a pod waiting out minReadySeconds). */
  waitOptions(dueAt: () => number | undefined = () => undefined): UntilOptions {
    return {
      timeoutMs: this.options.timeoutMs,
      tickMs: this.tickMs,
      ...this.abortable(),
      // Only time changes: ask the server what time it is as that falls due, not on every tick.
      onTick: async () => {
        const at = dueAt();
        if (at !== undefined) await this.clock.refresh(at);
      },
    };
  }
}
