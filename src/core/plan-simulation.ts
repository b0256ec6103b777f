// The planner's fold: the controller's sync (the same engine that syncDaemonSet runs once) applied wave after wave
// to a simulated world until the rollout converges. The simulated world: deletions finish at once (or after
// podDeletion); pods the controller creates become ready at once (or after podStart) and available after
// minReadySeconds, unless a host port is still taken by the node's other pod; pods that are not ready now stay
// not ready; a pod deleted on a node that is not Ready stays, terminating; no node is in failed-pod backoff.
import {isNodeReady, isPodStarting, isStuckTerminating} from './availability.js';
import {byName, type DaemonPod, readyDaemonPod} from './daemon-pods.js';
import type {EngineSync, ReconcileEngine} from './engine.js';
import {MinHeap} from './min-heap.js';
import type {PodTimings} from './timing.js';
import {engineFor, type ReconcileInput} from './sync.js';
import type {PodCreation, PodDeletion, Wave} from './types.js';

/** What the fold found: the waves, and what the plan's explanations read of the way there. */
export interface SimulatedRollout {
  readonly engine: ReconcileEngine;
  /** The first sync's actions, whether or not they change anything. */
  readonly nextSync: {readonly create: readonly PodCreation[]; readonly delete: readonly PodDeletion[]} | undefined;
  readonly waves: readonly Wave[];
  /** The first wave (1-based) that touches each node, by node index (as in the input's slots); 0 for none. */
  readonly waveOfNode: ArrayLike<number>;
  /** The first deletion on each node, as `pod, wave N`, by node index. */
  readonly deletedBy: readonly ({readonly pod: string; readonly wave: number} | undefined)[];
  /** Nodes whose new pod waits for its old one to free a host port. */
  readonly hostPortWaiting: ReadonlySet<number>;
  readonly arbitrary: boolean;
  readonly splitBySync: boolean;
  readonly rollingUpdateError: string | undefined;
  readonly stoppedEarly: boolean;
  readonly maxSyncs: number;
  /** The simulated instant at which the fold stopped, epoch ms. */
  readonly end: number;
  readonly lastDeletionAt: number | undefined;
  readonly hostPorts: boolean;
}

export interface SimulationOptions {
  readonly now: number;
  readonly maxSyncs?: number;
  readonly timings?: PodTimings;
}

/** A queued instant that only makes the controller sync (a deletion finishing), for no node in particular. */
const SYNC_ONLY = -1;

/** One sync's actions in the contract's order: creations and deletions each by node name. */
interface SyncActions {
  readonly create: readonly PodCreation[];
  readonly delete: readonly PodDeletion[];
}

const NO_INDEXES: readonly number[] = [];

/**
 * The fold's state between syncs. Invariant: the engine's slots are the cluster as the controller's informer would
 * show it at `t`; `events` holds every later instant at which a node's pods change by themselves (a pod turns Ready
 * or available, a deletion finishes), so that between two events a sync would issue nothing new.
 */
class RolloutSimulation {
  readonly engine: ReconcileEngine;
  private readonly events = new TimeQueue();
  private readonly startMs: number;
  private readonly deletionMs: number;
  private readonly minReadyMs: number;
  readonly hostPorts: boolean;
  /** Nodes whose planned pod is starting: when it turns Ready. */
  private readonly starts = new Map<number, number>();
  /** Pods on nodes that are not Ready: deleting one does not make it go. */
  private readonly unconfirmed = new Map<string, {index: number; pod: DaemonPod}>();
  readonly waves: Wave[] = [];
  // By node index, not name: a plan records one entry per wave.
  readonly waveOfNode: Int32Array;
  readonly deletedBy: ({pod: string; wave: number} | undefined)[];
  readonly hostPortWaiting = new Set<number>();
  nextSync: SyncActions | undefined;
  arbitrary = false;
  splitBySync = false;
  rollingUpdateError: string | undefined;
  lastDeletionAt: number | undefined;
  t: number;

  constructor(
    private readonly input: ReconcileInput,
    private readonly now: number,
    timings: PodTimings | undefined,
  ) {
    this.engine = engineFor(input, {backoffAcrossSyncs: false});
    this.waveOfNode = new Int32Array(input.slots.length);
    this.deletedBy = new Array<{pod: string; wave: number} | undefined>(input.slots.length);
    this.t = now;
    this.startMs = timings?.podStart.ms ?? 0;
    this.deletionMs = timings?.podDeletion.ms ?? 0;
    this.minReadyMs = Math.max(0, input.target.minReadySeconds) * 1000;
    this.hostPorts = templateUsesHostPorts(input);
    input.slots.forEach((slot, index) => {
      for (let i = 0; i < slot.pods.length; i++) {
        const at = slot.pods[i]!.availableAt;
        if (at !== undefined && at > now && Number.isFinite(at)) this.events.push(at, index);
      }
      if (slot.node && !isNodeReady(slot.node)) for (const pod of slot.pods) if (!pod.terminating) this.unconfirmed.set(pod.name, {index, pod});
    });
  }

  // upstream: pkg/controller/daemon/daemon_controller.go syncDaemonSet (manage, then update.go rollingUpdate)
  // One sync: manage's creations and deletions (podsShouldBeOnNode per node, issued by syncNodes), then the
  // rolling update's on the state after them. Listed by node name, whatever order the controller issues them in;
  // a deletion on a node that is not Ready is said to stay terminating.
  sync(): SyncActions {
    const step = this.engine.sync(this.t);
    const create = byNode(step.manage.create, step.rollingUpdate.create);
    let del = byNode(step.manage.delete, step.rollingUpdate.delete);
    if (this.unconfirmed.size > 0) del = del.map((d) => (this.unconfirmed.has(d.pod) ? {...d, staysTerminating: true} : d));
    if (!this.nextSync) {
      this.nextSync = {create, delete: del};
      this.splitBySync = issues(step.manage) && issues(step.rollingUpdate);
    }
    if (step.rollingUpdateError) this.rollingUpdateError = step.rollingUpdateError;
    if (step.rollingUpdateDecision?.arbitraryChoice) this.arbitrary = true;
    if (this.unconfirmed.size > 0) this.keepUnconfirmed(del);
    return {create, delete: del};
  }

  // A pod deleted on a node that is not Ready stays, terminating: no kubelet confirms the deletion, and the
  // rolling update keeps counting the node as unavailable.
  private keepUnconfirmed(del: readonly PodDeletion[]): void {
    for (const d of del) {
      const kept = this.unconfirmed.get(d.pod);
      if (kept === undefined) continue;
      this.unconfirmed.delete(d.pod);
      const metadata = {...kept.pod.pod.metadata, deletionTimestamp: new Date(this.t).toISOString()};
      this.engine.addPod(kept.index, {...kept.pod, terminating: true, availableAt: undefined, pod: {...kept.pod.pod, metadata}});
    }
  }

  /**
   * The next state after a sync that issued something (expectations: the controller looks again once its informer
   * has seen the pods it created and deleted): the wave is recorded, the nodes it touched start their new pods.
   */
  recordWave({create, delete: del}: SyncActions): void {
    const wave = this.waves.length + 1;
    this.waves.push({create, delete: del, at: (this.t - this.now) / 1000});
    for (const d of del) this.deletedBy[this.engine.indexOf(d.node)!] ??= {pod: d.pod, wave};
    if (del.length > 0) {
      this.lastDeletionAt = this.t;
      // The controller looks again when the deleted pods are gone (their DELETED events), not at once.
      if (this.deletionMs > 0) this.events.push(this.t + this.deletionMs, SYNC_ONLY);
    }
    // Where the new pod needs the old one's host port, it starts only once that deletion has finished.
    const deletedOn = this.hostPorts && this.startMs > 0 ? new Set(del.map((d) => this.engine.indexOf(d.node)!)) : undefined;
    const waiting = this.hostPortWaiting.size > 0 ? [...this.hostPortWaiting] : NO_INDEXES;
    for (const index of this.touchedBy(create, del)) this.startPodsOn(index, wave, deletedOn);
    for (const index of waiting) this.startPodsOn(index, wave, deletedOn);
  }

  /** The nodes a wave touched, each once, creations first (most waves touch one node: no set then). */
  private touchedBy(create: readonly PodCreation[], del: readonly PodDeletion[]): readonly number[] {
    if (create.length + del.length === 1) return [this.engine.indexOf((create[0] ?? del[0])!.node)!];
    const touched = new Set<number>();
    for (const c of create) touched.add(this.engine.indexOf(c.node)!);
    for (const d of del) touched.add(this.engine.indexOf(d.node)!);
    return [...touched];
  }

  /** A node the wave touched: its new pod turns Ready now, or podStart later (later still if it waits for a host port). */
  private startPodsOn(index: number, wave: number, deletedOn: ReadonlySet<number> | undefined): void {
    if (this.waveOfNode[index] === 0) this.waveOfNode[index] = wave;
    if (this.startMs === 0) {
      this.settlePlannedPods(index);
      return;
    }
    if (this.starts.has(index) || !this.engine.slots[index]!.pods.some((pod) => pod.planned && !pod.ready)) return;
    // A host port is free only once the old pod is gone.
    const at = this.t + this.startMs + (deletedOn?.has(index) ? this.deletionMs : 0);
    this.starts.set(index, at);
    this.events.push(at, index);
  }

  /** After a wave, the pods it created start: ready now, available after minReadySeconds, unless a host port is still held. */
  private settlePlannedPods(index: number): void {
    const pods = this.engine.slots[index]!.pods;
    this.hostPortWaiting.delete(index);
    for (const pod of pods) {
      if (!pod.planned || pod.ready) continue;
      if (this.hostPorts && pods.some((other) => other !== pod && !other.terminating)) {
        this.hostPortWaiting.add(index);
        continue;
      }
      const availableAt = this.minReadyMs === 0 ? Number.NEGATIVE_INFINITY : this.t + this.minReadyMs;
      this.engine.replacePod(index, pod, readyDaemonPod(pod, 'Running', availableAt));
      if (this.minReadyMs > 0) this.events.push(availableAt, index);
    }
  }

  /**
   * Once, after the first sync: pods that were already terminating finish, like the deletions the plan issues, except
   * where nothing will confirm the deletion (a node that is not Ready, or a grace period long over); pods that are
   * merely starting come up, like the ones the plan creates. True when that changed any node.
   */
  settleExistingPods(): boolean {
    let dropped = false;
    const {now, engine} = this;
    engine.slots.forEach((_, index) => {
      const node = this.input.slots[index]!.node;
      if (engine.removePods(index, (pod) => pod.terminating && !isStuckTerminating(pod.pod, node, now))) dropped = true;
      // The list as it was: replacing a pod below gives the node a new one.
      const pods = engine.slots[index]!.pods;
      for (let i = 0; i < pods.length; i++) {
        const pod = pods[i]!;
        if (pod.planned || pod.ready || !isPodStarting(pod.pod, node, now)) continue;
        // A pod already starting is Ready podStart after its creation (or now, if that has passed).
        const readyAt = Math.max(now, Date.parse(pod.pod.metadata.creationTimestamp ?? '') + this.startMs || now);
        const availableAt = this.minReadyMs === 0 && readyAt === now ? Number.NEGATIVE_INFINITY : readyAt + this.minReadyMs;
        engine.replacePod(index, pod, readyDaemonPod(pod, pod.phase, availableAt));
        if (availableAt > now) this.events.push(availableAt, index);
        dropped = true;
      }
    });
    return dropped;
  }

  /** Whether the fold syncs again at once: a wave changed the state and no deletion it issued is still finishing. */
  syncsAgainAtOnce(actions: SyncActions): boolean {
    return actions.create.length + actions.delete.length > 0 && !(actions.delete.length > 0 && this.deletionMs > 0);
  }

  /** Moves the clock to the next queued instant and marks the nodes whose pods change then; false when none is left. */
  advance(): boolean {
    const next = this.events.popUntilNext(this.t);
    if (!next) return false;
    this.t = next.at;
    for (const index of next.indexes) {
      if (index === SYNC_ONLY) continue;
      this.engine.touch(index);
      const startAt = this.starts.get(index);
      if (startAt !== undefined && startAt <= this.t) {
        this.starts.delete(index);
        this.settlePlannedPods(index);
      }
    }
    return true;
  }
}

/**
 * Syncs until nothing more happens: each sync's actions form a wave, the simulated world moves on to the next instant
 * at which a pod changes by itself, and the controller syncs again. Stops after maxSyncs (far above what any rollout
 * needs) and reports it.
 */
export function simulateRollout(input: ReconcileInput, options: SimulationOptions, skipped: boolean): SimulatedRollout {
  const sim = new RolloutSimulation(input, options.now, options.timings);
  const maxSyncs = options.maxSyncs ?? 4 * input.slots.length + 1000;
  let syncs = 0;
  let stoppedEarly = false;
  let existingSettled = false;
  // Being deleted, or selecting all pods: upstream's sync returns at once, and so does every later one.
  while (!skipped) {
    if (++syncs > maxSyncs) {
      stoppedEarly = true;
      break;
    }
    const actions = sim.sync();
    const changed = actions.create.length + actions.delete.length > 0;
    if (changed) sim.recordWave(actions);
    if (!existingSettled) {
      existingSettled = true;
      if (sim.settleExistingPods() && !changed) continue;
    }
    if (sim.syncsAgainAtOnce(actions)) continue;
    if (!sim.advance()) break;
  }
  return {
    engine: sim.engine,
    nextSync: sim.nextSync,
    waves: sim.waves,
    waveOfNode: sim.waveOfNode,
    deletedBy: sim.deletedBy,
    hostPortWaiting: sim.hostPortWaiting,
    arbitrary: sim.arbitrary,
    splitBySync: sim.splitBySync,
    rollingUpdateError: sim.rollingUpdateError,
    stoppedEarly,
    maxSyncs,
    end: sim.t,
    lastDeletionAt: sim.lastDeletionAt,
    hostPorts: sim.hostPorts,
  };
}

function issues(half: EngineSync['manage']): boolean {
  return half.create.length + half.delete.length > 0;
}

/** Two halves of a sync's actions, together by node name (each half is already in node order, or nearly). */
function byNode<T extends {readonly node: string}>(a: readonly T[], b: readonly T[]): readonly T[] {
  // A half's list is the engine's own, made for this sync and read-only: kept as it is when already in order.
  if (b.length === 0) return a.length < 2 ? a : [...a].sort((x, y) => byName(x.node, y.node));
  if (a.length === 0) return b.length < 2 ? b : [...b].sort((x, y) => byName(x.node, y.node));
  return [...a, ...b].sort((x, y) => byName(x.node, y.node));
}

function templateUsesHostPorts(input: ReconcileInput): boolean {
  const spec = input.ds.spec.template.spec;
  return [...(spec.containers ?? []), ...(spec.initContainers ?? [])].some((c) => (c.ports ?? []).some((p) => (p.hostPort ?? 0) > 0));
}

/** Availability instants still to come, in time order. */
class TimeQueue {
  private readonly heap = new MinHeap<{at: number; index: number}>((a, b) => a.at < b.at);

  push(at: number, index: number): void {
    this.heap.push({at, index});
  }

  /** The next instant after `t` and every node with an event at that instant. */
  popUntilNext(t: number): {at: number; indexes: number[]} | undefined {
    while (this.heap.size > 0 && this.heap.peek()!.at <= t) this.heap.pop();
    const first = this.heap.pop();
    if (!first) return undefined;
    const indexes = [first.index];
    while (this.heap.size > 0 && this.heap.peek()!.at === first.at) indexes.push(this.heap.pop()!.index);
    return {at: first.at, indexes};
  }
}
