// Kubeconfig for the simulated cluster. Over https it carries the cluster's CA; over plain http it carries
// `insecure-skip-tls-verify: true`, which client-node needs to talk http at all (kubectl accepts it too). The user
// carries the credential the cluster issued: the admin's bearer token unless told otherwise.
import {mkdir, readFile, rename, writeFile} from 'node:fs/promises';
import {dirname} from 'node:path';
import {dump, load} from 'js-yaml';
import type {IssuedCertificate} from './certificates.js';

/** What the kubeconfig's user presents. */
export type SimCredential = {readonly token: string} | {readonly clientCertificate: IssuedCertificate} | {readonly none: true};

export interface KubeconfigOptions {
  /** Context (and cluster and user) name; default `ds-rollout-sim`. */
  readonly context?: string;
  /** The context's namespace; default `default`. */
  readonly namespace?: string;
  /** Default: the cluster's admin token. */
  readonly credential?: SimCredential;
}

export interface KubeconfigTarget {
  readonly server: string;
  /** PEM CA of an https server. */
  readonly ca?: string;
  /** The credential used when the options name none. */
  readonly credential: SimCredential;
}

export const DEFAULT_CONTEXT = 'ds-rollout-sim';

const base64 = (text: string) => Buffer.from(text).toString('base64');

function userEntry(credential: SimCredential): Record<string, string> {
  if ('token' in credential) return {token: credential.token};
  if ('clientCertificate' in credential) {
    return {'client-certificate-data': base64(credential.clientCertificate.cert), 'client-key-data': base64(credential.clientCertificate.key)};
  }
  return {};
}

export function kubeconfigYaml(target: KubeconfigTarget, options: KubeconfigOptions = {}): string {
  const name = options.context ?? DEFAULT_CONTEXT;
  const cluster =
    target.ca === undefined
      ? {server: target.server, 'insecure-skip-tls-verify': true}
      : {server: target.server, 'certificate-authority-data': base64(target.ca)};
  return dump({
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [{name, cluster}],
    users: [{name, user: userEntry(options.credential ?? target.credential)}],
    contexts: [{name, context: {cluster: name, user: name, namespace: options.namespace ?? 'default'}}],
    'current-context': name,
  });
}

export async function writeKubeconfig(path: string, target: KubeconfigTarget, options: KubeconfigOptions = {}): Promise<void> {
  await mkdir(dirname(path), {recursive: true});
  await writeFile(path, kubeconfigYaml(target, options), {mode: 0o600});
}

type Named = {name?: unknown};
const NAMED_LISTS = ['clusters', 'users', 'contexts'] as const;

/**
 * `existing` (a kubeconfig's text) with this cluster's entries merged in, as kind and `kubectl config set-*` do:
 * its cluster, user and context (all named `options.context`) replace those of the same name or are added, every
 * other entry and field is kept, and the current context becomes this one. Throws one line when `existing` is
 * not a kubeconfig.
 */
export function mergedKubeconfigYaml(existing: string, target: KubeconfigTarget, options: KubeconfigOptions = {}): string {
  let config: unknown;
  try {
    config = existing.trim() === '' ? {} : load(existing);
  } catch (error) {
    throw new Error(`it is not YAML (${((error as Error).message.split('\n')[0] ?? '').slice(0, 120)})`, {cause: error});
  }
  if (config === null || config === undefined) config = {};
  if (typeof config !== 'object' || Array.isArray(config)) throw new Error('it is not a kubeconfig (want a mapping with clusters, users, contexts)');
  const merged = {apiVersion: 'v1', kind: 'Config', ...(config as Record<string, unknown>)};
  if (merged.kind !== 'Config') throw new Error(`it is not a kubeconfig (kind ${String(merged.kind).slice(0, 40)})`);
  const ours = load(kubeconfigYaml(target, options)) as Record<(typeof NAMED_LISTS)[number], Named[]> & {'current-context': string};
  for (const list of NAMED_LISTS) {
    const entries = (merged as Record<string, unknown>)[list] ?? [];
    if (!Array.isArray(entries)) throw new Error(`it is not a kubeconfig (${list} is not a list)`);
    const entry = ours[list][0]!;
    (merged as Record<string, unknown>)[list] = [...(entries as Named[]).filter((e) => e?.name !== entry.name), entry];
  }
  return dump({...merged, 'current-context': ours['current-context']});
}

/**
 * Writes the kubeconfig at `path`, merged into the one there (mergedKubeconfigYaml) if any, through a file beside
 * it renamed over it, so a reader never sees half of it.
 */
export async function mergeKubeconfig(path: string, target: KubeconfigTarget, options: KubeconfigOptions = {}): Promise<void> {
  let existing: string | undefined;
  try {
    existing = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (existing === undefined) return writeKubeconfig(path, target, options);
  const text = mergedKubeconfigYaml(existing, target, options);
  const next = `${path}.${process.pid}.tmp`;
  await writeFile(next, text, {mode: 0o600});
  await rename(next, path);
}
