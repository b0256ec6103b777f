// Scale smoke test: the sizes the rollout tools meet in big clusters must stay cheap. Thresholds are
// generous (shared 2-core CI machines); they catch accidental O(n²), not small regressions.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {startSimulatedCluster, type SimulatedCluster} from '../../src/sim/index.js';
import {TABLE_ACCEPT, call, watch} from './http-helpers.js';

const NODES = 5000;
const PODS = 50_000;
let cluster: SimulatedCluster;
let seedMs = 0;

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
  const start = performance.now();
  cluster.seed({nodes: NODES});
  const pods: object[] = [];
  for (let i = 0; i < PODS; i++) pods.push(pod(i));
  cluster.seed({objects: pods});
  seedMs = performance.now() - start;
}, 60_000);

afterAll(async () => {
  await cluster.stop();
});

describe(`${NODES} nodes and ${PODS} pods`, () => {
  it('seeds quickly', () => {
    expect(cluster.store.count('pods')).toBe(PODS);
    expect(cluster.store.count('nodes')).toBe(NODES);
    expect(seedMs).toBeLessThan(15_000);
  });

  it('pages through every pod with limit=500 under one consistent resourceVersion', async () => {
    const start = performance.now();
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
    expect(performance.now() - start).toBeLessThan(15_000);
  });

  it('answers node-scoped and selector queries from indexes', async () => {
    const start = performance.now();
    for (let i = 0; i < 50; i++) {
      const r = await call(cluster, 'GET', `/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-${String(i).padStart(4, '0')}`);
      expect(r.body.items).toHaveLength(PODS / NODES);
    }
    expect(performance.now() - start).toBeLessThan(5_000);
    const nodes = await call(cluster, 'GET', '/api/v1/nodes?limit=500', {headers: {accept: TABLE_ACCEPT}});
    expect(nodes.body.rows).toHaveLength(500);
  });

  it('keeps writes and watch fan-out cheap', async () => {
    const watchers = Array.from({length: 5}, () =>
      watch(cluster, `/api/v1/namespaces/kube-system/pods?watch=true&resourceVersion=${cluster.store.resourceVersion}`),
    );
    await Promise.all(watchers.map((w) => w.status));
    const start = performance.now();
    for (let i = 0; i < 2000; i++)
      cluster.store.patchStatus('pods', 'kube-system', `agent-${String(i).padStart(5, '0')}`, {podIP: `10.1.${i >> 8}.${i & 255}`});
    const writeMs = performance.now() - start;
    await Promise.all(watchers.map((w) => w.waitFor(2000, 10_000)));
    for (const w of watchers) w.close();
    expect(writeMs).toBeLessThan(3_000);
  });
});
