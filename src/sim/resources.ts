// The resources the simulated API server serves, with everything discovery, tables, field selectors
// and the store's per-resource rules need to know about them. One table, so adding a resource is one entry.

export type ResourceName =
  | 'namespaces'
  | 'nodes'
  | 'pods'
  | 'events'
  | 'daemonsets'
  | 'controllerrevisions'
  // What a detached gated rollout creates (its Job, ServiceAccount and roles): stored and served; Jobs run (job-controller.ts).
  | 'serviceaccounts'
  | 'configmaps'
  | 'jobs'
  | 'roles'
  | 'rolebindings'
  | 'clusterroles'
  | 'clusterrolebindings';

export interface ResourceInfo {
  readonly resource: ResourceName;
  /** API group: '' for core. */
  readonly group: '' | 'apps' | 'batch' | 'rbac.authorization.k8s.io';
  readonly version: 'v1';
  readonly kind: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly verbs: readonly string[];
  /** Has a `/status` subresource: the main resource's writes keep status, status writes keep everything else. */
  readonly hasStatus: boolean;
  /** metadata.generation is maintained (bumped on spec changes). */
  readonly tracksGeneration: boolean;
  /** Field selector labels this resource supports besides metadata.name / metadata.namespace. */
  readonly fieldLabels: readonly string[];
}

const FULL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;

export const RESOURCES: Readonly<Record<ResourceName, ResourceInfo>> = {
  namespaces: {
    resource: 'namespaces',
    group: '',
    version: 'v1',
    kind: 'Namespace',
    singular: 'namespace',
    namespaced: false,
    shortNames: ['ns'],
    categories: [],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    hasStatus: true,
    tracksGeneration: false,
    fieldLabels: ['status.phase'],
  },
  nodes: {
    resource: 'nodes',
    group: '',
    version: 'v1',
    kind: 'Node',
    singular: 'node',
    namespaced: false,
    shortNames: ['no'],
    categories: [],
    verbs: FULL_VERBS,
    hasStatus: true,
    tracksGeneration: false,
    fieldLabels: ['spec.unschedulable'],
  },
  pods: {
    resource: 'pods',
    group: '',
    version: 'v1',
    kind: 'Pod',
    singular: 'pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    verbs: FULL_VERBS,
    hasStatus: true,
    tracksGeneration: false,
    fieldLabels: [
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'spec.hostNetwork',
      'status.phase',
      'status.podIP',
      'status.nominatedNodeName',
    ],
  },
  events: {
    resource: 'events',
    group: '',
    version: 'v1',
    kind: 'Event',
    singular: 'event',
    namespaced: true,
    shortNames: ['ev'],
    categories: [],
    verbs: FULL_VERBS,
    hasStatus: false,
    tracksGeneration: false,
    fieldLabels: [
      'involvedObject.kind',
      'involvedObject.namespace',
      'involvedObject.name',
      'involvedObject.uid',
      'involvedObject.apiVersion',
      'involvedObject.resourceVersion',
      'involvedObject.fieldPath',
      'reason',
      'reportingComponent',
      'source',
      'type',
    ],
  },
  daemonsets: {
    resource: 'daemonsets',
    group: 'apps',
    version: 'v1',
    kind: 'DaemonSet',
    singular: 'daemonset',
    namespaced: true,
    shortNames: ['ds'],
    categories: ['all'],
    verbs: FULL_VERBS,
    hasStatus: true,
    tracksGeneration: true,
    fieldLabels: [],
  },
  controllerrevisions: {
    resource: 'controllerrevisions',
    group: 'apps',
    version: 'v1',
    kind: 'ControllerRevision',
    singular: 'controllerrevision',
    namespaced: true,
    shortNames: [],
    categories: [],
    verbs: FULL_VERBS,
    hasStatus: false,
    tracksGeneration: false,
    fieldLabels: [],
  },
  serviceaccounts: plain('serviceaccounts', '', 'ServiceAccount', true, ['sa']),
  configmaps: plain('configmaps', '', 'ConfigMap', true, ['cm']),
  jobs: {...plain('jobs', 'batch', 'Job', true, []), categories: ['all'], hasStatus: true, tracksGeneration: true},
  roles: plain('roles', 'rbac.authorization.k8s.io', 'Role', true, []),
  rolebindings: plain('rolebindings', 'rbac.authorization.k8s.io', 'RoleBinding', true, []),
  clusterroles: plain('clusterroles', 'rbac.authorization.k8s.io', 'ClusterRole', false, []),
  clusterrolebindings: plain('clusterrolebindings', 'rbac.authorization.k8s.io', 'ClusterRoleBinding', false, []),
};

/** A resource stored as given: no status, no generation, no field selectors beyond name and namespace. */
function plain(resource: ResourceName, group: ResourceInfo['group'], kind: string, namespaced: boolean, shortNames: readonly string[]): ResourceInfo {
  return {
    resource,
    group,
    version: 'v1',
    kind,
    singular: kind.toLowerCase(),
    namespaced,
    shortNames,
    categories: [],
    verbs: FULL_VERBS,
    hasStatus: false,
    tracksGeneration: false,
    fieldLabels: [],
  };
}

export const RESOURCE_NAMES: readonly ResourceName[] = Object.keys(RESOURCES) as ResourceName[];

export function isResourceName(name: string): name is ResourceName {
  return Object.prototype.hasOwnProperty.call(RESOURCES, name);
}

export function apiVersionOf(info: ResourceInfo): string {
  return info.group === '' ? info.version : `${info.group}/${info.version}`;
}

/** `pods`, `daemonsets.apps`: the qualified resource that error messages name. */
export function qualifiedResource(info: ResourceInfo): string {
  return info.group === '' ? info.resource : `${info.resource}.${info.group}`;
}

const BY_KIND = new Map<string, ResourceInfo>(Object.values(RESOURCES).map((r) => [r.kind, r]));

export function resourceForKind(kind: string): ResourceInfo | undefined {
  return BY_KIND.get(kind);
}

/** The resources of one group-version, in discovery order. */
export function resourcesOf(group: string, version: string): ResourceInfo[] {
  return Object.values(RESOURCES).filter((r) => r.group === group && r.version === version);
}
