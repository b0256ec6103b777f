// The rehearsal check shared by the demo dump test and the real 1.20 dump: the snapshot plan, offline at the dump's
// time, against the first plan of a rehearsal of the same dump, planned with the version the rehearsal serves.
import {fixedClock} from '../../src/platform/clock.js';
import {expect} from 'vitest';
import {SnapshotClusterSource, type SnapshotObjects} from '../../src/cluster/snapshot/index.js';
import {type ClusterState, type DaemonSet, type Node, type Pod, parseMinor, planRollout, type RolloutPlan} from '../../src/core/index.js';
import {planService} from '../../src/services/plan.js';
import {ManualClock, snapshotTime, startSimulatedCluster, type SimulatedCluster} from '../../src/sim/index.js';
import {call} from './http-helpers.js';

export interface Ref {
  readonly namespace: string;
  readonly name: string;
}

export function stateOf(c: SimulatedCluster, ref: Ref): ClusterState {
  return {
    daemonSet: c.store.get('daemonsets', ref.namespace, ref.name) as DaemonSet,
    nodes: c.store.list('nodes').items as unknown as Node[],
    pods: c.store.list('pods', {namespace: ref.namespace}).items as unknown as Pod[],
    revisions: c.store.list('controllerrevisions', {namespace: ref.namespace}).items as never,
  };
}

/** The plan without what moves with the clock (the timings) and what a restore renumbers (resourceVersions). */
export function comparable(plan: RolloutPlan): unknown {
  const {timing: _timing, ...rest} = plan;
  return JSON.parse(JSON.stringify(rest, (key, value: unknown) => (key === 'resourceVersion' ? undefined : value)));
}

/** Starts the rehearsal (the caller stops it), checks its version and its first plan against the snapshot plan. */
export async function expectRehearsalPlansAsSnapshot(
  objects: SnapshotObjects,
  ref: Ref,
): Promise<{rehearsal: SimulatedCluster; clock: ManualClock; offline: RolloutPlan}> {
  const offline = await planService({source: new SnapshotClusterSource(objects, 'dump'), ref, clock: fixedClock(snapshotTime(objects)!)});
  const clock = new ManualClock(Date.parse('2030-01-01T00:00:00Z'));
  const rehearsal = await startSimulatedCluster({clock, snapshot: objects, agents: true, tls: false});
  const version = (await call(rehearsal.url, 'GET', '/version')).body as {gitVersion: string; minor: string};
  expect(`1.${parseMinor(version.gitVersion)}`).toBe(offline.controllerVersion);
  expect(version.minor).toBe(String(parseMinor(version.gitVersion)));
  const live = planRollout(stateOf(rehearsal, ref), {now: clock.now(), controllerMinor: parseMinor(version.gitVersion)!});
  expect(comparable(live)).toEqual(comparable(offline));
  return {rehearsal, clock, offline};
}
