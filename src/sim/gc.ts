// The garbage collector and namespace controller of the simulated cluster, as a store listener.
// Background: when an owner is gone, its dependents are deleted (or just lose the reference when another
// owner still exists). Foreground: the owner carries the `foregroundDeletion` finalizer until every dependent
// that blocks it (blockOwnerDeletion: true) is gone. Orphan: the `orphan` finalizer, removed once the
// dependents no longer reference the owner. A deleting namespace is emptied, then removed.
//
// Not modelled: deleting dependents whose owner never existed (tests build pods with made-up owner uids),
// and owners in other namespaces / cluster-scoped owners of namespaced objects (the lookup is by uid, so
// these work, but nothing checks the scope rules).
import type {OwnerReference} from '../core/index.js';
import {RESOURCES, resourceForKind, type ResourceName} from './resources.js';
import {isConflict, isNotFound} from './status-errors.js';
import type {Store, StoreEvent} from './store.js';
import type {KubeObject} from './types.js';

function ignoreGone(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    if (!isNotFound(err) && !isConflict(err)) throw err;
  }
}

function resourceOf(obj: KubeObject): ResourceName | undefined {
  return obj.kind === undefined ? undefined : resourceForKind(obj.kind)?.resource;
}

function refs(obj: KubeObject | undefined): readonly OwnerReference[] {
  return obj?.metadata.ownerReferences ?? [];
}

function sameOwners(a: KubeObject | undefined, b: KubeObject | undefined): boolean {
  const x = refs(a);
  const y = refs(b);
  return x.length === y.length && x.every((r, i) => r.uid === y[i]!.uid && r.blockOwnerDeletion === y[i]!.blockOwnerDeletion);
}

export class GarbageCollector {
  private readonly unsubscribe: () => void;

  constructor(private readonly store: Store) {
    this.unsubscribe = store.subscribe((event) => this.handle(event));
  }

  stop(): void {
    this.unsubscribe();
  }

  private handle(event: StoreEvent): void {
    const obj = event.object;
    if (event.type === 'DELETED') {
      this.collectDependents(obj);
    } else if (obj.metadata.deletionTimestamp !== undefined) {
      const finalizers = obj.metadata.finalizers ?? [];
      if (finalizers.includes('orphan')) this.orphan(obj);
      else if (finalizers.includes('foregroundDeletion')) this.foreground(obj);
      if (event.resource === 'namespaces') this.emptyNamespace(obj.metadata.name);
    }
    // A dependent that went away (or dropped its reference) may unblock an owner being deleted in the foreground.
    if (event.type === 'DELETED' || !sameOwners(event.oldObject, obj)) {
      const owners = new Set([...refs(event.oldObject), ...refs(obj)].map((r) => r.uid));
      for (const uid of owners) {
        const owner = this.store.getByUid(uid);
        if (owner !== undefined && (owner.object.metadata.finalizers ?? []).includes('foregroundDeletion')) this.finishForeground(owner.object);
      }
    }
    if (event.type === 'DELETED' && RESOURCES[event.resource].namespaced) {
      const ns = this.store.get('namespaces', undefined, obj.metadata.namespace ?? '');
      if (ns?.metadata.deletionTimestamp !== undefined) this.finishNamespace(ns.metadata.name);
    }
  }

  /** Background: the owner is gone. */
  private collectDependents(owner: KubeObject): void {
    const uid = owner.metadata.uid;
    if (uid === undefined) return;
    for (const dep of this.store.dependentsOf(uid)) {
      const resource = resourceOf(dep);
      if (resource === undefined) continue;
      const others = refs(dep).filter((r) => r.uid !== uid && this.store.getByUid(r.uid) !== undefined);
      if (others.length > 0) this.dropReference(resource, dep, uid);
      else
        ignoreGone(() =>
          this.store.delete(resource, dep.metadata.namespace, dep.metadata.name, {propagationPolicy: 'Background', preconditions: {uid: dep.metadata.uid}}),
        );
    }
  }

  private dropReference(resource: ResourceName, dep: KubeObject, ownerUid: string): void {
    ignoreGone(() =>
      this.store.modify(resource, dep.metadata.namespace, dep.metadata.name, (cur) => {
        const c = cur as KubeObject;
        const kept = refs(c).filter((r) => r.uid !== ownerUid);
        const {ownerReferences: _dropped, ...meta} = c.metadata;
        return {...c, metadata: kept.length > 0 ? {...meta, ownerReferences: kept} : meta};
      }),
    );
  }

  private orphan(owner: KubeObject): void {
    const uid = owner.metadata.uid!;
    for (const dep of this.store.dependentsOf(uid)) {
      const resource = resourceOf(dep);
      if (resource !== undefined) this.dropReference(resource, dep, uid);
    }
    this.removeFinalizer(owner, 'orphan');
  }

  private foreground(owner: KubeObject): void {
    const uid = owner.metadata.uid!;
    for (const dep of this.store.dependentsOf(uid)) {
      const resource = resourceOf(dep);
      if (resource === undefined || dep.metadata.deletionTimestamp !== undefined) continue;
      ignoreGone(() =>
        this.store.delete(resource, dep.metadata.namespace, dep.metadata.name, {propagationPolicy: 'Background', preconditions: {uid: dep.metadata.uid}}),
      );
    }
    const current = this.store.getByUid(uid);
    if (current !== undefined) this.finishForeground(current.object);
  }

  private finishForeground(owner: KubeObject): void {
    const uid = owner.metadata.uid!;
    const blocking = this.store.dependentsOf(uid).some((d) => refs(d).some((r) => r.uid === uid && r.blockOwnerDeletion === true));
    if (!blocking) this.removeFinalizer(owner, 'foregroundDeletion');
  }

  private removeFinalizer(obj: KubeObject, finalizer: string): void {
    const resource = resourceOf(obj);
    if (resource === undefined) return;
    ignoreGone(() =>
      this.store.modify(resource, obj.metadata.namespace, obj.metadata.name, (cur) => {
        const c = cur as KubeObject;
        const finalizers = (c.metadata.finalizers ?? []).filter((f) => f !== finalizer);
        const {finalizers: _old, ...meta} = c.metadata;
        return {...c, metadata: finalizers.length > 0 ? {...meta, finalizers} : meta};
      }),
    );
  }

  private emptyNamespace(namespace: string): void {
    for (const info of Object.values(RESOURCES)) {
      if (!info.namespaced) continue;
      for (const obj of this.store.list(info.resource, {namespace}).items) {
        const o = obj as KubeObject;
        if (o.metadata.deletionTimestamp !== undefined) continue;
        ignoreGone(() => this.store.delete(info.resource, namespace, o.metadata.name, {propagationPolicy: 'Background'}));
      }
    }
    this.finishNamespace(namespace);
  }

  private finishNamespace(namespace: string): void {
    if (this.store.countInNamespace(namespace) > 0) return;
    ignoreGone(() => this.store.modify('namespaces', undefined, namespace, (ns) => ({...ns, spec: {...(ns.spec ?? {}), finalizers: []}})));
  }
}
