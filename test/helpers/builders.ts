// Test builders in the style of upstream's daemon_controller_test.go helpers (newNode, newDaemonSet, newPod).
// Every builder returns a fresh plain object; callers spread to vary it.
import type {ControllerRevision, DaemonSet, Node, Pod, PodCondition, Taint, Toleration} from '../../src/core/types.js';

export const NOW = Date.parse('2026-11-21T12:00:00Z');
export const T0 = '2026-11-21T11:00:00Z';

export const DS_UID = 'ds-uid-0001';

export function newDaemonSet(
  name = 'foo',
  overrides: {maxUnavailable?: number | string; maxSurge?: number | string; type?: string; minReadySeconds?: number} = {},
): DaemonSet {
  const type = overrides.type ?? 'RollingUpdate';
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {name, namespace: 'default', uid: DS_UID, generation: 1, annotations: {'deprecated.daemonset.template.generation': '1'}},
    spec: {
      selector: {matchLabels: {name}},
      template: {
        metadata: {labels: {name}},
        spec: {containers: [{name: 'main', image: 'foo/bar:1'}]},
      },
      updateStrategy:
        type === 'RollingUpdate' ? {type, rollingUpdate: {maxUnavailable: overrides.maxUnavailable ?? 1, maxSurge: overrides.maxSurge ?? 0}} : {type},
      minReadySeconds: overrides.minReadySeconds ?? 0,
      revisionHistoryLimit: 10,
    },
  };
}

export function newNode(name: string, labels: Record<string, string> = {}, taints: Taint[] = []): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {name, uid: `node-uid-${name}`, labels: {'kubernetes.io/hostname': name, ...labels}, creationTimestamp: T0},
    spec: taints.length > 0 ? {taints} : {},
    status: {conditions: [{type: 'Ready', status: 'True'}]},
  };
}

export function newNodes(count: number, prefix = 'node-'): Node[] {
  const width = String(count - 1).length;
  return Array.from({length: count}, (_, i) => newNode(`${prefix}${String(i).padStart(width, '0')}`));
}

export function readyCondition(since = T0): PodCondition {
  return {type: 'Ready', status: 'True', lastTransitionTime: since};
}

export interface PodOptions {
  hash?: string;
  ready?: boolean;
  readySince?: string;
  phase?: string;
  created?: string;
  deleting?: string;
  owner?: DaemonSet | null;
  labels?: Record<string, string>;
  bound?: boolean;
}

/** A daemon pod of `ds` on `nodeName` (bound via spec.nodeName unless bound is false). */
export function newPod(name: string, nodeName: string, ds: DaemonSet, options: PodOptions = {}): Pod {
  const labels: Record<string, string> = {...(ds.spec.template.metadata?.labels ?? {}), ...(options.labels ?? {})};
  if (options.hash !== undefined) labels['controller-revision-hash'] = options.hash;
  const owner = options.owner === undefined ? ds : options.owner;
  const bound = options.bound ?? true;
  const ready = options.ready ?? true;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: ds.metadata.namespace,
      uid: `pod-uid-${name}`,
      resourceVersion: '1',
      creationTimestamp: options.created ?? T0,
      ...(options.deleting ? {deletionTimestamp: options.deleting} : {}),
      labels,
      ...(owner
        ? {
            ownerReferences: [
              {apiVersion: 'apps/v1', kind: 'DaemonSet', name: owner.metadata.name, uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true},
            ],
          }
        : {}),
    },
    spec: {
      ...(bound ? {nodeName} : {}),
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{matchFields: [{key: 'metadata.name', operator: 'In', values: [nodeName]}]}],
          },
        },
      },
      containers: [{name: 'main', image: 'foo/bar:1'}],
    },
    status: {
      phase: options.phase ?? (ready ? 'Running' : 'Pending'),
      conditions: ready ? [readyCondition(options.readySince)] : [{type: 'Ready', status: 'False', lastTransitionTime: T0}],
    },
  };
}

export function withTaints(node: Node, ...taints: Taint[]): Node {
  return {...node, spec: {...node.spec, taints: [...(node.spec?.taints ?? []), ...taints]}};
}

export function withTolerations(ds: DaemonSet, ...tolerations: Toleration[]): DaemonSet {
  return {
    ...ds,
    spec: {
      ...ds.spec,
      template: {...ds.spec.template, spec: {...ds.spec.template.spec, tolerations: [...(ds.spec.template.spec.tolerations ?? []), ...tolerations]}},
    },
  };
}

/** A ControllerRevision owned by `ds` whose data is `ds`'s current template (so it is the update revision). */
export function newRevision(ds: DaemonSet, hash: string, revision: number, template = ds.spec.template): ControllerRevision {
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `${ds.metadata.name}-${hash}`,
      namespace: ds.metadata.namespace,
      uid: `cr-uid-${hash}`,
      labels: {...(template.metadata?.labels ?? {}), 'controller-revision-hash': hash},
      ownerReferences: [
        {apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.metadata.name, uid: ds.metadata.uid ?? '', controller: true, blockOwnerDeletion: true},
      ],
      creationTimestamp: T0,
    },
    data: {spec: {template: {...template, $patch: 'replace'}}},
    revision,
  };
}
