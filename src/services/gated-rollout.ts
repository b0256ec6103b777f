// `ds-rollout step --canary ...`, `promote` and `abort`: a whole rollout in stages (a canary, then waves), each
// stepped with the step service on the stage's nodes only, then baked: watched for a while on the server's clock
// by the health gate. The record (plan, stage, bake deadline, failures, the revision it started from) lives in an
// annotation on the DaemonSet, written with the resourceVersion it was decided on, so a run killed at any moment
// continues where it stopped and a second run that changed the record meanwhile is noticed. Gates and bakes judge
// the one watched view of the cluster (cluster/live/follower.ts), shared with the step: a LIST happens only when
// the watch starts or restarts. Abort brings every node back to the revision the rollout started from, within the
// budget; until it has, the record says `aborting` and a second abort continues it.
import {DeadlineClock} from '../platform/clock.js';
import type {DaemonSetRef} from '../cluster/cluster-source.js';
import {Follower} from '../cluster/live/follower.js';
import type {PodsFollow} from '../cluster/live/pod-watch.js';
import {
  type ClusterState,
  type Revision,
  type DaemonSet,
  GATED_ROLLOUT_ANNOTATION,
  type GatedEvent,
  type GatedRecord,
  type GatedResult,
  type GatedStage,
  type GatedStrategy,
  type GateFailure,
  type GateReading,
  type IntOrString,
  type Pod,
  type AbortResult,
  type RolloutOrigin,
  computeTemplateHash,
  nodesByRevisionHash,
  templateOfRevision,
  describeGateFailure,
  formatGatedRecord,
  gatedDecision,
  gatedFailureText,
  type GatedDecision,
  gatedPhaseOf,
  gatedViewOf,
  gatedRecordBody,
  gatedRecordOf,
  judgeGate,
  LOST_READY,
  judgeNeighbourGate,
  judgeNodeGate,
  neighbourBaselineOf,
  nodeBaselineOf,
  podGateReading,
  recordedReadings,
  touchedNodes,
  troubledNodes,
  planGatedStages,
  planStepWave,
  recordedFailures,
  resolveGatedStage,
  resolveGatedStages,
  rolloutOriginOf,
  longestReadings,
  startRecordTooLarge,
  templateLabelHashOf,
  templateRevisionOf,
} from '../core/index.js';
import {DsRolloutError, InputError, RolloutStuckError} from '../platform/errors.js';
import {controlledRevisions, revisionHash} from './history.js';
import {MetricGate, type PrometheusOpener, prometheusOpener} from './metric-gate.js';
import {describeRef} from './pause.js';
import {asStoredUpdate} from './plan.js';
import {InterruptedError, type StepSession, stepDaemonSet} from './step.js';
import {problemError, stuckError} from './step/words.js';
import {applyUndo, previewUndo} from './undo.js';

/** Rounds of stepping back an abort takes before it stops: more means pods keep coming back on the release. */
const ABORT_ROUNDS = 3;

/** How often a quiet watch asks whether the server is there during one bake (docs/gated-rollouts.md). */
const BAKE_PROBES = 4;

export type GatedDryRun = 'client' | 'server';

export interface GatedOptions {
  /** The command's live session: reads, writes, watches and the server's clock. */
  readonly session: StepSession;
  readonly ref: DaemonSetRef;
  /** The flags or strategy file of a new gated rollout (a rerun follows the record instead). */
  readonly strategy?: GatedStrategy;
  /** This run's budget (abort, promote, a rerun); undefined: the one the rollout started with. */
  readonly maxUnavailable?: IntOrString;
  /** `promote`: continue a rollout waiting for approval. */
  readonly promote?: boolean;
  /** `promote --dry-run` / `abort --dry-run`: show what would happen, or the refusal the real run would get. */
  readonly dryRun?: GatedDryRun;
  /** How long one wave may take to become available (the step's --timeout). */
  readonly timeoutMs: number;
  readonly onEvent?: (event: GatedEvent) => void;
  /**
   * Every record this run writes, with the one it replaced (undefined: none): the seam for whatever else must
   * hear of a stage transition or a failed gate (Kubernetes Events on the DaemonSet).
   */
  readonly onTransition?: (record: GatedRecord, previous: GatedRecord | undefined) => void;
  readonly signal?: AbortSignal;
  /** How often a wait re-judges the watched state without a change (default 250 ms). */
  readonly tickMs?: number;
  /** How the metric gate reaches Prometheus (services/metric-gate.ts); default: by URL, or through the session's API server. */
  readonly prometheus?: PrometheusOpener;
  /**
   * Follows every pod of the cluster for the neighbour gate (live: cluster/live/pod-watch.ts), started when the
   * first stage does. Absent, or refused (no RBAC to list pods cluster-wide): the gate sees the DaemonSet's namespace.
   */
  readonly neighbours?: () => PodsFollow;
}

/** What the node and neighbour gates compare with: taken when a stage starts (in memory; the record keeps the nodes). */
interface StageBaseline {
  readonly stage: number;
  readonly troubled: ReadonlySet<string>;
  readonly neighbours: ReadonlyMap<string, number>;
}

export type {AbortResult} from '../core/index.js';

function templateOf(ds: DaemonSet): string {
  return computeTemplateHash(ds.spec.template);
}

export type {GatedResult} from '../core/index.js';

export function runGatedRollout(options: GatedOptions): Promise<GatedResult> {
  return new GatedRollout(options).within((rollout) => rollout.run());
}

/** `abort`: every node back on the revision the gated rollout started from, within the budget. */
export function abortGatedRollout(options: Omit<GatedOptions, 'strategy' | 'promote'>): Promise<AbortResult> {
  return new GatedRollout(options).within((rollout) => rollout.abort());
}

/** Stops an until() whose wait is over (not an error anyone sees). */
class Done extends Error {}

/** Someone else set another template: the rollout is superseded (exit 3, as any stopped rollout). */
class SupersededError extends RolloutStuckError {}

class GatedRollout {
  private readonly session: StepSession;
  private readonly ref: DaemonSetRef;
  private readonly emit: (event: GatedEvent) => void;
  private readonly tickMs: number;
  /** The server's clock for bakes, asked again only as a deadline falls due. */
  private readonly clock: DeadlineClock;
  private follower: Follower | undefined;
  /** The annotation as this run last read or wrote it: anything else means another run changed it. */
  private lastText: string | undefined;
  /** Every annotation text this run read first or wrote (a watched state may show an earlier one of them). */
  private readonly ownTexts = new Set<string | undefined>();
  private record!: GatedRecord;
  /** Pod uids this run has seen Ready (kept in memory only: the record stays small; a rerun sees them again). */
  private seenReady: readonly string[] = [];
  /** The metric gate, when the rollout has queries (opened once per run). */
  private metricGate: MetricGate | undefined;
  /** A write of the metric gate's readings under way during a bake (awaited before the bake's outcome is acted on). */
  private readingsWrite: Promise<void> = Promise.resolve();
  private readingsPending = false;
  /** The node and neighbour gates' baselines for the stage under way. */
  private baseline: StageBaseline | undefined;
  /** Each gate's reading on the last state judged (written with the next record). */
  private readings: readonly GateReading[] = [];
  private neighbours: PodsFollow | undefined;
  /** Why the neighbour gate sees only the DaemonSet's namespace (the cluster's pods could not be listed). */
  private neighbourScope: string | undefined;

  constructor(private readonly options: GatedOptions) {
    this.session = options.session;
    this.ref = options.ref;
    this.emit = options.onEvent ?? (() => {});
    this.tickMs = options.tickMs ?? 250;
    this.clock = new DeadlineClock(this.session.clock);
  }

  async within<T>(body: (rollout: GatedRollout) => Promise<T>): Promise<T> {
    try {
      return await body(this);
    } finally {
      this.follower?.stop();
      this.metricGate?.stop();
      this.neighbours?.stop();
    }
  }

  private follow(): Follower {
    this.follower ??= new Follower((handlers) =>
      this.session.live.watch(this.ref, {throttleMs: 100, probePace: (everyMs) => this.probePace(everyMs), ...handlers}),
    );
    return this.follower;
  }

  /**
   * A bake waits on time alone: a server that froze meanwhile matters when the bake ends, and the request made then
   * (the clock's ask, the record's write) meets it. So the watch asks whether the server is there a few times per
   * bake (BAKE_PROBES) rather than every few seconds of silence: a 10-minute bake costs a handful of reads.
   */
  private probePace(everyMs: number): number {
    const stage = this.record?.phase === 'baking' ? this.record.stages[this.record.stage] : undefined;
    return stage ? Math.max(everyMs, stage.bakeMs / BAKE_PROBES) : everyMs;
  }

  /** The watched state (the first one waits for the watch's initial list). */
  private async state(): Promise<ClusterState> {
    const state = await this.follow().until((s) => s, {timeoutMs: 0, tickMs: this.tickMs});
    return state as ClusterState;
  }

  /** What the state machine says `command` does on the watched state (the annotation is what this run saw last). */
  private decide(state: ClusterState, command: 'gated-step' | 'promote' | 'abort'): Exclude<GatedDecision, {kind: 'refuse'}> {
    const ds = state.daemonSet;
    this.lastText = ds.metadata.annotations?.[GATED_ROLLOUT_ANNOTATION];
    this.ownTexts.add(this.lastText);
    const templateRevision = templateRevisionOf(ds, state.revisions)?.revision;
    const decision = gatedDecision(ds, command, {ref: this.ref, ...(templateRevision !== undefined ? {templateRevision} : {})});
    if (decision.kind === 'refuse') throw decision.exitCode === 3 ? new RolloutStuckError(decision.message) : new InputError(decision.message);
    return decision;
  }

  async run(): Promise<GatedResult> {
    const state = await this.state();
    const decision = this.decide(state, this.options.promote ? 'promote' : 'gated-step');
    switch (decision.kind) {
      case 'awaiting-approval':
        this.record = decision.view.record;
        return this.result('awaiting-approval');
      case 'promote':
        this.record = decision.view.record;
        if (this.options.dryRun) return this.preview(state, this.record.stage + 1, true);
        await this.write({
          ...this.record,
          stage: this.record.stage + 1,
          phase: 'rolling',
          ...this.nodeBaselineAt(state, this.record.stages, this.record.stage + 1),
        });
        this.emit({kind: 'plan', stages: resolveGatedStages(state, this.record.stages), stage: this.record.stage, resumed: true});
        break;
      case 'continue':
        this.record = decision.view.record;
        if (this.options.dryRun) return this.preview(state, this.record.stage, true);
        this.emit({kind: 'plan', stages: resolveGatedStages(state, this.record.stages), stage: this.record.stage, resumed: true});
        break;
      default: {
        const started = await this.start(state);
        if (started) return started;
      }
    }
    try {
      await this.openMetrics(this.record);
      return await this.stages();
    } catch (error) {
      throw await this.settleSuperseded(error);
    }
  }

  /** A new gated rollout: its record, from the origin the nodes run to the template's release. A result: none to start. */
  private async start(state: ClusterState): Promise<GatedResult | undefined> {
    const strategy = this.options.strategy;
    if (!strategy) throw new InputError(`${describeRef(this.ref)} has no gated rollout in progress`);
    const from = rolloutOriginOf(state);
    if (!from) {
      // Every node runs the template already (e.g. after an --on-failure undo put it back): nothing to roll out.
      const revision = templateRevisionOf(state.daemonSet, state.revisions)?.revision;
      return {kind: 'GatedRollout', daemonSet: this.ref, outcome: 'unchanged', ...(revision !== undefined ? {revision} : {})};
    }
    let stages;
    try {
      stages = planGatedStages(state, strategy);
    } catch (error) {
      throw new InputError((error as Error).message);
    }
    const record: GatedRecord = {
      template: templateOf(state.daemonSet),
      from,
      stages,
      stage: 0,
      phase: 'rolling',
      failures: [],
      maxRestarts: strategy.maxRestarts,
      progressDeadlineMs: strategy.progressDeadlineMs,
      onFailure: strategy.onFailure,
      ...(this.options.maxUnavailable !== undefined ? {maxUnavailable: this.options.maxUnavailable} : {}),
      ...(strategy.metrics ? {metrics: strategy.metrics, ...(strategy.prometheus ? {prometheus: strategy.prometheus} : {})} : {}),
      ...(strategy.maxNeighbourFailures !== undefined ? {maxNeighbourFailures: strategy.maxNeighbourFailures} : {}),
      ...(strategy.neighbourSelector !== undefined ? {neighbourSelector: strategy.neighbourSelector} : {}),
    };
    // The metric gate's readings are written later: room is kept for the longest.
    const tooLarge = startRecordTooLarge(record.metrics ? {...record, readings: longestReadings(record.metrics)} : record);
    if (tooLarge) throw new InputError(`${describeRef(this.ref)}: ${tooLarge}${record.metrics ? ', or fewer or shorter metric queries' : ''}`);
    // A token or CA file that cannot be read is said before anything changes.
    await this.openMetrics(record);
    if (this.options.dryRun) {
      this.record = record;
      return this.preview(state, 0, false);
    }
    await this.write({...record, ...this.nodeBaselineAt(state, stages, 0)});
    this.emit({kind: 'plan', stages: resolveGatedStages(state, stages), stage: 0, resumed: false});
    return undefined;
  }

  /** From the recorded stage on: roll, bake, and move to the next stage, until the last passes or one waits for approval. */
  private async stages(): Promise<GatedResult> {
    for (;;) {
      const index = this.record.stage;
      const stage = resolveGatedStage(await this.state(), this.record.stages, index);
      await this.startGates(index, stage);
      if (this.record.phase === 'rolling') {
        this.emit({kind: 'stage', number: index + 1, total: this.record.stages.length, stage});
        await this.roll(stage);
        await this.clock.refresh(Number.NEGATIVE_INFINITY);
        await this.write({...this.record, phase: 'baking', bakeUntil: this.clock.now() + stage.bakeMs});
      }
      await this.bake(stage);
      const last = index === this.record.stages.length - 1;
      if (last) await this.write({...this.record, phase: 'complete', bakeUntil: undefined});
      else if (stage.approve) await this.write({...this.record, phase: 'awaiting-approval', bakeUntil: undefined});
      else
        await this.write({
          ...this.record,
          stage: index + 1,
          phase: 'rolling',
          bakeUntil: undefined,
          ...this.nodeBaselineAt(await this.state(), this.record.stages, index + 1),
        });
      // Only once the record says so: a run that lost the record to another emits nothing.
      this.emit({kind: 'bake-passed', stage});
      if (last) return this.result('complete');
      if (stage.approve) return this.result('awaiting-approval');
    }
  }

  /**
   * A run stopped because someone else set another template: the record says superseded from then on (written
   * once, best effort: every face derives the same phase without it).
   */
  private async settleSuperseded(error: unknown): Promise<unknown> {
    if (!(error instanceof SupersededError)) return error;
    // Only the run that writes it says so: a second driver's write fails its precondition, and emits nothing.
    const written = await this.write({...this.record, phase: 'superseded', bakeUntil: undefined}, {templateChanged: true}).then(
      () => true,
      () => false,
    );
    if (written) this.emit({kind: 'superseded', message: error.message.replace(/^the template of \S+ \S+ /, 'the template ')});
    return error;
  }

  /** `promote --dry-run` / a new gated step's `--dry-run`: stage `index` and its first wave, or the refusal the step would meet. */
  private async preview(state: ClusterState, index: number, resumed: boolean): Promise<GatedResult> {
    const stage = resolveGatedStage(state, this.record.stages, index);
    this.emit({kind: 'plan', stages: resolveGatedStages(state, this.record.stages), stage: index, resumed});
    this.emit({kind: 'stage', number: index + 1, total: this.record.stages.length, stage});
    await stepDaemonSet({...this.stepOptions(stage.nodes), dryRun: true});
    return this.result('dry-run');
  }

  private budget(): {maxUnavailable?: IntOrString} {
    const budget = this.options.maxUnavailable ?? this.record.maxUnavailable;
    return budget !== undefined ? {maxUnavailable: budget} : {};
  }

  private result(outcome: GatedResult['outcome']): GatedResult {
    return {kind: 'GatedRollout', daemonSet: this.ref, outcome, record: this.record};
  }

  /** Steps the stage's nodes with the step service while the gate watches; a failed gate stops the step. */
  private async roll(stage: GatedStage): Promise<void> {
    this.metricGate?.watch(stage.name, stage.nodes);
    const stopStep = new AbortController();
    const stopGate = new AbortController();
    const signal = this.options.signal ? AbortSignal.any([stopStep.signal, this.options.signal]) : stopStep.signal;
    let failures: readonly GateFailure[] = [];
    let gateError: unknown;
    const gate = this.follow()
      .until(
        (state) => {
          const found = this.judge(state, stage);
          return found.length > 0 ? found : undefined;
        },
        {timeoutMs: 0, tickMs: this.tickMs, signal: stopGate.signal, onAbort: () => new Done()},
      )
      .then(
        (found) => {
          if (found !== 'timeout') failures = found;
          stopStep.abort();
        },
        (error: unknown) => {
          if (error instanceof Done) return;
          gateError = error;
          stopStep.abort();
        },
      );
    try {
      await stepDaemonSet(this.stepOptions(stage.nodes, signal));
    } catch (error) {
      stopGate.abort();
      await gate;
      if (gateError) throw gateError;
      if (failures.length === 0 && !(error instanceof InterruptedError && this.options.signal?.aborted)) failures = this.judge(await this.state(), stage);
      if (failures.length === 0) throw error;
    } finally {
      stopGate.abort();
    }
    await gate;
    if (gateError) throw gateError;
    if (failures.length === 0) failures = this.judge(await this.state(), stage);
    if (failures.length > 0) await this.fail(stage, failures);
  }

  /** Watches the stage's new pods until the bake deadline on the server's clock; a failed gate fails the stage. */
  private async bake(stage: GatedStage): Promise<void> {
    this.metricGate?.watch(stage.name, stage.nodes);
    let shown = Number.NaN;
    let settled = false;
    const deadline = this.record.bakeUntil ?? 0;
    await this.clock.refresh(deadline);
    const outcome = await this.follow().until<{failures: readonly GateFailure[]}>(
      (state) => {
        const failures = this.judge(state, stage);
        if (failures.length > 0) return {failures};
        const left = deadline - this.clock.now();
        if (left <= 0) return {failures: []};
        // A countdown line every 10 s of the server's clock (and the first one).
        const bucket = Math.ceil(left / 10_000);
        if (bucket !== shown) {
          shown = bucket;
          this.emit({kind: 'baking', stage, leftMs: left});
        }
        return undefined;
      },
      {
        timeoutMs: 0,
        tickMs: this.tickMs,
        ...(this.options.signal ? {signal: this.options.signal} : {}),
        onAbort: () => new InterruptedError(`interrupted while baking ${stage.name}; a rerun continues the same bake`),
        onTick: async () => {
          await this.clock.refresh(deadline);
          if (!settled) this.noteReadings();
        },
      },
    );
    // No readings write starts once the bake is decided; one under way ends before its outcome is acted on.
    settled = true;
    await this.readingsWrite;
    if (outcome !== 'timeout' && outcome.failures.length > 0) await this.fail(stage, outcome.failures);
  }

  /**
   * The gate's verdict on a watched state, once the state machine says the rollout is still this run's: a record
   * someone else changed (resume --force, abort, another driver) or a template someone else set stops the run at
   * once, saying which.
   */
  private judge(state: ClusterState, stage: GatedStage): readonly GateFailure[] {
    const ds = state.daemonSet;
    const text = ds.metadata.annotations?.[GATED_ROLLOUT_ANNOTATION];
    // A watched state may lag behind this run's own writes: any text this run read or wrote is its own.
    if (!this.ownTexts.has(text)) throw this.endedElsewhere(ds);
    const phase = gatedPhaseOf(ds, this.record);
    if (phase === 'superseded') {
      const revision = templateRevisionOf(ds, state.revisions)?.revision;
      throw new SupersededError(
        `the template of ${describeRef(this.ref)} was changed to ${revision !== undefined ? `revision ${revision}` : 'another template'} by someone else during its gated rollout (stage ${stage.name}): the rollout is superseded and stops; the DaemonSet stays paused`,
      );
    }
    if (phase !== this.record.phase) throw this.endedElsewhere(ds);
    const verdict = judgeGate({
      state,
      ...(stage.nodes ? {nodes: stage.nodes} : {}),
      now: this.clock.now(),
      maxRestarts: this.record.maxRestarts,
      progressDeadlineMs: this.record.progressDeadlineMs,
      seenReady: this.seenReady,
    });
    this.seenReady = verdict.seenReady;
    const gates = this.judgeNodes(state, stage);
    this.readings = [podGateReading(new Set(verdict.failures.map((f) => f.node)).size, gates.touched, this.record.maxRestarts), ...gates.readings];
    // The node's own trouble first: a NotReady node makes its pods lose Ready too, and that is the node's doing.
    const metrics = this.metricGate?.failures() ?? [];
    return [...gates.failures, ...verdict.failures, ...metrics];
  }

  /**
   * While a stage bakes, a metric's verdict that changed (pass, inconclusive) is written to the record, so that
   * status shows it before the bake ends; values alone are not (one write per change of verdict at most). A write
   * that fails is left to the gate: the watched state says why on its next judgement.
   */
  private noteReadings(): void {
    if (!this.metricGate || this.readingsPending) return;
    const verdicts = (readings: readonly GateReading[] | undefined) =>
      (readings ?? [])
        .filter((r) => r.gate === 'metric')
        .map((r) => `${r.name}=${r.verdict}`)
        .join();
    const now = verdicts(this.metricGate.readings());
    if (now === '' || now === verdicts(this.record.readings)) return;
    this.readingsPending = true;
    this.readingsWrite = this.write({...this.record})
      .catch(() => undefined)
      .finally(() => (this.readingsPending = false));
  }

  /** The metric gate of a record with queries: Prometheus opened (its files read) once per run. */
  private async openMetrics(record: GatedRecord): Promise<void> {
    if (this.metricGate || !record.metrics || record.metrics.length === 0) return;
    if (!record.prometheus) throw new InputError(`the metric gate of ${describeRef(this.ref)} needs Prometheus: give --prometheus-url or --prometheus-service`);
    // The command passes its --request-timeout; the dashboard's promote reaches Prometheus through the same session.
    const open = this.options.prometheus ?? prometheusOpener(this.session.live.client, undefined);
    const prometheus = await open(record.prometheus);
    this.metricGate = new MetricGate({queries: record.metrics, prometheus, now: () => this.clock.now(), tickMs: this.tickMs});
  }

  // -------------------------------------------------------------------------------------------------------------
  // The node and neighbour gates (core/node-gates.ts)

  /** The record's note of stage `index`'s nodes in trouble now, taken as it is written to start that stage. */
  private nodeBaselineAt(state: ClusterState, stages: GatedRecord['stages'], index: number): Pick<GatedRecord, 'nodesTroubledAtStart'> {
    if (index >= stages.length) return {};
    const stage = resolveGatedStage(state, stages, index);
    return {nodesTroubledAtStart: nodeBaselineOf(index, troubledNodes(state, stage.nodes))};
  }

  /**
   * The baselines of stage `index`, once per stage: the nodes in trouble at its start as the record has them (a
   * record without them, or with more than it could keep: the nodes in trouble now), and the neighbour pods Ready now.
   */
  private async startGates(index: number, stage: GatedStage): Promise<void> {
    if (this.baseline?.stage === index) return;
    this.readings = [];
    const state = await this.state();
    const recorded = this.record.nodesTroubledAtStart;
    const troubled = new Set(recorded?.stage === index ? recorded.nodes : troubledNodes(state, stage.nodes));
    if (recorded?.stage === index && recorded.more) for (const name of troubledNodes(state, stage.nodes)) troubled.add(name);
    const pods = await this.neighbourPods(state);
    this.baseline = {stage: index, troubled, neighbours: neighbourBaselineOf(state, pods, this.record.neighbourSelector)};
  }

  /** The pods the neighbour gate looks at: the cluster's (followed from the first stage on), else the namespace's. */
  private async neighbourPods(state: ClusterState): Promise<readonly Pod[]> {
    if (this.neighbourScope === undefined && this.options.neighbours) {
      if (!this.neighbours) {
        this.neighbours = this.options.neighbours();
        try {
          await this.neighbours.ready;
        } catch (error) {
          this.neighbours.stop();
          this.neighbourScope = (error as Error).message;
        }
      }
      if (this.neighbourScope === undefined) return this.neighbours.pods();
    }
    return state.pods;
  }

  /**
   * Neighbours, or new pods that lost Ready, alone failed the stage: a node that turned NotReady or Unknown marks
   * its pods not Ready after it (the node lifecycle controller does), and the neighbours' watch runs apart from the
   * nodes', so the node's own change may not show yet. One fresh read of the cluster names the node's trouble
   * first, when there is one: the node gate's failure is the cause, the pods' the effect.
   */
  private async withNodeTrouble(stage: GatedStage, failures: readonly GateFailure[]): Promise<readonly GateFailure[]> {
    const effect = (f: GateFailure) => f.gate === 'neighbour' || ((f.gate ?? 'pod') === 'pod' && f.reason === LOST_READY);
    if (!failures.every(effect)) return failures;
    const state = await this.session.source.readState(this.ref);
    const troubledBefore = this.baseline?.troubled ?? new Set<string>();
    const node = judgeNodeGate({state, ...(stage.nodes ? {nodes: stage.nodes} : {}), now: this.clock.now(), troubledBefore});
    if (node.failures.length === 0) return failures;
    this.readings = this.readings.map((reading) => (reading.gate === 'node' ? node.reading : reading));
    return [...node.failures, ...failures];
  }

  private judgeNodes(state: ClusterState, stage: GatedStage): {failures: GateFailure[]; readings: GateReading[]; touched: number} {
    const now = this.clock.now();
    const nodes = stage.nodes ? {nodes: stage.nodes} : {};
    const touched = touchedNodes(state, stage.nodes, now);
    const baseline = this.baseline ?? {stage: this.record.stage, troubled: new Set(troubledNodes(state, stage.nodes)), neighbours: new Map()};
    const node = judgeNodeGate({state, ...nodes, now, troubledBefore: baseline.troubled, touched});
    const pods = this.neighbours && this.neighbourScope === undefined ? this.neighbours.pods() : state.pods;
    const neighbour = judgeNeighbourGate({
      state,
      pods,
      ...nodes,
      now,
      baseline: baseline.neighbours,
      maxFailures: this.record.maxNeighbourFailures ?? 0,
      ...(this.record.neighbourSelector !== undefined ? {selector: this.record.neighbourSelector} : {}),
      touched,
    });
    const scope = this.neighbourScope === undefined ? '' : ` (namespace ${this.ref.namespace} only: ${this.neighbourScope})`;
    return {
      failures: [...node.failures, ...neighbour.failures],
      readings: [node.reading, {...neighbour.reading, value: `${neighbour.reading.value}${scope}`}],
      touched: touched.size,
    };
  }

  /** What this run says when the watch shows that its rollout was ended or taken over by someone else. */
  private endedElsewhere(ds: DaemonSet): RolloutStuckError {
    const found = gatedViewOf(ds);
    const phase = found.kind === 'view' ? found.view.phase : undefined;
    const what =
      found.kind === 'none'
        ? 'its record was removed'
        : phase === 'abandoned'
          ? ds.spec.updateStrategy?.type === 'OnDelete'
            ? 'it was ended (abandoned, e.g. by resume --force)'
            : 'the DaemonSet was resumed, so the controller rolls it out and the rollout is abandoned'
          : phase === 'complete'
            ? 'the DaemonSet was resumed and the controller rolled the release out'
            : phase === 'aborting' || phase === 'aborted'
              ? `it is being rolled back by abort (${phase})`
              : `another ds-rollout moved it on (${phase ?? 'unreadable'})`;
    return new RolloutStuckError(
      `the gated rollout of ${describeRef(this.ref)} was changed by someone else meanwhile: ${what}; this run stops and changes nothing more`,
    );
  }

  private async fail(stage: GatedStage, found: readonly GateFailure[]): Promise<never> {
    const failures = await this.withNodeTrouble(stage, found);
    await this.write({...this.record, phase: 'failed', ...recordedFailures(failures), bakeUntil: undefined});
    this.metricGate?.stop();
    this.emit({kind: 'gate-failed', stage, failures});
    if (this.record.onFailure === 'undo') {
      const undone = await this.abortRecorded(await this.state());
      throw new RolloutStuckError(
        `gate failed at stage ${stage.name}: ${failures.map(describeGateFailure).join('; ')}; rolled back to revision ${undone.toRevision}${undone.nodes.length > 0 ? ` on ${undone.nodes.join(', ')}` : ''}; the DaemonSet stays paused`,
      );
    }
    throw new RolloutStuckError(gatedFailureText(this.record, this.ref));
  }

  async abort(): Promise<AbortResult> {
    const state = await this.state();
    const decision = this.decide(state, 'abort');
    if (decision.kind !== 'abort' && decision.kind !== 'already-aborted') throw new InputError(`${describeRef(this.ref)} has no gated rollout to abort`);
    this.record = decision.view.record;
    if (decision.kind === 'already-aborted') {
      return {kind: 'GatedRolloutAbort', daemonSet: this.ref, toRevision: this.originNow(state, this.target(state)), nodes: [], outcome: 'already'};
    }
    return this.abortRecorded(state);
  }

  /** The revision abort goes back to: the recorded origin (by hash: undo renumbers it), or for an old record what the nodes run. */
  private target(state: ClusterState): RolloutOrigin {
    const revisions = controlledRevisions(state.daemonSet, state.revisions);
    const from = this.record.from;
    if (from) {
      const found = revisions.find((r) => revisionHash(r) === from.hash);
      if (!found)
        throw new InputError(
          `the revision ${describeRef(this.ref)}'s gated rollout started from (${from.revision}, ${from.hash}) is no longer in its history: nothing was changed`,
        );
      return {...from, revision: found.revision};
    }
    const origin = rolloutOriginOf(state);
    if (!origin) throw new InputError(`${describeRef(this.ref)} has no earlier revision to go back to`);
    return origin;
  }

  /** The origin's number as history shows it on `state` (a rollback renumbers the revision it restores). */
  private originNow(state: ClusterState, origin: RolloutOrigin): Revision {
    return controlledRevisions(state.daemonSet, state.revisions).find((r) => revisionHash(r) === origin.hash)?.revision ?? origin.revision;
  }

  /**
   * Convergent: the template goes back to the origin (if it is not there yet), then every node whose pod runs the
   * release is stepped, within the budget. The record says `aborting` (with the origin) from the first change on,
   * so a second abort continues with the same target; `aborted` once no node is left, with the closing event.
   */
  private async abortRecorded(state: ClusterState): Promise<AbortResult> {
    const target = this.target(state);
    const nodes = this.nodesOnRelease(state);
    const dryRun = this.options.dryRun;
    const preview = await previewUndo(this.session, {ref: this.ref, toRevision: target.revision});
    if (dryRun) {
      this.emit({kind: 'rolling-back', toRevision: preview.to.revision, nodes});
      if (!preview.skipped && dryRun === 'server') await applyUndo(this.session.writer, preview, {dryRun: true});
      // The step the real abort would take, on the DaemonSet as the rollback leaves it: its first wave, or its refusal.
      const next = asStoredUpdate(state.daemonSet, {...state.daemonSet, spec: {...state.daemonSet.spec, template: preview.targetTemplate}});
      if (nodes.length > 0) {
        const planned = planStepWave({...state, daemonSet: next}, {now: this.clock.now(), nodes, ...this.budget()});
        if (!planned.ok) throw this.abortStopped(problemError(this.ref, planned.problem));
        if (planned.wave.delete.length === 0 && !planned.wave.unavailable.some((use) => use.settling) && !planned.wave.done) {
          throw this.abortStopped(stuckError(this.ref, planned.wave, undefined, 'abort'));
        }
        this.emit({kind: 'step', event: {kind: 'wave', number: 1, total: 1, wave: planned.wave, dryRun: true}});
      }
      return {kind: 'GatedRolloutAbort', daemonSet: this.ref, toRevision: preview.to.revision, nodes, outcome: 'dry-run'};
    }
    const originTemplate = target.template ?? templateOf({...state.daemonSet, spec: {...state.daemonSet.spec, template: preview.targetTemplate}});
    const aborting: GatedRecord = {...this.record, from: {...target, template: originTemplate}, phase: 'aborting', bakeUntil: undefined};
    if (this.record.phase !== 'aborting' || this.record.from?.hash !== target.hash || this.record.from.template === undefined) {
      await this.write(aborting, {templateChanged: true});
    }
    let current = state;
    if (!preview.skipped) {
      await applyUndo(this.session.writer, preview, {follower: this.follow()});
      // The step decides on the watched state: not before it shows the template back on the origin.
      current = (await this.follow().until((s) => (templateLabelHashOf(s) === target.hash ? s : undefined), {
        timeoutMs: 0,
        tickMs: this.tickMs,
      })) as ClusterState;
    }
    const toRevision = this.originNow(current, target);
    const stepped = await this.stepBackRelease(current, toRevision);
    await this.write({...aborting, from: {...aborting.from!, revision: toRevision}, phase: 'aborted'}, {templateChanged: true});
    this.emit({kind: 'aborted', toRevision, nodes: stepped});
    return {kind: 'GatedRolloutAbort', daemonSet: this.ref, toRevision, nodes: stepped, outcome: 'aborted'};
  }

  /**
   * Steps back every node the watch shows on the release, until it shows none; returns the nodes stepped. The
   * watch of pods runs apart from the DaemonSet's, so a pod the controller created before the rollback may show
   * up only after the first nodes were stepped back: those are stepped in a further round (a few at most).
   */
  private async stepBackRelease(state: ClusterState, toRevision: Revision): Promise<string[]> {
    const stepped = new Set<string>();
    let pending = this.nodesOnRelease(state);
    this.emit({kind: 'rolling-back', toRevision, nodes: pending});
    for (let round = 0; pending.length > 0; round++) {
      if (round === ABORT_ROUNDS) throw this.releaseLeft(pending);
      if (round > 0) this.emit({kind: 'rolling-back', toRevision, nodes: pending});
      try {
        await stepDaemonSet({...this.stepOptions(pending), rerunAs: 'abort'});
      } catch (error) {
        throw error instanceof InterruptedError ? error : this.abortStopped(error);
      }
      for (const node of pending) stepped.add(node);
      // The step is done with what it saw; the watch may not show its last deletions yet, or may show a release
      // pod it had not shown before: wait for either (bounded).
      const seen = await this.follow().until(
        (s) => {
          const left = this.nodesOnRelease(s);
          const fresh = left.filter((node) => !stepped.has(node));
          return left.length === 0 || fresh.length > 0 ? fresh : undefined;
        },
        {timeoutMs: 30_000, tickMs: this.tickMs},
      );
      pending = seen === 'timeout' ? this.nodesOnRelease(await this.state()) : seen;
      if (seen === 'timeout' && pending.length > 0) throw this.releaseLeft(pending);
    }
    return [...stepped].sort();
  }

  /** The step service's options for the nodes of one stage or one round of an abort, under this run's budget. */
  private stepOptions(nodes: readonly string[] | undefined, signal: AbortSignal | undefined = this.options.signal): Parameters<typeof stepDaemonSet>[0] {
    return {
      session: this.session,
      ref: this.ref,
      ...(nodes ? {nodes} : {}),
      ...this.budget(),
      untilComplete: true,
      timeoutMs: this.options.timeoutMs,
      onEvent: (event) => this.emit({kind: 'step', event}),
      ...(signal ? {signal} : {}),
      tickMs: this.tickMs,
      follower: this.follow(),
      deadlines: this.clock,
    };
  }

  private releaseLeft(nodes: readonly string[]): DsRolloutError {
    const which = nodes.length === 1 ? `node ${nodes[0]} still runs` : `nodes ${nodes.join(', ')} still run`;
    return this.abortStopped(new RolloutStuckError(`${which} the release being rolled back`));
  }

  /** An abort that could not finish: what stopped it, and that a rerun continues (with more budget if that was it). */
  private abortStopped(error: unknown): DsRolloutError {
    const why = error instanceof Error ? error.message : String(error);
    const name = `${this.ref.name} -n ${this.ref.namespace}`;
    const stuck = new RolloutStuckError(
      `abort of ${describeRef(this.ref)} stopped: ${why.replace(/^error: /, '')}; it continues where it stopped: kubectl ds-rollout abort ${name} --yes`,
      {cause: error},
    );
    return error instanceof DsRolloutError && !(error instanceof RolloutStuckError) && error.exitCode !== 1 ? error : stuck;
  }

  /**
   * The nodes whose pod runs the release being rolled back (what abort steps back); nodes the rollout never touched
   * keep what they run. Pods carry the controller's hash (a revision's label), which only the simulated cluster
   * computes as we do: the release is the revision whose template hashes, our way, to the recorded template.
   */
  private nodesOnRelease(state: ClusterState): string[] {
    const release = controlledRevisions(state.daemonSet, state.revisions).find((r) => {
      const template = templateOfRevision(r);
      return template !== undefined && computeTemplateHash(template) === this.record.template;
    });
    return nodesByRevisionHash(state).get(release ? revisionHash(release) : this.record.template) ?? [];
  }

  /**
   * Writes the record, if the annotation is still what this run last saw (resourceVersion precondition), with the
   * DaemonSet's generation it was decided on: a later one tells every face that someone else changed the spec.
   */
  private async write(next: GatedRecord, options: {templateChanged?: boolean} = {}): Promise<void> {
    // Each gate's last reading goes with every write (bounded: the record lives in an annotation); a gate with no
    // reading now keeps the one the record has.
    const fresh = [...this.readings, ...(this.metricGate?.readings() ?? [])];
    if (fresh.length > 0) {
      const kinds = new Set(fresh.map((r) => r.gate));
      next = {...next, readings: recordedReadings([...fresh, ...(next.readings ?? []).filter((r) => !kinds.has(r.gate))])};
    }
    const previous =
      this.lastText === undefined ? undefined : gatedRecordOf({metadata: {annotations: {[GATED_ROLLOUT_ANNOTATION]: this.lastText}}} as unknown as DaemonSet);
    // The watched DaemonSet saves a GET when it shows what this run last wrote (a stale one fails its
    // resourceVersion precondition and is read again; one that would fail the checks below is not used).
    const watched = this.follower?.latest?.daemonSet;
    const usable =
      watched !== undefined &&
      watched.metadata.annotations?.[GATED_ROLLOUT_ANNOTATION] === this.lastText &&
      (options.templateChanged === true || templateOf(watched) === next.template);
    const base = usable ? watched : undefined;
    let written = next;
    let text = '';
    const decidedOn = this.record?.generation;
    await this.session.writer.patchDaemonSet(
      this.ref,
      (current) => {
        if (current.metadata.annotations?.[GATED_ROLLOUT_ANNOTATION] !== this.lastText) {
          throw new RolloutStuckError(
            `another ds-rollout changed the gated rollout of ${describeRef(this.ref)} meanwhile: stopped; the DaemonSet stays paused`,
          );
        }
        const generation = current.metadata.generation;
        if (!options.templateChanged && (templateOf(current) !== next.template || (decidedOn !== undefined && (generation ?? 0) > decidedOn))) {
          throw new SupersededError(
            `the template of ${describeRef(this.ref)} changed during its gated rollout: the rollout is superseded and stops; the DaemonSet stays paused`,
          );
        }
        written = typeof generation === 'number' ? {...next, generation} : next;
        text = formatGatedRecord(written);
        // A watched state may show this write before the patch's answer arrives: it is this run's own.
        this.ownTexts.add(text);
        return {type: 'merge', body: gatedRecordBody(written)};
      },
      base ? {base} : {},
    );
    this.lastText = text;
    this.record = written;
    this.options.onTransition?.(written, previous?.kind === 'record' ? previous.record : undefined);
  }
}
