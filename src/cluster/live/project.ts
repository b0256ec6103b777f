// Slim copies of what the API returns: only the fields the reconcile core reads (src/core/types.ts), so that a
// namespace of 50,000 pods or a cluster of 50,000 nodes fits in memory once the page they came in is dropped.
// Node images, pod volumes, env and probes, managedFields: none of them matter to a DaemonSet rollout.
import {
  type ControllerRevision,
  type DaemonSet,
  type DecodedKind,
  decodeObject,
  type Node,
  type ObjectMeta,
  type Pod,
  summarizeFieldErrors,
} from '../../core/index.js';
import {ClusterError} from '../../errors.js';

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

function metadata(raw: unknown, keys: readonly string[]): ObjectMeta {
  return pick(isObject(raw) ? raw['metadata'] : undefined, keys) as unknown as ObjectMeta;
}

function readyCondition(status: unknown): Json[] | undefined {
  const conditions = isObject(status) ? status['conditions'] : undefined;
  if (!Array.isArray(conditions)) return undefined;
  return conditions.filter((c) => isObject(c) && c['type'] === 'Ready').map((c) => pick(c, ['type', 'status', 'reason', 'lastTransitionTime']));
}

// What the rules read of a node: its name and labels (nodeSelector, affinity), taints, cordon, readiness.
// Annotations, addresses, capacity, images and the other conditions are dropped.
const NODE_META_KEYS = ['name', 'uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp', 'labels'];

export function projectNode(answer: unknown): Node {
  const raw = decoded('Node', answer);
  const source = raw;
  const conditions = readyCondition(source['status']);
  return {
    metadata: metadata(raw, NODE_META_KEYS),
    spec: pick(source['spec'], ['taints', 'unschedulable']),
    status: (conditions === undefined ? {} : {conditions}) as Node['status'],
  };
}

// What the rules read of a pod: identity and deletion, labels (selector, revision hash, template generation),
// the controller reference (claims), where it runs, and readiness with the containers' waiting or terminated
// reasons. Annotations, volumes, env, probes, plain owner references and messages are dropped.
const POD_META_KEYS = ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels'];

function containerStatuses(list: unknown): Json[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.map((c) => {
    const out = pick(c, ['name', 'ready', 'restartCount']);
    const state = isObject(c) ? c['state'] : undefined;
    if (isObject(state)) {
      out['state'] = isObject(state['waiting'])
        ? {waiting: pick(state['waiting'], ['reason'])}
        : isObject(state['terminated'])
          ? {terminated: pick(state['terminated'], ['reason', 'exitCode'])}
          : {running: {}};
    }
    return out;
  });
}

export function projectPod(answer: unknown): Pod {
  const raw = decoded('Pod', answer);
  const source = raw;
  const meta = metadata(raw, POD_META_KEYS) as unknown as Json;
  const rawMeta = isObject(source['metadata']) ? source['metadata'] : {};
  const controller = Array.isArray(rawMeta['ownerReferences']) ? rawMeta['ownerReferences'].filter((r) => isObject(r) && r['controller'] === true) : [];
  if (controller.length > 0) meta['ownerReferences'] = controller.map((r) => pick(r, ['apiVersion', 'kind', 'name', 'uid', 'controller']));
  const spec = isObject(source['spec']) ? source['spec'] : {};
  // The node-affinity pin only matters for a pod not yet bound to a node (getTargetNodeName).
  const slimSpec: Json = spec['nodeName'] ? {nodeName: spec['nodeName'], containers: []} : {...pick(spec, ['affinity']), containers: []};
  const rawStatus = isObject(source['status']) ? source['status'] : {};
  const status = pick(rawStatus, ['phase', 'reason']);
  const conditions = readyCondition(rawStatus);
  if (conditions !== undefined) status['conditions'] = conditions;
  for (const key of ['containerStatuses', 'initContainerStatuses']) {
    const list = containerStatuses(rawStatus[key]);
    if (list !== undefined) status[key] = list;
  }
  return {metadata: meta as unknown as ObjectMeta, spec: slimSpec as unknown as Pod['spec'], status};
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
