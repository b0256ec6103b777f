// One controller sync over the node slots, reusable across syncs: `syncDaemonSet` runs it once on the
// cluster as it is, `planRollout` keeps it alive and folds it over simulated waves. Per-node decisions are
// cached and recomputed only for nodes whose pods changed or whose pods crossed an availability instant,
// so a 5,000-node rollout with maxUnavailable 1 (about 10,000 syncs) stays linear.
import {type DaemonPod, type NodeSlot, type UpdateTarget, compareDaemonPods, toDaemonPod} from './daemon-pods.js';
import {type BackoffEntry, type NodeManageDecision, type PodToDelete, getUnscheduledPodsWithoutNode, podsShouldBeOnNode} from './manage.js';
import {newDaemonPod} from './pod-template.js';
import {formatRfc3339} from './rfc3339.js';
import {decideBefore121, type RollingUpdateDecision, RollingUpdateTally, tallyEntryFor} from './rolling-update.js';
import {type ControllerMinor, hasSurge, NEWEST_MODELLED_MINOR} from './versions.js';
import type {DaemonSet, Mutable, NodeEligibility, ObjectMeta, Pod, PodCreation, PodDeletion, PodSpec, RolloutBudgets} from './types.js';

/** A half-sync that issues nothing (shared: the lists are read-only). */
export const NO_ACTIONS: {readonly create: readonly PodCreation[]; readonly delete: readonly PodDeletion[]} = {create: [], delete: []};

/** Every stand-in pod's status: they are never changed, only replaced, so one object serves them all. */
const PENDING = {phase: 'Pending'} as const;

/** upstream: pkg/controller/daemon/daemon_controller.go BurstReplicas, the cap of one syncNodes call. */
export const BURST_REPLICAS = 250;

export interface EngineSettings {
  readonly ds: DaemonSet;
  readonly target: UpdateTarget;
  /** RollingUpdate strategy: rollingUpdate runs after manage. */
  readonly rollingUpdate: boolean;
  /** AllowsSurge. */
  readonly surge: boolean;
  /** Budgets, or the reason rollingUpdate fails (an invalid intstr). */
  readonly budgets: RolloutBudgets | {readonly error: string};
  readonly burstReplicas?: number;
  /** The Kubernetes minor whose controller is modelled (default: the newest modelled). */
  readonly controllerMinor?: ControllerMinor;
  readonly backoff?: ReadonlyMap<string, BackoffEntry>;
  /**
   * False for the planner: it cannot see the controller's memory, so every sync starts with no node in
   * backoff (two failed pods on one node still go one per sync, as within one upstream sync).
   */
  readonly backoffAcrossSyncs?: boolean;
}

export interface EngineSync {
  readonly manage: {readonly create: readonly PodCreation[]; readonly delete: readonly PodDeletion[]};
  readonly rollingUpdate: {readonly create: readonly PodCreation[]; readonly delete: readonly PodDeletion[]};
  readonly rollingUpdateDecision?: RollingUpdateDecision;
  readonly rollingUpdateError?: string;
  /** Nodes whose failed pods wait out a backoff; sync again after this many ms. */
  readonly requeueAfterMs?: number;
  readonly failedPodNodes: readonly string[];
}

/** Manage's half of a sync, and what it leaves for the caller. */
interface ManageHalf {
  readonly manage: EngineSync['manage'];
  readonly failedPodNodes: readonly string[];
  readonly requeueAfterMs: number | undefined;
}

/** Manage with no node to act on (the usual sync of a rolling update): nothing issued, nothing to share. */
const IDLE_MANAGE: ManageHalf = {manage: NO_ACTIONS, failedPodNodes: [], requeueAfterMs: undefined};

interface MutableSlot {
  readonly name: string;
  readonly exists: boolean;
  readonly eligibility: NodeEligibility;
  /** Replaced, never changed in place: the engine starts on the input's own lists, copying none of them. */
  pods: readonly DaemonPod[];
}

export class ReconcileEngine {
  readonly slots: MutableSlot[];
  private readonly indexByName = new Map<string, number>();
  private readonly tally: RollingUpdateTally;
  private readonly manageDecisions: (NodeManageDecision | undefined)[];
  private readonly manageActive = new Set<number>();
  private readonly dirty: DirtyNodes;
  private readonly backoff: Map<string, BackoffEntry>;
  readonly desired: number;
  private plannedCount = 0;
  private plannedTemplate: Pod | undefined;
  private plannedView: DaemonPod | undefined;

  constructor(
    private readonly settings: EngineSettings,
    slots: readonly NodeSlot[],
  ) {
    this.slots = slots.map((slot) => ({name: slot.name, exists: slot.node !== undefined, eligibility: slot.eligibility, pods: slot.pods}));
    this.tally = new RollingUpdateTally(this.slots.length);
    this.dirty = new DirtyNodes(this.slots.length);
    this.manageDecisions = new Array<NodeManageDecision | undefined>(this.slots.length);
    this.backoff = new Map(settings.backoff ?? []);
    let desired = 0;
    this.slots.forEach((slot, index) => {
      this.indexByName.set(slot.name, index);
      if (slot.exists && slot.eligibility.shouldRun) desired++;
      this.dirty.add(index);
    });
    this.desired = desired;
  }

  indexOf(nodeName: string): number | undefined {
    return this.indexByName.get(nodeName);
  }

  /** Marks a node for re-evaluation (its pods changed, or one of them crossed its availability instant). */
  touch(index: number): void {
    this.dirty.add(index);
  }

  private refresh(now: number): void {
    if (this.dirty.size === 0) return;
    const surge = this.settings.surge;
    const context = {surge, now};
    for (const index of this.dirty.take()) {
      const slot = this.slots[index]!;
      if (slot.exists) {
        const backoff = this.backoff.size > 0 ? this.backoff.get(slot.name) : undefined;
        const decision = podsShouldBeOnNode(slot.eligibility, slot.pods.length > 0, slot.pods, backoff ? {surge, now, backoff} : context);
        this.manageDecisions[index] = decision;
        if (decision.create || decision.delete.length > 0 || decision.requeueAfterMs !== undefined) this.manageActive.add(index);
        else this.manageActive.delete(index);
      } else {
        // A target that is not in the node list: manage only deletes its never-bound pods.
        const orphans = getUnscheduledPodsWithoutNode({name: slot.name, node: undefined, eligibility: slot.eligibility, pods: slot.pods});
        this.manageDecisions[index] = {create: false, delete: orphans};
        if (orphans.length > 0) this.manageActive.add(index);
        else this.manageActive.delete(index);
      }
      this.tally.set(index, tallyEntryFor(slot, now));
    }
  }

  /** One sync at `now` in the observed model: manage's actions, then rollingUpdate on the state after them. */
  sync(now: number): EngineSync {
    if (this.settings.backoffAcrossSyncs === false && this.backoff.size > 0) {
      for (const name of this.backoff.keys()) this.dirty.add(this.indexByName.get(name)!);
      this.backoff.clear();
    }
    this.refresh(now);
    const burst = this.settings.burstReplicas ?? BURST_REPLICAS;

    const {manage, failedPodNodes, requeueAfterMs} = this.manageActive.size === 0 ? IDLE_MANAGE : this.manage(burst, now);
    const result: Mutable<EngineSync> = {manage, rollingUpdate: NO_ACTIONS, failedPodNodes};
    if (requeueAfterMs !== undefined) result.requeueAfterMs = requeueAfterMs;
    if (!this.settings.rollingUpdate) return result;
    if ('error' in this.settings.budgets) {
      result.rollingUpdateError = this.settings.budgets.error;
      return result;
    }
    this.refresh(now);
    const decision = this.decideRollingUpdate(this.settings.budgets, now);
    result.rollingUpdateDecision = decision;
    if (decision.error) result.rollingUpdateError = decision.error;
    else if (decision.create.length + decision.delete.length > 0)
      result.rollingUpdate = this.apply(upTo(decision.create, burst), upTo(decision.delete, burst), now);
    return result;
  }

  // upstream: pkg/controller/daemon/daemon_controller.go manage (podsShouldBeOnNode per node, then syncNodes)
  // Existing nodes in name order, then the vanished-node orphans (sorted after them); each list capped at the burst.
  private manage(burst: number, now: number): ManageHalf {
    const creates: number[] = [];
    const deletes: (PodToDelete & {index: number})[] = [];
    const failedPodNodes: string[] = [];
    let requeueAfterMs: number | undefined;
    for (const index of [...this.manageActive].sort((a, b) => a - b)) {
      const decision = this.manageDecisions[index]!;
      const slot = this.slots[index]!;
      if (decision.create) creates.push(index);
      for (const d of decision.delete) deletes.push({...d, index});
      if (decision.backoff) this.backoff.set(slot.name, decision.backoff);
      if (decision.delete.some((d) => d.reason === 'failed')) failedPodNodes.push(slot.name);
      if (decision.requeueAfterMs !== undefined) requeueAfterMs = Math.min(requeueAfterMs ?? Infinity, decision.requeueAfterMs);
    }
    const manage = creates.length + deletes.length > 0 ? this.apply(upTo(creates, burst), upTo(deletes, burst), now) : NO_ACTIONS;
    return {manage, failedPodNodes, requeueAfterMs};
  }

  /** The rollingUpdate decision for the current state without applying anything (for explanations). */
  peekRollingUpdate(now: number): RollingUpdateDecision | undefined {
    if (!this.settings.rollingUpdate || 'error' in this.settings.budgets) return undefined;
    this.refresh(now);
    return this.decideRollingUpdate(this.settings.budgets, now);
  }

  private decideRollingUpdate(budgets: RolloutBudgets, now: number): RollingUpdateDecision {
    const minor = this.settings.controllerMinor ?? NEWEST_MODELLED_MINOR;
    if (!hasSurge(minor)) return decideBefore121(this.slots, budgets.maxUnavailable, now);
    return this.tally.decide(budgets, this.desired, minor);
  }

  /**
   * Applies actions to the engine's view: deleted pods are gone at once, created pods appear as new,
   * not yet ready pods carrying the update hash (the observed model of docs/design/reconcile.md §2).
   */
  private apply(createIdx: readonly number[], deleteList: readonly (PodToDelete & {index: number})[], now: number) {
    const create: PodCreation[] = [];
    const del: PodDeletion[] = [];
    for (const d of deleteList) {
      const slot = this.slots[d.index]!;
      slot.pods = slot.pods.filter((p) => p !== d.pod);
      this.dirty.add(d.index);
      del.push(podDeletion(d, slot.name));
    }
    for (const index of createIdx) {
      const slot = this.slots[index]!;
      const planned = this.plannedPod(slot.name, now);
      slot.pods = slot.pods.length === 0 ? [planned] : [...slot.pods, planned].sort(compareDaemonPods);
      this.dirty.add(index);
      create.push({node: slot.name});
    }
    return {create, delete: del};
  }

  /**
   * A stand-in for the pod the controller creates; the real one gets a random name from the API server.
   * All stand-ins share one template (built once: a wave can create thousands); only the name, node and
   * creation time differ, which is all the ordering and grouping rules read.
   */
  private plannedPod(nodeName: string, now: number): DaemonPod {
    this.plannedTemplate ??= newDaemonPod(this.settings.ds, '', this.settings.target.hash);
    const template = this.plannedTemplate;
    this.plannedCount++;
    // Copied, then changed: V8 builds a spread with overrides on a slow path, a few µs for each stand-in.
    const metadata: Mutable<ObjectMeta> = Object.assign({}, template.metadata);
    metadata.name = `${template.metadata.generateName ?? ''}(new-${this.plannedCount})`;
    metadata.creationTimestamp = isoSeconds(now);
    const spec: Mutable<PodSpec> = Object.assign({}, template.spec);
    spec.nodeName = nodeName;
    const pod: Pod = Object.assign({}, template, {metadata, spec, status: PENDING});
    // Every stand-in reads the same as the first (same labels, Pending, not ready): only the pod and its name differ.
    this.plannedView ??= toDaemonPod(pod, this.settings.target, true);
    const view = this.plannedView;
    return {
      pod,
      name: pod.metadata.name,
      hashMatches: view.hashMatches,
      updated: view.updated,
      terminating: view.terminating,
      phase: view.phase,
      ready: view.ready,
      availableAt: view.availableAt,
      planned: true,
    };
  }

  /** Replaces one pod of a node (e.g. a planned pod that became ready) and marks the node for re-evaluation. */
  replacePod(index: number, previous: DaemonPod, next: DaemonPod): void {
    const slot = this.slots[index]!;
    slot.pods = slot.pods.map((p) => (p === previous ? next : p));
    this.dirty.add(index);
  }

  /** Puts a pod back on a node (one whose deletion nothing will confirm: it stays, terminating). */
  addPod(index: number, pod: DaemonPod): void {
    const slot = this.slots[index]!;
    slot.pods = [...slot.pods, pod].sort(compareDaemonPods);
    this.dirty.add(index);
  }

  removePods(index: number, predicate: (pod: DaemonPod) => boolean): boolean {
    const slot = this.slots[index]!;
    // Nearly always nothing goes: no copy of the list then.
    if (!slot.pods.some(predicate)) return false;
    slot.pods = slot.pods.filter((p) => !predicate(p));
    this.dirty.add(index);
    return true;
  }

  backoffEntries(): ReadonlyMap<string, BackoffEntry> {
    return this.backoff;
  }
}

/** The nodes to re-evaluate at the next refresh, each once; a list and a mark per node, as a sync touches one or two. */
class DirtyNodes {
  private readonly marked: Uint8Array;
  private list: number[] = [];

  constructor(capacity: number) {
    this.marked = new Uint8Array(capacity);
  }

  get size(): number {
    return this.list.length;
  }

  add(index: number): void {
    if (this.marked[index]) return;
    this.marked[index] = 1;
    this.list.push(index);
  }

  /** The marked nodes, in the order they were marked; none is marked afterwards. */
  take(): readonly number[] {
    const taken = this.list;
    this.list = [];
    for (const index of taken) this.marked[index] = 0;
    return taken;
  }
}

/** The first `n` items; the list itself when it is no longer (the usual case: a wave is far below the burst). */
function upTo<T>(items: readonly T[], n: number): readonly T[] {
  return items.length <= n ? items : items.slice(0, n);
}

/** A deletion as the contract lists it; a planned pod has no uid or resourceVersion to hold the DELETE to. */
function podDeletion(d: PodToDelete, node: string): PodDeletion {
  const meta = d.pod.pod.metadata;
  const deletion: Mutable<PodDeletion> = {pod: d.pod.name, node, reason: d.reason};
  if (meta.uid && !d.pod.planned) deletion.uid = meta.uid;
  if (meta.resourceVersion && !d.pod.planned) deletion.resourceVersion = meta.resourceVersion;
  return deletion;
}

/** RFC3339 with one-second precision, as the API server stamps creationTimestamp. */
let lastIsoSecond: {readonly second: number; readonly text: string} | undefined;

/** RFC3339 in whole seconds; the last one is remembered, as a wave creates its pods at one time. */
function isoSeconds(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (lastIsoSecond?.second !== second) lastIsoSecond = {second, text: formatRfc3339(second * 1000)};
  return lastIsoSecond.text;
}
