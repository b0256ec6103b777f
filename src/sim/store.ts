// The simulated cluster's object store: what etcd plus the generic registry do for a real apiserver.
// One global resourceVersion counter, uids, timestamps, per-resource strategies (defaulting, generation,
// status subresource rules), no-op detection, graceful deletion and finalizers, a bounded event history
// for watch resumption, and synchronous in-process events for the rest of the simulator.
//
// Stored objects are deeply frozen and shared: callers must copy before changing them (structuredClone,
// or spread the parts they change). Writes are synchronous; listeners run after the write has been
// committed, in resourceVersion order, even when a listener writes (those events are queued).
import {deepEqualJson, jsonText, stripNulls} from '../core/index.js';
import {labelSelectorMatches, parseLabelSelector} from '../core/index.js';
import type {LabelSelector, ObjectMeta, Pod} from '../core/index.js';
import {RealClock, formatTimestamp, type CancelTimer, type SimClock} from './clock.js';
import {checkFieldSelector, fieldSelectorMatches, parseFieldSelector, pinnedValue, type FieldSelector} from './field-selectors.js';
import {Prng, randomSuffix} from './prng.js';
import {RESOURCES, apiVersionOf, resourceForKind, type ResourceInfo, type ResourceName} from './resources.js';
import {alreadyExists, badRequest, conflict, expired, isNotFound, isConflict, namespaceTerminating, notFound, StatusError} from './status-errors.js';
import {decodeForWrite, prepareForCreate, prepareForUpdate, validateForCreate, validateForUpdate} from './strategy.js';

/** 9999-12-31T23:59:59Z: the latest time a timestamp can hold. */
const LAST_RFC3339_MS = Date.UTC(9999, 11, 31, 23, 59, 59);
import type {KubeObject, ObjectOf} from './types.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

type MutableJson = Record<string, unknown>;

/** One stored version of an object, with its JSON serialised at most once (watchers and lists share it). */
export class StoredObject {
  private cached: string | undefined;

  constructor(
    readonly resource: ResourceName,
    readonly object: KubeObject,
  ) {}

  get json(): string {
    return (this.cached ??= jsonText(this.object));
  }

  get namespace(): string {
    return this.object.metadata.namespace ?? '';
  }

  get name(): string {
    return this.object.metadata.name;
  }
}

/** A committed change. `object` for DELETED is the last state, carrying the deletion's resourceVersion. */
export class StoreEvent {
  constructor(
    readonly type: WatchEventType,
    readonly stored: StoredObject,
    readonly resourceVersion: number,
    readonly oldObject: KubeObject | undefined,
  ) {}

  get resource(): ResourceName {
    return this.stored.resource;
  }

  get object(): KubeObject {
    return this.stored.object;
  }

  /** The object's JSON, cached. */
  get objectJson(): string {
    return this.stored.json;
  }
}

export type StoreListener = (event: StoreEvent) => void;

export interface SubscribeOptions {
  /** Only events of this resource. */
  readonly resource?: ResourceName;
}

export interface ListOptions {
  /** Only this namespace (namespaced resources); undefined or '' lists all namespaces. */
  readonly namespace?: string;
  /** `app=web,tier!=db` or a LabelSelector object. */
  readonly labelSelector?: string | LabelSelector;
  /** `spec.nodeName=n1,status.phase!=Failed` or a parsed FieldSelector. */
  readonly fieldSelector?: string | FieldSelector;
  /** Page size; 0 or undefined means everything. */
  readonly limit?: number;
  /** A token from a previous page's `continue`. */
  readonly continue?: string;
}

export interface ListResult<T> {
  readonly items: readonly T[];
  /** The store's resourceVersion when the (first page of the) list was taken. */
  readonly resourceVersion: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

export interface CreateOptions {
  /** Namespace for objects whose metadata has none (namespaced resources only; default "default"). */
  readonly namespace?: string;
  /** Validate and default, but store nothing (the result has no resourceVersion). */
  readonly dryRun?: boolean;
  /**
   * Apply the registry's create strategy for status, as a real POST does: DaemonSet status zeroed, Pod status
   * `{phase: Pending}`. In-process callers (seeding, the controller) normally keep the status they give.
   */
  readonly resetStatus?: boolean;
  /**
   * Restore an object another cluster stored (a snapshot): keep its uid, creationTimestamp, generation and a
   * pending deletion (deletionTimestamp, deletionGracePeriodSeconds) instead of stamping new ones, so owner
   * references and ages survive. resourceVersion is always this store's own.
   */
  readonly restore?: boolean;
}

export interface UpdateOptions {
  /** Optimistic concurrency: 409 Conflict unless the stored resourceVersion equals this. Defaults to the object's own metadata.resourceVersion, if set. */
  readonly expectedResourceVersion?: string;
  /** 'status' writes only `.status`; the main resource ignores `.status` (for resources with a status subresource). */
  readonly subresource?: 'status';
  readonly dryRun?: boolean;
}

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface DeleteOptions {
  readonly preconditions?: {readonly uid?: string; readonly resourceVersion?: string};
  readonly propagationPolicy?: PropagationPolicy;
  /** Pods only: graceful termination period; 0 deletes at once. Default: the pod's terminationGracePeriodSeconds (30). */
  readonly gracePeriodSeconds?: number;
  readonly dryRun?: boolean;
}

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

interface ListSnapshot {
  readonly rv: number;
  readonly items: readonly StoredObject[];
}

/** Per resource: namespace -> name -> current version, plus lazily built sorted name lists for listing. */
class ResourceTable {
  readonly byNamespace = new Map<string, Map<string, StoredObject>>();
  private readonly sortedNames = new Map<string, string[]>();
  private sortedNamespaces: string[] | undefined;
  size = 0;

  get(namespace: string, name: string): StoredObject | undefined {
    return this.byNamespace.get(namespace)?.get(name);
  }

  set(namespace: string, name: string, stored: StoredObject): void {
    let names = this.byNamespace.get(namespace);
    if (names === undefined) {
      names = new Map();
      this.byNamespace.set(namespace, names);
      this.sortedNamespaces = undefined;
    }
    if (!names.has(name)) {
      this.size++;
      const sorted = this.sortedNames.get(namespace);
      if (sorted !== undefined) sorted.splice(lowerBound(sorted, name), 0, name);
    }
    names.set(name, stored);
  }

  remove(namespace: string, name: string): void {
    const names = this.byNamespace.get(namespace);
    if (names === undefined || !names.delete(name)) return;
    this.size--;
    const sorted = this.sortedNames.get(namespace);
    if (sorted !== undefined) {
      const i = lowerBound(sorted, name);
      if (sorted[i] === name) sorted.splice(i, 1);
    }
    if (names.size === 0) {
      this.byNamespace.delete(namespace);
      this.sortedNames.delete(namespace);
      this.sortedNamespaces = undefined;
    }
  }

  /** Namespaces in etcd key order (`<ns>/` compared bytewise). */
  namespaces(): string[] {
    return (this.sortedNamespaces ??= [...this.byNamespace.keys()].sort((a, b) => byteCompare(`${a}/`, `${b}/`)));
  }

  /** Versions of one namespace, sorted by name. Incrementally maintained once built. */
  sorted(namespace: string): StoredObject[] {
    const names = this.byNamespace.get(namespace);
    if (names === undefined) return [];
    let sorted = this.sortedNames.get(namespace);
    if (sorted === undefined) {
      sorted = [...names.keys()].sort(byteCompare);
      this.sortedNames.set(namespace, sorted);
    }
    return sorted.map((n) => names.get(n)!);
  }
}

function byteCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function lowerBound(sorted: readonly string[], value: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Freezes in place, dropping keys that hold undefined on the way (defaulting leaves some behind). */
/**
 * What a write stores: nulls dropped, as the round trip through Go's typed structs drops them; a
 * ControllerRevision's `data` is a RawExtension, kept byte for byte (its `creationTimestamp: null` is part of
 * what `kubectl rollout undo` compares). stripNulls copies, so this is also the defensive copy of the input.
 */
function normalizeInput(info: ResourceInfo, input: object): MutableJson {
  const obj = stripNulls(input) as unknown as MutableJson;
  if (info.resource === 'controllerrevisions' && 'data' in input) obj['data'] = structuredClone((input as {data: unknown}).data);
  return obj;
}

/** A `labelSelector` query parameter: undefined when empty, a 400 as the API server words it when malformed. */
export function labelSelectorParam(text: string): LabelSelector | undefined {
  if (text.trim() === '') return undefined;
  try {
    return parseLabelSelector(text);
  } catch (err) {
    throw badRequest(`unable to parse requirement: ${(err as Error).message}`);
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    if (Array.isArray(value)) {
      for (const v of value) deepFreeze(v);
    } else {
      const rec = value as Record<string, unknown>;
      for (const k in rec) {
        const v = rec[k];
        if (v === undefined) delete rec[k];
        else deepFreeze(v);
      }
    }
    Object.freeze(value);
  }
  return value;
}

function isRecord(value: unknown): value is MutableJson {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function metaOf(obj: MutableJson): MutableJson {
  const m = obj['metadata'];
  if (isRecord(m)) return m;
  const fresh: MutableJson = {};
  obj['metadata'] = fresh;
  return fresh;
}

function ownerUids(obj: KubeObject | undefined): string[] {
  return (obj?.metadata.ownerReferences ?? []).map((r) => r.uid);
}

function nodeNameOf(stored: StoredObject | KubeObject | undefined): string | undefined {
  if (stored === undefined) return undefined;
  const obj = stored instanceof StoredObject ? stored.object : stored;
  const spec = obj['spec'];
  const n = isRecord(spec) ? spec['nodeName'] : undefined;
  return typeof n === 'string' && n !== '' ? n : undefined;
}

interface ContinueToken {
  readonly rv: number;
  readonly snapshot: string;
  readonly offset: number;
}

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({v: 1, rv: token.rv, s: token.snapshot, o: token.offset})).toString('base64url');
}

function decodeContinue(text: string): ContinueToken {
  try {
    const raw: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (isRecord(raw) && raw['v'] === 1 && typeof raw['rv'] === 'number' && typeof raw['s'] === 'string' && typeof raw['o'] === 'number') {
      return {rv: raw['rv'], snapshot: raw['s'], offset: raw['o']};
    }
  } catch {
    // fall through to the 400 below
  }
  throw badRequest(`continue key is not valid: ${text}`);
}

// upstream: plugin/pkg/admission/namespace/lifecycle (immortal namespaces)
const PROTECTED_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

const GRACEFUL_PHASES_DONE = new Set(['Failed', 'Succeeded']);

export class Store {
  readonly clock: SimClock;
  private readonly tables = new Map<ResourceName, ResourceTable>();
  private readonly byUid = new Map<string, StoredObject>();
  /** owner uid -> keys of objects whose ownerReferences name it. */
  private readonly dependents = new Map<string, Set<StoredObject>>();
  /** node name -> pods bound to it. */
  private readonly podsByNode = new Map<string, Set<StoredObject>>();
  private rv = 0;
  private readonly history: (StoreEvent | undefined)[];
  private historyStart = 0;
  private historyLength = 0;
  private compactedRv = 0;
  private readonly listeners = new Map<ResourceName | '*', Set<StoreListener>>();
  private readonly queue: StoreEvent[] = [];
  private queueHead = 0;
  private dispatching = false;
  private readonly prng: Prng;
  private readonly snapshots = new Map<string, ListSnapshot>();
  private snapshotSeq = 0;
  private readonly maxSnapshots: number;
  private readonly terminationTimers = new Map<string, CancelTimer>();
  private podDeletingHook: PodDeletingHook | undefined;
  private readonly onListenerError: (error: unknown, event: StoreEvent) => void;
  private closed = false;
  readonly podTerminationDelayMs: number;

  constructor(options: StoreOptions = {}) {
    this.clock = options.clock ?? new RealClock();
    this.history = new Array<StoreEvent | undefined>(Math.max(1, options.historySize ?? 10_000));
    this.prng = new Prng(options.seed ?? 1);
    this.podTerminationDelayMs = options.podTerminationDelayMs ?? 500;
    this.maxSnapshots = options.maxListSnapshots ?? 32;
    this.onListenerError = options.onListenerError ?? ((error) => console.error('sim store listener failed:', error));
    for (const r of Object.keys(RESOURCES) as ResourceName[]) this.tables.set(r, new ResourceTable());
  }

  // ------------------------------------------------------------------------------------------
  // Reads

  /** The newest resourceVersion, as the API prints it. */
  get resourceVersion(): string {
    return String(this.rv);
  }

  /** The oldest resourceVersion a watch can still resume from. */
  get oldestResumableResourceVersion(): string {
    return String(this.compactedRv);
  }

  get<R extends ResourceName>(resource: R, namespace: string | undefined, name: string): ObjectOf<R> | undefined {
    return this.getStored(resource, namespace, name)?.object as ObjectOf<R> | undefined;
  }

  getStored(resource: ResourceName, namespace: string | undefined, name: string): StoredObject | undefined {
    return this.table(resource).get(RESOURCES[resource].namespaced ? (namespace ?? '') : '', name);
  }

  /** Like get, but a 404 StatusError when absent. */
  mustGet<R extends ResourceName>(resource: R, namespace: string | undefined, name: string): ObjectOf<R> {
    const found = this.get(resource, namespace, name);
    if (found === undefined) throw notFound(RESOURCES[resource], name);
    return found;
  }

  getByUid(uid: string): {readonly resource: ResourceName; readonly object: KubeObject} | undefined {
    const s = this.byUid.get(uid);
    return s === undefined ? undefined : {resource: s.resource, object: s.object};
  }

  /** Objects whose ownerReferences name `uid` (any resource). */
  dependentsOf(uid: string): KubeObject[] {
    return [...(this.dependents.get(uid) ?? [])].map((s) => s.object);
  }

  /** Pods bound to `nodeName`, any namespace (an index, not a scan). */
  podsOnNode(nodeName: string): Pod[] {
    return [...(this.podsByNode.get(nodeName) ?? [])].map((s) => s.object as unknown as Pod);
  }

  count(resource: ResourceName, namespace?: string): number {
    const t = this.table(resource);
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
    if (options.continue !== undefined && options.continue !== '') return this.continueList(options.continue, options.limit);
    const info = RESOURCES[resource];
    const labels = this.labelSelector(options.labelSelector);
    const fields = typeof options.fieldSelector === 'string' ? parseFieldSelector(options.fieldSelector) : (options.fieldSelector ?? []);
    checkFieldSelector(resource, fields);
    const namespace = info.namespaced ? options.namespace || pinnedValue(fields, 'metadata.namespace') || '' : '';
    const candidates = this.candidates(resource, namespace, fields);
    const items: StoredObject[] = [];
    for (const s of candidates) {
      if (labels !== undefined && !labelSelectorMatches(labels, s.object.metadata.labels)) continue;
      if (fields.length > 0 && !fieldSelectorMatches(resource, s.object, fields)) continue;
      items.push(s);
    }
    const rv = this.rv;
    const limit = options.limit ?? 0;
    if (limit <= 0 || items.length <= limit) return {items, resourceVersion: String(rv)};
    // A consistent paged list: later pages come from this snapshot, as etcd serves them at the first page's revision.
    const id = `${++this.snapshotSeq}`;
    this.snapshots.set(id, {rv, items});
    while (this.snapshots.size > this.maxSnapshots) this.snapshots.delete(this.snapshots.keys().next().value!);
    return this.page({rv, items}, id, 0, limit);
  }

  private continueList(text: string, limit: number | undefined): ListResult<StoredObject> {
    const token = decodeContinue(text);
    const snap = this.snapshots.get(token.snapshot);
    if (snap === undefined || snap.rv !== token.rv) {
      throw expired('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
    }
    return this.page(snap, token.snapshot, token.offset, limit ?? 0);
  }

  private page(snap: ListSnapshot, id: string, offset: number, limit: number): ListResult<StoredObject> {
    const end = limit > 0 ? Math.min(snap.items.length, offset + limit) : snap.items.length;
    const items = snap.items.slice(offset, end);
    const remaining = snap.items.length - end;
    if (remaining <= 0) {
      this.snapshots.delete(id);
      return {items, resourceVersion: String(snap.rv)};
    }
    return {
      items,
      resourceVersion: String(snap.rv),
      continue: encodeContinue({rv: snap.rv, snapshot: id, offset: end}),
      remainingItemCount: remaining,
    };
  }

  private labelSelector(sel: string | LabelSelector | undefined): LabelSelector | undefined {
    return typeof sel === 'string' ? labelSelectorParam(sel) : sel;
  }

  /** The smallest set worth filtering: a pinned name, a node's pods, one namespace, or everything. */
  private candidates(resource: ResourceName, namespace: string, fields: FieldSelector): StoredObject[] {
    const table = this.table(resource);
    const name = pinnedValue(fields, 'metadata.name');
    if (name !== undefined) {
      if (namespace !== '' || !RESOURCES[resource].namespaced) {
        const one = table.get(namespace, name);
        return one === undefined ? [] : [one];
      }
    }
    const node = resource === 'pods' ? pinnedValue(fields, 'spec.nodeName') : undefined;
    if (node !== undefined) {
      const onNode = [...(this.podsByNode.get(node) ?? [])];
      const filtered = namespace === '' ? onNode : onNode.filter((s) => s.namespace === namespace);
      return filtered.sort((a, b) => byteCompare(`${a.namespace}/${a.name}`, `${b.namespace}/${b.name}`));
    }
    if (namespace !== '' || !RESOURCES[resource].namespaced) return table.sorted(namespace);
    const out: StoredObject[] = [];
    for (const ns of table.namespaces()) for (const s of table.sorted(ns)) out.push(s);
    return out;
  }

  // ------------------------------------------------------------------------------------------
  // Events

  /** Synchronous in-process events. Returns the unsubscribe function. */
  subscribe(listener: StoreListener, options: SubscribeOptions = {}): () => void {
    const key = options.resource ?? '*';
    let set = this.listeners.get(key);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(key, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  /** Committed events with resourceVersion > rv, oldest first. 410 Expired when rv is older than the history. */
  eventsSince(resourceVersion: number | string): StoreEvent[] {
    const rv = typeof resourceVersion === 'number' ? resourceVersion : Number(resourceVersion);
    if (!Number.isInteger(rv) || rv < 0) throw badRequest(`invalid resource version: ${String(resourceVersion)}`);
    if (rv < this.compactedRv) throw expired(`too old resource version: ${rv} (${this.compactedRv})`);
    const out: StoreEvent[] = [];
    // Events are appended in rv order; walk back from the newest until rv is reached.
    for (let i = this.historyLength - 1; i >= 0; i--) {
      const e = this.history[(this.historyStart + i) % this.history.length]!;
      if (e.resourceVersion <= rv) break;
      out.push(e);
    }
    return out.reverse();
  }

  private emit(type: WatchEventType, stored: StoredObject, rv: number, oldObject: KubeObject | undefined): void {
    const event = new StoreEvent(type, stored, rv, oldObject);
    const cap = this.history.length;
    if (this.historyLength === cap) {
      this.compactedRv = this.history[this.historyStart]!.resourceVersion;
      this.history[this.historyStart] = event;
      this.historyStart = (this.historyStart + 1) % cap;
    } else {
      this.history[(this.historyStart + this.historyLength) % cap] = event;
      this.historyLength++;
    }
    this.queue.push(event);
    if (!this.dispatching) this.drain();
  }

  private drain(): void {
    this.dispatching = true;
    try {
      // Bounded by the events writes produce; a listener loop that never settles is a bug we surface, not hang on.
      for (let n = 0; this.queueHead < this.queue.length; n++) {
        if (n > 10_000_000) throw new Error('sim store: event dispatch does not settle');
        const event = this.queue[this.queueHead++]!;
        const targets = [...(this.listeners.get(event.resource) ?? []), ...(this.listeners.get('*') ?? [])];
        for (const l of targets) {
          try {
            l(event);
          } catch (err) {
            this.onListenerError(err, event);
          }
        }
      }
    } finally {
      this.queue.length = 0;
      this.queueHead = 0;
      this.dispatching = false;
    }
  }

  // ------------------------------------------------------------------------------------------
  // Writes

  /** Creates an object (the resource comes from `kind`). 409 AlreadyExists, 404 for a missing namespace, 422 Invalid. */
  create<T extends object>(input: T, options: CreateOptions = {}): T {
    const info = this.infoOf(input);
    const obj = normalizeInput(info, input);
    const decodeError = decodeForWrite(info, obj);
    if (decodeError !== undefined) throw decodeError;
    obj['apiVersion'] = apiVersionOf(info);
    obj['kind'] = info.kind;
    const meta = metaOf(obj);
    if (info.namespaced) {
      const ns = (meta['namespace'] as string | undefined) || options.namespace || 'default';
      meta['namespace'] = ns;
      this.checkNamespaceWritable(info, ns, (meta['name'] as string | undefined) ?? '');
    } else {
      delete meta['namespace'];
    }
    const generateName = typeof meta['generateName'] === 'string' ? meta['generateName'] : '';
    if (!meta['name']) {
      if (generateName === '') {
        throw new StatusError(422, 'Invalid', `${info.kind} "" is invalid: metadata.name: Required value: name or generateName is required`, {
          group: info.group,
          kind: info.kind,
          causes: [{reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name'}],
        });
      }
      meta['name'] = this.generateName(info, meta['namespace'] as string | undefined, generateName);
    }
    const now = this.clock.now();
    const restore = options.restore === true;
    if (!restore || typeof meta['uid'] !== 'string' || meta['uid'] === '') meta['uid'] = this.newUid();
    if (!restore || typeof meta['creationTimestamp'] !== 'string') meta['creationTimestamp'] = formatTimestamp(now);
    delete meta['resourceVersion'];
    if (!restore || typeof meta['deletionTimestamp'] !== 'string') {
      delete meta['deletionTimestamp'];
      delete meta['deletionGracePeriodSeconds'];
    }
    delete meta['selfLink'];
    const restoredGeneration = restore && typeof meta['generation'] === 'number' ? meta['generation'] : undefined;
    if (info.tracksGeneration) meta['generation'] = 1;
    else delete meta['generation'];
    prepareForCreate(info, obj, {resetStatus: options.resetStatus === true});
    if (info.tracksGeneration && restoredGeneration !== undefined) metaOf(obj)['generation'] = restoredGeneration;
    const err = validateForCreate(info, obj);
    if (err !== undefined) throw err;
    const namespace = info.namespaced ? (metaOf(obj)['namespace'] as string) : '';
    const name = metaOf(obj)['name'] as string;
    if (this.table(info.resource).get(namespace, name) !== undefined) throw alreadyExists(info, name);
    if (options.dryRun) return deepFreeze(obj) as unknown as T;
    const rv = ++this.rv;
    // Strategies may have replaced the metadata object (defaulting copies), so look it up again.
    metaOf(obj)['resourceVersion'] = String(rv);
    const stored = new StoredObject(info.resource, deepFreeze(obj) as unknown as KubeObject);
    this.insert(stored, undefined);
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
    const current = this.table(info.resource).get(namespace, name);
    if (current === undefined) throw notFound(info, name);
    const old = current.object;
    const expected = options.expectedResourceVersion ?? inMeta.resourceVersion;
    if (expected !== undefined && expected !== '' && expected !== old.metadata.resourceVersion) throw conflict(info, name);
    if (inMeta.uid !== undefined && inMeta.uid !== '' && inMeta.uid !== old.metadata.uid) {
      throw conflict(info, name, `Precondition failed: UID in precondition: ${inMeta.uid}, UID in object meta: ${old.metadata.uid ?? ''}`);
    }
    let next = normalizeInput(info, input);
    if (options.subresource === 'status') {
      // Status writes change status only (upstream ResetObjectMetaForStatus + strategy PrepareForUpdate).
      const status = next['status'];
      next = structuredClone(old) as unknown as MutableJson;
      if (status === undefined) delete next['status'];
      else next['status'] = status;
    } else if (info.hasStatus) {
      if (old['status'] === undefined) delete next['status'];
      else next['status'] = structuredClone(old['status']);
    }
    const decodeError = decodeForWrite(info, next);
    if (decodeError !== undefined) throw decodeError;
    next['apiVersion'] = apiVersionOf(info);
    next['kind'] = info.kind;
    const meta = metaOf(next);
    // Server-owned metadata cannot be changed by an update.
    for (const key of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
      const v = old.metadata[key];
      if (v === undefined) delete meta[key];
      else meta[key] = v;
    }
    meta['name'] = name;
    if (info.namespaced) meta['namespace'] = namespace;
    else delete meta['namespace'];
    meta['resourceVersion'] = old.metadata.resourceVersion;
    delete meta['selfLink'];
    if (options.subresource !== 'status') {
      prepareForUpdate(info, next, old);
      const err = validateForUpdate(info, next, old);
      if (err !== undefined) throw err;
    } else if (info.resource === 'pods' || info.resource === 'nodes') {
      // A status write is validated too (conditions need a type); DaemonSet status is the controller's alone.
      const err = validateForUpdate(info, next, old);
      if (err !== undefined) throw err;
    }
    if (deepEqualJson(next, old)) return old as unknown as T;
    if (options.dryRun) return deepFreeze(next) as unknown as T;
    const rv = ++this.rv;
    metaOf(next)['resourceVersion'] = String(rv);
    const stored = new StoredObject(info.resource, deepFreeze(next) as unknown as KubeObject);
    if (this.finalizable(stored.object)) {
      this.removeStored(current);
      this.emit('DELETED', stored, rv, old);
      return stored.object as unknown as T;
    }
    this.insert(stored, current);
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
    const current = this.table(resource).get(ns, name);
    if (current === undefined) throw notFound(info, name);
    const old = current.object;
    const pre = options.preconditions;
    if (pre?.uid !== undefined && pre.uid !== old.metadata.uid) {
      throw conflict(info, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata.uid ?? ''}`);
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== old.metadata.resourceVersion) {
      throw conflict(
        info,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion ?? ''}`,
      );
    }
    if (resource === 'namespaces' && PROTECTED_NAMESPACES.has(name)) {
      throw new StatusError(403, 'Forbidden', `namespaces "${name}" is forbidden: this namespace may not be deleted`, {name, kind: 'namespaces'});
    }
    const policy = options.propagationPolicy;
    if (policy !== undefined && policy !== 'Background' && policy !== 'Foreground' && policy !== 'Orphan') {
      throw badRequest(
        `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${String(policy)}": supported values: "Foreground", "Background", "Orphan"`,
      );
    }
    const grace = resource === 'pods' ? this.podGrace(old as unknown as Pod, options.gracePeriodSeconds) : 0;
    const next = structuredClone(old) as unknown as MutableJson;
    const meta = metaOf(next);
    let finalizers = [...(old.metadata.finalizers ?? [])];
    if (policy === 'Orphan') finalizers = [...finalizers.filter((f) => f !== 'foregroundDeletion'), ...(finalizers.includes('orphan') ? [] : ['orphan'])];
    if (policy === 'Foreground')
      finalizers = [...finalizers.filter((f) => f !== 'orphan'), ...(finalizers.includes('foregroundDeletion') ? [] : ['foregroundDeletion'])];
    if (policy === 'Background') finalizers = finalizers.filter((f) => f !== 'orphan' && f !== 'foregroundDeletion');
    if (finalizers.length > 0) meta['finalizers'] = finalizers;
    else delete meta['finalizers'];
    const namespaceFinalizers = resource === 'namespaces' ? ((old as {spec?: {finalizers?: readonly string[]}}).spec?.finalizers ?? []) : [];
    const alreadyDeleting = old.metadata.deletionTimestamp !== undefined;
    const now = this.clock.now();

    if (grace > 0 || finalizers.length > 0 || namespaceFinalizers.length > 0) {
      // Pending deletion: mark, keep, and let the kubelet / GC / namespace controller finish.
      const oldGrace = old.metadata.deletionGracePeriodSeconds;
      if (!alreadyDeleting || grace < (oldGrace ?? Infinity)) {
        // A grace period of centuries (any int64 is accepted) ends at the last time RFC 3339 can write.
        meta['deletionTimestamp'] = formatTimestamp(Math.min(now + grace * 1000, LAST_RFC3339_MS));
        meta['deletionGracePeriodSeconds'] = grace;
        if (!alreadyDeleting && info.tracksGeneration && typeof meta['generation'] === 'number') meta['generation'] = (meta['generation'] as number) + 1;
      }
      if (resource === 'namespaces') {
        const status = isRecord(next['status']) ? next['status'] : {};
        next['status'] = {...status, phase: 'Terminating'};
      }
      if (deepEqualJson(next, old)) return {deleted: false, object: old};
      if (options.dryRun) return {deleted: false, object: deepFreeze(next) as unknown as KubeObject};
      const rv = ++this.rv;
      meta['resourceVersion'] = String(rv);
      const stored = new StoredObject(resource, deepFreeze(next) as unknown as KubeObject);
      this.insert(stored, current);
      this.emit('MODIFIED', stored, rv, old);
      if (resource === 'pods' && grace > 0) this.startPodTermination(stored.object as unknown as Pod, grace);
      return {deleted: false, object: stored.object};
    }

    if (options.dryRun) return {deleted: true, object: old};
    const rv = ++this.rv;
    meta['resourceVersion'] = String(rv);
    if (alreadyDeleting) meta['deletionGracePeriodSeconds'] = 0;
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
    this.listeners.clear();
  }

  // ------------------------------------------------------------------------------------------
  // Internals

  private table(resource: ResourceName): ResourceTable {
    const t = this.tables.get(resource);
    if (t === undefined) throw badRequest(`unknown resource ${String(resource)}`);
    return t;
  }

  private infoOf(input: object): ResourceInfo {
    const kind = (input as {kind?: unknown}).kind;
    if (typeof kind !== 'string') throw badRequest("Object 'Kind' is missing");
    const info = resourceForKind(kind);
    if (info === undefined) throw badRequest(`no resource for kind "${kind}"`);
    return info;
  }

  private checkNamespaceWritable(info: ResourceInfo, namespace: string, name: string): void {
    const ns = this.table('namespaces').get('', namespace);
    if (ns === undefined) throw notFound(RESOURCES.namespaces, namespace);
    if (ns.object.metadata.deletionTimestamp !== undefined) throw namespaceTerminating(info, name, namespace);
  }

  /** A uid no stored object has: restored objects carry uids from another cluster's (maybe the same seeded) sequence. */
  private newUid(): string {
    for (;;) {
      const uid = this.prng.uuid();
      if (!this.byUid.has(uid)) return uid;
    }
  }

  private generateName(info: ResourceInfo, namespace: string | undefined, prefix: string): string {
    const base = prefix.length > 58 ? prefix.slice(0, 58) : prefix;
    // Bounded retries, like the apiserver's generateName collision handling.
    for (let i = 0; i < 100; i++) {
      const name = base + randomSuffix(this.prng);
      if (this.table(info.resource).get(info.namespaced ? (namespace ?? '') : '', name) === undefined) return name;
    }
    throw alreadyExists(info, base);
  }

  private podGrace(pod: Pod, requested: number | undefined): number {
    if (!pod.spec?.nodeName) return 0;
    if (GRACEFUL_PHASES_DONE.has(pod.status?.phase ?? '')) return 0;
    let grace = requested ?? pod.spec.terminationGracePeriodSeconds ?? 30;
    if (grace < 0) grace = 1;
    return grace;
  }

  private finalizable(obj: KubeObject): boolean {
    if (obj.metadata.deletionTimestamp === undefined) return false;
    if ((obj.metadata.finalizers ?? []).length > 0) return false;
    if (obj.kind === 'Namespace' && ((obj as {spec?: {finalizers?: readonly string[]}}).spec?.finalizers ?? []).length > 0) return false;
    // A pod still inside its grace period waits for the kubelet, finalizers or not.
    if (obj.kind === 'Pod' && (obj.metadata.deletionGracePeriodSeconds ?? 0) > 0) return false;
    return true;
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

  private insert(stored: StoredObject, previous: StoredObject | undefined): void {
    const obj = stored.object;
    this.table(stored.resource).set(stored.namespace, stored.name, stored);
    if (previous !== undefined) this.unindex(previous);
    this.byUid.set(obj.metadata.uid!, stored);
    for (const uid of ownerUids(obj)) {
      let set = this.dependents.get(uid);
      if (set === undefined) {
        set = new Set();
        this.dependents.set(uid, set);
      }
      set.add(stored);
    }
    const node = stored.resource === 'pods' ? nodeNameOf(stored) : undefined;
    if (node !== undefined) {
      let set = this.podsByNode.get(node);
      if (set === undefined) {
        set = new Set();
        this.podsByNode.set(node, set);
      }
      set.add(stored);
    }
  }

  private unindex(stored: StoredObject): void {
    for (const uid of ownerUids(stored.object)) {
      const set = this.dependents.get(uid);
      set?.delete(stored);
      if (set?.size === 0) this.dependents.delete(uid);
    }
    const node = stored.resource === 'pods' ? nodeNameOf(stored) : undefined;
    if (node !== undefined) {
      const set = this.podsByNode.get(node);
      set?.delete(stored);
      if (set?.size === 0) this.podsByNode.delete(node);
    }
  }

  private removeStored(stored: StoredObject): void {
    this.table(stored.resource).remove(stored.namespace, stored.name);
    this.unindex(stored);
    const uid = stored.object.metadata.uid;
    if (uid !== undefined && this.byUid.get(uid) === stored) this.byUid.delete(uid);
    if (uid !== undefined) {
      this.terminationTimers.get(uid)?.();
      this.terminationTimers.delete(uid);
    }
  }
}

/** RFC 7386 JSON merge patch, for status patches made in-process. */
export function mergeJson(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  const out: MutableJson = isRecord(target) ? {...target} : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergeJson(out[k], v);
  }
  return out;
}
