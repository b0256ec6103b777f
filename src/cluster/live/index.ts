// The live adapter's entry: one call turns kubeconfig flags into a source, a writer and a way to watch.
import type {DaemonSetRef} from '../cluster-source.js';
import {KubeClient} from './client.js';
import {Credentials} from './credentials.js';
import {type KubeconfigOptions, resolveKubeconfig} from './kubeconfig.js';
import type {KubeconfigData} from './kubeconfig-merge.js';
import {LiveClusterSource} from './live-source.js';
import {type ClusterObjectsWatchOptions, type ClusterWatch, type ClusterWatchOptions, watchClusterObjects, watchClusterState} from './watch.js';
import {LiveClusterWriter} from './writer.js';

export interface ConnectOptions extends KubeconfigOptions {
  /** Per-request limit in ms (and an exec credential plugin's); 0 or undefined: none. */
  readonly timeoutMs?: number;
  readonly pageSize?: number;
  /** Tries of one request (default: the retry policy's); completion asks once. */
  readonly attempts?: number;
}

export interface LiveCluster {
  readonly client: KubeClient;
  readonly source: LiveClusterSource;
  readonly writer: LiveClusterWriter;
  /** `-n`, else the context's namespace, else "default". */
  readonly namespace: string;
  readonly server: string;
  readonly context: string;
  watch(ref: DaemonSetRef, options: ClusterWatchOptions): ClusterWatch;
  /** Every DaemonSet of a namespace (undefined: all) with what is around them: one watch per resource. */
  watchObjects(namespace: string | undefined, options: ClusterObjectsWatchOptions): ClusterWatch;
}

/** `kubeconfig`: one already loaded (a fleet's, read once for all its contexts); else the flags' is read. */
export function connectLiveCluster(options: ConnectOptions, kubeconfig?: KubeconfigData): LiveCluster {
  const config = resolveKubeconfig(options, kubeconfig);
  const credentials = new Credentials(config, options.timeoutMs ? {timeoutMs: options.timeoutMs} : {});
  const client = new KubeClient(credentials, config.server, config.context, {
    timeoutMs: options.timeoutMs,
    ...(options.attempts === undefined ? {} : {attempts: options.attempts}),
  });
  return {
    client,
    source: new LiveClusterSource(client, {pageSize: options.pageSize}),
    writer: new LiveClusterWriter(client),
    namespace: config.namespace,
    server: config.server,
    context: config.context,
    watch: (ref, watchOptions) => watchClusterState(client, ref, {pageSize: options.pageSize, ...watchOptions}),
    watchObjects: (namespace, watchOptions) => watchClusterObjects(client, {namespace}, {pageSize: options.pageSize, ...watchOptions}),
  };
}

export {KubeClient} from './client.js';
export {Credentials} from './credentials.js';
export {type KubeconfigList, kubeconfigNames, loadKubeconfig, resolveKubeconfig} from './kubeconfig.js';
export type {KubeconfigData} from './kubeconfig-merge.js';
export {LiveClusterSource, DEFAULT_PAGE_SIZE} from './live-source.js';
export {LiveClusterWriter} from './writer.js';
export {Reflector, watchClusterState, type ClusterWatch, type ClusterWatchOptions} from './watch.js';
export {Follower, type Connection, type Follow, type FollowHandlers, type UntilOptions} from './follower.js';
export {isTransient, RETRY_ATTEMPTS, retryDelayMs, withRetries, worthRetrying} from './retry.js';
