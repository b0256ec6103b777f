// Loading a dump of a cluster into the simulated cluster (sim start --snapshot): ages relative to the dump's
// newest timestamp, uids and generations kept, namespaces created, pending deletions carried on.
import {afterEach, describe, expect, it} from 'vitest';
import {parseSnapshot} from '../../src/cluster/snapshot/index.js';
import type {DaemonSet, Pod} from '../../src/core/index.js';
import {ManualClock, makeNode, snapshotTime, startSimulatedCluster, type SimulatedCluster} from '../../src/sim/index.js';

const DUMP_TIME = '2025-03-01T09:00:00Z';
const SIM_START = Date.parse('2026-11-21T12:00:00Z');
const DS_UID = '0b5f2a4e-0000-4000-8000-000000000001';

function dump(): string {
  const node = {
    ...makeNode('worker-1', {timestamp: DUMP_TIME}),
    metadata: {...makeNode('worker-1').metadata, uid: 'node-uid-1', creationTimestamp: '2025-01-01T00:00:00Z'},
  };
  const ds = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {name: 'agent', namespace: 'logging', uid: DS_UID, generation: 7, creationTimestamp: '2025-02-01T00:00:00Z', resourceVersion: '991'},
    spec: {
      selector: {matchLabels: {app: 'agent'}},
      template: {metadata: {labels: {app: 'agent'}}, spec: {containers: [{name: 'main', image: 'agent:1'}]}},
    },
  };
  const pod = (name: string, created: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'logging',
      uid: `${name}-uid`,
      creationTimestamp: created,
      labels: {app: 'agent'},
      annotations: {'example.com/seen': '2020-01-01T00:00:00Z'},
      ownerReferences: [{apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: DS_UID, controller: true}],
      ...extra,
    },
    spec: {nodeName: 'worker-1', containers: [{name: 'main', image: 'agent:1'}], terminationGracePeriodSeconds: 30},
    status: {phase: 'Running', conditions: [{type: 'Ready', status: 'True', lastTransitionTime: created}]},
  });
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      node,
      ds,
      pod('agent-old', '2025-03-01T06:00:00Z'),
      // Deleted 10 s before the dump with a 30 s grace period: 20 s of it left.
      pod('agent-going', '2025-02-28T09:00:00Z', {deletionTimestamp: '2025-03-01T09:00:20Z', deletionGracePeriodSeconds: 30}),
      {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'ignored', namespace: 'other'}},
    ],
  });
}

let cluster: SimulatedCluster | undefined;
afterEach(async () => cluster?.stop());

describe('loading a snapshot into the simulated cluster', () => {
  it('takes the newest timestamp as the dump time (not a deletion deadline, which lies after it)', async () => {
    expect(new Date(snapshotTime(await parseSnapshot(dump(), 'dump'))!).toISOString()).toBe('2025-03-01T09:00:00.000Z');
  });

  it('keeps ages, uids, generations and owners; creates the namespaces; ignores other kinds; finishes pending deletions', async () => {
    const clock = new ManualClock(SIM_START);
    cluster = await startSimulatedCluster({clock, snapshot: await parseSnapshot(dump(), 'dump')});
    const store = cluster.store;
    // The newest timestamp (the node's heartbeat, 09:00:00) is the sim's start.
    const shift = SIM_START - Date.parse(DUMP_TIME);
    expect(store.get('namespaces', undefined, 'logging')).toBeDefined();
    expect(store.get('namespaces', undefined, 'other')).toBeUndefined();
    const ds = store.get('daemonsets', 'logging', 'agent') as DaemonSet;
    expect(ds.metadata.uid).toBe(DS_UID);
    expect(ds.metadata.generation).toBe(7);
    expect(ds.metadata.resourceVersion).not.toBe('991');
    const old = store.get('pods', 'logging', 'agent-old') as Pod;
    expect(old.metadata.uid).toBe('agent-old-uid');
    // 3 h old at the dump's time, and so at the sim's start.
    expect(SIM_START - Date.parse(old.metadata.creationTimestamp!)).toBe(3 * 3600_000);
    expect(Date.parse(old.metadata.creationTimestamp!)).toBe(Date.parse('2025-03-01T06:00:00Z') + shift);
    expect(old.status?.conditions?.[0]?.lastTransitionTime).toBe(old.metadata.creationTimestamp);
    expect(old.metadata.annotations?.['example.com/seen']).toBe('2020-01-01T00:00:00Z');
    expect(store.dependentsOf(DS_UID).map((o) => o.metadata.name)).toContain('agent-old');
    const going = store.get('pods', 'logging', 'agent-going') as Pod;
    // 20 s of its grace period left, as at the dump's time.
    expect(Date.parse(going.metadata.deletionTimestamp!)).toBe(SIM_START + 20_000);
    clock.advance(1000);
    expect(store.get('pods', 'logging', 'agent-going')).toBeUndefined();
    expect(cluster.scenario?.description).toContain('from a snapshot: 1 node, 1 DaemonSet, 2 pods, 0 ControllerRevisions');
  });

  it('gives objects created later uids no restored object has, even from the same seeded sequence', async () => {
    const first = await startSimulatedCluster({clock: new ManualClock(SIM_START)});
    first.store.create(makeNode('worker-1'));
    const dumped = {apiVersion: 'v1', kind: 'List', items: first.store.list('nodes').items};
    await first.stop();
    cluster = await startSimulatedCluster({clock: new ManualClock(SIM_START), snapshot: await parseSnapshot(JSON.stringify(dumped), 'dump')});
    const created = cluster.store.create(makeNode('worker-2'));
    expect(created.metadata.uid).not.toBe(dumped.items[0]!.metadata.uid);
    expect(cluster.store.get('nodes', undefined, 'worker-1')!.metadata.uid).toBe(dumped.items[0]!.metadata.uid);
  });
});
