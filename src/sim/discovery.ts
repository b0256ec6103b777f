// /version and API discovery, legacy (APIVersions, APIGroupList, APIResourceList) and aggregated
// (APIGroupDiscoveryList v2 / v2beta1), generated from the resource table in resources.ts.
import {RESOURCES, apiVersionOf, resourcesOf, type ResourceInfo} from './resources.js';
import type {DiscoveryFormat} from './media.js';

export const SERVER_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.5',
  gitCommit: '9894294ef13a5b32803e3ca2c0d620a088cc84d1',
  gitTreeState: 'clean',
  buildDate: '2025-05-15T09:11:14Z',
  goVersion: 'go1.23.8',
  compiler: 'gc',
  platform: 'linux/amd64',
} as const;

const STATUS_VERBS = ['get', 'patch', 'update'];

function legacyResources(info: ResourceInfo): object[] {
  const main: Record<string, unknown> = {
    name: info.resource,
    singularName: info.singular,
    namespaced: info.namespaced,
    kind: info.kind,
    verbs: info.verbs,
  };
  if (info.shortNames.length > 0) main['shortNames'] = info.shortNames;
  if (info.categories.length > 0) main['categories'] = info.categories;
  const out: object[] = [main];
  if (info.hasStatus) out.push({name: `${info.resource}/status`, singularName: '', namespaced: info.namespaced, kind: info.kind, verbs: STATUS_VERBS});
  if (info.resource === 'namespaces') out.push({name: 'namespaces/finalize', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['update']});
  return out;
}

function aggregatedResource(info: ResourceInfo): object {
  const responseKind = {group: info.group, version: info.version, kind: info.kind};
  const out: Record<string, unknown> = {
    resource: info.resource,
    responseKind,
    scope: info.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: info.singular,
    verbs: info.verbs,
  };
  if (info.shortNames.length > 0) out['shortNames'] = info.shortNames;
  if (info.categories.length > 0) out['categories'] = info.categories;
  const subresources: object[] = [];
  if (info.hasStatus) subresources.push({subresource: 'status', responseKind, verbs: STATUS_VERBS});
  if (info.resource === 'namespaces') subresources.push({subresource: 'finalize', responseKind, verbs: ['update']});
  if (subresources.length > 0) out['subresources'] = subresources;
  return out;
}

const GROUPS: readonly string[] = [
  ...new Set(
    Object.values(RESOURCES)
      .map((r) => r.group)
      .filter((g) => g !== ''),
  ),
];

export function apiResourceList(group: string, version: string): object | undefined {
  const resources = resourcesOf(group, version);
  if (resources.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group === '' ? version : `${group}/${version}`,
    resources: resources.flatMap(legacyResources),
  };
}

export function apiGroup(group: string): object | undefined {
  if (!GROUPS.includes(group)) return undefined;
  const gv = {groupVersion: `${group}/v1`, version: 'v1'};
  return {kind: 'APIGroup', apiVersion: 'v1', name: group, versions: [gv], preferredVersion: gv};
}

function aggregatedGroup(group: string): object {
  const metadata: Record<string, unknown> = {creationTimestamp: null};
  if (group !== '') metadata['name'] = group;
  return {
    metadata,
    versions: [{version: 'v1', resources: resourcesOf(group, 'v1').map(aggregatedResource), freshness: 'Current'}],
  };
}

export const DISCOVERY_CONTENT_TYPES: Readonly<Record<Exclude<DiscoveryFormat, 'legacy'>, string>> = {
  v2: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
  v2beta1: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
};

/** `/api` in the negotiated form. */
export function coreDiscovery(format: DiscoveryFormat, serverAddress: string): object {
  if (format === 'legacy') {
    return {kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{clientCIDR: '0.0.0.0/0', serverAddress}]};
  }
  return {kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${format}`, metadata: {}, items: [aggregatedGroup('')]};
}

/** `/apis` in the negotiated form. */
export function groupsDiscovery(format: DiscoveryFormat): object {
  if (format === 'legacy') {
    return {kind: 'APIGroupList', apiVersion: 'v1', groups: GROUPS.map((g) => apiGroup(g))};
  }
  return {kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${format}`, metadata: {}, items: GROUPS.map(aggregatedGroup)};
}

export {apiVersionOf};
