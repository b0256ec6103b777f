// Kubeconfig for the simulated cluster. Over https it carries the cluster's CA; over plain http it carries
// `insecure-skip-tls-verify: true`, which client-node needs to talk http at all (kubectl accepts it too). The user
// carries the credential the cluster issued: the admin's bearer token unless told otherwise.
import {mkdir, writeFile} from 'node:fs/promises';
import {dirname} from 'node:path';
import {dump} from 'js-yaml';
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
