// What the word under the cursor is, from the words before it and the commands' own flag definitions:
// a subcommand, a flag name, a flag's value or the DaemonSet argument. Pure: no cluster, no files.
import type {Command} from '@oclif/core/command';
import type {KubeconfigList} from '../../cluster/live/index.js';
import {connectionFlags, type FlagValues, isDaemonSetType, TRUE_WORDS} from '../flags.js';

/** Cobra's directives, which `kubectl __complete` relays to the shell (a bit set). */
export const Directive = {Default: 0, Error: 1, NoSpace: 2, NoFileComp: 4} as const;

export interface Candidate {
  readonly value: string;
  readonly description?: string;
}

/** The flags already typed that choose the cluster, the credentials and the namespace of the lookups, by flag name. */
export type ClusterChoice = Readonly<Partial<Record<ClusterFlag, string | boolean | readonly string[]>>>;

type ClusterFlag = 'kubeconfig' | 'context' | 'namespace' | keyof typeof connectionFlags;
const CLUSTER_FLAGS: readonly ClusterFlag[] = ['kubeconfig', 'context', 'namespace', ...(Object.keys(connectionFlags) as Array<keyof typeof connectionFlags>)];

export type Wanted =
  | {readonly kind: 'fixed'; readonly candidates: readonly Candidate[]}
  | {readonly kind: 'files'}
  | Lookup<{readonly kind: 'kubeconfig'; readonly list: KubeconfigList}>
  | Lookup<{readonly kind: 'namespaces'}>
  | Lookup<{readonly kind: 'daemonsets'}>
  | Lookup<{readonly kind: 'revisions'; readonly daemonSet: string}>
  | Lookup<{readonly kind: 'nodes'}>;

/**
 * Names looked up in the kubeconfig or on the cluster. `before` is what each candidate starts with, as typed:
 * `--context=` when the value shares the flag's word, the elements before the last of a comma-separated list.
 */
type Lookup<T> = T & {readonly cluster: ClusterChoice; readonly before: string};

interface FlagSpec extends FlagValues {
  readonly name: string;
  readonly type: string;
  readonly char?: string;
  readonly options?: readonly string[];
  readonly summary?: string;
  readonly hidden?: boolean;
  readonly helpValue?: string;
  readonly multiple?: boolean;
}

/** A path's value: the shell completes file names (kubeconfig, snapshot, -f, certificate-authority, ...). */
const FILE_HELP_VALUES = new Set(['FILE', 'MANIFEST']);
const REVISION_FLAGS = new Set(['to-revision', 'revision']);
/** The flags whose values are names in the kubeconfig, and the list each names. */
const KUBECONFIG_LISTS = new Map<string, KubeconfigList>([
  ['context', 'contexts'],
  // --contexts A,B,...: the list's last element.
  ['contexts', 'contexts'],
  ['cluster', 'clusters'],
  ['user', 'users'],
]);

/** The command (or topic) the leading words name, and how many words that took. */
function findCommand(plugin: string, words: readonly string[], commands: Readonly<Record<string, Command.Class>>) {
  const isTopic = (id: string) => Object.keys(commands).some((key) => key.startsWith(`${id}:`));
  let id = plugin;
  let used = 0;
  while (commands[id] === undefined && used < words.length && (commands[`${id}:${words[used]}`] !== undefined || isTopic(`${id}:${words[used]}`))) {
    id = `${id}:${words[used++]}`;
  }
  return {id, used};
}

/** What to offer for `toComplete`, the last word; `words` are the plugin's arguments before it. */
export function wantedCompletion(plugin: string, words: readonly string[], toComplete: string, commands: Readonly<Record<string, Command.Class>>): Wanted {
  const {id, used} = findCommand(plugin, words, commands);
  const command = commands[id];
  if (command === undefined) {
    if (used < words.length) return none();
    // A topic (ds-rollout, ds-rollout sim): its next words.
    const next = new Map<string, string>();
    for (const [key, cls] of Object.entries(commands)) {
      if (!key.startsWith(`${id}:`) || cls.hidden) continue;
      const rest = key.slice(id.length + 1).split(':');
      if (!next.has(rest[0]!)) next.set(rest[0]!, rest.length === 1 ? (cls.summary ?? '') : '');
    }
    return fixed(
      [...next].map(([value, description]) => ({value, description})),
      toComplete,
    );
  }

  const flags = Object.entries(command.flags ?? {}).map(([name, flag]) => ({...(flag as object), name}) as FlagSpec);
  const byLong = new Map(flags.map((flag) => [flag.name, flag]));
  const byChar = new Map(flags.filter((flag) => flag.char).map((flag) => [flag.char!, flag]));
  const values: Record<string, string | boolean | string[]> = {};
  const set = (flag: FlagSpec, value: string) => {
    const before = values[flag.name];
    values[flag.name] = flag.multiple ? [...(Array.isArray(before) ? before : []), value] : value;
  };
  const positional: string[] = [];
  let pending: FlagSpec | undefined;
  for (const word of words.slice(used)) {
    if (pending) {
      set(pending, word);
      pending = undefined;
    } else if (word.startsWith('--')) {
      const [name, value] = splitOnce(word.slice(2));
      const flag = byLong.get(name);
      if (flag?.type === 'boolean') values[flag.name] = value === undefined || TRUE_WORDS.has(value);
      else if (flag) {
        if (value !== undefined) set(flag, value);
        else if (flag.bareValue !== undefined) set(flag, flag.bareValue);
        else pending = flag;
      }
    } else if (word.startsWith('-') && word.length > 1) {
      const flag = byChar.get(word[1]!);
      if (flag?.type === 'boolean') values[flag.name] = true;
      else if (flag) {
        if (word.length > 2) set(flag, word.slice(2).replace(/^=/, ''));
        else pending = flag;
      }
    } else positional.push(word);
  }
  // kubectl's TYPE NAME: a DaemonSet TYPE word first (`status ds <TAB>`) is not the name; the next word is.
  if (positional.length > 0 && !positional[0]!.includes('/') && isDaemonSetType(positional[0]!) && command.args !== undefined) {
    const argument = Object.values(command.args)[0] as {readonly options?: readonly string[]} | undefined;
    if (argument !== undefined && argument.options === undefined) positional.shift();
  }
  const cluster: ClusterChoice = Object.fromEntries(CLUSTER_FLAGS.flatMap((name) => (values[name] === undefined ? [] : [[name, values[name]]])));

  if (pending) return flagValue(pending, toComplete, '', cluster, positional);
  if (toComplete.startsWith('--') && toComplete.includes('=')) {
    const [name, value] = splitOnce(toComplete.slice(2));
    const flag = byLong.get(name);
    return flag && flag.type !== 'boolean' ? flagValue(flag, value ?? '', `--${name}=`, cluster, positional) : none();
  }
  if (toComplete.startsWith('-')) {
    const names = flags
      .filter((flag) => !flag.hidden)
      .flatMap((flag) => [{value: `--${flag.name}`, description: flag.summary}, ...(flag.char ? [{value: `-${flag.char}`, description: flag.summary}] : [])]);
    return fixed([...names, {value: '--help', description: 'Show help for this command.'}], toComplete);
  }
  // Every command's one argument is the DaemonSet's name, but for `completion SHELL`.
  const argument = Object.values(command.args ?? {})[0] as {readonly options?: readonly string[]} | undefined;
  if (argument === undefined || positional.length > 0) return none();
  if (argument.options)
    return fixed(
      argument.options.map((value) => ({value})),
      toComplete,
    );
  return {kind: 'daemonsets', cluster, before: ''};
}

function flagValue(flag: FlagSpec, value: string, prefix: string, cluster: ClusterChoice, positional: readonly string[]): Wanted {
  const offered = flag.options ?? flag.completions;
  if (offered)
    return fixed(
      offered.map((option) => ({value: `${prefix}${option}`})),
      `${prefix}${value}`,
    );
  if (flag.helpValue !== undefined && FILE_HELP_VALUES.has(flag.helpValue)) return {kind: 'files'};
  const list = KUBECONFIG_LISTS.get(flag.name);
  if (list) {
    const before = flag.multiple && value.includes(',') ? value.slice(0, value.lastIndexOf(',') + 1) : '';
    return {kind: 'kubeconfig', list, cluster, before: `${prefix}${before}`};
  }
  if (flag.name === 'namespace') return {kind: 'namespaces', cluster, before: prefix};
  if (REVISION_FLAGS.has(flag.name) && positional[0] !== undefined) return {kind: 'revisions', cluster, daemonSet: positional[0], before: prefix};
  if (flag.helpValue?.startsWith('NODE')) {
    // A comma-separated list: complete its last element, keeping the ones before.
    const before = value.includes(',') ? value.slice(0, value.lastIndexOf(',') + 1) : '';
    return {kind: 'nodes', cluster, before: `${prefix}${before}`};
  }
  return none();
}

function fixed(candidates: readonly Candidate[], toComplete: string): Wanted {
  return {kind: 'fixed', candidates: candidates.filter((candidate) => candidate.value.startsWith(toComplete))};
}

function none(): Wanted {
  return {kind: 'fixed', candidates: []};
}

function splitOnce(text: string): [string, string | undefined] {
  const at = text.indexOf('=');
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/** Cobra's `__complete` output: one candidate a line (value, tab, description), then `:directive`. */
export function renderCompletion(candidates: readonly Candidate[], directive: number): string {
  const lines = candidates.map((candidate) => (candidate.description ? `${candidate.value}\t${candidate.description.split('\n')[0]}` : candidate.value));
  return [...lines, `:${directive}`].join('\n') + '\n';
}
