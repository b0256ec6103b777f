// `ds-rollout step --canary ...`, `promote` and `abort`: a whole rollout in stages (a canary, then waves), each
// stepped with the step service on the stage's nodes only, then baked: watched for a while on the server's clock
// by the health gate. The record (plan, stage, bake deadline, failures) lives in an annotation on the DaemonSet,
// written with the resourceVersion it was decided on, so a run killed at any moment continues where it stopped
// and a second run that changed the record meanwhile is noticed. A failed gate pauses (the DaemonSet stays
// paused) or undoes: the template goes back with the undo service and only the nodes that got the new revision
// are stepped back.
import type {ClusterSource, DaemonSetRef} from '../cluster/cluster-source.js';
import type {ClusterWriter} from '../cluster/cluster-writer.js';
import {
  type ClusterState,
  type DaemonSet,
  GATED_ROLLOUT_ANNOTATION,
  type GatedEvent,
  type GatedRecord,
  type GatedResult,
  type GatedStage,
  type GatedStrategy,
  type GateFailure,
  type IntOrString,
  computeTemplateHash,
  describeGateFailure,
  formatGatedRecord,
  gatedRecordBody,
  gatedRecordOf,
  judgeGate,
  planGatedStages,
  waveLanding,
} from '../core/index.js';
import {InputError, RolloutStuckError} from '../errors.js';
import {describeRef} from './pause.js';
import {InterruptedError, type StepCluster, stepDaemonSet} from './step.js';
import {applyUndo, previewUndo} from './undo.js';

export interface GatedOptions {
  readonly cluster: StepCluster;
  /** What the undo service needs (a live cluster's source and writer). */
  readonly source: ClusterSource;
  readonly writer: ClusterWriter;
  readonly ref: DaemonSetRef;
  /** The flags or strategy file of a new gated rollout (a rerun follows the record instead). */
  readonly strategy?: GatedStrategy;
  readonly maxUnavailable?: IntOrString;
  /** `promote`: continue a rollout waiting for approval. */
  readonly promote?: boolean;
  /** How long one wave may take to become available (the step's --timeout). */
  readonly timeoutMs: number;
  readonly onEvent?: (event: GatedEvent) => void;
  readonly signal?: AbortSignal;
  /** How often bakes and waves are judged (default 250 ms). */
  readonly tickMs?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function templateOf(ds: DaemonSet): string {
  return computeTemplateHash(ds.spec.template);
}

/** Nodes running a pod of the DaemonSet's current template (what an undo must step back). */
function nodesOnTemplate(state: ClusterState): string[] {
  const names = state.nodes.map((n) => n.metadata.name);
  return waveLanding(state, names, Number.POSITIVE_INFINITY)
    .nodes.filter((n) => n.state !== 'old' && n.pod !== undefined)
    .map((n) => n.node);
}

export type {GatedResult} from '../core/index.js';

export function runGatedRollout(options: GatedOptions): Promise<GatedResult> {
  return new GatedRollout(options).run();
}

/** `abort`: the undo path by hand, for a gated rollout that waits, failed, or is stopped. */
export async function abortGatedRollout(options: Omit<GatedOptions, 'strategy' | 'promote'>): Promise<{toRevision: number; nodes: readonly string[]}> {
  const rollout = new GatedRollout(options);
  return rollout.abort();
}

class GatedRollout {
  private readonly cluster: StepCluster;
  private readonly ref: DaemonSetRef;
  private readonly emit: (event: GatedEvent) => void;
  private readonly tickMs: number;
  /** The annotation as this run last read or wrote it: anything else means another run changed it. */
  private lastText: string | undefined;
  private record!: GatedRecord;

  constructor(private readonly options: GatedOptions) {
    this.cluster = options.cluster;
    this.ref = options.ref;
    this.emit = options.onEvent ?? (() => {});
    this.tickMs = options.tickMs ?? 250;
  }

  async run(): Promise<GatedResult> {
    const state = await this.cluster.readState(this.ref);
    const ds = state.daemonSet;
    this.lastText = ds.metadata.annotations?.[GATED_ROLLOUT_ANNOTATION];
    const found = gatedRecordOf(ds);
    if (found.kind === 'invalid') {
      throw new InputError(
        `${describeRef(this.ref)} has a gated rollout record that cannot be read (${found.error}): fix or remove the annotation ${GATED_ROLLOUT_ANNOTATION}`,
      );
    }
    const template = templateOf(ds);
    const ongoing = found.kind === 'record' && !['complete', 'aborted'].includes(found.record.phase) ? found.record : undefined;
    if (ongoing && ongoing.template !== template) {
      throw new RolloutStuckError(
        `the template of ${describeRef(this.ref)} changed during its gated rollout (stage ${ongoing.stage + 1}/${ongoing.stages.length} ${ongoing.stages[ongoing.stage]?.name}): stopped. Roll it back with 'kubectl ds-rollout abort ${this.ref.name} -n ${this.ref.namespace}', or remove the annotation ${GATED_ROLLOUT_ANNOTATION} to start over`,
      );
    }
    if (ongoing) {
      this.record = ongoing;
      if (ongoing.phase === 'failed') throw this.failedError(ongoing.failures, ongoing.stages[ongoing.stage]!);
      if (ongoing.phase === 'awaiting-approval') {
        if (!this.options.promote) return this.result('awaiting-approval');
        await this.write({...ongoing, stage: ongoing.stage + 1, phase: 'rolling'});
      }
      this.emit({kind: 'plan', stages: this.record.stages, stage: this.record.stage, resumed: true});
    } else {
      if (this.options.promote) throw new InputError(`${describeRef(this.ref)} has no gated rollout waiting for approval`);
      const strategy = this.options.strategy;
      if (!strategy) throw new InputError(`${describeRef(this.ref)} has no gated rollout in progress`);
      let stages: GatedStage[];
      try {
        stages = planGatedStages(state, strategy);
      } catch (error) {
        throw new InputError((error as Error).message);
      }
      await this.write({
        template,
        stages,
        stage: 0,
        phase: 'rolling',
        failures: [],
        maxRestarts: strategy.maxRestarts,
        progressDeadlineMs: strategy.progressDeadlineMs,
        onFailure: strategy.onFailure,
        ...(this.options.maxUnavailable !== undefined ? {maxUnavailable: this.options.maxUnavailable} : {}),
        seenReady: [],
      });
      this.emit({kind: 'plan', stages, stage: 0, resumed: false});
    }

    for (;;) {
      const index = this.record.stage;
      const stage = this.record.stages[index]!;
      if (this.record.phase === 'rolling') {
        this.emit({kind: 'stage', number: index + 1, total: this.record.stages.length, stage});
        await this.roll(stage);
        await this.write({...this.record, phase: 'baking', bakeUntil: this.cluster.now() + stage.bakeMs});
      }
      await this.bake(stage);
      this.emit({kind: 'bake-passed', stage});
      const last = index === this.record.stages.length - 1;
      if (last) {
        await this.write({...this.record, phase: 'complete', bakeUntil: undefined});
        return this.result('complete');
      }
      if (stage.approve) {
        await this.write({...this.record, phase: 'awaiting-approval', bakeUntil: undefined});
        return this.result('awaiting-approval');
      }
      await this.write({...this.record, stage: index + 1, phase: 'rolling', bakeUntil: undefined});
    }
  }

  private result(outcome: GatedResult['outcome']): GatedResult {
    return {kind: 'GatedRollout', daemonSet: this.ref, outcome, record: this.record};
  }

  /** Steps the stage's nodes with the step service while the gate watches; a failed gate stops the step. */
  private async roll(stage: GatedStage): Promise<void> {
    const gate = new AbortController();
    const signal = this.options.signal ? AbortSignal.any([gate.signal, this.options.signal]) : gate.signal;
    let failures: readonly GateFailure[] = [];
    let watching = true;
    const watch = (async () => {
      while (watching) {
        await sleep(this.tickMs);
        if (!watching) return;
        const verdict = await this.judge(stage).catch(() => undefined);
        if (verdict && verdict.length > 0) {
          failures = verdict;
          gate.abort();
          return;
        }
      }
    })();
    try {
      await stepDaemonSet({
        cluster: this.cluster,
        ref: this.ref,
        ...(stage.nodes ? {nodes: stage.nodes} : {}),
        ...(this.record.maxUnavailable !== undefined ? {maxUnavailable: this.record.maxUnavailable} : {}),
        untilComplete: true,
        timeoutMs: this.options.timeoutMs,
        onEvent: (event) => this.emit({kind: 'step', event}),
        signal,
        tickMs: this.tickMs,
      });
    } catch (error) {
      watching = false;
      await watch;
      if (failures.length === 0 && !(error instanceof InterruptedError && this.options.signal?.aborted)) failures = await this.judge(stage);
      if (failures.length === 0) throw error;
    } finally {
      watching = false;
    }
    await watch;
    if (failures.length === 0) failures = await this.judge(stage);
    if (failures.length > 0) await this.fail(stage, failures);
  }

  /** Watches the stage's new pods until the bake deadline on the server's clock; a failed gate fails the stage. */
  private async bake(stage: GatedStage): Promise<void> {
    let shown = Number.NaN;
    for (;;) {
      const failures = await this.judge(stage);
      if (failures.length > 0) await this.fail(stage, failures);
      const left = (this.record.bakeUntil ?? 0) - this.cluster.now();
      if (left <= 0) return;
      // A countdown line every 10 s of the server's clock (and the first one).
      const bucket = Math.ceil(left / 10_000);
      if (bucket !== shown) {
        shown = bucket;
        this.emit({kind: 'baking', stage, leftMs: left});
      }
      if (this.options.signal?.aborted) throw new InterruptedError(`interrupted while baking ${stage.name}; a rerun continues the same bake`);
      await sleep(this.tickMs);
    }
  }

  /** The gate's verdict on a fresh read (the read also brings the server's clock up to date). */
  private async judge(stage: GatedStage): Promise<readonly GateFailure[]> {
    const state = await this.cluster.readState(this.ref);
    if (templateOf(state.daemonSet) !== this.record.template) {
      throw new RolloutStuckError(
        `the template of ${describeRef(this.ref)} changed during its gated rollout (stage ${stage.name}): stopped; the DaemonSet stays paused`,
      );
    }
    const verdict = judgeGate({
      state,
      ...(stage.nodes ? {nodes: stage.nodes} : {}),
      now: this.cluster.now(),
      maxRestarts: this.record.maxRestarts,
      progressDeadlineMs: this.record.progressDeadlineMs,
      seenReady: this.record.seenReady,
    });
    // Remembered in memory; written with the next record (a rerun sees Ready pods again anyway).
    this.record = {...this.record, seenReady: verdict.seenReady};
    return verdict.failures;
  }

  private async fail(stage: GatedStage, failures: readonly GateFailure[]): Promise<never> {
    this.emit({kind: 'gate-failed', stage, failures});
    await this.write({...this.record, phase: 'failed', failures, bakeUntil: undefined});
    if (this.record.onFailure === 'undo') {
      const undone = await this.rollBack();
      throw new RolloutStuckError(
        `gate failed at stage ${stage.name}: ${failures.map(describeGateFailure).join('; ')}; rolled back to revision ${undone.toRevision}${undone.nodes.length > 0 ? ` on ${undone.nodes.join(', ')}` : ''}; the DaemonSet stays paused`,
      );
    }
    throw this.failedError(failures, stage);
  }

  private failedError(failures: readonly GateFailure[], stage: GatedStage): RolloutStuckError {
    return new RolloutStuckError(
      `gate failed at stage ${stage.name}: ${failures.map(describeGateFailure).join('; ')}; the DaemonSet stays paused (roll back: kubectl ds-rollout abort ${this.ref.name} -n ${this.ref.namespace})`,
    );
  }

  async abort(): Promise<{toRevision: number; nodes: readonly string[]}> {
    const state = await this.cluster.readState(this.ref);
    this.lastText = state.daemonSet.metadata.annotations?.[GATED_ROLLOUT_ANNOTATION];
    const found = gatedRecordOf(state.daemonSet);
    if (found.kind !== 'record' || ['complete', 'aborted'].includes(found.record.phase)) {
      throw new InputError(`${describeRef(this.ref)} has no gated rollout to abort`);
    }
    this.record = found.record;
    return this.rollBack();
  }

  /**
   * The undo service's rollback (to the revision before, as `kubectl rollout undo`), then the step service on
   * exactly the nodes that run the failed revision, within the budget: no other node is touched.
   */
  private async rollBack(): Promise<{toRevision: number; nodes: readonly string[]}> {
    const before = await this.cluster.readState(this.ref);
    const nodes = nodesOnTemplate(before);
    const preview = await previewUndo(
      {source: this.options.source, clock: {now: () => this.cluster.now(), refresh: () => Promise.resolve()}},
      {ref: this.ref, toRevision: 0},
    );
    this.emit({kind: 'rolling-back', toRevision: preview.to.revision, nodes});
    if (!preview.skipped) await applyUndo(this.options.writer, preview);
    if (nodes.length > 0) {
      await stepDaemonSet({
        cluster: this.cluster,
        ref: this.ref,
        nodes,
        ...(this.record.maxUnavailable !== undefined ? {maxUnavailable: this.record.maxUnavailable} : {}),
        untilComplete: true,
        timeoutMs: this.options.timeoutMs,
        onEvent: (event) => this.emit({kind: 'step', event}),
        ...(this.options.signal ? {signal: this.options.signal} : {}),
        tickMs: this.tickMs,
      });
    }
    await this.write({...this.record, phase: 'aborted', bakeUntil: undefined}, {templateChanged: true});
    return {toRevision: preview.to.revision, nodes};
  }

  /** Writes the record, if the annotation is still what this run last saw (resourceVersion precondition). */
  private async write(next: GatedRecord, options: {templateChanged?: boolean} = {}): Promise<void> {
    const text = formatGatedRecord(next);
    await this.cluster.patchDaemonSet(this.ref, (current) => {
      if (current.metadata.annotations?.[GATED_ROLLOUT_ANNOTATION] !== this.lastText) {
        throw new RolloutStuckError(`another ds-rollout changed the gated rollout of ${describeRef(this.ref)} meanwhile: stopped; the DaemonSet stays paused`);
      }
      if (!options.templateChanged && templateOf(current) !== next.template) {
        throw new RolloutStuckError(`the template of ${describeRef(this.ref)} changed during its gated rollout: stopped; the DaemonSet stays paused`);
      }
      return {type: 'merge', body: gatedRecordBody(next)};
    });
    this.lastText = text;
    this.record = next;
  }
}
