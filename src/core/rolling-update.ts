// The rolling-update half of a sync (upstream pkg/controller/daemon/update.go rollingUpdate).
//
// Upstream walks a Go map of node -> pods, so which candidates it picks when the budget is short is
// arbitrary; only the counts are fixed. The core walks nodes by name instead. With that order the
// upstream loop reduces to counts plus "the first k candidates by node name", which is what
// RollingUpdateTally keeps: one sync builds a tally over every node, the planner keeps one tally alive
// across waves and only re-classifies the nodes a wave touched. Both ask the same `decide`.
import {type DaemonPod, isDaemonPodAvailable} from './daemon-pods.js';
import type {PodToDelete} from './manage.js';
import type {NodeEligibility, RolloutBudgets} from './types.js';
import {type ControllerMinor, countsUnavailableOldPods} from './versions.js';

// upstream: pkg/controller/daemon/update.go findUpdatedPodsOnNode
/** At most one new and one old non-terminating pod per node; `ok` is false when there are two of a kind. */
export function findUpdatedPodsOnNode(pods: readonly DaemonPod[]): {newPod?: DaemonPod; oldPod?: DaemonPod; ok: boolean} {
  let newPod: DaemonPod | undefined;
  let oldPod: DaemonPod | undefined;
  for (let i = 0; i < pods.length; i++) {
    const pod = pods[i]!;
    if (pod.terminating) continue;
    if (pod.updated) {
      if (newPod) return TWO_OF_A_KIND;
      newPod = pod;
    } else {
      if (oldPod) return TWO_OF_A_KIND;
      oldPod = pod;
    }
  }
  // One literal per shape, no spreads: this runs for every node at every simulated sync of a plan.
  if (newPod && oldPod) return {newPod, oldPod, ok: true};
  if (newPod) return {newPod, ok: true};
  if (oldPod) return {oldPod, ok: true};
  return NOTHING_ON_NODE;
}

const NOTHING_ON_NODE = {ok: true} as const;
const TWO_OF_A_KIND = {ok: false} as const;

export type NodeUpdateClass =
  | {readonly kind: 'not-ok'}
  | {readonly kind: 'empty'}
  | {readonly kind: 'new-only'; readonly newPod: DaemonPod; readonly newAvailable: boolean}
  | {readonly kind: 'old-only'; readonly oldPod: DaemonPod; readonly oldAvailable: boolean}
  | {readonly kind: 'both'; readonly oldPod: DaemonPod; readonly newPod: DaemonPod; readonly oldAvailable: boolean; readonly newAvailable: boolean};

export function classifyNodeForUpdate(pods: readonly DaemonPod[], now: number): NodeUpdateClass {
  const {newPod, oldPod, ok} = findUpdatedPodsOnNode(pods);
  if (!ok) return {kind: 'not-ok'};
  if (newPod && oldPod) {
    return {kind: 'both', oldPod, newPod, oldAvailable: isDaemonPodAvailable(oldPod, now), newAvailable: isDaemonPodAvailable(newPod, now)};
  }
  if (newPod) return {kind: 'new-only', newPod, newAvailable: isDaemonPodAvailable(newPod, now)};
  if (oldPod) return {kind: 'old-only', oldPod, oldAvailable: isDaemonPodAvailable(oldPod, now)};
  return {kind: 'empty'};
}

/**
 * Whether a node uses up budget: it is counted in numUnavailable (maxSurge == 0) or numSurge (maxSurge > 0).
 * The tally keeps the same facts as counters; explanations ask node by node.
 */
export function countsAgainstBudget(cls: NodeUpdateClass, surge: boolean): boolean {
  if (surge) return cls.kind === 'not-ok' || (cls.kind === 'both' && !cls.newAvailable);
  return !((cls.kind === 'new-only' && cls.newAvailable) || (cls.kind === 'old-only' && cls.oldAvailable));
}

/** What rollingUpdate knows of one node: its class, whether it should run the daemon, whether the Node object exists. */
export interface TallyEntry {
  readonly cls: NodeUpdateClass;
  readonly shouldRun: boolean;
  readonly nodeExists: boolean;
}

export interface RollingUpdateDecision {
  /** Node indexes that get a new pod, in the order syncNodes would receive them. */
  readonly create: readonly number[];
  readonly delete: readonly (PodToDelete & {readonly index: number})[];
  /** Set when rollingUpdate fails and issues nothing (e.g. an old pod bound to a node that no longer exists). */
  readonly error?: string;
  /** True when the budget cut a candidate list short, so the pick by node name stands in for upstream's arbitrary one. */
  readonly arbitraryChoice: boolean;
  /** Counts behind the decision, for explanations. */
  readonly numUnavailable: number;
  readonly numSurge: number;
  readonly waiting: number;
}

/**
 * A node's entry in rollingUpdate's node-to-pods map, or undefined when the map has none: the map holds every node
 * with daemon pods, plus every existing node that should run the daemon (docs/design/reconcile.md §8.1).
 */
export function tallyEntryFor(
  slot: {readonly pods: readonly DaemonPod[]; readonly exists: boolean; readonly eligibility: NodeEligibility},
  now: number,
): TallyEntry | undefined {
  const shouldRun = slot.exists && slot.eligibility.shouldRun;
  if (slot.pods.length === 0 && !shouldRun) return undefined;
  return {cls: classifyNodeForUpdate(slot.pods, now), shouldRun, nodeExists: slot.exists};
}

const NO_INDEXES: readonly number[] = [];

/** A set of node indexes that can return its first k members in index (node name) order cheaply. */
class OrderedIndexSet {
  private readonly member: Uint8Array;
  private low = 0;
  size = 0;
  constructor(capacity: number) {
    this.member = new Uint8Array(capacity);
  }
  add(i: number): void {
    if (this.member[i]) return;
    this.member[i] = 1;
    this.size++;
    if (i < this.low) this.low = i;
  }
  remove(i: number): void {
    if (!this.member[i]) return;
    this.member[i] = 0;
    this.size--;
  }
  /** Read-only: the empty answer, the usual one, is shared. */
  first(k: number): readonly number[] {
    if (k <= 0 || this.size === 0) return NO_INDEXES;
    const out: number[] = [];
    const n = this.member.length;
    let i = this.low;
    while (i < n && !this.member[i]) i++;
    this.low = i;
    for (; i < n && out.length < k; i++) if (this.member[i]) out.push(i);
    return out;
  }
  all(): readonly number[] {
    return this.first(this.size);
  }
}

const enum Bucket {
  NotOk,
  Empty,
  Both,
  NewUnavailable,
  OldUnavailable,
  BothNewUnavailable,
  Available,
  OldOnlyMissingNode,
  Count,
}

/**
 * Per-node contributions to rollingUpdate's counters and candidate lists, kept up to date entry by entry.
 * An index without an entry is a node that is not in the controller's node-to-pods map.
 */
export class RollingUpdateTally {
  private readonly entries: (TallyEntry | undefined)[];
  private readonly counts = new Int32Array(Bucket.Count);
  // maxSurge == 0
  private readonly unavailableOld = new OrderedIndexSet(0);
  private readonly availableOld = new OrderedIndexSet(0);
  // maxSurge > 0
  private readonly retireUnavailable = new OrderedIndexSet(0);
  private readonly replaceable = new OrderedIndexSet(0);
  private readonly replaceNow = new OrderedIndexSet(0);
  private readonly surgeCandidates = new OrderedIndexSet(0);
  private readonly notEligibleOld = new OrderedIndexSet(0);

  constructor(size: number) {
    this.entries = new Array<TallyEntry | undefined>(size);
    this.unavailableOld = new OrderedIndexSet(size);
    this.availableOld = new OrderedIndexSet(size);
    this.retireUnavailable = new OrderedIndexSet(size);
    this.replaceable = new OrderedIndexSet(size);
    this.replaceNow = new OrderedIndexSet(size);
    this.surgeCandidates = new OrderedIndexSet(size);
    this.notEligibleOld = new OrderedIndexSet(size);
  }

  entry(index: number): TallyEntry | undefined {
    return this.entries[index];
  }

  set(index: number, entry: TallyEntry | undefined): void {
    const previous = this.entries[index];
    if (previous) this.account(index, previous, -1);
    this.entries[index] = entry;
    if (entry) this.account(index, entry, +1);
  }

  private bump(bucket: Bucket, sign: 1 | -1): void {
    this.counts[bucket] = this.counts[bucket]! + sign;
  }

  /** Adds (sign 1) or removes (sign -1) a node's index in one candidate set, when `on`; a method, not a closure per call. */
  private toggle(set: OrderedIndexSet, index: number, on: boolean, sign: 1 | -1): void {
    if (!on) return;
    if (sign > 0) set.add(index);
    else set.remove(index);
  }

  private account(index: number, {cls, shouldRun, nodeExists}: TallyEntry, sign: 1 | -1): void {
    switch (cls.kind) {
      case 'not-ok':
        this.bump(Bucket.NotOk, sign);
        return;
      case 'empty':
        this.bump(Bucket.Empty, sign);
        return;
      case 'new-only':
        if (cls.newAvailable) this.bump(Bucket.Available, sign);
        else this.bump(Bucket.NewUnavailable, sign);
        return;
      case 'both':
        this.bump(Bucket.Both, sign);
        if (cls.oldAvailable) this.bump(Bucket.Available, sign);
        if (!cls.newAvailable) this.bump(Bucket.BothNewUnavailable, sign);
        this.toggle(this.replaceable, index, cls.newAvailable, sign);
        return;
      case 'old-only':
        if (!nodeExists) this.bump(Bucket.OldOnlyMissingNode, sign);
        if (cls.oldAvailable) {
          this.bump(Bucket.Available, sign);
          this.toggle(this.availableOld, index, true, sign);
          this.toggle(shouldRun ? this.surgeCandidates : this.notEligibleOld, index, true, sign);
        } else {
          this.bump(Bucket.OldUnavailable, sign);
          this.toggle(this.unavailableOld, index, true, sign);
          this.toggle(shouldRun ? this.replaceNow : this.retireUnavailable, index, true, sign);
        }
        return;
    }
  }

  /**
   * The rollingUpdate decision for the current entries (controllers 1.21 and later). `desired` is the number of
   * nodes that should run the daemon.
   */
  decide(budgets: RolloutBudgets, desired: number, minor?: ControllerMinor): RollingUpdateDecision {
    return budgets.maxSurge === 0 ? this.decideWithoutSurge(budgets.maxUnavailable, minor) : this.decideWithSurge(budgets.maxSurge, desired);
  }

  // upstream: pkg/controller/daemon/update.go rollingUpdate (maxSurge == 0)
  // Every unavailable old pod is replaced whatever the budget; available old pods go only within what
  // the unavailable nodes (empty, old+new, unavailable new or old, two of a kind) leave of maxUnavailable.
  // Before 1.31 an unavailable old pod did not count as unavailable.
  private decideWithoutSurge(maxUnavailable: number, minor: ControllerMinor | undefined): RollingUpdateDecision {
    return this.decideWithin(maxUnavailable, undefined, minor === undefined || countsUnavailableOldPods(minor));
  }

  /**
   * The maxSurge == 0 decision with only the old pods of some nodes allowed to go (`ds-rollout step --nodes`):
   * unavailability is still counted over every node, so a restricted wave never deletes more than the budget
   * the whole DaemonSet leaves. Without `only` it is exactly the controller's decision.
   */
  decideWithin(maxUnavailable: number, only: ((index: number) => boolean) | undefined, countUnavailableOld = true): RollingUpdateDecision {
    const c = this.counts;
    const numUnavailable =
      c[Bucket.NotOk]! + c[Bucket.Empty]! + c[Bucket.Both]! + c[Bucket.NewUnavailable]! + (countUnavailableOld ? c[Bucket.OldUnavailable]! : 0);
    const candidates = only ? this.availableOld.all().filter(only) : undefined;
    const candidateCount = candidates ? candidates.length : this.availableOld.size;
    const remaining = Math.max(0, Math.min(maxUnavailable - numUnavailable, candidateCount));
    const unavailableOld = only ? this.unavailableOld.all().filter(only) : this.unavailableOld.all();
    const deletions = unavailableOld.map((index) => this.oldPodDeletion(index, 'outdated'));
    const picked = candidates ? candidates.slice(0, remaining) : this.availableOld.first(remaining);
    for (const index of picked) deletions.push(this.oldPodDeletion(index, 'outdated'));
    return {
      create: NO_INDEXES,
      delete: deletions,
      arbitraryChoice: remaining > 0 && remaining < candidateCount,
      numUnavailable,
      numSurge: 0,
      waiting: candidateCount - remaining,
    };
  }

  // upstream: pkg/controller/daemon/update.go rollingUpdate (maxSurge > 0)
  // New pods are created next to old ones within maxSurge (unavailable old pods get one at once, beyond
  // the budget); an old pod goes once its node's new pod is available. Old pods on nodes the template no
  // longer fits are retired only while more pods are available than desired.
  private decideWithSurge(maxSurge: number, desired: number): RollingUpdateDecision {
    const c = this.counts;
    const numSurge = c[Bucket.NotOk]! + c[Bucket.BothNewUnavailable]!;
    if (c[Bucket.OldOnlyMissingNode]! > 0) {
      return {
        create: NO_INDEXES,
        delete: [],
        error: 'a daemon pod is bound to a node that no longer exists',
        arbitraryChoice: false,
        numUnavailable: 0,
        numSurge,
        waiting: 0,
      };
    }
    const numAvailable = c[Bucket.Available]!;
    const remaining = Math.max(0, Math.min(maxSurge - numSurge, this.surgeCandidates.size));
    const create = [...this.replaceNow.all(), ...this.surgeCandidates.first(remaining)];

    const retire = this.retireUnavailable.all().map((index) => this.oldPodDeletion(index, 'retired'));
    const replace = this.replaceable.all().map((index) => this.oldPodDeletion(index, 'replaced'));
    const deletions = mergeByIndex(retire, replace);
    const extra = numAvailable - desired;
    const retireAvailable = extra > 0 ? Math.min(extra, this.notEligibleOld.size) : 0;
    for (const index of this.notEligibleOld.first(retireAvailable)) deletions.push(this.oldPodDeletion(index, 'retired'));
    return {
      create,
      delete: deletions,
      arbitraryChoice: (remaining > 0 && remaining < this.surgeCandidates.size) || (retireAvailable > 0 && retireAvailable < this.notEligibleOld.size),
      numUnavailable: 0,
      numSurge,
      waiting: this.surgeCandidates.size - remaining,
    };
  }

  private oldPodDeletion(index: number, reason: 'outdated' | 'retired' | 'replaced'): PodToDelete & {index: number} {
    const cls = this.entries[index]!.cls;
    if (cls.kind !== 'old-only' && cls.kind !== 'both') throw new Error(`bug: node ${index} has no old pod`);
    return {pod: cls.oldPod, reason, index};
  }
}

/** What the pre-1.21 rolling update reads of one node: the node list's view and every daemon pod targeting it. */
export interface LegacySlot {
  readonly exists: boolean;
  readonly eligibility: NodeEligibility;
  readonly pods: readonly DaemonPod[];
}

// upstream (1.20 and before): pkg/controller/daemon/update.go rollingUpdate, getUnavailableNumbers
// A node that should run the daemon is unavailable unless one of its pods is available and not terminating.
// Every old pod is a candidate, terminating ones included: an unavailable one that is not terminating goes
// at once; an available one, terminating or not, goes while fewer than maxUnavailable nodes are unavailable,
// and each one taken counts as one more. So a pod still Ready while it terminates can be deleted again,
// spending budget that frees nothing. No maxSurge, and no both-zero fallback.
export function decideBefore121(slots: readonly LegacySlot[], maxUnavailable: number, now: number): RollingUpdateDecision {
  let numUnavailable = 0;
  const deletions: (PodToDelete & {index: number})[] = [];
  const availableOld: (PodToDelete & {index: number})[] = [];
  slots.forEach((slot, index) => {
    if (slot.exists && slot.eligibility.shouldRun && !slot.pods.some((pod) => !pod.terminating && isDaemonPodAvailable(pod, now))) numUnavailable++;
    for (const pod of slot.pods) {
      if (pod.updated) continue;
      if (isDaemonPodAvailable(pod, now)) availableOld.push({pod, reason: 'outdated', index});
      else if (!pod.terminating) deletions.push({pod, reason: 'outdated', index});
    }
  });
  const remaining = Math.max(0, Math.min(maxUnavailable - numUnavailable, availableOld.length));
  const picked = availableOld.slice(0, remaining);
  return {
    create: NO_INDEXES,
    delete: mergeByIndex(deletions, picked),
    arbitraryChoice: remaining > 0 && remaining < availableOld.length,
    numUnavailable,
    numSurge: 0,
    waiting: availableOld.length - remaining,
  };
}

function mergeByIndex<T extends {index: number}>(a: T[], b: T[]): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]!.index < b[j]!.index)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}
