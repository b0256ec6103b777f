// Scale smoke test: the sizes the rollout tools meet in big clusters must work: paging, indexes, watch fan-out.
// How fast is the benchmarks' business (npm run bench, bench/sim.ts), not a timed test's: the machine may be busy.
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest';
import {startSimulatedCluster, type SimulatedCluster} from '../../src/sim/index.js';
import {TABLE_ACCEPT, call, watch} from './http-helpers.js';

const NODES = 5000;
const PODS = 50_000;
let cluster: SimulatedCluster;

vi.setConfig({testTimeout: 300_000, hookTimeout: 300_000});

function pod(i: number): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `agent-${String(i).padStart(5, '0')}`,
      namespace: 'kube-system',
      labels: {app: 'agent', 'controller-revision-hash': '5d8f7c9b4'},
      ownerReferences: [{apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'ds-uid', controller: true, blockOwnerDeletion: true}],
    },
    spec: {nodeName: `node-${String(i % NODES).padStart(4, '0')}`, containers: [{name: 'main', image: 'busybox:1.36'}]},
    status: {phase: 'Running', podIP: '10.244.0.1', conditions: [{type: 'Ready', status: 'True'}]},
  };
}

beforeAll(async () => {
  cluster = await startSimulatedCluster({historySize: 10_000});
  cluster.seed({nodes: NODES});
  const pods: object[] = [];
  for (let i = 0; i < PODS; i++) pods.push(pod(i));
  cluster.seed({objects: pods});
});

afterAll(async () => {
  await cluster.stop();
});

describe(`${NODES} nodes and ${PODS} pods`, () => {
  it('seeds', () => {
    expect(cluster.store.count('pods')).toBe(PODS);
    expect(cluster.store.count('nodes')).toBe(NODES);
  });

  it('pages through every pod with limit=500 under one consistent resourceVersion', async () => {
    let token: string | undefined;
    let seen = 0;
    let pages = 0;
    const rvs = new Set<string>();
    do {
      const r = await call(cluster, 'GET', `/api/v1/namespaces/kube-system/pods?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
      seen += r.body.items.length;
      rvs.add(r.body.metadata.resourceVersion);
      token = r.body.metadata.continue;
      // Writes between pages must not disturb the snapshot.
      if (pages++ === 3) cluster.store.patchStatus('pods', 'kube-system', 'agent-49999', {podIP: '10.9.9.9'});
    } while (token !== undefined && pages < 200);
    expect(seen).toBe(PODS);
    expect(pages).toBe(PODS / 500);
    expect(rvs.size).toBe(1);
  });

  it('answers node-scoped and selector queries from indexes', async () => {
    for (let i = 0; i < 50; i++) {
      const r = await call(cluster, 'GET', `/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-${String(i).padStart(4, '0')}`);
      expect(r.body.items).toHaveLength(PODS / NODES);
    }
    const nodes = await call(cluster, 'GET', '/api/v1/nodes?limit=500', {headers: {accept: TABLE_ACCEPT}});
    expect(nodes.body.rows).toHaveLength(500);
  });

  it('fans 2,000 writes out to five watchers', async () => {
    const watchers = Array.from({length: 5}, () =>
      watch(cluster, `/api/v1/namespaces/kube-system/pods?watch=true&resourceVersion=${cluster.store.resourceVersion}`),
    );
    await Promise.all(watchers.map((w) => w.status));
    for (let i = 0; i < 2000; i++)
      cluster.store.patchStatus('pods', 'kube-system', `agent-${String(i).padStart(5, '0')}`, {podIP: `10.1.${i >> 8}.${i & 255}`});
    await Promise.all(watchers.map((w) => w.waitFor(2000, 120_000)));
    for (const w of watchers) w.close();
  });
});
