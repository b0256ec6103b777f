// Flags shared by every command, spelled as kubectl spells them (kubectl forwards none of its own to plugins).
// Imported at the top of command files, so it may import nothing but @oclif/core.
import {Args, Flags} from '@oclif/core';

// RFC3339 as Kubernetes writes it: date, `T`, time, optional fraction, `Z` or an offset.
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/** Milliseconds since the epoch for an RFC3339 time; throws with a one-line reason otherwise. */
export function parseRfc3339(input: string, flag = '--now'): number {
  const ms = RFC3339.test(input) ? Date.parse(input) : Number.NaN;
  if (Number.isNaN(ms)) throw new Error(`invalid ${flag} "${input}": want an RFC3339 time such as 2026-11-21T12:00:00Z`);
  return ms;
}

// Go's time.ParseDuration units, as kubectl's --timeout and --request-timeout take them.
const DURATION_UNITS: Readonly<Record<string, number>> = {ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000};
const DURATION = /^(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h)/;

/** Milliseconds for a Go duration (`90s`, `5m`, `1h30m`, `0`) or a bare number of seconds; throws with a one-line reason otherwise. */
export function parseDuration(input: string, flag: string): number {
  const text = input.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  let rest = text;
  let ms = 0;
  while (rest !== '') {
    const match = DURATION.exec(rest);
    if (!match) throw new Error(`invalid ${flag} "${input}": want a duration such as 30s, 5m or 1h30m`);
    const unit = /[a-zµ]+$/.exec(match[0])![0];
    ms += Number(match[0].slice(0, -unit.length)) * DURATION_UNITS[unit]!;
    rest = rest.slice(match[0].length);
  }
  if (text === '') throw new Error(`invalid ${flag} "": want a duration such as 30s, 5m or 1h30m`);
  return ms;
}

/** A duration flag whose value is milliseconds. */
export function durationFlag(name: string, options: {summary: string}) {
  return Flags.custom<number>({summary: options.summary, helpValue: 'DURATION', parse: async (input) => parseDuration(input, `--${name}`)})();
}

export const namespaceFlag = Flags.string({
  char: 'n',
  summary: "Namespace of the DaemonSet (live mode: the context's namespace; with --snapshot: default).",
  helpValue: 'NAMESPACE',
});

export const contextFlag = Flags.string({
  summary: 'The kubeconfig context to use.',
  helpValue: 'CONTEXT',
});

export const kubeconfigFlag = Flags.string({
  summary: 'Path to the kubeconfig file (default: $KUBECONFIG or ~/.kube/config).',
  helpValue: 'FILE',
});

export const outputFlag = Flags.option({
  char: 'o',
  options: ['text', 'json', 'yaml'] as const,
  default: 'text' as const,
  summary: 'Output format.',
})();

export const nowFlag = Flags.custom<number>({
  summary: 'Judge readiness and minReadySeconds availability at this RFC3339 time (default: now).',
  helpValue: 'RFC3339',
  parse: async (input) => parseRfc3339(input),
})();

export const snapshotFlag = Flags.string({
  summary: 'Read the cluster from a `kubectl get nodes,pods,daemonsets,controllerrevisions -A -o yaml` file (- for stdin) instead of contacting it.',
  helpValue: 'FILE',
});

export const kubeVersionFlag = Flags.custom<number>({
  summary: "Model the DaemonSet controller of this Kubernetes version, e.g. 1.20 (default: the live server's, from /version; offline: the newest modelled).",
  helpValue: '1.N',
  parse: async (input) => {
    // The same forms core/versions.ts parseMinor reads (this module imports nothing but oclif).
    const match = /^v?1\.([0-9]+)(?:\.[0-9]+)?$/.exec(input.trim());
    if (!match) throw new Error(`invalid --kube-version "${input}": want a Kubernetes version such as 1.20`);
    return Number.parseInt(match[1]!, 10);
  },
})();

export const filenameFlag = Flags.string({
  char: 'f',
  summary: 'A DaemonSet manifest: plan the rollout of this new version instead of the stored one.',
  helpValue: 'MANIFEST',
});

export const dryRunFlag = Flags.option({
  options: ['none', 'client', 'server'] as const,
  default: 'none' as const,
  summary: 'Only show what would be done: client (nothing is sent) or server (sent with dryRun=All).',
})();

export const requestTimeoutFlag = Flags.custom<number>({
  summary: 'How long one API request may take before the cluster counts as unreachable (0: no limit).',
  helpValue: 'DURATION',
  default: 30_000,
  defaultHelp: async () => '30s',
  parse: async (input) => parseDuration(input, '--request-timeout'),
})();

/** The flags that choose a live cluster and the namespace (commands that write, or need watches). */
export const liveClusterFlags = {
  namespace: namespaceFlag,
  context: contextFlag,
  kubeconfig: kubeconfigFlag,
  'request-timeout': requestTimeoutFlag,
};

/** The flags that choose the cluster and the namespace. */
export const clusterFlags = {
  namespace: namespaceFlag,
  context: contextFlag,
  kubeconfig: kubeconfigFlag,
  snapshot: snapshotFlag,
  'request-timeout': requestTimeoutFlag,
};

/** An IntOrString budget as kubectl and the API write it: `2` (a number) or `25%` (a string). */
export function parseIntOrPercent(input: string, flag: string): number | string {
  const text = input.trim();
  if (/^\d+$/.test(text)) return Number(text);
  if (/^\d+%$/.test(text)) return text;
  throw new Error(`invalid ${flag} "${input}": want a number of nodes such as 2, or a percentage such as 25%`);
}

/** A budget flag (`--max-unavailable`, `--max-surge`): a number or a percentage. */
export function intOrPercentFlag(name: string, options: {summary: string}) {
  return Flags.custom<number | string>({summary: options.summary, helpValue: 'N|P%', parse: async (input) => parseIntOrPercent(input, `--${name}`)})();
}

/** The DaemonSet a command works on. */
// ignoreStdin: oclif otherwise reads a missing argument from piped stdin, racing -f - and --snapshot - for it.
export const daemonSetArg = Args.string({required: true, ignoreStdin: true, description: 'Name of the DaemonSet.'});
