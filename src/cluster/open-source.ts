// Chooses the ClusterSource for a command's flags and resolves the namespace the way kubectl does.
import {UsageError} from '../errors.js';
import type {ClusterSource} from './cluster-source.js';

export interface SourceOptions {
  /** `--snapshot FILE` (`-` for stdin): offline mode. */
  readonly snapshot?: string;
  /** `-n`; undefined means "the context's namespace" in live mode and `default` for a snapshot. */
  readonly namespace?: string;
  readonly context?: string;
  readonly kubeconfig?: string;
}

export interface OpenedSource {
  readonly source: ClusterSource;
  readonly namespace: string;
}

export async function openClusterSource(options: SourceOptions): Promise<OpenedSource> {
  if (options.snapshot !== undefined) {
    // A snapshot has no contexts; accepting these silently would suggest they changed something.
    if (options.context !== undefined) throw new UsageError('--context selects a live cluster; it cannot be used with --snapshot');
    if (options.kubeconfig !== undefined) throw new UsageError('--kubeconfig selects a live cluster; it cannot be used with --snapshot');
    const {SnapshotClusterSource} = await import('./snapshot/snapshot-source.js');
    return {source: await SnapshotClusterSource.fromFile(options.snapshot), namespace: options.namespace ?? 'default'};
  }
  throw new UsageError('live mode needs a cluster: not available yet; use --snapshot');
}
