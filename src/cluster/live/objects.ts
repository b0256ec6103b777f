// The few objects besides a DaemonSet's own that ds-rollout writes: what a detached rollout creates (ServiceAccount,
// roles, ConfigMap, Job) and the Events it records on the DaemonSet. Created, never updated: an object that exists
// already is reported as such (a second `--detach` of the same rollout finds its Job).
import type {DaemonSet, Manifest} from '../../core/index.js';
import {ConflictError, NotFoundError} from '../../platform/errors.js';
import type {KubeClient} from './client.js';
import {describe} from './paths.js';

const KINDS: Readonly<Record<string, {readonly prefix: string; readonly resource: string; readonly namespaced: boolean}>> = {
  ServiceAccount: {prefix: '/api/v1', resource: 'serviceaccounts', namespaced: true},
  ConfigMap: {prefix: '/api/v1', resource: 'configmaps', namespaced: true},
  Event: {prefix: '/api/v1', resource: 'events', namespaced: true},
  Role: {prefix: '/apis/rbac.authorization.k8s.io/v1', resource: 'roles', namespaced: true},
  RoleBinding: {prefix: '/apis/rbac.authorization.k8s.io/v1', resource: 'rolebindings', namespaced: true},
  ClusterRole: {prefix: '/apis/rbac.authorization.k8s.io/v1', resource: 'clusterroles', namespaced: false},
  ClusterRoleBinding: {prefix: '/apis/rbac.authorization.k8s.io/v1', resource: 'clusterrolebindings', namespaced: false},
  Job: {prefix: '/apis/batch/v1', resource: 'jobs', namespaced: true},
};

function kindOf(kind: string) {
  const info = KINDS[kind];
  if (info === undefined) throw new Error(`no REST path known for kind ${kind}`);
  return info;
}

function collectionPath(kind: string, namespace: string | undefined): string {
  const info = kindOf(kind);
  return `${info.prefix}${info.namespaced ? `/namespaces/${encodeURIComponent(namespace ?? 'default')}` : ''}/${info.resource}`;
}

/** Creates `manifest` (with dryRun=All when asked): `created`, or `exists` when an object of that name is there. */
export async function createObject(client: KubeClient, manifest: Manifest, options: {dryRun?: boolean} = {}): Promise<'created' | 'exists'> {
  const {namespace, name} = manifest.metadata;
  const request = describe('create', kindOf(manifest.kind).resource, namespace, name);
  try {
    await client.write('POST', collectionPath(manifest.kind, namespace), request, {
      body: manifest,
      query: {fieldManager: 'ds-rollout', ...(options.dryRun ? {dryRun: 'All'} : {})},
    });
    return 'created';
  } catch (error) {
    // A create has no resourceVersion to conflict with: its 409 is AlreadyExists; its 404, a namespace that is not there.
    if (error instanceof ConflictError) return 'exists';
    if (error instanceof NotFoundError && namespace !== undefined) {
      throw new NotFoundError(`namespace "${namespace}" not found: cannot create ${manifest.kind} ${name} in it`, {cause: error});
    }
    throw error;
  }
}

/** One object as plain JSON, or undefined when there is none of that name. */
export async function readObject<T>(client: KubeClient, kind: string, namespace: string | undefined, name: string): Promise<T | undefined> {
  try {
    return await client.get<T>(`${collectionPath(kind, namespace)}/${encodeURIComponent(name)}`, describe('get', kindOf(kind).resource, namespace, name));
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/** A JSON merge patch of one object (carry metadata.resourceVersion in `body` for a precondition). */
export async function patchObject(
  client: KubeClient,
  kind: string,
  namespace: string | undefined,
  name: string,
  body: Readonly<Record<string, unknown>>,
  options: {dryRun?: boolean} = {},
): Promise<void> {
  await client.write('PATCH', `${collectionPath(kind, namespace)}/${encodeURIComponent(name)}`, describe('patch', kindOf(kind).resource, namespace, name), {
    body,
    contentType: 'application/merge-patch+json',
    query: {fieldManager: 'ds-rollout', ...(options.dryRun ? {dryRun: 'All'} : {})},
  });
}

/**
 * The objects of a kind that carry `labelSelector` (one page: a few per namespace are expected); `namespace`
 * undefined: of a namespaced kind, in every namespace.
 */
export async function listObjects<T>(client: KubeClient, kind: string, namespace: string | undefined, labelSelector: string): Promise<T[]> {
  const info = kindOf(kind);
  const path = namespace === undefined ? `${info.prefix}/${info.resource}` : collectionPath(kind, namespace);
  const result = await client.list(path, describe('list', info.resource, namespace), (item) => item as T, {
    pageSize: 500,
    labelSelector,
  });
  return [...result.items];
}

/** Deletes one object, only if it is still the one read (uid and resourceVersion preconditions); gone already is fine. */
export async function deleteObject(
  client: KubeClient,
  kind: string,
  namespace: string | undefined,
  name: string,
  preconditions: {uid: string; resourceVersion: string},
): Promise<void> {
  try {
    await client.write('DELETE', `${collectionPath(kind, namespace)}/${encodeURIComponent(name)}`, describe('delete', kindOf(kind).resource, namespace, name), {
      body: {apiVersion: 'v1', kind: 'DeleteOptions', preconditions},
    });
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
}

/** Where a rollout's Events go on a live cluster (services/rollout-events.ts). */
export function liveEventSink(live: {
  readonly client: KubeClient;
  readonly source: {readDaemonSet(ref: {namespace: string; name: string}): Promise<DaemonSet>};
}): {readDaemonSet(ref: {namespace: string; name: string}): Promise<DaemonSet>; createEvent(event: Manifest): Promise<void>; now(): number} {
  return {
    readDaemonSet: (ref) => live.source.readDaemonSet(ref),
    createEvent: async (event) => {
      await createObject(live.client, event);
    },
    now: () => live.client.serverNow(),
  };
}
