// Kubeconfig for the simulated cluster. `insecure-skip-tls-verify: true` is what lets client-node talk
// plain http at all; kubectl accepts it too. The user has no credentials (the server authenticates nobody).
import {mkdir, writeFile} from 'node:fs/promises';
import {dirname} from 'node:path';
import {dump} from 'js-yaml';

export interface KubeconfigOptions {
  /** Context (and cluster and user) name; default `ds-rollout-sim`. */
  readonly context?: string;
  /** The context's namespace; default `default`. */
  readonly namespace?: string;
}

export const DEFAULT_CONTEXT = 'ds-rollout-sim';

export function kubeconfigYaml(server: string, options: KubeconfigOptions = {}): string {
  const name = options.context ?? DEFAULT_CONTEXT;
  return dump({
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [{name, cluster: {server, 'insecure-skip-tls-verify': true}}],
    users: [{name, user: {}}],
    contexts: [{name, context: {cluster: name, user: name, namespace: options.namespace ?? 'default'}}],
    'current-context': name,
  });
}

export async function writeKubeconfig(path: string, server: string, options: KubeconfigOptions = {}): Promise<void> {
  await mkdir(dirname(path), {recursive: true});
  await writeFile(path, kubeconfigYaml(server, options), {mode: 0o600});
}
