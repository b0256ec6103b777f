// What a `status` command line asks for, decided from its arguments alone (pure): one DaemonSet, the ones a
// selector or manifest names (in turn), or the table of a namespace; and whether to follow. kubectl's refusals
// in its words; each contradiction is one UsageError line, before anything connects.
import {UsageError} from '../platform/errors.js';

export interface StatusFlags {
  readonly 'all-namespaces': boolean;
  readonly selector?: string | undefined;
  readonly filename?: string | undefined;
  readonly watch?: boolean | undefined;
  readonly snapshot?: string | undefined;
  readonly now?: number | undefined;
}

export interface StatusRequest {
  /** `one`: NAME; `selected`: -l or -f, each in turn; `list`: the table of a namespace (-A: of all). */
  readonly kind: 'one' | 'selected' | 'list';
  readonly watch: boolean;
}

export function statusRequest(name: string | undefined, flags: StatusFlags): StatusRequest {
  if (flags.watch && flags.snapshot !== undefined) throw new UsageError('--watch follows a live cluster; it cannot be used with --snapshot');
  if (flags.watch && flags.now !== undefined) throw new UsageError('--now fixes one instant; it cannot be used with --watch');
  if (flags['all-namespaces'] && name !== undefined) throw new UsageError('a DaemonSet cannot be named across all namespaces: drop -A, or NAME');
  if (flags.selector !== undefined && name !== undefined) {
    throw new UsageError('selectors and the all flag cannot be used when passing resource/name arguments');
  }
  if (flags.filename !== undefined && name !== undefined) {
    throw new UsageError('when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well');
  }
  if (flags.filename !== undefined && (flags.selector !== undefined || flags['all-namespaces'])) {
    throw new UsageError('-f names the DaemonSets itself: it cannot be used with -l or -A');
  }
  if (flags.filename === '-' && flags.snapshot === '-') throw new UsageError('-f - and --snapshot - cannot both read stdin');
  const selecting = flags.selector !== undefined || flags.filename !== undefined;
  const kind = selecting ? 'selected' : name === undefined ? 'list' : 'one';
  // As kubectl rollout status: a rollout is followed unless told not to; a snapshot or --now is one instant. The table
  // of a namespace answers at once, as kubectl get does (-w follows it and judges stuck rows).
  const watch = flags.watch ?? (kind !== 'list' && flags.snapshot === undefined && flags.now === undefined);
  return {kind, watch};
}
