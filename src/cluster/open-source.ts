// Chooses the ClusterSource for a command's flags and resolves the namespace the way kubectl does.
import {UsageError} from '../errors.js';
import type {ClusterSource} from './cluster-source.js';
import type {LiveCluster} from './live/index.js';
import type {KubeconfigOptions} from './live/kubeconfig.js';

export interface SourceOptions {
  /** `--snapshot FILE` (`-` for stdin): offline mode. */
  readonly snapshot?: string;
  /** `-n`; undefined means "the context's namespace" in live mode and `default` for a snapshot. */
  readonly namespace?: string;
  readonly context?: string;
  readonly kubeconfig?: string;
  /** `--request-timeout` in ms (live mode); 0 or undefined: none. */
  readonly 'request-timeout'?: number;
  // kubectl's connection flags (flags.ts connectionFlags).
  readonly cluster?: string;
  readonly user?: string;
  readonly server?: string;
  readonly token?: string;
  readonly as?: string;
  readonly 'as-group'?: readonly string[];
  readonly 'certificate-authority'?: string;
  readonly 'insecure-skip-tls-verify'?: boolean;
  readonly 'tls-server-name'?: string;
}

const LIVE_ONLY = [
  'context',
  'kubeconfig',
  'cluster',
  'user',
  'server',
  'token',
  'as',
  'as-group',
  'certificate-authority',
  'insecure-skip-tls-verify',
  'tls-server-name',
] as const;

export interface OpenedSource {
  readonly source: ClusterSource;
  readonly namespace: string;
  /** Present in live mode: what watches and writes need. */
  readonly live?: LiveCluster;
}

export async function openClusterSource(options: SourceOptions): Promise<OpenedSource> {
  if (options.snapshot !== undefined) {
    // A snapshot has no contexts; accepting these silently would suggest they changed something.
    for (const flag of LIVE_ONLY) {
      const value = options[flag];
      if (value !== undefined && value !== false && !(Array.isArray(value) && value.length === 0)) {
        throw new UsageError(`--${flag} selects a live cluster; it cannot be used with --snapshot`);
      }
    }
    const {SnapshotClusterSource} = await import('./snapshot/snapshot-source.js');
    return {source: await SnapshotClusterSource.fromFile(options.snapshot), namespace: options.namespace ?? 'default'};
  }
  const live = await openLiveCluster(options);
  return {source: live.source, namespace: live.namespace, live};
}

/** A live cluster only: for commands that write (a snapshot cannot be changed) or follow watches. */
export async function openLiveCluster(options: SourceOptions, purpose?: string): Promise<LiveCluster> {
  if (options.snapshot !== undefined) throw new UsageError(`--snapshot is read-only: ${purpose ?? 'this command'} needs a live cluster`);
  const {connectLiveCluster} = await import('./live/index.js');
  return connectLiveCluster({...kubeconfigOptions(options), timeoutMs: options['request-timeout']});
}

/** kubectl's flags, as parsed, in the kubeconfig resolver's terms. */
export function kubeconfigOptions(options: Omit<SourceOptions, 'snapshot' | 'request-timeout'>): KubeconfigOptions {
  return {
    kubeconfig: options.kubeconfig,
    context: options.context,
    cluster: options.cluster,
    user: options.user,
    namespace: options.namespace,
    server: options.server,
    token: options.token,
    as: options.as,
    asGroups: options['as-group'],
    certificateAuthority: options['certificate-authority'],
    insecureSkipTlsVerify: options['insecure-skip-tls-verify'],
    tlsServerName: options['tls-server-name'],
  };
}
