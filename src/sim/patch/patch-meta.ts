// Strategic-merge metadata: which lists merge and on which key. This mirrors the `patchStrategy` /
// `patchMergeKey` struct tags compiled into kubectl 1.32 (k8s.io/api core/v1, apps/v1, meta/v1) for the
// kinds the simulator serves (docs/design/sim-api.md §6.1). Only structs that lead to a merge list are described;
// every other field merges maps key by key and replaces lists, exactly like an untagged Go field.

export type PatchStrategy = 'merge' | 'replace';

export interface FieldMeta {
  /** Struct describing the field's value (for lists: the element). */
  readonly type?: string;
  readonly strategy?: PatchStrategy;
  readonly mergeKey?: string;
}

export type StructMeta = Readonly<Record<string, FieldMeta>>;

const mergeBy = (mergeKey: string, type?: string): FieldMeta => (type ? {strategy: 'merge', mergeKey, type} : {strategy: 'merge', mergeKey});
const mergeScalars: FieldMeta = {strategy: 'merge'};

const containerFields: StructMeta = {
  ports: mergeBy('containerPort'),
  env: mergeBy('name'),
  volumeMounts: mergeBy('mountPath'),
  volumeDevices: mergeBy('devicePath'),
};

const STRUCTS: Readonly<Record<string, StructMeta>> = {
  ObjectMeta: {
    finalizers: mergeScalars,
    ownerReferences: mergeBy('uid'),
  },
  PodTemplateSpec: {metadata: {type: 'ObjectMeta'}, spec: {type: 'PodSpec'}},
  PodSpec: {
    volumes: mergeBy('name'), // also retainKeys, which only matters when computing patches
    initContainers: mergeBy('name', 'Container'),
    containers: mergeBy('name', 'Container'),
    ephemeralContainers: mergeBy('name', 'Container'),
    imagePullSecrets: mergeBy('name'),
    hostAliases: mergeBy('ip'),
    topologySpreadConstraints: mergeBy('topologyKey'),
    schedulingGates: mergeBy('name'),
    resourceClaims: mergeBy('name'),
  },
  Container: containerFields,
  PodStatus: {
    conditions: mergeBy('type'),
    podIPs: mergeBy('ip'),
    hostIPs: mergeBy('ip'),
    resourceClaimStatuses: mergeBy('name'),
  },
  NodeSpec: {podCIDRs: mergeScalars},
  NodeStatus: {conditions: mergeBy('type'), addresses: mergeBy('type')},
  NamespaceStatus: {conditions: mergeBy('type')},
  DaemonSetSpec: {template: {type: 'PodTemplateSpec'}},
  DaemonSetStatus: {conditions: mergeBy('type')},
  Pod: {metadata: {type: 'ObjectMeta'}, spec: {type: 'PodSpec'}, status: {type: 'PodStatus'}},
  Node: {metadata: {type: 'ObjectMeta'}, spec: {type: 'NodeSpec'}, status: {type: 'NodeStatus'}},
  Namespace: {metadata: {type: 'ObjectMeta'}, status: {type: 'NamespaceStatus'}},
  DaemonSet: {metadata: {type: 'ObjectMeta'}, spec: {type: 'DaemonSetSpec'}, status: {type: 'DaemonSetStatus'}},
  ControllerRevision: {metadata: {type: 'ObjectMeta'}},
  Event: {metadata: {type: 'ObjectMeta'}},
};

/** Kinds whose strategic-merge metadata is known. */
export const SMP_KINDS: readonly string[] = ['Pod', 'Node', 'DaemonSet', 'ControllerRevision', 'Namespace', 'Event'];

const NO_FIELDS: StructMeta = {};

/** Root struct of a kind; unknown kinds get no metadata, i.e. maps merge and lists are replaced. */
export function rootMeta(kind: string): StructMeta {
  return SMP_KINDS.includes(kind) ? (STRUCTS[kind] ?? NO_FIELDS) : NO_FIELDS;
}

export function lookupField(meta: StructMeta | undefined, key: string): {strategy?: PatchStrategy; mergeKey: string; type: StructMeta} {
  const field = meta && Object.prototype.hasOwnProperty.call(meta, key) ? meta[key] : undefined;
  const type = field?.type ? (STRUCTS[field.type] ?? NO_FIELDS) : NO_FIELDS;
  return field?.strategy ? {strategy: field.strategy, mergeKey: field.mergeKey ?? '', type} : {mergeKey: field?.mergeKey ?? '', type};
}
