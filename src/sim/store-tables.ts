// The store's tables and indexes: what etcd's keyspace plus the apiserver's indexers hold. Per resource,
// namespace -> name -> current version (with sorted name lists kept for listing in etcd key order), and the
// indexes the simulator reads instead of scanning: by uid, by owner uid, and a node's pods.
import {jsonText} from '../core/index.js';
import {RESOURCES, type ResourceName} from './resources.js';
import {badRequest} from './status-errors.js';
import type {KubeObject} from './types.js';

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

/** Per resource: namespace -> name -> current version, plus lazily built sorted name lists for listing. */
export class ResourceTable {
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

export function byteCompare(a: string, b: string): number {
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

function ownerUids(obj: KubeObject | undefined): string[] {
  return (obj?.metadata.ownerReferences ?? []).map((r) => r.uid);
}

/** A JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nodeNameOf(stored: StoredObject): string | undefined {
  const spec = stored.object['spec'];
  const n = isRecord(spec) ? spec['nodeName'] : undefined;
  return typeof n === 'string' && n !== '' ? n : undefined;
}

function addTo<K, V>(index: Map<K, Set<V>>, key: K, value: V): void {
  let set = index.get(key);
  if (set === undefined) {
    set = new Set();
    index.set(key, set);
  }
  set.add(value);
}

function removeFrom<K, V>(index: Map<K, Set<V>>, key: K, value: V): void {
  const set = index.get(key);
  set?.delete(value);
  if (set?.size === 0) index.delete(key);
}

/** Every resource's table and the indexes beside them, kept in step by insert() and remove(). */
export class ObjectTables {
  private readonly tables = new Map<ResourceName, ResourceTable>();
  private readonly byUid = new Map<string, StoredObject>();
  /** owner uid -> objects whose ownerReferences name it. */
  private readonly dependents = new Map<string, Set<StoredObject>>();
  /** node name -> pods bound to it. */
  private readonly podsByNode = new Map<string, Set<StoredObject>>();

  constructor() {
    for (const r of Object.keys(RESOURCES) as ResourceName[]) this.tables.set(r, new ResourceTable());
  }

  table(resource: ResourceName): ResourceTable {
    const t = this.tables.get(resource);
    if (t === undefined) throw badRequest(`unknown resource ${String(resource)}`);
    return t;
  }

  getByUid(uid: string): StoredObject | undefined {
    return this.byUid.get(uid);
  }

  /** Objects whose ownerReferences name `uid`. */
  dependentsOf(uid: string): readonly StoredObject[] {
    return [...(this.dependents.get(uid) ?? [])];
  }

  /** Pods bound to `nodeName`, in no particular order (a fresh array). */
  podsOnNode(nodeName: string): StoredObject[] {
    return [...(this.podsByNode.get(nodeName) ?? [])];
  }

  /** Stores `stored` as its object's current version, replacing `previous` (the same key's former version) in every index. */
  insert(stored: StoredObject, previous: StoredObject | undefined): void {
    const obj = stored.object;
    this.table(stored.resource).set(stored.namespace, stored.name, stored);
    if (previous !== undefined) this.unindex(previous);
    this.byUid.set(obj.metadata.uid!, stored);
    for (const uid of ownerUids(obj)) addTo(this.dependents, uid, stored);
    const node = stored.resource === 'pods' ? nodeNameOf(stored) : undefined;
    if (node !== undefined) addTo(this.podsByNode, node, stored);
  }

  remove(stored: StoredObject): void {
    this.table(stored.resource).remove(stored.namespace, stored.name);
    this.unindex(stored);
    const uid = stored.object.metadata.uid;
    if (uid !== undefined && this.byUid.get(uid) === stored) this.byUid.delete(uid);
  }

  private unindex(stored: StoredObject): void {
    for (const uid of ownerUids(stored.object)) removeFrom(this.dependents, uid, stored);
    const node = stored.resource === 'pods' ? nodeNameOf(stored) : undefined;
    if (node !== undefined) removeFrom(this.podsByNode, node, stored);
  }
}
