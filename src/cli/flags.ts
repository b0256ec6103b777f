// Flags shared by every command, spelled as kubectl spells them (kubectl forwards none of its own to plugins).
// Imported at the top of command files, so at run time it may import nothing but @oclif/core.
import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
// Type only (erased): the document formats are output's; nothing of output loads with this file.
import type {DocumentFormat} from '../output/document.js';
// Type only: the flags load with every command, --help included, and the core (a large chunk) loads only when a
// flag that needs it is parsed.
import type {Revision} from '../core/index.js';
import {DEFAULT_REQUEST_TIMEOUT_SECONDS} from './request-timeout.js';

/** A bad argument or flag value: one line, exit 1 (base-command prints anything with an exitCode as it is). */
class ArgumentError extends Error {
  readonly exitCode = 1;
}

/** Milliseconds since the epoch for an RFC3339 time (a real date: 2024-02-30 is refused); throws with a one-line reason otherwise. */
export async function parseRfc3339(input: string, flag = '--now'): Promise<number> {
  // Loaded here, not at the top: this file is imported by every command before it runs.
  const {parseRfc3339Time} = await import('../core/index.js');
  const ms = parseRfc3339Time(input);
  if (ms === undefined) throw new Error(`invalid ${flag} "${input}": want an RFC3339 time such as 2026-11-21T12:00:00Z`);
  return ms;
}

// Go's time.ParseDuration units, as kubectl's --timeout and --request-timeout take them.
const DURATION_UNITS: Readonly<Record<string, number>> = {ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000};
const DURATION = /^(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h)/;

/**
 * The longest duration a flag takes: what a timer can wait (setTimeout's 2^31-1 ms, 24.8 days). Far beyond any
 * rollout; a longer one is refused as input rather than overflowing into a one-millisecond timer.
 */
export const MAX_DURATION_MS = 2 ** 31 - 1;

/** Milliseconds for a Go duration (`90s`, `5m`, `1h30m`, `0`) or a bare number of seconds; throws with a one-line reason otherwise. */
export function parseDuration(input: string, flag: string): number {
  const text = input.trim();
  const shown = truncate(input, 40);
  let ms = 0;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    let rest = text;
    while (rest !== '') {
      const match = DURATION.exec(rest);
      if (!match) throw new ArgumentError(`invalid ${flag} "${shown}": want a duration such as 30s, 5m or 1h30m`);
      const unit = /[a-zµ]+$/.exec(match[0])![0];
      ms += Number(match[0].slice(0, -unit.length)) * DURATION_UNITS[unit]!;
      rest = rest.slice(match[0].length);
    }
    if (text === '') throw new ArgumentError(`invalid ${flag} "": want a duration such as 30s, 5m or 1h30m`);
  }
  if (!(ms <= MAX_DURATION_MS)) throw new ArgumentError(`invalid ${flag} "${shown}": want a duration from 0 to 596h (24 days)`);
  return ms;
}

/** A duration flag whose value is milliseconds. */
export function durationFlag(name: string, options: {summary: string}) {
  return Flags.custom<number>({summary: options.summary, helpValue: 'DURATION', parse: async (input) => parseDuration(input, `--${name}`)})();
}

/**
 * The help group of kubectl's global flags (connection, credentials, namespace): every command's help leaves them
 * to `kubectl ds-rollout options`, as kubectl's leaves them to `kubectl options`.
 */
export const CONNECTION_GROUP = 'CONNECTION';

/** A whole number in [min, max], or a one-line error naming `flag` and the range (not oclif's, which names neither). */
export function parseInteger(input: string, flag: string, min: number, max: number): number {
  const text = input.trim();
  const value = /^[-+]?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ArgumentError(`invalid ${flag} "${truncate(input, 40)}": want a whole number from ${min} to ${max}`);
  }
  return value;
}

/** A revision number (an int64 on the API server, exact past 2^53), refused naming the flag. */
export async function parseRevision(input: string, flag: string, min: number): Promise<Revision> {
  const {INT64_MAX, revisionFromDigits} = await import('../core/index.js');
  const text = input.trim();
  const value = revisionFromDigits(text);
  if (value === undefined || value < min || value > INT64_MAX) {
    throw new ArgumentError(`invalid ${flag} "${truncate(input, 40)}": want a whole number from ${min} to ${INT64_MAX}`);
  }
  return value;
}

/** A revision-number flag (see parseRevision). */
export function revisionFlag(name: string, options: {summary: string; min: number; helpValue?: string}) {
  const {min, ...rest} = options;
  return Flags.custom<Revision>({helpValue: 'N', ...rest, parse: (input) => parseRevision(input, `--${name}`, min)});
}

/** An integer flag with its range, refused naming the flag (oclif's Flags.integer says only "expected an integer"). */
export function integerFlag(name: string, options: {summary: string; min: number; max?: number; helpValue?: string; helpGroup?: string; exclusive?: string[]}) {
  const {min, max = 2 ** 31 - 1, ...rest} = options;
  return Flags.custom<number>({helpValue: 'N', ...rest, parse: async (input) => parseInteger(input, `--${name}`, min, max)})();
}

/** The same with a default: its value is then always a number. */
export function integerFlagDefaulting(name: string, options: {summary: string; min: number; max?: number; helpValue?: string; default: number}) {
  const {min, max = 2 ** 31 - 1, ...rest} = options;
  return Flags.custom<number>({helpValue: 'N', ...rest, parse: async (input) => parseInteger(input, `--${name}`, min, max)})();
}

export const namespaceFlag = Flags.string({
  char: 'n',
  summary: "The namespace (default: the context's; with --snapshot: default).",
  helpValue: 'NAMESPACE',
  helpGroup: CONNECTION_GROUP,
});

export const contextFlag = Flags.string({
  summary: 'The kubeconfig context to use.',
  helpValue: 'CONTEXT',
  helpGroup: CONNECTION_GROUP,
});

export const kubeconfigFlag = Flags.string({
  summary: 'The kubeconfig file (default: $KUBECONFIG, ~/.kube/config).',
  helpValue: 'FILE',
  helpGroup: CONNECTION_GROUP,
});

/** `-o`: text, or a document format (`jsonpath=TEMPLATE` keeps its template). */
export type OutputFormat = 'text' | 'wide' | DocumentFormat;

export type {DocumentFormat};

export function isDocumentFormat(format: OutputFormat): format is DocumentFormat {
  return format !== 'text' && format !== 'wide';
}

/** Parses `-o` against the formats a command offers (kubectl's spellings; `jsonpath='{...}'` quotes are dropped). */
export function parseOutputFormat(input: string, offered: readonly string[]): OutputFormat {
  const jsonpath = /^jsonpath=(.*)$/s.exec(input);
  if (jsonpath && offered.includes('jsonpath')) {
    const template = jsonpath[1]!.replace(/^'(.*)'$/s, '$1');
    if (template === '') throw new Error('-o jsonpath= needs a template, such as jsonpath={.verdict}');
    return `jsonpath=${template}`;
  }
  if (offered.includes(input) && input !== 'jsonpath') return input as OutputFormat;
  const shown = offered.map((format) => (format === 'jsonpath' ? 'jsonpath=TEMPLATE' : format));
  throw new Error(`unable to match a printer suitable for the output format "${truncate(input, 40)}", allowed formats are: ${shown.join(', ')}`);
}

/**
 * What shell completion and argv normalization read from a flag beyond oclif's definition (oclif's own `options`
 * would refuse `-o jsonpath=...`, so these flags list their values here).
 */
export interface FlagValues {
  /** The values completion offers for the flag. */
  readonly completions?: readonly string[];
  /** What a bare `--flag` means (pflag's NoOptDefVal): the next word is then never the flag's value. */
  readonly bareValue?: string;
}

/** The `-o` flag offering `formats` (text is the default). */
export function outputFlagOf(formats: ReadonlyArray<'text' | 'wide' | 'json' | 'yaml' | 'name' | 'jsonpath'>) {
  const spelled = formats.map((format) => (format === 'jsonpath' ? 'jsonpath=TEMPLATE' : format));
  const flag = Flags.custom<OutputFormat>({
    char: 'o',
    summary: `${spelled.join(', ')}.`,
    helpValue: 'FORMAT',
    default: 'text',
    parse: async (input) => parseOutputFormat(input, formats),
  })();
  // Added to the flag object, its type left as oclif infers it (an intersection loses the default's inference).
  const values: FlagValues = {completions: formats.map((format) => (format === 'jsonpath' ? 'jsonpath=' : format))};
  Object.assign(flag, values);
  return flag;
}

/** Commands that print one document: text, json, yaml, name and jsonpath (as kubectl's rollout commands). */
export const outputFlag = outputFlagOf(['text', 'json', 'yaml', 'name', 'jsonpath']);

// strconv.ParseBool's spellings, which pflag takes for `--flag=value` on a boolean flag.
export const TRUE_WORDS: ReadonlySet<string> = new Set(['1', 't', 'T', 'true', 'TRUE', 'True']);
export const FALSE_WORDS: ReadonlySet<string> = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);

/** A long argument cut for an error message (a mistyped pipe can pass a whole file as one argument). */
export function truncate(text: string, max: number): string {
  const line = text.split('\n')[0]!;
  return line.length > max || line !== text ? `${line.slice(0, max)}...` : line;
}

export const nowFlag = Flags.custom<number>({
  summary: 'Judge availability at this time (RFC3339).',
  helpValue: 'RFC3339',
  parse: (input) => parseRfc3339(input),
})();

export const snapshotFlag = Flags.string({
  summary: 'Read a kubectl dump offline (- for stdin).',
  helpValue: 'FILE',
});

export const kubeVersionFlag = Flags.custom<number>({
  summary: "Model this Kubernetes version's controller.",
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
  summary: 'Plan the rollout of this new manifest.',
  helpValue: 'MANIFEST',
});

const DRY_RUNS = ['none', 'client', 'server'] as const;
export type DryRun = (typeof DRY_RUNS)[number];

/** kubectl's --dry-run: bare means client; server sends the writes with dryRun=All (validated, not stored). */
export const dryRunFlag = Flags.custom<DryRun>({
  summary: 'client: send nothing; server: dryRun=All.',
  helpValue: DRY_RUNS.join('|'),
  default: 'none',
  parse: async (input) => {
    if ((DRY_RUNS as readonly string[]).includes(input)) return input as DryRun;
    throw new Error(`invalid --dry-run "${truncate(input, 40)}": want none, client or server`);
  },
})();
Object.assign(dryRunFlag, {completions: DRY_RUNS, bareValue: 'client'} satisfies FlagValues);

/**
 * `--request-timeout`, with its default in whole seconds. Unlike kubectl's, 0 is no "no limit": a frozen cluster or
 * proxy must never hang a command, so 0 is refused.
 */
export function requestTimeoutFlagDefaulting(seconds: number) {
  return Flags.custom<number>({
    summary: `How long one API request may take (default ${seconds}s; a frozen cluster is reported within about twice this).`,
    helpValue: 'DURATION',
    default: seconds * 1000,
    defaultHelp: async () => `${seconds}s`,
    helpGroup: CONNECTION_GROUP,
    parse: async (input) => {
      const ms = parseDuration(input, '--request-timeout');
      if (ms < 1)
        throw new ArgumentError(`invalid --request-timeout "${truncate(input, 40)}": want a duration from 1ms to 596h (0 would let a frozen cluster hang)`);
      return ms;
    },
  })();
}

export {DEFAULT_REQUEST_TIMEOUT_SECONDS};

export const requestTimeoutFlag = requestTimeoutFlagDefaulting(DEFAULT_REQUEST_TIMEOUT_SECONDS);

// kubectl's global flags that pick the cluster and the credentials. kubectl passes none of them to a plugin, so
// each command defines them, with kubectl's names and meanings (they override the kubeconfig's context).
const CONNECTION = CONNECTION_GROUP;

/** The flags, besides -n, --context, --kubeconfig and --request-timeout, that override the kubeconfig. */
export const connectionFlags = {
  cluster: Flags.string({summary: 'The kubeconfig cluster to use.', helpValue: 'NAME', helpGroup: CONNECTION}),
  user: Flags.string({summary: 'The kubeconfig user to use.', helpValue: 'NAME', helpGroup: CONNECTION}),
  server: Flags.string({char: 's', summary: 'The address and port of the Kubernetes API server.', helpValue: 'URL', helpGroup: CONNECTION}),
  token: Flags.string({summary: 'Bearer token for authentication to the API server.', helpValue: 'TOKEN', helpGroup: CONNECTION}),
  as: Flags.string({summary: 'Username to impersonate for the operation.', helpValue: 'USER', helpGroup: CONNECTION}),
  'as-group': Flags.string({
    summary: 'Group to impersonate (repeatable).',
    helpValue: 'GROUP',
    multiple: true,
    helpGroup: CONNECTION,
  }),
  'certificate-authority': Flags.string({summary: 'Path to a cert file for the certificate authority.', helpValue: 'FILE', helpGroup: CONNECTION}),
  'insecure-skip-tls-verify': Flags.boolean({
    summary: "Don't check the server's certificate (insecure).",
    helpGroup: CONNECTION,
  }),
  'tls-server-name': Flags.string({
    summary: 'Server name to check the certificate against.',
    helpValue: 'NAME',
    helpGroup: CONNECTION,
  }),
};

/** The flags that choose a live cluster and the namespace (commands that write, or need watches). */
export const liveClusterFlags = {
  namespace: namespaceFlag,
  context: contextFlag,
  kubeconfig: kubeconfigFlag,
  'request-timeout': requestTimeoutFlag,
  ...connectionFlags,
};

/** The flags that choose the cluster and the namespace. */
export const clusterFlags = {
  namespace: namespaceFlag,
  context: contextFlag,
  kubeconfig: kubeconfigFlag,
  snapshot: snapshotFlag,
  'request-timeout': requestTimeoutFlag,
  ...connectionFlags,
};

/** The API's int32 (an IntOrString's number, a count): larger values overflow it. */
export const INT32_MAX = 2 ** 31 - 1;

/**
 * An IntOrString budget as kubectl and the API write it: `2` (a number, an int32) or `25%` (a string, at most
 * 100%), at least `min` either way. Refused here, as the flag is parsed, so that no command writes before it.
 */
export function parseIntOrPercent(input: string, flag: string, min = 0): number | string {
  const text = input.trim();
  const percent = /^\d+%$/.test(text);
  const value = /^\d+$/.test(text) ? Number(text) : percent ? Number(text.slice(0, -1)) : Number.NaN;
  if (!(value >= min && value <= (percent ? 100 : INT32_MAX))) {
    throw new ArgumentError(
      `invalid ${flag} "${truncate(input, 40)}": want a number of nodes from ${min} to ${INT32_MAX}, or a percentage from ${min}% to 100%`,
    );
  }
  return percent ? text : value;
}

/** A budget flag (`--max-unavailable`, `--max-surge`): a number or a percentage, at least `min` (default 0). */
export function intOrPercentFlag(name: string, options: {summary: string; min?: number}) {
  return Flags.custom<number | string>({
    summary: options.summary,
    helpValue: 'N|P%',
    parse: async (input) => parseIntOrPercent(input, `--${name}`, options.min),
  })();
}

// The spellings of the DaemonSet resource kubectl accepts as TYPE (short name, kind, plural, with group/version).
const DAEMONSET_TYPES = new Set(['ds', 'daemonset', 'daemonsets']);
const DAEMONSET_GROUPS = new Set(['', '.apps', '.v1.apps']);

/** Whether kubectl would read `type` (`ds`, `DaemonSet`, `daemonsets.apps`, ...) as the DaemonSet resource. */
export function isDaemonSetType(type: string): boolean {
  const lower = type.toLowerCase();
  const dot = lower.indexOf('.');
  const [kind, group] = dot === -1 ? [lower, ''] : [lower.slice(0, dot), lower.slice(dot)];
  return DAEMONSET_TYPES.has(kind) && DAEMONSET_GROUPS.has(group);
}

const DAEMONSET_FORMS = 'ds-rollout works on daemonsets (NAME, ds NAME, ds/NAME or daemonset.apps/NAME)';

/** `deployment/x` (TYPE/NAME with another TYPE): one line. */
function notDaemonSetError(typed: string): Error {
  return new ArgumentError(`"${truncate(typed, 60)}" is not a DaemonSet: ${DAEMONSET_FORMS}`);
}

/** `deployment x` or `fluentd fluentbit` (two words: the first is TYPE, as kubectl reads them) with another TYPE: one line. */
export function notDaemonSetTypeError(type: string): Error {
  return new ArgumentError(`"${truncate(type, 60)}" is not a DaemonSet type: ${DAEMONSET_FORMS}`);
}

/** NAME or TYPE/NAME (`ds/x`, `daemonset/x`, `daemonsets.apps/x`, ...) to NAME; any other type is a one-line error. */
export function parseDaemonSetName(input: string): string {
  const slash = input.indexOf('/');
  const name = slash === -1 ? input : input.slice(slash + 1);
  if (slash !== -1 && !isDaemonSetType(input.slice(0, slash))) throw notDaemonSetError(input);
  // A DNS subdomain (RFC 1123), as the API server requires of a DaemonSet's name.
  if (!/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(name)) {
    throw new ArgumentError(`invalid DaemonSet name "${truncate(name, 60)}": want a lower-case DNS name such as fluentd`);
  }
  return name;
}

/** Marks an argument as a DaemonSet's NAME, so TYPE NAME (two words, as kubectl takes them) is read for it: see joinTypeAndName. */
export interface DaemonSetArgMark {
  readonly daemonSetName?: true;
}

/** The DaemonSet a command works on: NAME or TYPE/NAME. Never read from stdin (stdin is for -f - and --snapshot -). */
export const daemonSetArg = Args.string({
  required: true,
  description: 'Name of the DaemonSet: NAME, ds/NAME, or TYPE NAME as two words (ds NAME).',
  ignoreStdin: true,
  parse: async (input) => parseDaemonSetName(input),
});
Object.assign(daemonSetArg, {daemonSetName: true} satisfies DaemonSetArgMark);

/** The same, optional (ds-plan -f, --snapshot holding one DaemonSet, status of every DaemonSet). */
export const optionalDaemonSetArg = Args.string({
  description: 'Name of the DaemonSet: NAME, ds/NAME, or TYPE NAME as two words (ds NAME).',
  ignoreStdin: true,
  parse: async (input) => parseDaemonSetName(input),
});
Object.assign(optionalDaemonSetArg, {daemonSetName: true} satisfies DaemonSetArgMark);

/** How the simulated kubelets fail pods (`sim start`, `sim kubelets`): services/sim.ts failureRules reads them. */
export const failureFlags = {
  'fail-image': Flags.string({summary: 'Pods whose image contains this text fail.', helpValue: 'TEXT'}),
  'fail-node': Flags.string({summary: 'Pods on this node fail to start.', helpValue: 'NODE'}),
  'fail-mode': Flags.string({summary: 'crash, image-pull, never-ready, errors, node modes.', default: 'crash', helpValue: 'MODE'}),
};

/**
 * `--contexts A,B,'prod-*'` and `--all-contexts`: the fleet view, NAME on every cluster named, in one table (see
 * src/cluster/fleet.ts for how names and patterns select contexts).
 */
export const fleetFlags = {
  contexts: Flags.string({
    summary: "These contexts, a row each ('prod-*' matches).",
    helpValue: 'CONTEXTS',
    multiple: true,
    delimiter: ',',
    exclusive: ['all-contexts'],
  }),
  'all-contexts': Flags.boolean({summary: 'Every context of the kubeconfig, a row each.', exclusive: ['contexts']}),
};

/** Whether a command line asks for the fleet view. */
export function isFleet(flags: {readonly contexts?: readonly string[] | undefined; readonly 'all-contexts'?: boolean | undefined}): boolean {
  return flags.contexts !== undefined || flags['all-contexts'] === true;
}
