// Live names for shell completion, fetched through the kubeconfig's context the way the commands connect:
// one short try per lookup (no retries), so a slow or absent cluster costs the shell a second, not thirty.
import {type KubeClient, type KubeconfigList, connectLiveCluster, kubeconfigNames} from '../cluster/live/index.js';
import {kubeconfigOptions, type SourceOptions} from '../cluster/open-source.js';
import {compareRevisions, type Revision} from '../core/index.js';

/** Per lookup; the completion's own deadline (complete.ts) bounds the whole. */
const TIMEOUT_MS = 2000;

interface NamedList {
  readonly items?: ReadonlyArray<{readonly metadata?: {readonly name?: string}}>;
}

function connect(choice: SourceOptions): {client: KubeClient; namespace: string} {
  const live = connectLiveCluster({...kubeconfigOptions(choice), timeoutMs: TIMEOUT_MS, attempts: 1});
  return {client: live.client, namespace: live.namespace};
}

async function names(client: KubeClient, path: string, resource: string, namespace?: string): Promise<string[]> {
  const list = await client.get<NamedList>(path, {verb: 'list', resource, ...(namespace ? {namespace} : {})}, {query: {limit: 500}});
  return (list.items ?? []).flatMap((item) => (item.metadata?.name ? [item.metadata.name] : []));
}

/** The kubeconfig's context, cluster or user names, from the file `--kubeconfig` names if typed. */
export function kubeconfigEntryNames(choice: SourceOptions, list: KubeconfigList): string[] {
  return kubeconfigNames(kubeconfigOptions(choice), list);
}

export async function namespaceNames(choice: SourceOptions): Promise<string[]> {
  const {client} = connect(choice);
  return names(client, '/api/v1/namespaces', 'namespaces');
}

export async function daemonSetNames(choice: SourceOptions): Promise<string[]> {
  const {client, namespace} = connect(choice);
  return names(client, `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/daemonsets`, 'daemonsets', namespace);
}

export async function nodeNames(choice: SourceOptions): Promise<string[]> {
  const {client} = connect(choice);
  return names(client, '/api/v1/nodes', 'nodes');
}

interface RevisionList {
  readonly items?: ReadonlyArray<{
    readonly revision?: Revision;
    readonly metadata?: {readonly ownerReferences?: ReadonlyArray<{readonly kind?: string; readonly name?: string}>};
  }>;
}

/** The revision numbers of one DaemonSet's ControllerRevisions (those it owns), newest first. */
export async function revisionNumbers(choice: SourceOptions, daemonSet: string): Promise<string[]> {
  const {client, namespace} = connect(choice);
  const path = `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/controllerrevisions`;
  const list = await client.get<RevisionList>(path, {verb: 'list', resource: 'controllerrevisions', namespace}, {query: {limit: 500}});
  const owned = (list.items ?? []).filter((item) =>
    (item.metadata?.ownerReferences ?? []).some((owner) => owner.kind === 'DaemonSet' && owner.name === daemonSet),
  );
  return owned
    .flatMap((item) => (typeof item.revision === 'number' || typeof item.revision === 'bigint' ? [item.revision] : []))
    .sort((a, b) => compareRevisions(b, a))
    .map((revision) => String(revision));
}
