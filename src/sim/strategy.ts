// Per-resource registry strategies: what a real apiserver does to an object between decoding and storing
// it (PrepareForCreate / PrepareForUpdate, defaulting, validation). The store calls these on plain mutable
// JSON; everything generic (uid, resourceVersion, timestamps, status subresource split) stays in store.ts.
import {deepEqualJson, defaultPod, prepareDaemonSetCreate, prepareDaemonSetUpdate} from '../core/index.js';
import type {DaemonSet, ObjectMeta, Pod} from '../core/index.js';
import {
  decodeObject,
  type FieldError,
  formatInvalid,
  isDecodedKind,
  summarizeFieldErrors,
  validateDaemonSetUpdate,
  validateNamespace,
  valueErrorsOf,
} from '../core/index.js';
import type {ResourceInfo} from './resources.js';
import {badRequest, invalid, type StatusError} from './status-errors.js';
import type {KubeObject} from './types.js';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function child(obj: Json, key: string): Json {
  const v = obj[key];
  if (isRecord(v)) return v;
  const fresh: Json = {};
  obj[key] = fresh;
  return fresh;
}

/**
 * Replaces obj's own keys with those of `next` (defaulting returns new objects; the store holds `obj`).
 * Defaulting adds no nulls; keys it leaves undefined are dropped when the store freezes the object.
 */
function assignAll(obj: Json, next: Json): void {
  for (const k of Object.keys(obj)) delete obj[k];
  Object.assign(obj, next);
}

/** Go's zero values where defaulting code expects structs, so a sparse manifest fails validation instead of crashing. */
function ensureDaemonSetShape(obj: Json): void {
  const spec = child(obj, 'spec');
  const template = child(spec, 'template');
  child(template, 'spec');
}

// upstream: pkg/apis/core/helper/qos/qos.go GetPodQOS (requests/limits of cpu and memory only)
function qosClass(pod: Json): string {
  const spec = isRecord(pod['spec']) ? pod['spec'] : {};
  const containers = [
    ...(Array.isArray(spec['containers']) ? spec['containers'] : []),
    ...(Array.isArray(spec['initContainers']) ? spec['initContainers'] : []),
  ];
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const res = isRecord(c) && isRecord(c['resources']) ? c['resources'] : {};
    const requests = isRecord(res['requests']) ? res['requests'] : {};
    const limits = isRecord(res['limits']) ? res['limits'] : {};
    for (const r of ['cpu', 'memory']) {
      if (requests[r] !== undefined || limits[r] !== undefined) any = true;
      if (limits[r] === undefined || (requests[r] !== undefined && String(requests[r]) !== String(limits[r]))) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

export interface CreateContext {
  /** A client create through the API (POST): status is the registry's, not the caller's. */
  readonly resetStatus: boolean;
}

export function prepareForCreate(info: ResourceInfo, obj: Json, ctx: CreateContext): void {
  const meta = child(obj, 'metadata');
  switch (info.resource) {
    case 'daemonsets': {
      ensureDaemonSetShape(obj);
      assignAll(obj, prepareDaemonSetCreate(obj as unknown as DaemonSet) as unknown as Json);
      // DaemonSetStatus's four non-omitempty counters, as a freshly created DS prints them.
      if (ctx.resetStatus || !isRecord(obj['status'])) {
        obj['status'] = {currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0};
      }
      break;
    }
    case 'pods': {
      child(obj, 'spec');
      assignAll(obj, defaultPod(obj as unknown as Pod) as unknown as Json);
      if (ctx.resetStatus || !isRecord(obj['status'])) obj['status'] = {phase: 'Pending', qosClass: qosClass(obj)};
      break;
    }
    case 'jobs': {
      prepareJobCreate(obj);
      if (ctx.resetStatus || !isRecord(obj['status'])) obj['status'] = {};
      break;
    }
    case 'namespaces': {
      const spec = child(obj, 'spec');
      if (!Array.isArray(spec['finalizers'])) spec['finalizers'] = ['kubernetes'];
      if (ctx.resetStatus || !isRecord(obj['status'])) obj['status'] = {phase: 'Active'};
      namespaceNameLabel(meta);
      break;
    }
    default:
      break;
  }
}

// upstream (behaviour): pkg/registry/batch/job/strategy.go generateSelector and the batch/v1 defaults: unless
// spec.manualSelector, the selector is the Job's uid, and the template carries it and the Job's name as labels.
function prepareJobCreate(obj: Json): void {
  const meta = child(obj, 'metadata');
  const spec = child(obj, 'spec');
  const template = child(spec, 'template');
  const templateMeta = child(template, 'metadata');
  if (spec['manualSelector'] !== true) {
    const uid = meta['uid'] as string;
    templateMeta['labels'] = {...(isRecord(templateMeta['labels']) ? templateMeta['labels'] : {}), 'controller-uid': uid, 'job-name': meta['name'] as string};
    spec['selector'] = {matchLabels: {'controller-uid': uid}};
  }
  spec['parallelism'] ??= 1;
  spec['completions'] ??= 1;
  spec['backoffLimit'] ??= 6;
}

function namespaceNameLabel(meta: Json): void {
  // upstream: pkg/registry/core/namespace/strategy.go (the kubernetes.io/metadata.name label is always set)
  meta['labels'] = {...(isRecord(meta['labels']) ? meta['labels'] : {}), 'kubernetes.io/metadata.name': String(meta['name'])};
}

/** PrepareForUpdate of the main resource (not status): defaulting, generation and template generation. */
export function prepareForUpdate(info: ResourceInfo, next: Json, old: KubeObject): void {
  switch (info.resource) {
    case 'daemonsets': {
      ensureDaemonSetShape(next);
      assignAll(next, prepareDaemonSetUpdate(old as unknown as DaemonSet, next as unknown as DaemonSet) as unknown as Json);
      break;
    }
    case 'pods':
      assignAll(next, defaultPod(next as unknown as Pod) as unknown as Json);
      break;
    case 'namespaces':
      namespaceNameLabel(child(next, 'metadata'));
      break;
    default:
      if (info.tracksGeneration && !deepEqualJson(old['spec'], next['spec'], {nullAsAbsent: true})) {
        child(next, 'metadata')['generation'] = (old.metadata.generation ?? 0) + 1;
      }
      break;
  }
}

function invalidFrom(info: ResourceInfo, name: string, errors: readonly FieldError[]): StatusError {
  const qualifiedKind = info.group === '' ? info.kind : `${info.kind}.${info.group}`;
  return invalid(
    info.kind,
    info.group,
    name,
    formatInvalid(qualifiedKind, name, errors),
    errors.map((e) => ({reason: e.type, message: e.message, field: e.field})),
  );
}

/**
 * What the API server's decoder refuses before anything else runs: a field of the wrong type (`minReadySeconds:
 * "abc"`, `containers: "x"`, an int32 out of range). A real server answers 400 "cannot be handled as"; the
 * reason after the colon names the field as validation does, where Go names the struct field. On success
 * `obj` becomes what the decoder made of it.
 */
// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go (decode errors become BadRequest)
export function decodeForWrite(info: ResourceInfo, obj: Json): StatusError | undefined {
  if (!isDecodedKind(info.kind)) return undefined;
  const {object, errors} = decodeObject(info.kind, obj);
  if (object !== undefined) {
    // As decoded into Go structs: a null list element is its zero value (which validation then judges).
    if (object !== obj) assignAll(obj, object);
    return undefined;
  }
  const version = info.group === '' ? info.version : `${info.group}/${info.version}`;
  return badRequest(`${info.kind} in version "${version}" cannot be handled as a ${info.kind}: ${summarizeFieldErrors(errors)}`);
}

function valueErrors(info: ResourceInfo, obj: Json): FieldError[] {
  if (info.resource === 'namespaces') return validateNamespace((obj as unknown as {metadata: ObjectMeta}).metadata);
  return isDecodedKind(info.kind) ? valueErrorsOf(info.kind, obj as Record<string, unknown>) : [];
}

export function validateForCreate(info: ResourceInfo, obj: Json): StatusError | undefined {
  const errors = valueErrors(info, obj);
  return errors.length === 0 ? undefined : invalidFrom(info, String(child(obj, 'metadata')['name'] ?? ''), errors);
}

export function validateForUpdate(info: ResourceInfo, next: Json, old: KubeObject): StatusError | undefined {
  const errors = info.resource === 'daemonsets' ? validateDaemonSetUpdate(old as unknown as DaemonSet, next as unknown as DaemonSet) : valueErrors(info, next);
  return errors.length === 0 ? undefined : invalidFrom(info, String(child(next, 'metadata')['name'] ?? ''), errors);
}
