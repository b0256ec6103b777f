// Chooses the ClusterSource for a command's flags and resolves the namespace the way kubectl does.
import {UsageError} from '../platform/errors.js';
import type {ClusterSource} from './cluster-source.js';
import type {LiveCluster} from './live/index.js';
import type {SnapshotClusterSource} from './snapshot/snapshot-source.js';
import type {ClusterObjectsSource, DaemonSetRef} from './cluster-source.js';
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
  // kubectl's connection flags (src/cli/flags.ts connectionFlags).
  readonly cluster?: string;
  readonly user?: string;
  readonly server?: string;
  readonly token?: string;
  readonly as?: string;
  readonly 'as-group'?: readonly string[];
  readonly 'certificate-authority'?: string;
  readonly 'insecure-skip-tls-verify'?: boolean;
  readonly 'tls-server-name'?: string;
  /** Tries per request (default: the retry policy's); 1 where an absent cluster is said at once (version). */
  readonly attempts?: number;
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
  /** Set when the source is a snapshot: its DaemonSets, for a command run without NAME. */
  readonly snapshot?: SnapshotClusterSource;
  /** The same cluster read a whole scope at a time (status -A). */
  readonly objects: ClusterObjectsSource;
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
    const snapshot = await SnapshotClusterSource.fromFile(options.snapshot);
    return {source: snapshot, namespace: options.namespace ?? 'default', snapshot, objects: snapshot};
  }
  const live = await openLiveCluster(options);
  return {source: live.source, namespace: live.namespace, live, objects: live.source};
}

/** A live cluster only: for commands that write (a snapshot cannot be changed) or follow watches. */
export async function openLiveCluster(options: SourceOptions, purpose?: string): Promise<LiveCluster> {
  if (options.snapshot !== undefined) throw new UsageError(`--snapshot is read-only: ${purpose ?? 'this command'} needs a live cluster`);
  const {connectLiveCluster} = await import('./live/index.js');
  return connectLiveCluster({
    ...kubeconfigOptions(options),
    timeoutMs: options['request-timeout'],
    ...(options.attempts === undefined ? {} : {attempts: options.attempts}),
  });
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

/**
 * The DaemonSet a command names; without NAME, the one DaemonSet of a snapshot (in -n NAMESPACE when given). Several:
 * the error lists them (ten at most), so the user can pick one.
 */
export function chooseDaemonSet(opened: OpenedSource, name: string | undefined, flagNamespace: string | undefined, usage: string): DaemonSetRef {
  if (name !== undefined) return {namespace: opened.namespace, name};
  if (opened.snapshot === undefined) throw new UsageError(`missing required argument NAME; see '${usage} --help'`);
  const refs = opened.snapshot.daemonSetRefs(flagNamespace);
  if (refs.length === 1) return refs[0]!;
  const where = `snapshot ${opened.snapshot.name}${flagNamespace === undefined ? '' : ` (namespace "${flagNamespace}")`}`;
  if (refs.length === 0) throw new UsageError(`${where} holds no DaemonSet`);
  const shown = refs.slice(0, 10).map((ref) => `${ref.namespace}/${ref.name}`);
  const more = refs.length > shown.length ? ` and ${refs.length - shown.length} more` : '';
  throw new UsageError(`${where} holds ${refs.length} DaemonSets: name one (${shown.join(', ')}${more})`);
}
