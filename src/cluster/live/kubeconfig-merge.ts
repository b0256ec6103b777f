// kubectl's loading rules for kubeconfig files (client-go clientcmd): every file is read on its own, relative paths
// resolve against its directory, files of a KUBECONFIG list that do not exist are skipped, and the first file to set
// a value wins: current-context, and each cluster, user and context by name (the whole entry, never field by field).
// client-node merges the other way round (the last current-context wins, a repeated name is an error), which would
// act on another cluster than kubectl, and drops fields kubectl reads (as-groups, exec's apiVersion and env details,
// tokenFile relative paths): so the files are read here, and every entry remembers the file and key it came from,
// for error messages.
import {existsSync} from 'node:fs';
import {delimiter, dirname, isAbsolute, join, sep} from 'node:path';
import {load} from 'js-yaml';
import {DsRolloutError, InputError} from '../../platform/errors.js';
import {checkDocumentShape, MAX_KUBECONFIG_BYTES, readBoundedFileSync} from '../bounded-input.js';

/** Where an entry was read: the file and its key (`clusters[2].cluster`), for messages. */
export interface Origin {
  readonly file: string;
  readonly key: string;
}

export type RawMap = Readonly<Record<string, unknown>>;

export interface NamedEntry {
  readonly name: string;
  /** The entry's body (`cluster:`, `user:` or `context:`), relative paths already resolved against its file. */
  readonly value: RawMap;
  readonly origin: Origin;
}

export interface KubeconfigData {
  /** The files read, in order (for messages). */
  readonly files: readonly string[];
  readonly currentContext: string | undefined;
  readonly clusters: ReadonlyMap<string, NamedEntry>;
  readonly users: ReadonlyMap<string, NamedEntry>;
  readonly contexts: ReadonlyMap<string, NamedEntry>;
}

/** The files of a KUBECONFIG value, in order, empty entries dropped. */
export function kubeconfigFiles(value: string): string[] {
  return value.split(delimiter).filter((file) => file !== '');
}

export function describeOrigin(origin: Origin): string {
  return `kubeconfig "${origin.file}": ${origin.key}`;
}

const isMap = (value: unknown): value is RawMap => typeof value === 'object' && value !== null && !Array.isArray(value);

// The keys that hold file paths, resolved against the file's directory as client-go's ResolveLocalPaths does.
const CLUSTER_PATHS = ['certificate-authority'];
const USER_PATHS = ['client-certificate', 'client-key', 'tokenFile'];

function resolvePath(directory: string, path: unknown): unknown {
  return typeof path === 'string' && path !== '' && !isAbsolute(path) ? join(directory, path) : path;
}

function resolvePaths(value: RawMap, keys: readonly string[], directory: string): RawMap {
  const out: Record<string, unknown> = {...value};
  for (const key of keys) if (key in out) out[key] = resolvePath(directory, out[key]);
  // An exec command with a path separator is relative to the file; a bare name is looked up on PATH.
  const exec = out['exec'];
  if (isMap(exec) && typeof exec['command'] === 'string' && exec['command'].includes(sep)) {
    out['exec'] = {...exec, command: resolvePath(directory, exec['command'])};
  }
  return out;
}

interface ParsedFile {
  readonly currentContext: string | undefined;
  readonly clusters: Map<string, NamedEntry>;
  readonly users: Map<string, NamedEntry>;
  readonly contexts: Map<string, NamedEntry>;
}

/** One kubeconfig file, its shape checked; errors name the file and the key. */
export function parseKubeconfigFile(file: string, text: string): ParsedFile {
  let doc: unknown;
  try {
    doc = load(text);
  } catch (error) {
    throw new InputError(`cannot load kubeconfig "${file}": not YAML: ${firstLine((error as Error).message)}`, {cause: error});
  }
  checkDocumentShape(doc, text.length, `kubeconfig "${file}"`);
  if (doc === undefined || doc === null) doc = {};
  if (!isMap(doc)) throw new InputError(`cannot load kubeconfig "${file}": not a kubeconfig (want a map with clusters, users and contexts)`);
  const directory = dirname(file);
  const current = doc['current-context'];
  if (current !== undefined && current !== null && typeof current !== 'string') {
    throw new InputError(`kubeconfig "${file}": current-context: want a string`);
  }
  const section = (key: 'clusters' | 'users' | 'contexts', body: 'cluster' | 'user' | 'context', paths: readonly string[]) => {
    const out = new Map<string, NamedEntry>();
    const list = doc[key];
    if (list === undefined || list === null) return out;
    if (!Array.isArray(list)) throw new InputError(`kubeconfig "${file}": ${key}: want a list of {name, ${body}}`);
    list.forEach((item: unknown, index) => {
      const at = `${key}[${index}]`;
      if (!isMap(item)) throw new InputError(`kubeconfig "${file}": ${at}: want a map with name and ${body}`);
      const name = item['name'];
      if (typeof name !== 'string' || name === '') throw new InputError(`kubeconfig "${file}": ${at}.name: want a non-empty string`);
      const value = item[body] ?? {};
      if (!isMap(value)) throw new InputError(`kubeconfig "${file}": ${at}.${body}: want a map`);
      // kubectl refuses a name repeated within one file (client-go's list-to-map conversion).
      const earlier = out.get(name);
      if (earlier !== undefined)
        throw new InputError(`kubeconfig "${file}": ${at}.name: duplicate name "${name}" (also ${earlier.origin.key.replace(/\.\w+$/, '')})`);
      out.set(name, {name, value: resolvePaths(value, paths, directory), origin: {file, key: `${at}.${body}`}});
    });
    return out;
  };
  return {
    currentContext: typeof current === 'string' && current !== '' ? current : undefined,
    clusters: section('clusters', 'cluster', CLUSTER_PATHS),
    users: section('users', 'user', USER_PATHS),
    contexts: section('contexts', 'context', []),
  };
}

function readKubeconfigFile(file: string, stallMs: number | undefined): ParsedFile {
  let text: string;
  try {
    text = readBoundedFileSync(file, {what: `kubeconfig "${file}"`, maxBytes: MAX_KUBECONFIG_BYTES, ...(stallMs ? {stallMs} : {})}).toString('utf8');
  } catch (error) {
    if (error instanceof DsRolloutError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : firstLine((error as Error).message);
    throw new InputError(`cannot load kubeconfig "${file}": ${why}`, {cause: error});
  }
  return parseKubeconfigFile(file, text);
}

/** Loads and merges `files` as kubectl does (first wins); undefined when none of them exists. */
export function loadKubeconfigList(files: readonly string[], stallMs?: number): KubeconfigData | undefined {
  const present = files.filter((file) => existsSync(file));
  if (present.length === 0) return undefined;
  return mergeFirstWins(
    present,
    present.map((file) => readKubeconfigFile(file, stallMs)),
  );
}

/** The one file `--kubeconfig` names: it must exist. */
export function loadKubeconfigFile(file: string, stallMs?: number): KubeconfigData {
  return mergeFirstWins([file], [readKubeconfigFile(file, stallMs)]);
}

function mergeFirstWins(files: readonly string[], parsed: readonly ParsedFile[]): KubeconfigData {
  const clusters = new Map<string, NamedEntry>();
  const users = new Map<string, NamedEntry>();
  const contexts = new Map<string, NamedEntry>();
  let currentContext: string | undefined;
  for (const file of parsed) {
    currentContext ??= file.currentContext;
    for (const [into, from] of [
      [clusters, file.clusters],
      [users, file.users],
      [contexts, file.contexts],
    ] as const) {
      for (const [name, entry] of from) if (!into.has(name)) into.set(name, entry);
    }
  }
  return {files, currentContext, clusters, users, contexts};
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}
