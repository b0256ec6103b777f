// A rehearsal (sim start --snapshot) keeps the dump's troubles: the NotReady node stays NotReady (its heartbeat as
// stale as in the dump), the pod stuck terminating on it stays, crash-looping and unscheduled pods stay so; it
// answers /version with the version ds-plan --snapshot plans the dump with; and its first plan is the snapshot
// plan, field for field (timings aside).
import {readFileSync} from 'node:fs';
import {afterEach, describe, expect, it} from 'vitest';
import {parseSnapshot} from '../../src/cluster/snapshot/index.js';
import {type Pod, podProblem} from '../../src/core/index.js';
import {ManualClock, startSimulatedCluster, type SimulatedCluster} from '../../src/sim/index.js';
import {expectRehearsalPlansAsSnapshot, stateOf} from './rehearsal-check.js';

let clusters: SimulatedCluster[] = [];
afterEach(async () => {
  for (const c of clusters) await c.stop();
  clusters = [];
});

const REF = {namespace: 'kube-system', name: 'fluentd'};

/** What `kubectl get nodes,pods,daemonsets,controllerrevisions -A -o json` prints of a store. */
function dumpOf(c: SimulatedCluster): string {
  const kinds = [
    ['nodes', 'Node', 'v1'],
    ['pods', 'Pod', 'v1'],
    ['daemonsets', 'DaemonSet', 'apps/v1'],
    ['controllerrevisions', 'ControllerRevision', 'apps/v1'],
  ] as const;
  const items = kinds.flatMap(([resource, kind, apiVersion]) => c.store.list(resource).items.map((item) => ({apiVersion, kind, ...item})));
  return JSON.stringify({apiVersion: 'v1', kind: 'List', items});
}

describe('a rehearsal of the demo dump', () => {
  it('keeps its troubles, serves its version, and first plans as the snapshot plans', async () => {
    // The demo after three minutes: fluentd-z8wsd stuck terminating on the NotReady worker-13, crashes on worker-17.
    const demoClock = new ManualClock();
    const demo = await startSimulatedCluster({clock: demoClock, scenario: 'demo', agents: true, tls: false});
    clusters.push(demo);
    for (let i = 0; i < 1800; i++) demoClock.advance(100);
    // And a pod its scheduler found no place for.
    const dumped = JSON.parse(dumpOf(demo)) as {items: object[]};
    dumped.items.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {name: 'batch-1', namespace: 'default', uid: 'batch-1-uid', creationTimestamp: new Date(demoClock.now() - 60_000).toISOString()},
      spec: {containers: [{name: 'main', image: 'batch:1'}]},
      status: {
        phase: 'Pending',
        conditions: [{type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/20 nodes are available: 20 Insufficient cpu.'}],
      },
    });
    const objects = await parseSnapshot(JSON.stringify(dumped), 'demo.json');
    const stuck = objects.pods.find((pod) => pod.spec.nodeName === 'worker-13' && pod.metadata.deletionTimestamp)!;
    expect(stuck).toBeDefined();
    const crashing = objects.pods.filter((pod) => pod.spec.nodeName === 'worker-17' && podProblem(pod) !== undefined);
    expect(crashing.length).toBeGreaterThan(0);

    const {rehearsal, clock} = await expectRehearsalPlansAsSnapshot(objects, REF);
    clusters.push(rehearsal);

    // Five minutes on, the troubles are still there.
    for (let i = 0; i < 3000; i++) clock.advance(100);
    const after = stateOf(rehearsal, REF);
    const worker13 = after.nodes.find((node) => node.metadata.name === 'worker-13')!;
    expect(worker13.status?.conditions?.find((c) => c.type === 'Ready')?.status).not.toBe('True');
    const heartbeat = worker13.status?.conditions?.find((c) => c.type === 'Ready') as {lastHeartbeatTime?: string} | undefined;
    expect(clock.now() - Date.parse(heartbeat!.lastHeartbeatTime!)).toBeGreaterThan(5 * 60_000);
    expect(after.pods.find((pod) => pod.metadata.uid === stuck.metadata.uid)?.metadata.deletionTimestamp).toBeDefined();
    expect((rehearsal.store.get('pods', 'default', 'batch-1') as Pod).spec.nodeName).toBeUndefined();
    for (const pod of crashing) {
      const now = after.pods.find((p) => p.metadata.uid === pod.metadata.uid);
      expect(now?.status?.conditions?.find((c) => c.type === 'Ready')?.status).not.toBe('True');
    }
  });
});

describe('a rehearsal of a dump from the real 1.20.2 control plane (test/real-cluster/rehearsal.e2e.ts made it)', () => {
  it('serves 1.20 and first plans as ds-plan --snapshot plans the dump', async () => {
    const text = readFileSync(new URL('../fixtures/snapshots/real-1.20.json', import.meta.url), 'utf8');
    const objects = await parseSnapshot(text, 'real-1.20.json');
    const {rehearsal, offline} = await expectRehearsalPlansAsSnapshot(objects, {namespace: 'default', name: 'agent'});
    clusters.push(rehearsal);
    expect(offline.controllerVersion).toBe('1.20');
  });
});
