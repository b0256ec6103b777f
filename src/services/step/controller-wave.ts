// `step --controller`: one surge wave run by the controller itself. The recorded strategy is resumed for one
// wave, the plugin follows it until the wave's nodes run an available new pod, and pauses again whatever happens
// (Ctrl-C included). The only part of `step` that changes the strategy.
import {
  allowsSurge,
  type ClusterState,
  comparePodsByCreationTimestampAndPhase,
  getTargetNodeName,
  formatPausedStrategy,
  type NodeLanding,
  pauseBody,
  type Pod,
  pauseStateOf,
  type PausedStrategy,
  resumeBody,
  type StepDeletion,
  stepProgressBody,
  syncDaemonSet,
  type WaveLanding,
  waveLanding,
  withStrategy,
} from '../../core/index.js';
import {ClusterUnreachableError, ConflictError, InputError, NotFoundError, RolloutStuckError} from '../../platform/errors.js';
import {earliest, stopwatch} from '../../platform/clock.js';
import {describeRef, rfc3339} from '../pause.js';
import {stepsSoFar, type StepRun} from './run.js';
import type {StepResult} from './types.js';
import {describeLanding, formatMs, problemError} from './words.js';

/** How long (server clock) a surge pod is available before the plugin retires the old pod next to it itself. */
const RETIRE_GRACE_MS = 2_000;

/**
 * A wave node the controller is done with: its new pod is available, or Ready with the old pod gone, which under
 * surge the controller does only once it judges the new pod available. Judged on what the controller did, not on
 * the plugin's estimate of the server's clock (which can lag it): the moment the controller takes the wave as done
 * is the moment it may start the next, so the pause must follow that, not a clock.
 */
const DONE_BY_CONTROLLER: ReadonlySet<NodeLanding['state']> = new Set(['available', 'gone', 'ready']);

function doneByController(landing: WaveLanding): boolean {
  return landing.nodes.every((node) => DONE_BY_CONTROLLER.has(node.state));
}

/** How long the step waits for its watch streams to open before it resumes (it never resumes blind). */
const STREAMS_OPEN_MS = 30_000;

/** What one look at the cluster during the wave tells the step to do. */
type WaveVerdict =
  | {readonly kind: 'done'; readonly landing: WaveLanding}
  | {readonly kind: 'retire'; readonly nodes: readonly NodeLanding[]}
  /** The controller is about to finish a node outside the wave: pause again now, whatever the wave's state. */
  | {readonly kind: 'cut'; readonly outside: readonly string[]};

/** What is left of the wave's timeout (0: no limit) after `elapsed` ms; at least 1 ms, so that it still times out. */
function remaining(timeoutMs: number, elapsed: () => number): number {
  return timeoutMs > 0 ? Math.max(1, timeoutMs - elapsed()) : 0;
}

/** The wave the step hands the controller, as one sync under the recorded strategy would start it. */
interface PredictedWave {
  readonly record: PausedStrategy;
  /** The nodes of the surge pods that sync would create. */
  readonly predicted: readonly string[];
  readonly number: number;
  readonly total: number;
  /** The in-place view of the same state (any budget): old pods left, the update hash. */
  readonly inPlace: ReturnType<StepRun['plan']>;
}

/** The wave as the step follows it: the nodes the controller's first surge pods landed on, and how they stand. */
interface FollowedWave {
  readonly predicted: readonly string[];
  /** Pods there before the resume (uid, or name): any other pod belongs to the controller's wave. */
  readonly known: ReadonlySet<string>;
  readonly waveNodes: string[];
  landing: WaveLanding | undefined;
  /** Set when the step paused again because the controller was about to finish nodes outside the wave. */
  outside: readonly string[] | undefined;
  failure: unknown;
  readonly reportNode: (node: NodeLanding) => void;
}

export async function runControllerWave(run: StepRun, state: ClusterState): Promise<StepResult> {
  const {ref} = run;
  const wave = predictControllerWave(run, state);
  if ('kind' in wave) return wave;
  const {record, predicted, number, total, inPlace} = wave;
  run.emit({kind: 'controller-plan', number, total, nodes: predicted, strategy: record, dryRun: run.options.dryRun === true});
  if (run.options.dryRun) return {kind: 'DaemonSetStep', daemonSet: ref, outcome: 'dry-run', waves: [], oldLeft: inPlace.oldLeft, controllerNodes: predicted};
  if (!(await run.confirmed({number, total, deletions: predicted.length, controller: true}))) {
    return {kind: 'DaemonSetStep', daemonSet: ref, outcome: 'declined', waves: [], oldLeft: inPlace.oldLeft};
  }
  run.checkAbort('before the wave started; nothing was changed');
  const {known, elapsed} = await handOver(run, record);
  const followed = newFollowedWave(run, predicted, known);
  await followWave(run, followed);
  // Whatever happened (Ctrl-C included), pause again before anything else; the wave is recorded only if the
  // controller started something.
  const started = followed.waveNodes.length > 0;
  await repause(run, record, started ? {number, total, hash: inPlace.template.hash} : undefined);
  run.emit({kind: 'repaused'});
  if (started) run.emit({kind: 'recorded', step: number, of: total});
  if (followed.failure) throw followed.failure;
  await settleAfterPause(run);
  return await landWave(run, followed, {number, total, elapsed});
}

// upstream: pkg/controller/daemon/update.go rollingUpdate (maxSurge > 0: surge pods within maxSurge, on nodes whose
// old pod is available)
// The wave is what one sync of the controller under the recorded strategy would create, as far as it can be told
// (upstream picks surge nodes in map order, so the live controller may pick others; the count holds). Returns the
// step's result instead when there is nothing to hand over (done, or a dry run has nothing to show).
function predictControllerWave(run: StepRun, state: ClusterState): PredictedWave | StepResult {
  const {ref} = run;
  const ds = state.daemonSet;
  const pause = pauseStateOf(ds);
  if (pause.kind !== 'paused')
    throw problemError(
      ref,
      pause.kind === 'invalid' ? {kind: 'invalid-record', error: pause.error} : {kind: 'not-paused', type: ds.spec.updateStrategy?.type ?? ''},
    );
  const record = pause.strategy;
  if (!allowsSurge(withStrategy(ds, record))) {
    throw new InputError(
      `--controller hands a surge wave to the controller, but the recorded strategy of ${describeRef(ref)} has maxSurge ${record.rollingUpdate.maxSurge}: step without --controller`,
    );
  }
  const sync = syncDaemonSet({...state, daemonSet: withStrategy(ds, record)}, {now: run.session.clock.now()});
  const predicted = sync.actions.create.map((c) => c.node);
  // Only for counting old pods and what holds the budget: any in-place budget will do.
  const inPlace = run.plan(state, 1);
  const done = stepsSoFar(ds, inPlace.template.hash);
  const total = done + 1 + Math.ceil(Math.max(0, inPlace.allOldLeft - predicted.length) / Math.max(1, predicted.length));
  if (predicted.length === 0) {
    if (inPlace.done) return {kind: 'DaemonSetStep', daemonSet: ref, outcome: 'done', waves: [], oldLeft: 0};
    throw new RolloutStuckError(
      `the controller would start no surge pod for ${describeRef(ref)} under the recorded strategy (maxSurge ${record.rollingUpdate.maxSurge}): ${inPlace.unavailable.map((u) => `${u.node} (${u.reason})`).join('; ') || 'nothing to do'}`,
    );
  }
  return {record, predicted, number: done + 1, total, inPlace};
}

/**
 * Hands the wave to the controller: following, every stream open, before the resume, so that each sync of the
 * controller from then on reaches the step in order as it happens (a stream still starting would hand over a burst
 * later, when the controller may be waves ahead). Returns the pods there before the resume, and the wave's clock.
 */
async function handOver(run: StepRun, record: PausedStrategy): Promise<{known: ReadonlySet<string>; elapsed: () => number}> {
  if (!(await run.follow().untilStreaming(STREAMS_OPEN_MS))) {
    throw new ClusterUnreachableError(`the watch of ${describeRef(run.ref)} did not start within ${formatMs(STREAMS_OPEN_MS)}: nothing was changed`);
  }
  await run.lease.acquire();
  const before = await run.read();
  const known = new Set(before.pods.map((pod) => pod.metadata.uid ?? pod.metadata.name));
  const elapsed = stopwatch();
  await run.retryingWrite('resume the DaemonSet for one controller wave', () =>
    run.session.writer.patchDaemonSet(run.ref, (current) => {
      run.checkDaemonSet(current);
      return {type: 'merge', body: resumeBody(record.rollingUpdate)};
    }),
  );
  run.emit({kind: 'resumed'});
  return {known, elapsed};
}

function newFollowedWave(run: StepRun, predicted: readonly string[], known: ReadonlySet<string>): FollowedWave {
  const reported = new Map<string, string>();
  return {
    predicted,
    known,
    waveNodes: [],
    landing: undefined,
    outside: undefined,
    failure: undefined,
    // Each node's landing is told once per change.
    reportNode: (node) => {
      const key = `${node.state}/${node.pod ?? ''}/${node.problem ?? ''}`;
      if (reported.get(node.node) === key) return;
      reported.set(node.node, key);
      run.emit({kind: 'node', landing: node});
    },
  };
}

/**
 * Follows the controller through its wave until the wave is done, the controller reaches past it, or the timeout
 * (counted from the hand-over); retires old pods the controller leaves. Never throws: a failure is kept in `failure`
 * so that the step pauses again first.
 */
async function followWave(run: StepRun, wave: FollowedWave): Promise<void> {
  const waiting = stopwatch();
  try {
    for (;;) {
      const outcome = await run.follow().until<WaveVerdict>((current) => judgeWave(run, wave, current), {
        ...run.waitOptions(() =>
          earliest(
            (wave.landing?.nodes ?? []).filter((n) => n.state === 'ready' || n.state === 'surging').map((n) => n.availableAt ?? Number.NEGATIVE_INFINITY),
          ),
        ),
        timeoutMs: remaining(run.options.timeoutMs, waiting),
      });
      if (outcome === 'timeout') {
        const pending = (wave.landing?.nodes ?? []).filter((n) => n.state !== 'available' && n.state !== 'gone');
        wave.failure = new RolloutStuckError(
          `the controller's wave did not become available within ${formatMs(run.options.timeoutMs)}: ${pending.map(describeLanding).join('; ') || `${wave.waveNodes.length} of ${wave.predicted.length} surge pods started`}; the DaemonSet was paused again`,
        );
        return;
      }
      if (outcome.kind === 'retire') {
        await retireOldPods(run, outcome.nodes);
        continue;
      }
      if (outcome.kind === 'cut') wave.outside = outcome.outside;
      return;
    }
  } catch (error) {
    wave.failure = error;
  }
}

// upstream: pkg/controller/daemon/update.go rollingUpdate (maxSurge > 0: an old pod goes once its node's new pod is
// available; the next surge pods start only then)
// One look at the cluster during the wave: the wave's nodes are those of the first surge pods the controller creates,
// as many as predicted. Done once the controller is done with each; cut short before it finishes a node outside the
// wave; otherwise the old pods next to new ones available for a grace period are retired by the step.
function judgeWave(run: StepRun, wave: FollowedWave, current: ClusterState): WaveVerdict | undefined {
  // Not run.checkDaemonSet: the DaemonSet is RollingUpdate on purpose now; only the template must hold.
  run.checkTemplate(current.daemonSet);
  const {waveNodes, predicted} = wave;
  const fresh = current.pods.filter((pod) => !wave.known.has(pod.metadata.uid ?? pod.metadata.name));
  // Its first sync after the resume creates them together; it surges elsewhere only once one of them is available.
  for (const pod of [...fresh].sort(comparePodsByCreationTimestampAndPhase)) {
    const node = getTargetNodeName(pod);
    if (node !== undefined && !waveNodes.includes(node) && waveNodes.length < predicted.length) waveNodes.push(node);
  }
  const now = run.session.clock.now();
  const landing = waveLanding(current, waveNodes, now);
  wave.landing = landing;
  for (const node of landing.nodes) wave.reportNode(node);
  if (waveNodes.length >= predicted.length && doneByController(landing)) return {kind: 'done', landing};
  // A surge pod next to an old pod outside the wave: the controller took a wave node as done and carries on.
  // It finishes such a node only once that pod is available, so the step pauses again before: as soon as the
  // pod is Ready (minReadySeconds still to go), or at once when minReadySeconds is 0.
  const others = nodesOf(fresh.filter((pod) => !pod.metadata.deletionTimestamp)).filter((node) => !waveNodes.includes(node));
  const beyond = waveLanding(current, others, now).nodes.filter((n) => n.state === 'surging');
  const minReady = current.daemonSet.spec.minReadySeconds ?? 0;
  if (beyond.some((n) => minReady === 0 || n.availableAt !== undefined)) return {kind: 'cut', outside: beyond.map((n) => n.node)};
  // The controller past the wave needs no grace: retire what is available at once.
  const grace = beyond.length > 0 ? 0 : RETIRE_GRACE_MS;
  const retire = landing.nodes.filter((n) => n.state === 'surging' && n.availableAt !== undefined && n.availableAt + grace <= now);
  return retire.length > 0 ? {kind: 'retire', nodes: retire} : undefined;
}

// upstream: pkg/controller/daemon/daemon_controller.go podsShouldBeOnNode (without surge, only the oldest pod of a
// node stays)
// Paused again, the controller removes surge pods it started meanwhile; the step waits until no node runs two pods,
// on a state that already shows the pause (the watch may lag behind the patch).
async function settleAfterPause(run: StepRun): Promise<void> {
  let crowded: readonly string[] = [];
  const settled = await run.follow().until(
    (current) => {
      const now = waveLanding(current, [], run.session.clock.now());
      if (now.crowded.length > 0 && now.crowded.join() !== crowded.join()) run.emit({kind: 'pruning', nodes: now.crowded});
      crowded = now.crowded;
      return now.crowded.length === 0 && current.daemonSet.spec.updateStrategy?.type === 'OnDelete' ? true : undefined;
    },
    // Not abortable: Ctrl-C during this wait would leave two pods on a node for the controller to sort out.
    {timeoutMs: run.options.timeoutMs, tickMs: run.tickMs},
  );
  if (settled === 'timeout')
    throw new RolloutStuckError(`paused again, but nodes still run two pods after ${formatMs(run.options.timeoutMs)}: ${crowded.join(', ')}`);
}

/**
 * The wave judged again once paused: a wave node whose surge pod the controller removed (the wave cut short) runs its
 * old pod; one the controller retired the old pod of has a new pod it judged available (see DONE_BY_CONTROLLER).
 * Landed, the wave is reported; otherwise the step fails with what the controller did instead.
 */
async function landWave(run: StepRun, wave: FollowedWave, step: {number: number; total: number; elapsed: () => number}): Promise<StepResult> {
  const paused = await run.read();
  const after = run.plan(paused, 1);
  const seconds = Math.round(step.elapsed() / 1000);
  const planned: StepDeletion[] = [];
  const nodes = waveLanding(paused, wave.waveNodes, run.session.clock.now()).nodes.map((node): NodeLanding =>
    node.state === 'ready' ? {...node, state: 'available'} : node,
  );
  for (const node of nodes) wave.reportNode(node);
  const landed = nodes.every((node) => node.state === 'available' || node.state === 'gone');
  if (!landed) {
    const pending = (wave.landing?.nodes ?? []).filter((n) => n.state !== 'available' && n.state !== 'gone' && n.state !== 'ready');
    const updated = nodes.filter((n) => n.state === 'available' || n.state === 'gone').map((n) => n.node);
    throw new RolloutStuckError(
      `the controller moved on to ${(wave.outside ?? []).join(', ') || 'other nodes'} before the wave landed (${pending.map(describeLanding).join('; ') || 'not available'}); the DaemonSet was paused again with ${updated.length > 0 ? `${updated.join(', ')} updated` : 'no node updated'}, and the surge pods it started are removed`,
    );
  }
  const {number, total} = step;
  run.reports.push({number, total, planned, deleted: [], kept: [], nodes, landed, seconds});
  run.emit({kind: 'landed', number, seconds, oldLeft: after.allOldLeft});
  return {kind: 'DaemonSetStep', daemonSet: run.ref, outcome: after.done ? 'done' : 'stepped', waves: run.reports, oldLeft: after.oldLeft};
}

function nodesOf(pods: readonly Pod[]): string[] {
  return [...new Set(pods.flatMap((pod) => getTargetNodeName(pod) ?? []))].sort();
}

/**
 * The controller's own surge rule (docs/design/reconcile.md §8.4: an old pod goes once the new pod of its node is available),
 * applied by the plugin when the controller has not looked again: upstream re-syncs after minReadySeconds only
 * while the oldest pod of a node is not yet available, which a surge pod never is. Availability-neutral: the
 * node keeps its available new pod. Same preconditions as every deletion.
 */
async function retireOldPods(run: StepRun, nodes: readonly NodeLanding[]): Promise<void> {
  for (const node of nodes) {
    const old = node.oldPod!;
    try {
      await run.retryingWrite(`delete pod ${old.name}`, () =>
        run.session.writer.deletePod(run.ref.namespace, old.name, {uid: old.uid ?? '', ...(old.resourceVersion ? {resourceVersion: old.resourceVersion} : {})}),
      );
      run.emit({kind: 'deleted', pod: old.name, node: node.node});
    } catch (error) {
      // Gone already, or changed since the read: the next state decides again.
      if (!(error instanceof NotFoundError) && !(error instanceof ConflictError)) throw error;
    }
  }
}

/** Pauses again with the record (its step count advanced when the wave is recorded) and the progress annotation. */
async function repause(run: StepRun, record: PausedStrategy, progress: {number: number; total: number; hash: string} | undefined): Promise<void> {
  await run.retryingWrite('pause the DaemonSet again', () =>
    run.session.writer.patchDaemonSet(run.ref, (current) => {
      const state = pauseStateOf(current);
      if (state.kind === 'paused' && !progress) return undefined;
      const spec = state.kind === 'paused' ? {} : {spec: pauseBody(record)['spec']};
      if (!progress) return {type: 'merge', body: pauseBody(record)};
      const strategy = state.kind === 'paused' ? state.strategy : record;
      const at = rfc3339(run.session.clock.now());
      const body = stepProgressBody(
        {step: progress.number, of: progress.total, at, hash: progress.hash},
        formatPausedStrategy({...strategy, steps: progress.number}),
      );
      return {type: 'merge', body: {...body, ...spec}};
    }),
  );
}
