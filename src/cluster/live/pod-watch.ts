// Every pod of the cluster, followed with one LIST (paged) and one WATCH: what the neighbour gate of a gated
// rollout judges (docs/gated/gates.md says why one cluster-wide watch rather than one per stage node). Started only
// by a gated rollout that steps, stopped with it.
import type {Pod} from '../../core/index.js';
import type {DsRolloutError} from '../../platform/errors.js';
import type {KubeClient} from './client.js';
import {DEFAULT_PAGE_SIZE} from './live-source.js';
import {describe, podsPath} from './paths.js';
import {projectPod} from './project.js';
import {clientWatch, Reflector} from './watch.js';

/** The cluster's pods as the watch has them, once listed; `ready` rejects when they cannot be listed (RBAC). */
export interface PodsFollow {
  readonly ready: Promise<void>;
  pods(): readonly Pod[];
  stop(): void;
}

export function followAllPods(client: KubeClient, pageSize = DEFAULT_PAGE_SIZE): PodsFollow {
  let settle: {resolve(): void; reject(error: DsRolloutError): void} | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    settle = {resolve, reject};
  });
  // A rejection nobody awaits (a run stopped before its first stage) is not an unhandled one.
  ready.catch(() => {});
  const path = podsPath(undefined);
  const reflector: Reflector<Pod> = new Reflector<Pod>({
    list: () => client.list(path, describe('list', 'pods'), projectPod, {pageSize}),
    watch: clientWatch(client, path, describe('watch', 'pods')),
    project: projectPod,
    onChange: () => {
      if (reflector.synced) settle?.resolve();
    },
    onError: (error) => settle?.reject(error),
  });
  reflector.start();
  return {
    ready,
    pods: () => [...reflector.items.values()],
    stop: () => reflector.stop(),
  };
}
