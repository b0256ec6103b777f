// Slim copies of what the API returns: only the fields the reconcile core reads (src/core/types.ts), so that a
// namespace of 50,000 pods or a cluster of 50,000 nodes fits in memory once the page they came in is dropped.
// Node images, pod volumes, env and probes, managedFields: none of them matter to a DaemonSet rollout.
import type {ControllerRevision, DaemonSet, Node, ObjectMeta, Pod} from '../../core/index.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pick(source: unknown, keys: readonly string[]): Json {
  const out: Json = {};
  if (!isObject(source)) return out;
  for (const key of keys) if (source[key] !== undefined && source[key] !== null) out[key] = source[key];
  return out;
}

const META_KEYS = [
  'name',
  'generateName',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
] as const;

function metadata(raw: unknown, keys: readonly string[] = META_KEYS): ObjectMeta {
  return pick(isObject(raw) ? raw['metadata'] : undefined, keys) as unknown as ObjectMeta;
}

function containers(list: unknown): Json[] | undefined {
  return Array.isArray(list) ? list.map((c) => pick(c, ['name', 'image'])) : undefined;
}

function withDefined(out: Json, key: string, value: unknown): void {
  if (value !== undefined) out[key] = value;
}

// Node annotations carry attachment lists and the like: not read by any rule.
const NODE_META_KEYS = META_KEYS.filter((key) => key !== 'annotations');

export function projectNode(raw: unknown): Node {
  const source = isObject(raw) ? raw : {};
  const status = isObject(source['status']) ? source['status'] : {};
  return {
    metadata: metadata(raw, NODE_META_KEYS),
    spec: pick(source['spec'], ['taints', 'unschedulable']),
    status: pick(status, ['conditions']),
  };
}

export function projectPod(raw: unknown): Pod {
  const source = isObject(raw) ? raw : {};
  const spec = isObject(source['spec']) ? source['spec'] : {};
  const slimSpec = pick(spec, ['nodeName', 'nodeSelector', 'affinity', 'tolerations', 'hostNetwork', 'terminationGracePeriodSeconds']);
  slimSpec['containers'] = containers(spec['containers']) ?? [];
  withDefined(slimSpec, 'initContainers', containers(spec['initContainers']));
  const status = pick(source['status'], ['phase', 'conditions', 'reason', 'message', 'startTime', 'hostIP', 'podIP']);
  const raws = isObject(source['status']) ? source['status'] : {};
  for (const key of ['containerStatuses', 'initContainerStatuses']) {
    const list = raws[key];
    if (Array.isArray(list)) status[key] = list.map((c) => pick(c, ['name', 'ready', 'restartCount', 'image', 'started', 'state', 'lastState']));
  }
  return {metadata: metadata(raw), spec: slimSpec as unknown as Pod['spec'], status};
}

/** DaemonSets and revisions are few and read whole (their templates are diffed and patched back): only managedFields go. */
export function projectDaemonSet(raw: unknown): DaemonSet {
  return withoutManagedFields(raw) as unknown as DaemonSet;
}

export function projectRevision(raw: unknown): ControllerRevision {
  return withoutManagedFields(raw) as unknown as ControllerRevision;
}

function withoutManagedFields(raw: unknown): Json {
  const source = isObject(raw) ? raw : {};
  const meta = isObject(source['metadata']) ? source['metadata'] : {};
  if (!('managedFields' in meta)) return source;
  const {managedFields: _dropped, ...rest} = meta;
  return {...source, metadata: rest};
}
