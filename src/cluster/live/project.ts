// Slim copies of what the API returns: only the fields the reconcile core reads (src/core/types.ts), so that a
// namespace of 50,000 pods or a cluster of 50,000 nodes fits in memory once the page they came in is dropped.
// Node images, pod volumes, env and probes, managedFields: none of them matter to a DaemonSet rollout, and they are
// dropped before decoding, unread. (A snapshot's objects are checked whole: it is input, as a manifest is.)
import {type ControllerRevision, type DaemonSet, type DecodedKind, decodeObject, type Node, type Pod, summarizeFieldErrors} from '../../core/index.js';
import {ClusterError} from '../../platform/errors.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What the server answered, decoded as a client's Go types would decode it; an answer no API server could give
 * (a DaemonSet whose spec is a string) is the server's fault, said in one line with the field, never a crash.
 */
function decoded(kind: DecodedKind, raw: unknown): Json {
  const {object, errors} = decodeObject(kind, raw);
  if (object !== undefined) return object;
  const meta = isObject(raw) && isObject(raw['metadata']) ? raw['metadata'] : {};
  const name = [meta['namespace'], meta['name']].filter((part) => typeof part === 'string').join('/');
  throw new ClusterError(`the server answered a ${kind} that is not valid: ${summarizeFieldErrors(errors)}${name === '' ? '' : ` (${kind} ${name})`}`);
}

function pick(source: unknown, keys: readonly string[]): Json {
  const out: Json = {};
  if (!isObject(source)) return out;
  for (const key of keys) if (source[key] !== undefined && source[key] !== null) out[key] = source[key];
  return out;
}

/**
 * The Ready condition of a status's conditions. A value of the wrong type is kept as it is, here and below, so
 * that decoding names it: what is dropped is never read, what is kept is checked.
 */
/** Conditions kept only when True: a node in trouble (the node gate reads them; healthy nodes keep none). */
const TROUBLE_CONDITIONS: ReadonlySet<unknown> = new Set(['NetworkUnavailable', 'MemoryPressure', 'DiskPressure', 'PIDPressure']);

function readyCondition(conditions: unknown): unknown {
  if (!Array.isArray(conditions)) return conditions;
  return conditions
    .filter((c) => isObject(c) && (c['type'] === 'Ready' || (TROUBLE_CONDITIONS.has(c['type']) && c['status'] === 'True')))
    .map((c) => pick(c as Json, ['type', 'status', 'reason', 'lastTransitionTime']));
}

/** `out[key] = slim(source[key])` when the source has a value there. */
function copy(out: Json, source: Json, key: string, slim: (value: unknown) => unknown): void {
  const value = source[key];
  if (value !== undefined && value !== null) out[key] = slim(value);
}

function slimObject(value: unknown, slim: (value: Json) => Json): unknown {
  return isObject(value) ? slim(value) : value;
}

// What the rules read of a node: its name and labels (nodeSelector, affinity), taints, cordon, readiness.
// Annotations, addresses, capacity, images and the other conditions are dropped.
const NODE_META_KEYS = ['name', 'uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp', 'labels'];

// The projections copy the fields the core reads first and decode only those: most of what the server sends
// (container specs, images, managedFields) is dropped unread.
/** The fields of a node the core reads, not yet decoded (anything but an object is left for decoding to refuse). */
function slimNode(raw: unknown): unknown {
  if (!isObject(raw)) return raw;
  const slim: Json = {};
  copy(slim, raw, 'metadata', (meta) => slimObject(meta, (m) => pick(m, NODE_META_KEYS)));
  copy(slim, raw, 'spec', (spec) => slimObject(spec, (s) => pick(s, ['taints', 'unschedulable'])));
  copy(slim, raw, 'status', (status) => slimObject(status, conditionsOf));
  return slim;
}

export function projectNode(answer: unknown): Node {
  const node = decoded('Node', slimNode(answer));
  node['metadata'] ??= {};
  node['spec'] ??= {};
  node['status'] ??= {};
  return node as unknown as Node;
}

function conditionsOf(status: Json): Json {
  const out: Json = {};
  copy(out, status, 'conditions', readyCondition);
  return out;
}

// What the rules read of a pod: identity and deletion, labels (selector, revision hash, template generation),
// the controller reference (claims), where it runs, and readiness with the containers' waiting or terminated
// reasons. Annotations, volumes, env, probes, plain owner references and messages are dropped.
const POD_META_KEYS = ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels'];

function containerStatuses(list: unknown): unknown {
  if (!Array.isArray(list)) return list;
  return list.map((c) => {
    if (!isObject(c)) return c;
    const out = pick(c, ['name', 'ready', 'restartCount']);
    const state = c['state'];
    if (isObject(state)) {
      out['state'] = isObject(state['waiting'])
        ? {waiting: pick(state['waiting'], ['reason'])}
        : isObject(state['terminated'])
          ? {terminated: pick(state['terminated'], ['reason', 'exitCode'])}
          : {running: {}};
    } else if (state !== undefined && state !== null) out['state'] = state;
    return out;
  });
}

function podMetadata(meta: Json): Json {
  const out = pick(meta, POD_META_KEYS);
  const references = meta['ownerReferences'];
  if (!Array.isArray(references)) copy(out, meta, 'ownerReferences', (value) => value);
  else {
    const controller = references.filter((r) => isObject(r) && r['controller'] === true);
    if (controller.length > 0) out['ownerReferences'] = controller.map((r) => pick(r, ['apiVersion', 'kind', 'name', 'uid', 'controller']));
  }
  return out;
}

function podSpec(spec: Json): Json {
  // The node-affinity pin only matters for a pod not yet bound to a node (getTargetNodeName).
  return spec['nodeName'] ? {nodeName: spec['nodeName'], containers: []} : {...pick(spec, ['affinity']), containers: []};
}

function podStatus(status: Json): Json {
  const out = pick(status, ['phase', 'reason']);
  copy(out, status, 'conditions', readyCondition);
  copy(out, status, 'containerStatuses', containerStatuses);
  copy(out, status, 'initContainerStatuses', containerStatuses);
  return out;
}

/** The fields of a pod the core reads, not yet decoded (anything but an object is left for decoding to refuse). */
function slimPod(raw: unknown): unknown {
  if (!isObject(raw)) return raw;
  const slim: Json = {};
  copy(slim, raw, 'metadata', (meta) => slimObject(meta, podMetadata));
  slim['spec'] = slimObject(raw['spec'] ?? {}, podSpec);
  copy(slim, raw, 'status', (status) => slimObject(status, podStatus));
  return slim;
}

export function projectPod(answer: unknown): Pod {
  const pod = decoded('Pod', slimPod(answer));
  pod['metadata'] ??= {};
  pod['status'] ??= {};
  return pod as unknown as Pod;
}

/**
 * DaemonSets and revisions are few and read whole (their templates are diffed and patched back). managedFields
 * go, but for a DaemonSet the entries that own part of spec.updateStrategy stay (reduced to that): they date a
 * change of strategy made while ds-rollout had it paused.
 */
export function projectDaemonSet(raw: unknown): DaemonSet {
  return withoutManagedFields(decoded('DaemonSet', raw), strategyOwners) as unknown as DaemonSet;
}

export function projectRevision(raw: unknown): ControllerRevision {
  return withoutManagedFields(decoded('ControllerRevision', raw), () => []) as unknown as ControllerRevision;
}

function strategyOwners(entries: unknown): Json[] {
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((entry) => {
    const spec = isObject(entry) && isObject(entry['fieldsV1']) ? entry['fieldsV1']['f:spec'] : undefined;
    if (!isObject(spec) || !isObject(spec['f:updateStrategy'])) return [];
    return [{...pick(entry, ['manager', 'operation', 'time']), fieldsV1: {'f:spec': {'f:updateStrategy': {}}}}];
  });
}

function withoutManagedFields(source: Json, keep: (entries: unknown) => Json[]): Json {
  const meta = isObject(source['metadata']) ? source['metadata'] : {};
  if (!('managedFields' in meta)) return source;
  const {managedFields, ...rest} = meta;
  const kept = keep(managedFields);
  return {...source, metadata: kept.length > 0 ? {...rest, managedFields: kept} : rest};
}
