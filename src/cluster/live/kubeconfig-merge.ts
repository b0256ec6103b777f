// kubectl's loading rules for a KUBECONFIG list (client-go clientcmd): every file is read on its own (relative
// paths resolve against its directory), files that do not exist are skipped, and the first file to set a value
// wins: current-context, and each cluster, user and context by name. client-node merges the other way round (the
// last current-context wins, a repeated name is an error), which would act on another cluster than kubectl.
import {existsSync} from 'node:fs';
import {delimiter} from 'node:path';
import {KubeConfig} from '@kubernetes/client-node';

/** The files of a KUBECONFIG value, in order, empty entries dropped. */
export function kubeconfigFiles(value: string): string[] {
  return value.split(delimiter).filter((file) => file !== '');
}

/** Loads and merges `files` as kubectl does; undefined when none of them exists. */
export function loadKubeconfigList(files: readonly string[]): KubeConfig | undefined {
  let merged: KubeConfig | undefined;
  for (const file of files) {
    if (!existsSync(file)) continue;
    const next = new KubeConfig();
    next.loadFromFile(file);
    if (merged === undefined) {
      merged = next;
      continue;
    }
    mergeFirstWins(merged, next);
  }
  return merged;
}

function mergeFirstWins(into: KubeConfig, next: KubeConfig): void {
  if (!into.currentContext && next.currentContext) into.currentContext = next.currentContext;
  const absent = <T extends {readonly name: string}>(have: readonly T[], item: T) => !have.some((entry) => entry.name === item.name);
  into.clusters = [...into.clusters, ...next.clusters.filter((cluster) => absent(into.clusters, cluster))];
  into.users = [...into.users, ...next.users.filter((user) => absent(into.users, user))];
  into.contexts = [...into.contexts, ...next.contexts.filter((context) => absent(into.contexts, context))];
}
