// Loads what `kubectl get nodes,pods,daemonsets,controllerrevisions -A -o yaml|json` printed (parsed by the
// snapshot reader ds-plan --snapshot uses) into the simulated cluster, so a rollout can be rehearsed on the
// shape of a real cluster. Objects keep their uids (owner references hold), generations and pending deletions.
//
// Ages: the newest timestamp anywhere in the dump (in practice a node's last heartbeat, seconds before the
// dump was taken; deletionTimestamp does not count, it is a deadline in the future) stands for the moment of the dump, and maps to the sim's start: every timestamp moves by the
// same amount, so a pod 3h old in the dump is 3h old in the sim.
import type {SnapshotObjects} from '../cluster/snapshot/parse-snapshot.js';
import {plural, type Pod} from '../core/index.js';
import {formatTimestamp} from './clock.js';
import {humanDuration} from './tables.js';
import type {Scenario} from './scenarios.js';
import type {Store} from './store.js';

/** Field names whose values are metav1.Time or MicroTime in the kinds a dump holds. */
const TIME_FIELDS: ReadonlySet<string> = new Set([
  'creationTimestamp',
  'deletionTimestamp',
  'lastTransitionTime',
  'lastHeartbeatTime',
  'lastProbeTime',
  'lastUpdateTime',
  'startTime',
  'startedAt',
  'finishedAt',
  'timeAdded',
  'time',
]);

/** Where free-form strings live: a label or annotation that happens to look like a time is left alone. */
const OPAQUE_FIELDS: ReadonlySet<string> = new Set(['labels', 'annotations', 'data', 'env', 'args', 'command', 'fieldsV1']);

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Calls `visit` with every time field's parsed value (ms) but deletionTimestamp (a deadline, not an event), depth first. */
function forEachTime(value: unknown, visit: (ms: number) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) forEachTime(item, visit);
    return;
  }
  if (!isObject(value)) return;
  for (const key in value) {
    if (OPAQUE_FIELDS.has(key)) continue;
    const field = value[key];
    if (typeof field === 'string') {
      if (TIME_FIELDS.has(key) && key !== 'deletionTimestamp') {
        const ms = Date.parse(field);
        if (!Number.isNaN(ms)) visit(ms);
      }
    } else if (typeof field === 'object' && field !== null) forEachTime(field, visit);
  }
}

/** A copy with every time field moved by `shiftMs` (other values shared, never mutated). */
function shiftTimes<T>(value: T, shiftMs: number): T {
  if (Array.isArray(value)) return value.map((item: unknown) => shiftTimes(item, shiftMs)) as T;
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const key in value) {
    const field = value[key];
    if (OPAQUE_FIELDS.has(key)) out[key] = field;
    else if (typeof field === 'string' && TIME_FIELDS.has(key)) {
      const ms = Date.parse(field);
      out[key] = Number.isNaN(ms) ? field : formatTimestamp(ms + shiftMs);
    } else out[key] = typeof field === 'object' && field !== null ? shiftTimes(field, shiftMs) : field;
  }
  return out as T;
}

/** The dump's newest timestamp (ms), or undefined when it has none. */
export function snapshotTime(objects: SnapshotObjects): number | undefined {
  let newest: number | undefined;
  const visit = (ms: number) => {
    if (newest === undefined || ms > newest) newest = ms;
  };
  for (const list of [objects.nodes, objects.daemonSets, objects.revisions, objects.pods]) for (const object of list) forEachTime(object, visit);
  return newest;
}

export interface LoadedSnapshot extends Scenario {
  /** Restored pods that were being deleted; their termination goes on once the kubelets run. */
  readonly terminating: readonly {readonly namespace: string; readonly name: string}[];
}

/** Loads a parsed dump into a store whose clock reads `now`; namespaces the objects name are created. */
export function loadSnapshot(store: Store, objects: SnapshotObjects, now: number): LoadedSnapshot {
  const shift = now - (snapshotTime(objects) ?? now);
  const namespaced = [...objects.daemonSets, ...objects.revisions, ...objects.pods];
  for (const namespace of new Set(namespaced.map((object) => object.metadata.namespace ?? 'default'))) {
    if (store.get('namespaces', undefined, namespace) === undefined) store.create({apiVersion: 'v1', kind: 'Namespace', metadata: {name: namespace}});
  }
  // Owners before what they own, as the API server would have seen them.
  for (const list of [objects.nodes, objects.daemonSets, objects.revisions, objects.pods]) {
    store.load(
      list.map((object) => shiftTimes(object, shift)),
      {restore: true},
    );
  }
  const terminating = objects.pods
    .filter((pod: Pod) => pod.metadata.deletionTimestamp !== undefined)
    .map((pod) => ({namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name}));
  const focus = objects.daemonSets.length === 1 ? objects.daemonSets[0]! : undefined;
  return {
    description: `from a snapshot: ${[
      plural(objects.nodes.length, 'node'),
      plural(objects.daemonSets.length, 'DaemonSet'),
      plural(objects.pods.length, 'pod'),
      plural(objects.revisions.length, 'ControllerRevision'),
    ].join(', ')} (times moved ${formatShift(shift)})`,
    failures: [],
    terminating,
    ...(focus ? {focus: {namespace: focus.metadata.namespace ?? 'default', name: focus.metadata.name}} : {}),
  };
}

function formatShift(ms: number): string {
  return `${ms >= 0 ? 'forward' : 'back'} by ${humanDuration(Math.abs(ms))}`;
}
