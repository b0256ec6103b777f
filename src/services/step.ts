// `ds-rollout step`: one wave (or every wave) of a paused DaemonSet's rollout, driven by the plugin with the
// controller's own rolling-update rule. Each deletion is decided again on a fresh read and sent with the pod's uid
// and resourceVersion as preconditions, and only pods of the wave first shown are ever deleted, so a change in the
// cluster can make a wave smaller, never larger. Nothing here touches the strategy (except --controller, which
// hands one wave to the controller and pauses again): killed at any moment, the DaemonSet stays paused and the
// next `step` starts from what it finds.
import type {DaemonSetRef} from '../cluster/cluster-source.js';
import type {ClusterWriter, PodPreconditions} from '../cluster/cluster-writer.js';
import type {ClusterWatch, ClusterWatchOptions, LiveCluster} from '../cluster/live/index.js';
import {
  CHANGE_CAUSE_ANNOTATION,
  type ClusterState,
  type DaemonSet,
  type IntOrString,
  type LabelSelector,
  type NodeLanding,
  PAUSED_STRATEGY_ANNOTATION,
  type PausedStrategy,
  type StepBudget,
  type StepDeletion,
  type StepEvent,
  type StepProblem,
  type StepWave,
  type TemplateKey,
  type WaveLanding,
  formatPausedStrategy,
  pauseBody,
  pauseStateOf,
  planStepWave,
  resumeBody,
  sameTemplate,
  syncDaemonSet,
  templateKeyOf,
  validateDaemonSet,
  formatInvalid,
  waveLanding,
  withStrategy,
  allowsSurge,
} from '../core/index.js';
import {ClusterError, ClusterForbiddenError, ConflictError, DsRolloutError, InputError, NotFoundError, RolloutStuckError, UsageError} from '../errors.js';
import {formatDuration} from '../output/format.js';
import {describeRef} from './pause.js';

export type {StepEvent} from '../core/index.js';

/** What a step needs from a cluster; `stepClusterOf` builds it from a live connection. */
export interface StepCluster {
  readState(ref: DaemonSetRef): Promise<ClusterState>;
  patchDaemonSet: ClusterWriter['patchDaemonSet'];
  deletePod(namespace: string, name: string, preconditions: PodPreconditions): Promise<void>;
  watch(ref: DaemonSetRef, options: ClusterWatchOptions): ClusterWatch;
  /** The server's clock, epoch ms: minReadySeconds availability is judged by it. */
  now(): number;
  /** A cheap request that brings `now()` up to date (the server's clock may run at another pace than ours). */
  refreshClock(ref: DaemonSetRef): Promise<void>;
}

export function stepClusterOf(live: LiveCluster): StepCluster {
  return {
    readState: (ref) => live.source.readState(ref),
    patchDaemonSet: (ref, build, options) => live.writer.patchDaemonSet(ref, build, options),
    deletePod: (namespace, name, preconditions) => live.writer.deletePod(namespace, name, preconditions),
    watch: (ref, options) => live.watch(ref, options),
    now: () => live.client.serverNow(),
    refreshClock: async (ref) => {
      await live.source.readDaemonSet(ref);
    },
  };
}

export type Answer = 'yes' | 'no' | 'all';

export interface StepOptions {
  readonly cluster: StepCluster;
  readonly ref: DaemonSetRef;
  /** `--max-unavailable`: this budget instead of the recorded one. */
  readonly maxUnavailable?: IntOrString;
  readonly nodes?: readonly string[];
  readonly selector?: LabelSelector;
  readonly untilComplete?: boolean;
  /** How long one wave may take to become available (and a wave may wait for budget); 0: no limit. */
  readonly timeoutMs: number;
  /** Show the next wave, change nothing. */
  readonly dryRun?: boolean;
  /** `--controller`: let the controller run one surge wave under the recorded strategy, then pause again. */
  readonly controller?: boolean;
  /** Asked before a wave's deletions (undefined: `--yes`). `all` stops asking. */
  readonly confirm?: (prompt: ConfirmRequest) => Promise<Answer>;
  readonly onEvent?: (event: StepEvent) => void;
  /** Ctrl-C: stop at the next safe point (with --controller: after pausing again). */
  readonly signal?: AbortSignal;
  /** How often a wait re-judges availability and refreshes the server's clock (default 250 ms). */
  readonly tickMs?: number;
}

export interface ConfirmRequest {
  readonly number: number;
  readonly total: number;
  readonly deletions: number;
  readonly controller: boolean;
}

export interface WaveReport {
  readonly number: number;
  readonly total: number;
  /** The old pods the wave set out to delete (for --controller: the nodes predicted to surge). */
  readonly planned: readonly StepDeletion[];
  /** `available`: the pod was available when it was deleted (the wave waits for its node). */
  readonly deleted: readonly {readonly pod: string; readonly node: string; readonly available: boolean}[];
  readonly kept: readonly {readonly pod: string; readonly node: string; readonly why: string}[];
  readonly nodes: readonly NodeLanding[];
  readonly landed: boolean;
  readonly seconds: number;
}

export interface StepResult {
  readonly kind: 'DaemonSetStep';
  readonly daemonSet: DaemonSetRef;
  /** `done`: nothing old left in scope; `stepped`: the waves ran, old pods remain; `dry-run`; `declined`. */
  readonly outcome: 'done' | 'stepped' | 'dry-run' | 'declined';
  readonly budget?: StepBudget;
  readonly waves: readonly WaveReport[];
  /** Nodes in scope still running an old pod. */
  readonly oldLeft: number;
  /** With --dry-run: the wave that would run. */
  readonly next?: StepWave;
  /** With --controller and --dry-run: the nodes the controller is expected to surge on. */
  readonly controllerNodes?: readonly string[];
}

/** How long (server clock) a surge pod is available before the plugin retires the old pod next to it itself. */
const RETIRE_GRACE_MS = 2_000;

function remaining(deadline: number): number {
  return deadline === Number.POSITIVE_INFINITY ? 0 : Math.max(1, deadline - Date.now());
}

/** Ctrl-C: the step stopped where it was safe to. */
export class InterruptedError extends DsRolloutError {
  readonly exitCode = 130;
}

const RETRIES = 6;

/** 100 ms, doubling, at most 1 s: a server that fails a request now and then is asked again soon. */
function backoff(attempt: number): number {
  return Math.min(1000, 100 * 2 ** (attempt - 1));
}
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Errors a fresh try can get past: overload, server trouble, dropped connections. Not RBAC, not a missing object. */
function isTransient(error: unknown): boolean {
  return error instanceof ClusterError && !(error instanceof ClusterForbiddenError) && !(error instanceof ConflictError);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `45s`, `5m`, `2m30s`, `1h1m`: the same words as every other output. */
function formatMs(ms: number): string {
  return formatDuration(ms / 1000);
}

export async function stepDaemonSet(options: StepOptions): Promise<StepResult> {
  return new Stepper(options).run();
}

class Stepper {
  private readonly cluster: StepCluster;
  private readonly ref: DaemonSetRef;
  private readonly emit: (event: StepEvent) => void;
  private readonly tickMs: number;
  private follower: Follower | undefined;
  private template: TemplateKey | undefined;
  /** Set once a wave has begun: from then on a resumed DaemonSet or a new template stops the step. */
  private started = false;
  private askEveryWave: boolean;
  /** `a` at the prompt: every wave, as --until-complete. */
  private allWaves = false;
  private readonly reports: WaveReport[] = [];

  constructor(private readonly options: StepOptions) {
    this.cluster = options.cluster;
    this.ref = options.ref;
    this.emit = options.onEvent ?? (() => {});
    this.tickMs = options.tickMs ?? 250;
    this.askEveryWave = options.confirm !== undefined;
  }

  async run(): Promise<StepResult> {
    try {
      const state = await this.read();
      const errors = validateDaemonSet(state.daemonSet);
      if (errors.length > 0) throw new InputError(formatInvalid('daemonset', `${this.ref.namespace}/${this.ref.name}`, errors));
      this.template = templateKeyOf(state.daemonSet);
      return this.options.controller ? await this.runController(state) : await this.runWaves(state);
    } finally {
      this.follower?.stop();
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // Plugin-driven waves

  private async runWaves(initial: ClusterState): Promise<StepResult> {
    let state = initial;
    const first = this.plan(state);
    if (this.options.dryRun) {
      const {number, total} = this.numbering(state.daemonSet, first);
      if (first.delete.length > 0) this.emit({kind: 'wave', number, total, wave: first, dryRun: true});
      else if (!first.done) this.emit({kind: 'waiting-for-budget', wave: first});
      return this.result(first.done && first.delete.length === 0 ? 'done' : 'dry-run', first, first);
    }
    let pending: StepWave | undefined = first;
    let emptyRounds = 0;
    for (;;) {
      const wave = await this.nextWave(state, pending);
      pending = undefined;
      if (wave.delete.length === 0) return this.result('done', wave);
      const {number, total} = this.numbering(state.daemonSet, wave);
      this.emit({kind: 'wave', number, total, wave, dryRun: false});
      if (!(await this.confirmed({number, total, deletions: wave.delete.length, controller: false}))) return this.result('declined', wave);
      this.checkAbort('before the wave started; nothing was deleted');
      this.started = true;
      const changeCause = await this.recordStep(number, total);
      this.emit({kind: 'change-cause', text: changeCause});
      const started = Date.now();
      const {deleted, kept} = await this.deleteWave(wave, number);
      if (deleted.length === 0) {
        // Everything changed under the wave: decide again from what is there now.
        if (++emptyRounds >= RETRIES)
          throw new RolloutStuckError(`the cluster kept changing under wave ${number}: nothing was deleted; the DaemonSet stays paused`);
        state = await this.read();
        continue;
      }
      emptyRounds = 0;
      // The wave waits for the nodes it took an available pod from; a node whose old pod was unavailable already
      // (a NotReady node, a crashing pod) gets its replacement too, but stays counted against the budget until then.
      const landing = await this.waitLanded(
        deleted.filter((d) => d.available).map((d) => d.node),
        number,
        wave,
      );
      const seconds = Math.round((Date.now() - started) / 1000);
      state = this.follower?.latest ?? (await this.read());
      const after = this.plan(state);
      this.reports.push({number, total, planned: wave.delete, deleted, kept, nodes: landing.nodes, landed: true, seconds});
      this.emit({kind: 'landed', number, seconds, oldLeft: after.allOldLeft, ...(after.scope ? {scopeOldLeft: after.oldLeft} : {})});
      if (!(this.options.untilComplete || this.allWaves) || after.done) return this.result(after.done ? 'done' : 'stepped', after);
      pending = after;
    }
  }

  private result(outcome: StepResult['outcome'], wave: StepWave, next?: StepWave): StepResult {
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
  private plan(state: ClusterState, maxUnavailable = this.options.maxUnavailable): StepWave {
    if (this.started) this.checkDaemonSet(state.daemonSet);
    const planned = planStepWave(state, {
      now: this.cluster.now(),
      ...(maxUnavailable !== undefined ? {maxUnavailable} : {}),
      ...(this.options.nodes ? {nodes: this.options.nodes} : {}),
      ...(this.options.selector ? {selector: this.options.selector} : {}),
    });
    if (!planned.ok) throw problemError(this.ref, planned.problem);
    return planned.wave;
  }

  /** A wave that can start now, waiting (within the timeout) while the budget is held by nodes that are settling. */
  private async nextWave(state: ClusterState, known: StepWave | undefined): Promise<StepWave> {
    const wave = known ?? this.plan(state);
    if (wave.delete.length > 0 || wave.done) return wave;
    if (!wave.unavailable.some((use) => use.settling)) throw stuckError(this.ref, wave);
    this.emit({kind: 'waiting-for-budget', wave});
    let latest = wave;
    const outcome = await this.follow().until(
      (current) => {
        const next = this.plan(current);
        latest = next;
        if (next.delete.length > 0 || next.done) return next;
        if (!next.unavailable.some((use) => use.settling)) throw stuckError(this.ref, next);
        return undefined;
      },
      this.waitOptions(() => latest.unavailable.some((use) => use.availableAt !== undefined)),
    );
    if (outcome === 'timeout') throw stuckError(this.ref, latest, this.options.timeoutMs);
    return outcome;
  }

  private numbering(ds: DaemonSet, wave: StepWave): {number: number; total: number} {
    // The watch may not show this run's own last record yet.
    const done = Math.max(stepsSoFar(ds), this.reports.at(-1)?.number ?? 0);
    // An estimate over the whole DaemonSet: the old pods left after this wave, per wave what the budget leaves
    // once the nodes that are not getting better (NotReady, crashing) have taken their share.
    const held = wave.unavailable.filter((use) => !use.settling).length;
    const perWave = Math.max(1, wave.budget.maxUnavailable - held);
    return {number: done + 1, total: done + 1 + Math.ceil(Math.max(0, wave.allOldLeft - wave.delete.length) / perWave)};
  }

  private async confirmed(request: ConfirmRequest): Promise<boolean> {
    if (!this.askEveryWave || !this.options.confirm) return true;
    const answer = await this.options.confirm(request);
    if (answer === 'all') {
      this.askEveryWave = false;
      this.allWaves = true;
    }
    return answer !== 'no';
  }

  /** `kubernetes.io/change-cause: ds-rollout step N/M`, and the step count in the pause record, in one patch. */
  private async recordStep(number: number, total: number): Promise<string> {
    const text = `ds-rollout step ${number}/${total}`;
    await this.retrying('record the step on the DaemonSet', () =>
      this.cluster.patchDaemonSet(this.ref, (current) => {
        this.checkDaemonSet(current);
        const state = pauseStateOf(current);
        const annotations: Record<string, string> = {[CHANGE_CAUSE_ANNOTATION]: text};
        if (state.kind === 'paused') annotations[PAUSED_STRATEGY_ANNOTATION] = formatPausedStrategy({...state.strategy, steps: number});
        return {type: 'merge', body: {metadata: {annotations}}};
      }),
    );
    return text;
  }

  /**
   * Deletes the wave's pods one by one. Before each: a fresh state and a fresh decision; the pod goes only if that
   * decision still takes it, and only in the version that decision saw (uid and resourceVersion preconditions).
   * The first decision of a wave, and every retry, reads the cluster; later ones use the step's watch once it
   * shows this wave's own deletions, so a 500-pod wave costs one read instead of five hundred.
   */
  private async deleteWave(wave: StepWave, number: number): Promise<{deleted: WaveReport['deleted']; kept: WaveReport['kept']}> {
    const deleted: {pod: string; node: string; available: boolean}[] = [];
    const kept: {pod: string; node: string; why: string}[] = [];
    for (const target of wave.delete) {
      for (let attempt = 1; ; attempt++) {
        this.checkAbort(`during wave ${number}: ${deleted.length} of ${wave.delete.length} pods deleted, the DaemonSet stays paused`);
        const state = attempt === 1 && deleted.length > 0 ? await this.stateAfter(deleted.map((d) => d.pod)) : await this.read();
        const fresh = this.plan(state);
        const now = fresh.delete.find((d) => d.uid === target.uid && d.pod === target.pod);
        if (!now) {
          const why = whyKept(target, state, fresh);
          kept.push({pod: target.pod, node: target.node, why});
          this.emit({kind: 'kept', pod: target.pod, node: target.node, why});
          break;
        }
        try {
          await this.cluster.deletePod(this.ref.namespace, now.pod, {
            uid: now.uid ?? '',
            ...(now.resourceVersion ? {resourceVersion: now.resourceVersion} : {}),
          });
          deleted.push({pod: now.pod, node: now.node, available: now.available});
          this.emit({kind: 'deleted', pod: now.pod, node: now.node});
          break;
        } catch (error) {
          if (error instanceof NotFoundError) {
            kept.push({pod: target.pod, node: target.node, why: 'it was gone already'});
            this.emit({kind: 'kept', pod: target.pod, node: target.node, why: 'it was gone already'});
            break;
          }
          // A pod that changed since the read (409) is decided again from a fresh read, never deleted blindly.
          if (attempt < RETRIES && (error instanceof ConflictError || isTransient(error))) {
            this.emit({kind: 'retry', what: `delete pod ${target.pod}`, why: message(error)});
            if (!(error instanceof ConflictError)) await sleep(backoff(attempt));
            continue;
          }
          throw withProgress(error, `wave ${number}: ${deleted.length} of ${wave.delete.length} pods deleted; the DaemonSet stays paused`);
        }
      }
    }
    return {deleted, kept};
  }

  /** Waits until every node of the wave runs an available new pod, following the cluster through watches. */
  private async waitLanded(nodes: readonly string[], number: number, wave: StepWave): Promise<WaveLanding> {
    if (nodes.length === 0) return {nodes: [], landed: true, crowded: []};
    const seen = new Map<string, string>();
    let latest: WaveLanding | undefined;
    const outcome = await this.follow().until(
      (state) => {
        this.checkDaemonSet(state.daemonSet);
        const landing = waveLanding(state, nodes, this.cluster.now());
        latest = landing;
        for (const node of landing.nodes) {
          // Just deleted: a watch that has not caught up yet still shows the old pod running; not news.
          if (node.state === 'old') continue;
          const key = `${node.state}/${node.pod ?? ''}/${node.problem ?? ''}`;
          if (seen.get(node.node) !== key) {
            seen.set(node.node, key);
            this.emit({kind: 'node', landing: node});
          }
        }
        return landing.landed ? landing : undefined;
      },
      this.waitOptions(() => latest?.nodes.some((n) => n.state === 'ready') === true),
    );
    if (outcome === 'timeout') {
      const pending = (latest?.nodes ?? []).filter((n) => n.state !== 'available' && n.state !== 'gone');
      throw new RolloutStuckError(
        `wave ${number} did not become available within ${formatMs(this.options.timeoutMs)}: ${pending.map(describeLanding).join('; ')}; the DaemonSet stays paused (${wave.oldLeft - nodes.length} old pods left)`,
      );
    }
    return outcome;
  }

  // -------------------------------------------------------------------------------------------------------------
  // --controller: one surge wave by the controller itself

  private async runController(state: ClusterState): Promise<StepResult> {
    const ds = state.daemonSet;
    const pause = pauseStateOf(ds);
    if (pause.kind !== 'paused')
      throw problemError(
        this.ref,
        pause.kind === 'invalid' ? {kind: 'invalid-record', error: pause.error} : {kind: 'not-paused', type: ds.spec.updateStrategy?.type ?? ''},
      );
    const record = pause.strategy;
    if (!allowsSurge(withStrategy(ds, record))) {
      throw new InputError(
        `--controller hands a surge wave to the controller, but the recorded strategy of ${describeRef(this.ref)} has maxSurge ${record.rollingUpdate.maxSurge}: step without --controller`,
      );
    }
    // What one sync of the controller under the recorded strategy would create: the wave, as far as it can be told
    // (upstream picks surge nodes in map order, so the live controller may pick others; the count holds).
    const sync = syncDaemonSet({...state, daemonSet: withStrategy(ds, record)}, {now: this.cluster.now()});
    const predicted = sync.actions.create.map((c) => c.node);
    // Only for counting old pods and what holds the budget: any in-place budget will do.
    const inPlace = this.plan(state, 1);
    const total = stepsSoFar(ds) + 1 + Math.ceil(Math.max(0, inPlace.allOldLeft - predicted.length) / Math.max(1, predicted.length));
    const number = stepsSoFar(ds) + 1;
    if (predicted.length === 0) {
      if (inPlace.done) return {kind: 'DaemonSetStep', daemonSet: this.ref, outcome: 'done', waves: [], oldLeft: 0};
      throw new RolloutStuckError(
        `the controller would start no surge pod for ${describeRef(this.ref)} under the recorded strategy (maxSurge ${record.rollingUpdate.maxSurge}): ${inPlace.unavailable.map((u) => `${u.node} (${u.reason})`).join('; ') || 'nothing to do'}`,
      );
    }
    this.emit({kind: 'controller-plan', number, total, nodes: predicted, strategy: record, dryRun: this.options.dryRun === true});
    if (this.options.dryRun)
      return {kind: 'DaemonSetStep', daemonSet: this.ref, outcome: 'dry-run', waves: [], oldLeft: inPlace.oldLeft, controllerNodes: predicted};
    if (!(await this.confirmed({number, total, deletions: predicted.length, controller: true}))) {
      return {kind: 'DaemonSetStep', daemonSet: this.ref, outcome: 'declined', waves: [], oldLeft: inPlace.oldLeft};
    }
    this.checkAbort('before the wave started; nothing was changed');

    // Pods there before the resume; any other pod that appears belongs to the controller's wave.
    const before = await this.read();
    const known = new Set(before.pods.map((pod) => pod.metadata.uid ?? pod.metadata.name));
    const started = Date.now();
    const text = `ds-rollout step ${number}/${total} (controller)`;
    await this.retrying('resume the DaemonSet for one controller wave', () =>
      this.cluster.patchDaemonSet(this.ref, (current) => {
        this.checkDaemonSet(current);
        const body = resumeBody(record.rollingUpdate);
        const metadata = body['metadata'] as {annotations: Record<string, string | null>};
        return {type: 'merge', body: {...body, metadata: {annotations: {...metadata.annotations, [CHANGE_CAUSE_ANNOTATION]: text}}}};
      }),
    );
    this.emit({kind: 'change-cause', text});
    this.emit({kind: 'resumed'});

    let landing: WaveLanding | undefined;
    let failure: unknown;
    const waveNodes: string[] = [];
    const deadline = this.options.timeoutMs > 0 ? Date.now() + this.options.timeoutMs : Number.POSITIVE_INFINITY;
    try {
      for (;;) {
        // Not this.checkDaemonSet: the DaemonSet is RollingUpdate on purpose now; only the template must hold.
        const outcome = await this.follow().until<WaveLanding | {retire: NodeLanding[]}>(
          (current) => {
            this.checkTemplate(current.daemonSet);
            // The wave: the first nodes where a pod that was not there at resume time appears, as many as predicted.
            const fresh = current.pods
              .filter((pod) => !known.has(pod.metadata.uid ?? pod.metadata.name) && pod.spec.nodeName)
              .map((pod) => pod.spec.nodeName!)
              .filter((node) => !waveNodes.includes(node))
              .sort();
            for (const node of fresh) if (waveNodes.length < predicted.length) waveNodes.push(node);
            const now = this.cluster.now();
            landing = waveLanding(current, waveNodes, now);
            for (const node of landing.nodes) this.reportNode(node);
            if (waveNodes.length >= predicted.length && landing.landed) return landing;
            const retire = landing.nodes.filter((n) => n.state === 'surging' && n.availableAt !== undefined && n.availableAt + RETIRE_GRACE_MS <= now);
            return retire.length > 0 ? {retire} : undefined;
          },
          {...this.waitOptions(() => landing?.nodes.some((n) => n.state === 'ready' || n.state === 'surging') === true), timeoutMs: remaining(deadline)},
        );
        if (outcome === 'timeout') {
          const pending = (landing?.nodes ?? []).filter((n) => n.state !== 'available' && n.state !== 'gone');
          failure = new RolloutStuckError(
            `the controller's wave did not become available within ${formatMs(this.options.timeoutMs)}: ${pending.map(describeLanding).join('; ') || `${waveNodes.length} of ${predicted.length} surge pods started`}; the DaemonSet was paused again`,
          );
          break;
        }
        if ('retire' in outcome) {
          await this.retireOldPods(outcome.retire);
          continue;
        }
        break;
      }
    } catch (error) {
      failure = error;
    }
    // Whatever happened (Ctrl-C included), pause again before anything else.
    await this.repause(record, number);
    this.emit({kind: 'repaused'});
    if (failure) throw failure;

    // Paused again, the controller removes surge pods it started meanwhile (OnDelete keeps the oldest pod of a node).
    let crowded: readonly string[] = [];
    const settled = await this.follow().until(
      (current) => {
        const now = waveLanding(current, [], this.cluster.now());
        if (now.crowded.length > 0 && now.crowded.join() !== crowded.join()) this.emit({kind: 'pruning', nodes: now.crowded});
        crowded = now.crowded;
        // Judged on a state that already shows the pause (the watch may lag behind the patch).
        return now.crowded.length === 0 && current.daemonSet.spec.updateStrategy?.type === 'OnDelete' ? true : undefined;
      },
      {...this.waitOptions(), abortable: false},
    );
    if (settled === 'timeout')
      throw new RolloutStuckError(`paused again, but nodes still run two pods after ${formatMs(this.options.timeoutMs)}: ${crowded.join(', ')}`);

    const after = this.plan(await this.read(), 1);
    const seconds = Math.round((Date.now() - started) / 1000);
    const planned: StepDeletion[] = [];
    this.reports.push({number, total, planned, deleted: [], kept: [], nodes: landing?.nodes ?? [], landed: true, seconds});
    this.emit({kind: 'landed', number, seconds, oldLeft: after.allOldLeft});
    return {kind: 'DaemonSetStep', daemonSet: this.ref, outcome: after.done ? 'done' : 'stepped', waves: this.reports, oldLeft: after.oldLeft};
  }

  /**
   * The controller's own surge rule (reconcile-spec 8.4: an old pod goes once the new pod of its node is available),
   * applied by the plugin when the controller has not looked again: upstream re-syncs after minReadySeconds only
   * while the oldest pod of a node is not yet available, which a surge pod never is. Availability-neutral: the
   * node keeps its available new pod. Same preconditions as every deletion.
   */
  private async retireOldPods(nodes: readonly NodeLanding[]): Promise<void> {
    for (const node of nodes) {
      const old = node.oldPod!;
      try {
        await this.retrying(`delete pod ${old.name}`, () =>
          this.cluster.deletePod(this.ref.namespace, old.name, {uid: old.uid ?? '', ...(old.resourceVersion ? {resourceVersion: old.resourceVersion} : {})}),
        );
        this.emit({kind: 'deleted', pod: old.name, node: node.node});
      } catch (error) {
        // Gone already, or changed since the read: the next state decides again.
        if (!(error instanceof NotFoundError) && !(error instanceof ConflictError)) throw error;
      }
    }
  }

  private readonly reported = new Map<string, string>();

  private reportNode(node: NodeLanding): void {
    const key = `${node.state}/${node.pod ?? ''}/${node.problem ?? ''}`;
    if (this.reported.get(node.node) === key) return;
    this.reported.set(node.node, key);
    this.emit({kind: 'node', landing: node});
  }

  private async repause(record: PausedStrategy, steps: number): Promise<void> {
    await this.retrying('pause the DaemonSet again', () =>
      this.cluster.patchDaemonSet(this.ref, (current) =>
        pauseStateOf(current).kind === 'paused' ? undefined : {type: 'merge', body: pauseBody({...record, steps})},
      ),
    );
  }

  // -------------------------------------------------------------------------------------------------------------
  // Plumbing

  /** The DaemonSet must still be paused (OnDelete) with the template the step started from. */
  private checkDaemonSet(ds: DaemonSet): void {
    if (ds.spec.updateStrategy?.type !== 'OnDelete') {
      throw new RolloutStuckError(
        `${describeRef(this.ref)} was resumed during the step (updateStrategy ${ds.spec.updateStrategy?.type ?? 'unset'}): stopped; the controller carries on with the rollout`,
      );
    }
    this.checkTemplate(ds);
  }

  private checkTemplate(ds: DaemonSet): void {
    const now = templateKeyOf(ds);
    if (this.template && !sameTemplate(this.template, now)) {
      const generations =
        this.template.generation !== undefined && now.generation !== undefined ? ` (template generation ${this.template.generation} -> ${now.generation})` : '';
      throw new RolloutStuckError(
        `the template of ${describeRef(this.ref)} changed during the step${generations}: stopped; pods deleted so far come back with the new template. Look at the new revision (kubectl ds-plan), then step again`,
      );
    }
  }

  private checkAbort(where: string): void {
    if (this.options.signal?.aborted) throw new InterruptedError(`interrupted ${where}`);
  }

  /**
   * The watched state once it shows these pods deleted (gone or terminating): never older than this step's own
   * writes. A watch that does not catch up within a few seconds gets a fresh read instead.
   */
  private async stateAfter(deletedPods: readonly string[]): Promise<ClusterState> {
    const names = new Set(deletedPods);
    const seen = await this.follow().until(
      (state) => (state.pods.some((pod) => names.has(pod.metadata.name) && !pod.metadata.deletionTimestamp) ? undefined : state),
      {timeoutMs: WATCH_CATCH_UP_MS, tickMs: this.tickMs, ...(this.options.signal ? {signal: this.options.signal} : {})},
    );
    return seen === 'timeout' ? this.read() : seen;
  }

  /** A fresh read, tried again after passing server trouble. */
  private read(): Promise<ClusterState> {
    return this.retrying('read the cluster', () => this.cluster.readState(this.ref));
  }

  private async retrying<T>(what: string, call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (attempt >= RETRIES || !isTransient(error)) throw error;
        this.emit({kind: 'retry', what, why: message(error)});
        await sleep(backoff(attempt));
      }
    }
  }

  private follow(): Follower {
    this.follower ??= new Follower(this.cluster, this.ref, (what, why) => this.emit({kind: 'retry', what, why}));
    return this.follower;
  }

  private waitOptions(needsClock: () => boolean = () => false): UntilOptions {
    return {
      timeoutMs: this.options.timeoutMs,
      tickMs: this.tickMs,
      ...(this.options.signal ? {signal: this.options.signal} : {}),
      // While a pod waits out minReadySeconds, only time changes: ask the server what time it is.
      onTick: async () => {
        if (needsClock()) await this.cluster.refreshClock(this.ref).catch(() => undefined);
      },
    };
  }
}

/** Steps run since the pause (the record keeps the count; an OnDelete DaemonSet without one: its change-cause). */
function stepsSoFar(ds: DaemonSet): number {
  const state = pauseStateOf(ds);
  if (state.kind === 'paused') return state.strategy.steps;
  const cause = /^ds-rollout step (\d+)\//.exec(ds.metadata.annotations?.[CHANGE_CAUSE_ANNOTATION] ?? '');
  return cause ? Number(cause[1]) : 0;
}

function describeLanding(node: NodeLanding): string {
  switch (node.state) {
    case 'failing':
      return `${node.node}: new pod ${node.pod} is not ready (${node.problem})`;
    case 'starting':
      return `${node.node}: new pod ${node.pod} is not ready yet`;
    case 'ready':
      return `${node.node}: new pod ${node.pod} is ready but not yet available (minReadySeconds)`;
    case 'creating':
      return `${node.node}: no new pod yet`;
    case 'terminating':
      return `${node.node}: the old pod is still terminating`;
    case 'old':
      return `${node.node}: the old pod still runs`;
    case 'surging':
      return `${node.node}: new pod ${node.pod} runs next to the old one`;
    case 'crowded':
      return `${node.node}: two new pods`;
    default:
      return `${node.node}: ${node.state}`;
  }
}

function whyKept(target: StepDeletion, state: ClusterState, fresh: StepWave): string {
  const pod = state.pods.find((p) => p.metadata.name === target.pod);
  if (!pod || pod.metadata.uid !== target.uid) return 'it is gone';
  if (pod.metadata.deletionTimestamp) return 'it is already terminating';
  const using = fresh.unavailable.map((use) => `${use.node}: ${use.reason}`);
  return `the budget no longer allows it (maxUnavailable ${fresh.budget.maxUnavailable}, ${using.length} unavailable: ${using.join('; ')})`;
}

function problemError(ref: DaemonSetRef, problem: StepProblem): DsRolloutError {
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

function stuckError(ref: DaemonSetRef, wave: StepWave, waitedMs?: number): RolloutStuckError {
  const users = wave.unavailable.map((use) => `${use.node} (${use.reason})`).join('; ');
  const waited = waitedMs !== undefined ? ` after waiting ${formatMs(waitedMs)}` : '';
  return new RolloutStuckError(
    `no wave can start${waited}: maxUnavailable ${wave.budget.maxUnavailable} of ${describeRef(ref)} is in use by ${wave.unavailable.length} unavailable ${wave.unavailable.length === 1 ? 'node' : 'nodes'}: ${users}; fix them, or step with a larger --max-unavailable`,
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
function withProgress(error: unknown, progress: string): unknown {
  if (!(error instanceof DsRolloutError)) return error;
  return new ProgressError(`${error.message} (${progress})`, error.exitCode, {cause: error});
}

// ---------------------------------------------------------------------------------------------------------------

/** How long a deletion waits for the step's watch to show the previous ones before it reads the cluster instead. */
const WATCH_CATCH_UP_MS = 5_000;

interface UntilOptions {
  readonly timeoutMs: number;
  readonly tickMs: number;
  readonly signal?: AbortSignal;
  /** False: keep waiting through Ctrl-C (used after --controller paused again). */
  readonly abortable?: boolean;
  readonly onTick?: () => Promise<void>;
}

/** Follows the cluster through watches (restarting them after passing trouble) and answers "wait until". */
class Follower {
  latest: ClusterState | undefined;
  private error: unknown;
  private handle: ClusterWatch | undefined;
  private readonly listeners = new Set<() => void>();
  private restarts = 0;
  private stopped = false;

  constructor(
    private readonly cluster: StepCluster,
    private readonly ref: DaemonSetRef,
    private readonly onRetry: (what: string, why: string) => void,
  ) {
    this.start();
  }

  private start(): void {
    this.handle = this.cluster.watch(this.ref, {
      throttleMs: 50,
      onState: (state) => {
        this.latest = state;
        this.restarts = 0;
        this.notify();
      },
      onError: (error) => {
        if (this.stopped) return;
        if (isTransient(error) && this.restarts < RETRIES) {
          this.restarts++;
          this.onRetry('watch the cluster', message(error));
          setTimeout(
            () => {
              if (!this.stopped) this.start();
            },
            200 * 2 ** this.restarts,
          ).unref();
          return;
        }
        this.error = error;
        this.notify();
      },
    });
  }

  stop(): void {
    this.stopped = true;
    this.handle?.stop();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** Resolves with the first value `evaluate` returns for a state (or 'timeout'); rejects with what it throws. */
  until<T>(evaluate: (state: ClusterState) => T | undefined, options: UntilOptions): Promise<T | 'timeout'> {
    return new Promise<T | 'timeout'>((resolve, reject) => {
      let done = false;
      let ticking = false;
      const finish = (fn: () => void) => {
        if (done) return;
        done = true;
        this.listeners.delete(check);
        clearInterval(tick);
        if (timer) clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const check = () => {
        if (done) return;
        if (this.error) return finish(() => reject(this.error));
        if (!this.latest) return;
        try {
          const value = evaluate(this.latest);
          if (value !== undefined) finish(() => resolve(value));
        } catch (error) {
          finish(() => reject(error));
        }
      };
      const onAbort = () => {
        if (options.abortable !== false) finish(() => reject(new InterruptedError('interrupted while waiting; the DaemonSet stays paused')));
      };
      const tick = setInterval(() => {
        if (ticking || done) return;
        ticking = true;
        void (options.onTick?.() ?? Promise.resolve()).finally(() => {
          ticking = false;
          check();
        });
      }, options.tickMs);
      const timer = options.timeoutMs > 0 ? setTimeout(() => finish(() => resolve('timeout')), options.timeoutMs) : undefined;
      options.signal?.addEventListener('abort', onAbort);
      if (options.signal?.aborted) onAbort();
      this.listeners.add(check);
      check();
    });
  }
}
