// Shared builders for the simulated-cluster tests.
import {ManualClock} from '../../src/sim/clock.js';
import {GarbageCollector} from '../../src/sim/gc.js';
import {Store, type StoreOptions} from '../../src/sim/store.js';

export const START = Date.parse('2026-11-21T12:00:00Z');

export function newStore(options: StoreOptions = {}): {store: Store; clock: ManualClock; gc: GarbageCollector} {
  const clock = options.clock instanceof ManualClock ? options.clock : new ManualClock(START);
  const store = new Store({...options, clock});
  const gc = new GarbageCollector(store);
  for (const name of ['default', 'kube-system']) store.create({kind: 'Namespace', apiVersion: 'v1', metadata: {name}});
  return {store, clock, gc};
}

export function dsManifest(name = 'agent', image = 'busybox:1.36', namespace = 'default'): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {name, namespace, labels: {app: name}},
    spec: {
      selector: {matchLabels: {app: name}},
      template: {metadata: {labels: {app: name}}, spec: {containers: [{name: 'main', image}]}},
    },
  };
}

export interface OwnerLike {
  readonly metadata: {readonly name: string; readonly uid?: string};
}

export function podManifest(
  name: string,
  options: {node?: string; owner?: OwnerLike; block?: boolean; labels?: Record<string, string>; namespace?: string; phase?: string} = {},
): Record<string, unknown> {
  const metadata: Record<string, unknown> = {name, namespace: options.namespace ?? 'default', labels: options.labels ?? {app: 'agent'}};
  if (options.owner !== undefined) {
    metadata['ownerReferences'] = [
      {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        name: options.owner.metadata.name,
        uid: options.owner.metadata.uid,
        controller: true,
        blockOwnerDeletion: options.block ?? true,
      },
    ];
  }
  const spec: Record<string, unknown> = {containers: [{name: 'main', image: 'busybox:1.36'}]};
  if (options.node !== undefined) spec['nodeName'] = options.node;
  const pod: Record<string, unknown> = {apiVersion: 'v1', kind: 'Pod', metadata, spec};
  if (options.phase !== undefined) pod['status'] = {phase: options.phase};
  return pod;
}
