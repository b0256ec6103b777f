// The clusters of a fleet command (`--contexts A,B,'prod-*'`, `--all-contexts`): which contexts of ONE kubeconfig,
// in what order, each opened as its own live cluster. Only the contexts asked are resolved: another context's
// cluster, user and credential plugin are never read or run. A context that cannot be opened (a missing CA file, a
// context naming no cluster) is that member's failure, not the fleet's.
import {contextMatches} from '../core/index.js';
import {DsRolloutError, InputError, UsageError} from '../platform/errors.js';
import type {KubeconfigData, LiveCluster} from './live/index.js';
import {kubeconfigOptions, type SourceOptions} from './open-source.js';

/** What the flags ask: the listed names and patterns, or every context. */
export interface FleetSelection {
  /** `--contexts`: names or glob patterns (`*`, `?`), in the order given. */
  readonly contexts?: readonly string[];
  /** `--all-contexts`. */
  readonly all?: boolean;
}

/** One context of the fleet: its live cluster, or why it could not be opened. */
export type FleetMember = {readonly context: string; readonly cluster: LiveCluster} | {readonly context: string; readonly error: DsRolloutError};

// The flags that override one cluster's or user's entry: with several contexts each context's own entries are used.
const ONE_CLUSTER_ONLY = ['context', 'cluster', 'user', 'server', 'token', 'certificate-authority', 'insecure-skip-tls-verify', 'tls-server-name'] as const;

/** Whether a word of --contexts is a pattern rather than a name (a context name may hold neither `*` nor `?`). */
export function isContextPattern(word: string): boolean {
  return /[*?]/.test(word);
}

/**
 * The contexts a selection names, from the kubeconfig's context names (its order): names in the order given, a
 * pattern's matches in the kubeconfig's order, each context once. A name the kubeconfig lacks, or a pattern that
 * matches nothing, is bad input (a typo must not shrink the fleet silently). Pure.
 */
export function selectContexts(names: readonly string[], selection: FleetSelection): string[] {
  if (selection.all) {
    if (names.length === 0) throw new InputError('the kubeconfig has no context: --all-contexts selects none');
    return [...names];
  }
  const chosen = new Set<string>();
  for (const word of selection.contexts ?? []) {
    if (!isContextPattern(word)) {
      if (!names.includes(word)) throw new InputError(`context "${word}" does not exist in the kubeconfig`);
      chosen.add(word);
      continue;
    }
    const matches = names.filter((name) => contextMatches(word, name));
    if (matches.length === 0) throw new InputError(`--contexts pattern "${word}" matches no context of the kubeconfig`);
    for (const name of matches) chosen.add(name);
  }
  if (chosen.size === 0) throw new UsageError('--contexts names no context: give names or patterns, such as --contexts staging,prod-*');
  return [...chosen];
}

/** Refuses the flags that name one cluster or user (they would silently apply to every context). */
export function checkFleetFlags(options: SourceOptions): void {
  if (options.snapshot !== undefined) throw new UsageError('--snapshot reads one dump offline; it cannot be used with --contexts or --all-contexts');
  for (const flag of ONE_CLUSTER_ONLY) {
    if (options[flag] !== undefined && options[flag] !== false) {
      throw new UsageError(`--${flag} overrides one context; it cannot be used with --contexts or --all-contexts (each context's own is used)`);
    }
  }
}

/** Each selected context opened from one read of the kubeconfig (nothing is contacted yet). */
export async function openFleetClusters(options: SourceOptions, selection: FleetSelection): Promise<FleetMember[]> {
  checkFleetFlags(options);
  const {connectLiveCluster, loadKubeconfig} = await import('./live/index.js');
  const flags = kubeconfigOptions(options);
  const timeoutMs = options['request-timeout'];
  const kubeconfig: KubeconfigData = loadKubeconfig({...flags, timeoutMs});
  const contexts = selectContexts([...kubeconfig.contexts.keys()], selection);
  return contexts.map((context): FleetMember => {
    try {
      return {
        context,
        cluster: connectLiveCluster({...flags, context, timeoutMs, ...(options.attempts === undefined ? {} : {attempts: options.attempts})}, kubeconfig),
      };
    } catch (error) {
      if (error instanceof DsRolloutError) return {context, error};
      throw error;
    }
  });
}
