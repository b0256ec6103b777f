// The simulated cluster's object store: what etcd plus the generic registry do for a real apiserver.
// One global resourceVersion counter, uids, timestamps, per-resource strategies (defaulting, generation,
// status subresource rules), no-op detection, graceful deletion and finalizers, a bounded event history
// for watch resumption, and synchronous in-process events for the rest of the simulator.
//
// Stored objects are deeply frozen and shared: callers must copy before changing them (structuredClone,
// or spread the parts they change). Writes are synchronous; listeners run after the write has been
// committed, in resourceVersion order, even when a listener writes (those events are queued).
//
// This is the facade; the parts live beside it by what they serve: store-tables.ts (objects and indexes),
// store-lists.ts (selection and paging), store-events.ts (history and listeners), store-admission.ts (what
// a write must pass, and the state a DELETE leaves).
import {deepEqualJson} from '../core/index.js';
import type {ObjectMeta, Pod} from '../core/index.js';
import {RealClock, type CancelTimer, type SimClock} from './clock.js';
import {Prng, randomSuffix} from './prng.js';
import {RESOURCES, resourceForKind, type ResourceInfo, type ResourceName} from './resources.js';
import {alreadyExists, badRequest, isConflict, isNotFound, namespaceTerminating, notFound} from './status-errors.js';
import {
  admitCreate,
  admitUpdate,
  checkDelete,
  checkUpdatePreconditions,
  deepFreeze,
  finalizable,
  mergeJson,
  metaOf,
  podGrace,
  prepareDeletion,
  type CreateContext,
  type CreateOptions,
  type DeleteOptions,
  type MutableJson,
  type UpdateOptions,
} from './store-admission.js';
import {EventFanOut, EventHistory, StoreEvent, type StoreListener, type SubscribeOptions, type WatchEventType} from './store-events.js';
import {StoreLists, type ListOptions, type ListResult} from './store-lists.js';
import {ObjectTables, StoredObject} from './store-tables.js';
import type {KubeObject, ObjectOf} from './types.js';

export {StoredObject} from './store-tables.js';
export {StoreEvent, type StoreListener, type SubscribeOptions, type WatchEventType} from './store-events.js';
export {labelSelectorParam, type ListOptions, type ListResult} from './store-lists.js';
export {mergeJson, type CreateOptions, type DeleteOptions, type PropagationPolicy, type UpdateOptions} from './store-admission.js';

export interface DeleteResult {
  /** True when the object is gone; false when it now waits for finalizers or graceful termination. */
  readonly deleted: boolean;
  /** The object's final state (deleted) or its current state (pending). */
  readonly object: KubeObject;
}

/**
 * Called when a pod enters graceful termination (deletionTimestamp set, grace > 0), and again if a later
 * DELETE shortens its grace period. Return true to take charge: the handler must eventually call
 * `store.finishPodDeletion(namespace, name, uid)`. Return false to let the store's default finish it
 * after min(grace, podTerminationDelayMs) of simulated time.
 */
export type PodDeletingHook = (pod: Pod, gracePeriodSeconds: number) => boolean;

export interface StoreOptions {
  readonly clock?: SimClock;
  /** Watch events kept for resumption (default 10,000). Older resourceVersions get 410 Expired. */
  readonly historySize?: number;
  /** Seed of the PRNG behind uids and generated names (default 1). */
  readonly seed?: number;
  /** Upper bound on how long a gracefully deleted pod lingers without a kubelet, in simulated ms (default 500). */
  readonly podTerminationDelayMs?: number;
  /** Continue-token snapshots kept (default 32); a token whose snapshot was evicted gets 410 Expired. */
  readonly maxListSnapshots?: number;
  /** Where errors thrown by listeners go (default console.error); listeners never break a write. */
  readonly onListenerError?: (error: unknown, event: StoreEvent) => void;
}

export class Store {
  readonly clock: SimClock;
  private readonly tables = new ObjectTables();
  private rv = 0;
  private readonly history: EventHistory;
  private readonly fanOut: EventFanOut;
  private readonly lists: StoreLists;
  private readonly prng: Prng;
  private readonly terminationTimers = new Map<string, CancelTimer>();
  private podDeletingHook: PodDeletingHook | undefined;
  private closed = false;
  readonly podTerminationDelayMs: number;
  /** What admitCreate needs from the store. */
  private readonly createContext: CreateContext;

  constructor(options: StoreOptions = {}) {
    this.clock = options.clock ?? new RealClock();
    this.history = new EventHistory(options.historySize ?? 10_000);
    this.prng = new Prng(options.seed ?? 1);
    this.podTerminationDelayMs = options.podTerminationDelayMs ?? 500;
    this.lists = new StoreLists(this.tables, options.maxListSnapshots ?? 32);
    this.fanOut = new EventFanOut(options.onListenerError ?? ((error) => console.error('sim store listener failed:', error)));
    this.createContext = {
      now: () => this.clock.now(),
      newUid: () => this.newUid(),
      generateName: (info, namespace, prefix) => this.generateName(info, namespace, prefix),
      checkNamespaceWritable: (info, namespace, name) => this.checkNamespaceWritable(info, namespace, name),
    };
  }

  // ------------------------------------------------------------------------------------------
  // Reads

  /** The newest resourceVersion, as the API prints it. */
  get resourceVersion(): string {
    return String(this.rv);
  }

  /** The oldest resourceVersion a watch can still resume from. */
  get oldestResumableResourceVersion(): string {
    return String(this.history.compactedRv);
  }

  get<R extends ResourceName>(resource: R, namespace: string | undefined, name: string): ObjectOf<R> | undefined {
    return this.getStored(resource, namespace, name)?.object as ObjectOf<R> | undefined;
  }

  getStored(resource: ResourceName, namespace: string | undefined, name: string): StoredObject | undefined {
    return this.tables.table(resource).get(RESOURCES[resource].namespaced ? (namespace ?? '') : '', name);
  }

  /** Like get, but a 404 StatusError when absent. */
  mustGet<R extends ResourceName>(resource: R, namespace: string | undefined, name: string): ObjectOf<R> {
    const found = this.get(resource, namespace, name);
    if (found === undefined) throw notFound(RESOURCES[resource], name);
    return found;
  }

  getByUid(uid: string): {readonly resource: ResourceName; readonly object: KubeObject} | undefined {
    const s = this.tables.getByUid(uid);
    return s === undefined ? undefined : {resource: s.resource, object: s.object};
  }

  /** Objects whose ownerReferences name `uid` (any resource). */
  dependentsOf(uid: string): KubeObject[] {
    return this.tables.dependentsOf(uid).map((s) => s.object);
  }

  /** Pods bound to `nodeName`, any namespace (an index, not a scan). */
  podsOnNode(nodeName: string): Pod[] {
    return this.tables.podsOnNode(nodeName).map((s) => s.object as unknown as Pod);
  }

  count(resource: ResourceName, namespace?: string): number {
    const t = this.tables.table(resource);
    if (namespace === undefined || namespace === '' || !RESOURCES[resource].namespaced) return t.size;
    return t.byNamespace.get(namespace)?.size ?? 0;
  }

  /** Objects of every namespaced resource in `namespace`. */
  countInNamespace(namespace: string): number {
    let n = 0;
    for (const info of Object.values(RESOURCES)) if (info.namespaced) n += this.count(info.resource, namespace);
    return n;
  }

  list<R extends ResourceName>(resource: R, options: ListOptions = {}): ListResult<ObjectOf<R>> {
    const page = this.listStored(resource, options);
    return {...page, items: page.items.map((s) => s.object as unknown as ObjectOf<R>)};
  }

  /** list() for the HTTP layer: the stored versions, whose JSON is cached. */
  listStored(resource: ResourceName, options: ListOptions = {}): ListResult<StoredObject> {
    return this.lists.list(resource, options, this.rv);
  }

  // ------------------------------------------------------------------------------------------
  // Events

  /** Synchronous in-process events. Returns the unsubscribe function. */
  subscribe(listener: StoreListener, options: SubscribeOptions = {}): () => void {
    return this.fanOut.subscribe(listener, options);
  }

  /** Committed events with resourceVersion > rv, oldest first. 410 Expired when rv is older than the history. */
  eventsSince(resourceVersion: number | string): StoreEvent[] {
    return this.history.since(resourceVersion);
  }

  private emit(type: WatchEventType, stored: StoredObject, rv: number, oldObject: KubeObject | undefined): void {
    const event = new StoreEvent(type, stored, rv, oldObject);
    this.history.append(event);
    this.fanOut.publish(event);
  }

  // ------------------------------------------------------------------------------------------
  // Writes

  /** Creates an object (the resource comes from `kind`). 409 AlreadyExists, 404 for a missing namespace, 422 Invalid. */
  create<T extends object>(input: T, options: CreateOptions = {}): T {
    const info = this.infoOf(input);
    const obj = admitCreate(info, input, options, this.createContext);
    const namespace = info.namespaced ? (metaOf(obj)['namespace'] as string) : '';
    const name = metaOf(obj)['name'] as string;
    if (this.tables.table(info.resource).get(namespace, name) !== undefined) throw alreadyExists(info, name);
    if (options.dryRun) return deepFreeze(obj) as unknown as T;
    const rv = ++this.rv;
    // Strategies may have replaced the metadata object (defaulting copies), so look it up again.
    metaOf(obj)['resourceVersion'] = String(rv);
    const stored = new StoredObject(info.resource, deepFreeze(obj) as unknown as KubeObject);
    this.tables.insert(stored, undefined);
    this.emit('ADDED', stored, rv, undefined);
    return stored.object as unknown as T;
  }

  /**
   * Replaces an object (PUT semantics): server-owned metadata is kept, the main resource keeps the stored
   * status and a status update keeps everything but status. A write that changes nothing returns the stored
   * object untouched (same resourceVersion, no event). Removing the last finalizer of a deleting object deletes it.
   */
  update<T extends object>(input: T, options: UpdateOptions = {}): T {
    const info = this.infoOf(input);
    const inMeta = (input as {metadata?: Partial<ObjectMeta>}).metadata ?? {};
    const namespace = info.namespaced ? (inMeta.namespace ?? '') || 'default' : '';
    const name = inMeta.name ?? '';
    const current = this.tables.table(info.resource).get(namespace, name);
    if (current === undefined) throw notFound(info, name);
    const old = current.object;
    checkUpdatePreconditions(info, old, inMeta, options);
    const next = admitUpdate(info, input, old, {namespace, name}, options);
    if (deepEqualJson(next, old)) return old as unknown as T;
    if (options.dryRun) return deepFreeze(next) as unknown as T;
    const rv = ++this.rv;
    metaOf(next)['resourceVersion'] = String(rv);
    const stored = new StoredObject(info.resource, deepFreeze(next) as unknown as KubeObject);
    if (finalizable(stored.object)) {
      this.removeStored(current);
      this.emit('DELETED', stored, rv, old);
      return stored.object as unknown as T;
    }
    this.tables.insert(stored, current);
    this.emit('MODIFIED', stored, rv, old);
    return stored.object as unknown as T;
  }

  /** update() of the status subresource. */
  updateStatus<T extends object>(input: T, options: Omit<UpdateOptions, 'subresource'> = {}): T {
    return this.update(input, {...options, subresource: 'status'});
  }

  /**
   * Read-modify-write without a conflict window (the store is synchronous): `fn` gets the current object
   * (frozen) and returns the next one. 404 when absent.
   */
  modify<R extends ResourceName>(
    resource: R,
    namespace: string | undefined,
    name: string,
    fn: (current: ObjectOf<R>) => object,
    options: Omit<UpdateOptions, 'expectedResourceVersion'> = {},
  ): ObjectOf<R> {
    const current = this.mustGet(resource, namespace, name);
    const next = fn(current) as MutableJson;
    const withRv = {...next, metadata: {...metaOf(next), resourceVersion: (current as KubeObject).metadata.resourceVersion}};
    return this.update(withRv, options) as unknown as ObjectOf<R>;
  }

  /**
   * Changes an object's status: `patch` is either a JSON merge patch (RFC 7386) for `.status`, or a function
   * from the current status to the next. 404 when absent.
   */
  patchStatus<R extends ResourceName>(
    resource: R,
    namespace: string | undefined,
    name: string,
    patch: Readonly<Record<string, unknown>> | ((status: unknown) => unknown),
  ): ObjectOf<R> {
    return this.modify(
      resource,
      namespace,
      name,
      (current) => {
        const status = (current as KubeObject)['status'];
        const next = typeof patch === 'function' ? patch(status) : mergeJson(status, patch);
        return {...(current as KubeObject), status: next};
      },
      {subresource: 'status'},
    );
  }

  /**
   * DELETE with the registry's semantics: preconditions (409), graceful pod termination (deletionTimestamp,
   * then removal by the kubelet hook or the default timer), finalizers (`orphan` / `foregroundDeletion` added
   * for those propagation policies, processed by the garbage collector in gc.ts), otherwise immediate removal.
   */
  delete(resource: ResourceName, namespace: string | undefined, name: string, options: DeleteOptions = {}): DeleteResult {
    const info = RESOURCES[resource];
    const ns = info.namespaced ? (namespace ?? '') : '';
    const current = this.tables.table(resource).get(ns, name);
    if (current === undefined) throw notFound(info, name);
    const old = current.object;
    checkDelete(info, name, old, options);
    const grace = resource === 'pods' ? podGrace(old as unknown as Pod, options.gracePeriodSeconds) : 0;
    const next = structuredClone(old) as unknown as MutableJson;
    const pending = prepareDeletion(info, old, next, options.propagationPolicy, grace, this.clock.now());
    if (pending) {
      if (deepEqualJson(next, old)) return {deleted: false, object: old};
      if (options.dryRun) return {deleted: false, object: deepFreeze(next) as unknown as KubeObject};
      const rv = ++this.rv;
      metaOf(next)['resourceVersion'] = String(rv);
      const stored = new StoredObject(resource, deepFreeze(next) as unknown as KubeObject);
      this.tables.insert(stored, current);
      this.emit('MODIFIED', stored, rv, old);
      if (resource === 'pods' && grace > 0) this.startPodTermination(stored.object as unknown as Pod, grace);
      return {deleted: false, object: stored.object};
    }
    if (options.dryRun) return {deleted: true, object: old};
    const rv = ++this.rv;
    metaOf(next)['resourceVersion'] = String(rv);
    const stored = new StoredObject(resource, deepFreeze(next) as unknown as KubeObject);
    this.removeStored(current);
    this.emit('DELETED', stored, rv, old);
    return {deleted: true, object: stored.object};
  }

  /** Ends a pod's graceful termination (what the kubelet's final grace-0 DELETE does). False if it is already gone or was replaced. */
  finishPodDeletion(namespace: string, name: string, uid: string): boolean {
    try {
      this.delete('pods', namespace, name, {gracePeriodSeconds: 0, preconditions: {uid}});
      return true;
    } catch (err) {
      if (isNotFound(err) || isConflict(err)) return false;
      throw err;
    }
  }

  /** Lets the kubelet simulation take over graceful pod termination (undefined restores the default timer). */
  setPodDeletingHook(hook: PodDeletingHook | undefined): void {
    this.podDeletingHook = hook;
  }

  /**
   * Creates every object (kind required) in order, as create() does; namespaces named by the objects must
   * exist or come first. About 30 µs per pod.
   */
  load(objects: readonly object[], options: Pick<CreateOptions, 'restore'> = {}): void {
    for (const obj of objects) this.create(obj, options);
  }

  /**
   * Goes on with the graceful termination of a restored pod that was already being deleted: the kubelet (or
   * the default timer) finishes it within what is left of its grace period.
   */
  resumePodTermination(namespace: string, name: string): void {
    const pod = this.get('pods', namespace, name) as Pod | undefined;
    if (pod?.metadata.deletionTimestamp === undefined) return;
    const left = Math.max(0, Math.ceil((Date.parse(pod.metadata.deletionTimestamp) - this.clock.now()) / 1000));
    // With kubelets, theirs decide even for a deadline long past: on a NotReady node nothing confirms the deletion.
    if (left === 0 && !this.podDeletingHook) this.finishPodDeletion(namespace, name, pod.metadata.uid!);
    else this.startPodTermination(pod, left);
  }

  /** Stops pending timers; the store stays readable. */
  close(): void {
    this.closed = true;
    for (const cancel of this.terminationTimers.values()) cancel();
    this.terminationTimers.clear();
    this.fanOut.clear();
  }

  // ------------------------------------------------------------------------------------------
  // Internals

  private infoOf(input: object): ResourceInfo {
    const kind = (input as {kind?: unknown}).kind;
    if (typeof kind !== 'string') throw badRequest("Object 'Kind' is missing");
    const info = resourceForKind(kind);
    if (info === undefined) throw badRequest(`no resource for kind "${kind}"`);
    return info;
  }

  private checkNamespaceWritable(info: ResourceInfo, namespace: string, name: string): void {
    const ns = this.tables.table('namespaces').get('', namespace);
    if (ns === undefined) throw notFound(RESOURCES.namespaces, namespace);
    if (ns.object.metadata.deletionTimestamp !== undefined) throw namespaceTerminating(info, name, namespace);
  }

  /** A uid no stored object has: restored objects carry uids from another cluster's (maybe the same seeded) sequence. */
  private newUid(): string {
    for (;;) {
      const uid = this.prng.uuid();
      if (this.tables.getByUid(uid) === undefined) return uid;
    }
  }

  private generateName(info: ResourceInfo, namespace: string | undefined, prefix: string): string {
    const base = prefix.length > 58 ? prefix.slice(0, 58) : prefix;
    // Bounded retries, like the apiserver's generateName collision handling.
    for (let i = 0; i < 100; i++) {
      const name = base + randomSuffix(this.prng);
      if (this.tables.table(info.resource).get(info.namespaced ? (namespace ?? '') : '', name) === undefined) return name;
    }
    throw alreadyExists(info, base);
  }

  private startPodTermination(pod: Pod, grace: number): void {
    if (this.closed) return;
    const uid = pod.metadata.uid!;
    if (this.podDeletingHook?.(pod, grace) === true) return;
    const delay = Math.min(grace * 1000, this.podTerminationDelayMs);
    this.terminationTimers.get(uid)?.();
    const cancel = this.clock.setTimer(delay, () => {
      this.terminationTimers.delete(uid);
      this.finishPodDeletion(pod.metadata.namespace ?? '', pod.metadata.name, uid);
    });
    this.terminationTimers.set(uid, cancel);
  }

  private removeStored(stored: StoredObject): void {
    this.tables.remove(stored);
    const uid = stored.object.metadata.uid;
    if (uid !== undefined) {
      this.terminationTimers.get(uid)?.();
      this.terminationTimers.delete(uid);
    }
  }
}
