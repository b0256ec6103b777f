// What a write must pass before the store commits it, as the generic registry's BeforeCreate / BeforeUpdate /
// BeforeDelete do: decoding, server-owned metadata, the per-resource strategies (defaulting, generation,
// validation, in strategy.ts), preconditions, and the next state of a DELETE (finalizers for the propagation
// policy, graceful termination). Pure functions of their inputs: the store's counters come in through a context.
import {stripNulls} from '../core/index.js';
import type {ObjectMeta, Pod} from '../core/index.js';
import {formatTimestamp} from './clock.js';
import {apiVersionOf, type ResourceInfo} from './resources.js';
import {badRequest, conflict, StatusError} from './status-errors.js';
import {decodeForWrite, prepareForCreate, prepareForUpdate, validateForCreate, validateForUpdate} from './strategy.js';
import {isRecord} from './store-tables.js';
import type {KubeObject} from './types.js';

export type MutableJson = Record<string, unknown>;

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

/** What admitting a create needs from the store. */
export interface CreateContext {
  now(): number;
  /** A uid no stored object has. */
  newUid(): string;
  /** `prefix` plus a random suffix no object of the resource in the namespace has. */
  generateName(info: ResourceInfo, namespace: string | undefined, prefix: string): string;
  /** 404 when the namespace is missing, 403 when it is terminating. */
  checkNamespaceWritable(info: ResourceInfo, namespace: string, name: string): void;
}

/** 9999-12-31T23:59:59Z: the latest time a timestamp can hold. */
const LAST_RFC3339_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

// upstream: plugin/pkg/admission/namespace/lifecycle (immortal namespaces)
const PROTECTED_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

const GRACEFUL_PHASES_DONE = new Set(['Failed', 'Succeeded']);

/** Metadata server-owned for an update: kept from the stored object whatever the input says. */
const SERVER_OWNED_META = ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const;

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

/** Freezes in place, dropping keys that hold undefined on the way (defaulting leaves some behind). */
export function deepFreeze<T>(value: T): T {
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

export function metaOf(obj: MutableJson): MutableJson {
  const m = obj['metadata'];
  if (isRecord(m)) return m;
  const fresh: MutableJson = {};
  obj['metadata'] = fresh;
  return fresh;
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

/** The namespace and name a create stores under: the namespace defaulted and checked, the name generated if asked. */
function admitIdentity(info: ResourceInfo, meta: MutableJson, options: CreateOptions, ctx: CreateContext): void {
  if (info.namespaced) {
    const ns = (meta['namespace'] as string | undefined) || options.namespace || 'default';
    meta['namespace'] = ns;
    ctx.checkNamespaceWritable(info, ns, (meta['name'] as string | undefined) ?? '');
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
    meta['name'] = ctx.generateName(info, meta['namespace'] as string | undefined, generateName);
  }
}

/**
 * The object a create stores, before its resourceVersion: decoded, identified, stamped (uid, creationTimestamp,
 * generation; kept from the input when restoring), defaulted and validated. 400 / 404 / 422 as the registry answers.
 */
export function admitCreate(info: ResourceInfo, input: object, options: CreateOptions, ctx: CreateContext): MutableJson {
  const obj = normalizeInput(info, input);
  const decodeError = decodeForWrite(info, obj);
  if (decodeError !== undefined) throw decodeError;
  obj['apiVersion'] = apiVersionOf(info);
  obj['kind'] = info.kind;
  const meta = metaOf(obj);
  admitIdentity(info, meta, options, ctx);
  const restore = options.restore === true;
  if (!restore || typeof meta['uid'] !== 'string' || meta['uid'] === '') meta['uid'] = ctx.newUid();
  if (!restore || typeof meta['creationTimestamp'] !== 'string') meta['creationTimestamp'] = formatTimestamp(ctx.now());
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
  return obj;
}

/** An update's optimistic concurrency: 409 when the resourceVersion or uid it names is not the stored one's. */
export function checkUpdatePreconditions(info: ResourceInfo, old: KubeObject, inMeta: Partial<ObjectMeta>, options: UpdateOptions): void {
  const name = inMeta.name ?? '';
  const expected = options.expectedResourceVersion ?? inMeta.resourceVersion;
  if (expected !== undefined && expected !== '' && expected !== old.metadata.resourceVersion) throw conflict(info, name);
  if (inMeta.uid !== undefined && inMeta.uid !== '' && inMeta.uid !== old.metadata.uid) {
    throw conflict(info, name, `Precondition failed: UID in precondition: ${inMeta.uid}, UID in object meta: ${old.metadata.uid ?? ''}`);
  }
}

/** The input of an update narrowed to what it may change: status only for the status subresource, all but status otherwise. */
function updatableParts(info: ResourceInfo, input: object, old: KubeObject, options: UpdateOptions): MutableJson {
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
  return next;
}

/**
 * The object an update stores, before its resourceVersion: server-owned metadata kept, the update strategy
 * applied and validated (a status write is validated too for pods and nodes: conditions need a type;
 * DaemonSet status is the controller's alone). It still carries the stored resourceVersion, so a no-op
 * deep-equals the stored object.
 */
export function admitUpdate(info: ResourceInfo, input: object, old: KubeObject, key: {namespace: string; name: string}, options: UpdateOptions): MutableJson {
  const next = updatableParts(info, input, old, options);
  const decodeError = decodeForWrite(info, next);
  if (decodeError !== undefined) throw decodeError;
  next['apiVersion'] = apiVersionOf(info);
  next['kind'] = info.kind;
  const meta = metaOf(next);
  // Server-owned metadata cannot be changed by an update.
  for (const field of SERVER_OWNED_META) {
    const v = old.metadata[field];
    if (v === undefined) delete meta[field];
    else meta[field] = v;
  }
  meta['name'] = key.name;
  if (info.namespaced) meta['namespace'] = key.namespace;
  else delete meta['namespace'];
  meta['resourceVersion'] = old.metadata.resourceVersion;
  delete meta['selfLink'];
  if (options.subresource !== 'status') {
    prepareForUpdate(info, next, old);
    const err = validateForUpdate(info, next, old);
    if (err !== undefined) throw err;
  } else if (info.resource === 'pods' || info.resource === 'nodes') {
    const err = validateForUpdate(info, next, old);
    if (err !== undefined) throw err;
  }
  return next;
}

/** A DELETE's preconditions (409), the immortal namespaces (403) and the propagation policy's spelling (400). */
export function checkDelete(info: ResourceInfo, name: string, old: KubeObject, options: DeleteOptions): void {
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
  if (info.resource === 'namespaces' && PROTECTED_NAMESPACES.has(name)) {
    throw new StatusError(403, 'Forbidden', `namespaces "${name}" is forbidden: this namespace may not be deleted`, {name, kind: 'namespaces'});
  }
  const policy = options.propagationPolicy;
  if (policy !== undefined && policy !== 'Background' && policy !== 'Foreground' && policy !== 'Orphan') {
    throw badRequest(
      `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${String(policy)}": supported values: "Foreground", "Background", "Orphan"`,
    );
  }
}

/** A pod's grace period for a DELETE: 0 for unbound or finished pods, else the request's or the pod's own (30 s). */
export function podGrace(pod: Pod, requested: number | undefined): number {
  if (!pod.spec?.nodeName) return 0;
  if (GRACEFUL_PHASES_DONE.has(pod.status?.phase ?? '')) return 0;
  let grace = requested ?? pod.spec.terminationGracePeriodSeconds ?? 30;
  if (grace < 0) grace = 1;
  return grace;
}

/** The finalizers a DELETE leaves: `orphan` or `foregroundDeletion` for those policies, neither for Background. */
function finalizersFor(policy: PropagationPolicy | undefined, existing: readonly string[]): string[] {
  let finalizers = [...existing];
  if (policy === 'Orphan') finalizers = [...finalizers.filter((f) => f !== 'foregroundDeletion'), ...(finalizers.includes('orphan') ? [] : ['orphan'])];
  if (policy === 'Foreground')
    finalizers = [...finalizers.filter((f) => f !== 'orphan'), ...(finalizers.includes('foregroundDeletion') ? [] : ['foregroundDeletion'])];
  if (policy === 'Background') finalizers = finalizers.filter((f) => f !== 'orphan' && f !== 'foregroundDeletion');
  return finalizers;
}

/**
 * The state a DELETE leaves `old` in, written into `next` (a copy of it), and whether the deletion is pending:
 * finalizers, a pod's grace period or a namespace's own finalizers keep the object, marked with
 * deletionTimestamp (now + grace); otherwise it goes at once.
 */
export function prepareDeletion(
  info: ResourceInfo,
  old: KubeObject,
  next: MutableJson,
  policy: PropagationPolicy | undefined,
  grace: number,
  now: number,
): boolean {
  const meta = metaOf(next);
  const finalizers = finalizersFor(policy, old.metadata.finalizers ?? []);
  if (finalizers.length > 0) meta['finalizers'] = finalizers;
  else delete meta['finalizers'];
  const namespaceFinalizers = info.resource === 'namespaces' ? ((old as {spec?: {finalizers?: readonly string[]}}).spec?.finalizers ?? []) : [];
  const alreadyDeleting = old.metadata.deletionTimestamp !== undefined;
  if (grace === 0 && finalizers.length === 0 && namespaceFinalizers.length === 0) {
    if (alreadyDeleting) meta['deletionGracePeriodSeconds'] = 0;
    return false;
  }
  // Pending deletion: mark, keep, and let the kubelet / GC / namespace controller finish.
  const oldGrace = old.metadata.deletionGracePeriodSeconds;
  if (!alreadyDeleting || grace < (oldGrace ?? Infinity)) {
    // A grace period of centuries (any int64 is accepted) ends at the last time RFC 3339 can write.
    meta['deletionTimestamp'] = formatTimestamp(Math.min(now + grace * 1000, LAST_RFC3339_MS));
    meta['deletionGracePeriodSeconds'] = grace;
    if (!alreadyDeleting && info.tracksGeneration && typeof meta['generation'] === 'number') meta['generation'] = (meta['generation'] as number) + 1;
  }
  if (info.resource === 'namespaces') {
    const status = isRecord(next['status']) ? next['status'] : {};
    next['status'] = {...status, phase: 'Terminating'};
  }
  return true;
}

/** True when a write leaves an object with nothing holding its deletion: the write deletes it. */
export function finalizable(obj: KubeObject): boolean {
  if (obj.metadata.deletionTimestamp === undefined) return false;
  if ((obj.metadata.finalizers ?? []).length > 0) return false;
  if (obj.kind === 'Namespace' && ((obj as {spec?: {finalizers?: readonly string[]}}).spec?.finalizers ?? []).length > 0) return false;
  // A pod still inside its grace period waits for the kubelet, finalizers or not.
  if (obj.kind === 'Pod' && (obj.metadata.deletionGracePeriodSeconds ?? 0) > 0) return false;
  return true;
}
