// The simulated cluster's DaemonSet controller. It decides nothing itself: every sync reads the store,
// calls the core's syncDaemonSet (the same function ds-plan and step use) and carries out the result
// the way upstream's syncNodes / constructHistory / updateDaemonSetStatus do, with events.
import {
  CONTROLLER_REVISION_HASH_LABEL,
  getControllerOf,
  isPodReady,
  labelSelectorMatches,
  newDaemonPod,
  syncDaemonSet,
  type SyncResult,
} from '../core/index.js';
import type {BackoffEntry} from '../core/index.js';
import type {ClusterState, ControllerRevision, DaemonSet, OwnerReference, Pod} from '../core/index.js';
import type {CancelTimer, SimClock} from './clock.js';
import {formatTimestamp} from './clock.js';
import {isAlreadyExists, isConflict, isNotFound} from './status-errors.js';
import type {Store, StoreEvent} from './store.js';

export interface DaemonSetControllerOptions {
  /** Where unexpected errors go (default: console.error). */
  readonly onError?: (error: unknown) => void;
}

type Key = string; // namespace/name

function keyOf(namespace: string | undefined, name: string): Key {
  return `${namespace ?? 'default'}/${name}`;
}

export class DaemonSetController {
  private readonly queue = new Set<Key>();
  private flushTimer: CancelTimer | undefined;
  private readonly requeueTimers = new Map<Key, CancelTimer>();
  private readonly availabilityTimers = new Set<CancelTimer>();
  /** Failed-pod backoff per DaemonSet uid and observed generation (upstream keys it the same way). */
  private readonly backoff = new Map<string, ReadonlyMap<string, BackoffEntry>>();
  private unsubscribe: (() => void) | undefined;
  private eventSeq = 0;
  /** Number of syncs run and their wall-clock cost, for tests and benchmarks. */
  syncCount = 0;
  syncTotalMs = 0;
  syncMaxMs = 0;

  constructor(
    private readonly store: Store,
    private readonly clock: SimClock,
    private readonly options: DaemonSetControllerOptions = {},
  ) {}

  start(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.store.subscribe((event) => this.route(event));
    for (const ds of this.store.list('daemonsets').items) this.enqueue(keyOf(ds.metadata.namespace, ds.metadata.name));
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.flushTimer?.();
    this.flushTimer = undefined;
    for (const cancel of this.requeueTimers.values()) cancel();
    this.requeueTimers.clear();
    for (const cancel of this.availabilityTimers) cancel();
    this.availabilityTimers.clear();
  }

  /** The informer event handlers: which DaemonSets an object's change concerns. */
  private route(event: StoreEvent): void {
    const obj = event.object;
    switch (event.resource) {
      case 'daemonsets':
        this.enqueue(keyOf(obj.metadata.namespace, obj.metadata.name));
        return;
      case 'nodes':
        for (const ds of this.store.list('daemonsets').items) this.enqueue(keyOf(ds.metadata.namespace, ds.metadata.name));
        return;
      case 'pods':
      case 'controllerrevisions': {
        if (event.resource === 'pods') this.lookAgainWhenAvailable(obj as unknown as Pod, event.oldObject as unknown as Pod | undefined);
        for (const version of [obj, event.oldObject]) {
          if (!version) continue;
          const owner = getControllerOf(version.metadata);
          if (owner) {
            if (owner.kind === 'DaemonSet') this.enqueue(keyOf(version.metadata.namespace, owner.name));
            continue;
          }
          // An orphan may be adopted by any DaemonSet of its namespace whose selector matches it.
          for (const ds of this.store.list('daemonsets', {namespace: version.metadata.namespace ?? 'default'}).items) {
            if (labelSelectorMatches(ds.spec.selector, version.metadata.labels)) this.enqueue(keyOf(ds.metadata.namespace, ds.metadata.name));
          }
        }
        return;
      }
      default:
        return;
    }
  }

  enqueue(key: Key): void {
    this.queue.add(key);
    // Coalesce a burst of events into one sync per DaemonSet, like the workqueue does.
    this.flushTimer ??= this.clock.setTimer(0, () => {
      this.flushTimer = undefined;
      this.flush();
    });
  }

  /** Syncs every queued DaemonSet once; changes made meanwhile queue the next round. */
  flush(): void {
    const keys = [...this.queue];
    this.queue.clear();
    for (const key of keys) {
      try {
        this.syncKey(key);
      } catch (error) {
        (this.options.onError ?? ((e) => console.error(e)))(error);
        this.requeueAfter(key, 1000);
      }
    }
  }

  /**
   * A pod that just turned Ready becomes available minReadySeconds later, and no event says so: look again then
   * (plus a second), as upstream's updatePod does. Each such look is its own timer, like the workqueue's AddAfter.
   */
  private lookAgainWhenAvailable(pod: Pod, old: Pod | undefined): void {
    if (!old || isPodReady(old) || !isPodReady(pod)) return;
    const owner = getControllerOf(pod.metadata);
    if (owner?.kind !== 'DaemonSet') return;
    const ds = this.store.get('daemonsets', pod.metadata.namespace ?? 'default', owner.name) as DaemonSet | undefined;
    const minReady = ds?.spec.minReadySeconds ?? 0;
    if (!ds || minReady <= 0) return;
    const key = keyOf(ds.metadata.namespace, ds.metadata.name);
    const cancel = this.clock.setTimer(minReady * 1000 + 1000, () => {
      this.availabilityTimers.delete(cancel);
      this.enqueue(key);
    });
    this.availabilityTimers.add(cancel);
  }

  private requeueAfter(key: Key, ms: number): void {
    this.requeueTimers.get(key)?.();
    this.requeueTimers.set(
      key,
      this.clock.setTimer(ms, () => {
        this.requeueTimers.delete(key);
        this.enqueue(key);
      }),
    );
  }

  // upstream: pkg/controller/daemon/daemon_controller.go syncDaemonSet (the effects)
  syncKey(key: Key): void {
    const [namespace, name] = key.split('/') as [string, string];
    const ds = this.store.get('daemonsets', namespace, name) as DaemonSet | undefined;
    if (!ds) return;
    const started = performance.now();
    try {
      this.syncDaemonSet(key, ds);
    } finally {
      const took = performance.now() - started;
      this.syncCount++;
      this.syncTotalMs += took;
      this.syncMaxMs = Math.max(this.syncMaxMs, took);
    }
  }

  private syncDaemonSet(key: Key, ds: DaemonSet): void {
    const [namespace] = key.split('/') as [string, string];
    const now = this.clock.now();
    const backoffKey = `${ds.metadata.uid}/${ds.status?.observedGeneration ?? 0}`;
    const state: ClusterState = {
      daemonSet: ds,
      nodes: this.store.list('nodes').items,
      pods: this.store.list('pods', {namespace}).items as readonly Pod[],
      revisions: this.store.list('controllerrevisions', {namespace}).items as readonly ControllerRevision[],
    };
    const result = syncDaemonSet(state, {now, ...(this.backoff.has(backoffKey) ? {failedPodBackoff: this.backoff.get(backoffKey)!} : {})});
    for (const e of result.events) this.recordEvent(ds, e.type, e.reason, e.message);
    if (result.skipped || !result.input) return;
    this.backoff.set(backoffKey, result.failedPodBackoff);

    if (!this.applyHistory(ds, result)) return;
    this.applyClaims(ds, result);
    this.applyActions(ds, result);
    for (const revision of result.cleanupHistory) this.deleteQuietly('controllerrevisions', namespace, revision);
    this.writeStatus(ds, result);

    if (result.requeueAfterMs !== undefined) this.requeueAfter(key, result.requeueAfterMs);
    const minReady = ds.spec.minReadySeconds ?? 0;
    if (minReady > 0 && result.status && result.status.numberReady !== result.status.numberAvailable) this.requeueAfter(key, minReady * 1000);
  }

  /** constructHistory's writes. False when the sync must stop (a revision name collision). */
  private applyHistory(ds: DaemonSet, result: SyncResult): boolean {
    const history = result.input!.history;
    const namespace = ds.metadata.namespace ?? 'default';
    for (const {name, hash} of [...history.labelOld, ...(history.labelHash ? [history.labelHash] : [])]) {
      this.modifyQuietly('controllerrevisions', namespace, name, (cr) => ({
        ...cr,
        metadata: {...cr.metadata, labels: {...cr.metadata.labels, [CONTROLLER_REVISION_HASH_LABEL]: hash}},
      }));
    }
    if (history.collision) {
      this.bumpCollisionCount(ds);
      return false;
    }
    if (history.create) {
      try {
        this.store.create(history.create);
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
        // Same name, different data: upstream bumps collisionCount and retries with a new hash.
        this.bumpCollisionCount(ds);
        return false;
      }
    }
    if (history.renumber) {
      const {name, to} = history.renumber;
      this.modifyQuietly('controllerrevisions', namespace, name, (cr) => ({...cr, revision: to}));
    }
    for (const duplicate of history.deleteDuplicates) this.deleteQuietly('controllerrevisions', namespace, duplicate);
    for (const {pod, hash} of history.relabelPods) {
      this.modifyQuietly('pods', namespace, pod, (p) => ({
        ...p,
        metadata: {...p.metadata, labels: {...p.metadata.labels, [CONTROLLER_REVISION_HASH_LABEL]: hash}},
      }));
    }
    return true;
  }

  private bumpCollisionCount(ds: DaemonSet): void {
    this.store.patchStatus('daemonsets', ds.metadata.namespace, ds.metadata.name, (status) => ({
      ...(status as object),
      collisionCount: ((status as {collisionCount?: number} | undefined)?.collisionCount ?? 0) + 1,
    }));
  }

  /** Adoption and release of pods and revisions (ClaimObject's patches). */
  private applyClaims(ds: DaemonSet, result: SyncResult): void {
    const input = result.input!;
    const namespace = ds.metadata.namespace ?? 'default';
    const ref: OwnerReference = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      name: ds.metadata.name,
      uid: ds.metadata.uid ?? '',
      controller: true,
      blockOwnerDeletion: true,
    };
    const adopt = (meta: {ownerReferences?: readonly OwnerReference[]}) => [...(meta.ownerReferences ?? []), ref];
    const release = (meta: {ownerReferences?: readonly OwnerReference[]}) => (meta.ownerReferences ?? []).filter((r) => r.uid !== ds.metadata.uid);
    for (const pod of input.adopt)
      this.modifyQuietly('pods', namespace, pod.metadata.name, (p) => ({...p, metadata: {...p.metadata, ownerReferences: adopt(p.metadata)}}));
    for (const pod of input.release)
      this.modifyQuietly('pods', namespace, pod.metadata.name, (p) => ({...p, metadata: {...p.metadata, ownerReferences: release(p.metadata)}}));
    for (const cr of input.adoptRevisions)
      this.modifyQuietly('controllerrevisions', namespace, cr.metadata.name, (c) => ({...c, metadata: {...c.metadata, ownerReferences: adopt(c.metadata)}}));
    for (const cr of input.releaseRevisions)
      this.modifyQuietly('controllerrevisions', namespace, cr.metadata.name, (c) => ({...c, metadata: {...c.metadata, ownerReferences: release(c.metadata)}}));
  }

  // upstream: pkg/controller/daemon/daemon_controller.go syncNodes
  private applyActions(ds: DaemonSet, result: SyncResult): void {
    const namespace = ds.metadata.namespace ?? 'default';
    const hash = result.input!.history.update.hash;
    for (const {node} of result.actions.create) {
      try {
        const pod = this.store.create(newDaemonPod(ds, node, hash), {namespace});
        this.recordEvent(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`);
      } catch (error) {
        this.recordEvent(ds, 'Warning', 'FailedCreate', `Error creating: ${(error as Error).message}`);
      }
    }
    for (const deletion of result.actions.delete) {
      try {
        this.store.delete('pods', namespace, deletion.pod, {...(deletion.uid ? {preconditions: {uid: deletion.uid}} : {})});
        this.recordEvent(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${deletion.pod}`);
      } catch (error) {
        if (isNotFound(error)) continue;
        this.recordEvent(ds, 'Warning', 'FailedDelete', `Error deleting: ${(error as Error).message}`);
      }
    }
  }

  // upstream: pkg/controller/daemon/daemon_controller.go updateDaemonSetStatus / storeDaemonSetStatus
  private writeStatus(ds: DaemonSet, result: SyncResult): void {
    const status = result.status!;
    const current = this.store.get('daemonsets', ds.metadata.namespace, ds.metadata.name) as DaemonSet | undefined;
    if (!current) return;
    this.store.patchStatus('daemonsets', ds.metadata.namespace, ds.metadata.name, (old) => ({
      ...(old as object),
      ...status,
      observedGeneration: current.metadata.generation ?? 0,
    }));
  }

  private recordEvent(ds: DaemonSet, type: string, reason: string, message: string): void {
    const now = formatTimestamp(this.clock.now());
    try {
      this.store.create({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: {name: `${ds.metadata.name}.${(Date.now() * 1000 + this.eventSeq++).toString(16)}`, namespace: ds.metadata.namespace ?? 'default'},
        involvedObject: {
          kind: 'DaemonSet',
          namespace: ds.metadata.namespace,
          name: ds.metadata.name,
          uid: ds.metadata.uid,
          apiVersion: 'apps/v1',
          resourceVersion: ds.metadata.resourceVersion,
        },
        reason,
        message,
        type,
        count: 1,
        firstTimestamp: now,
        lastTimestamp: now,
        source: {component: 'daemonset-controller'},
        reportingComponent: 'daemonset-controller',
      });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }

  private modifyQuietly<T extends {metadata: {labels?: Readonly<Record<string, string>>; ownerReferences?: readonly OwnerReference[]}}>(
    resource: 'pods' | 'controllerrevisions',
    namespace: string,
    name: string,
    fn: (current: T) => object,
  ): void {
    try {
      this.store.modify(resource, namespace, name, (current) => fn(current as unknown as T));
    } catch (error) {
      if (!isNotFound(error) && !isConflict(error)) throw error;
    }
  }

  private deleteQuietly(resource: 'pods' | 'controllerrevisions', namespace: string, name: string): void {
    try {
      this.store.delete(resource, namespace, name);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
