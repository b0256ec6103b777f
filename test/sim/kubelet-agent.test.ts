// The kubelet agent over HTTP, against the simulated API server with its own agents off.
import {afterEach, describe, expect, it} from 'vitest';
import {KubeConfig} from '@kubernetes/client-node';
import type {Node, Pod} from '../../src/core/index.js';
import {KubeletAgent} from '../../src/sim/kubelet-agent.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

let tc: TestCluster | undefined;
let agent: KubeletAgent | undefined;
afterEach(async () => {
  agent?.stop();
  await tc?.stop();
});

describe('KubeletAgent', () => {
  it('registers Ready nodes and, while held, starts a bound pod only when released', async () => {
    tc = await startTestCluster({scenario: 'empty', nodes: 0, agents: false});
    const kc = new KubeConfig();
    kc.loadFromFile(tc.kubeconfig);
    agent = new KubeletAgent(kc, {nodes: ['a1', 'a2'], pollMs: 60_000, failures: [{image: 'bad', mode: 'crash'}]});
    await agent.start();
    agent.hold();
    const store = tc.cluster.store;
    const node = store.get('nodes', undefined, 'a1') as unknown as Node;
    expect(node.status!.conditions!.find((c) => c.type === 'Ready')?.status).toBe('True');
    for (const [name, image] of [
      ['good', 'img:1'],
      ['crashing', 'bad:2'],
    ] as const) {
      store.create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {name, namespace: 'default'},
        spec: {nodeName: 'a2', containers: [{name: 'c', image}]},
      } as unknown as Pod);
    }
    expect((await agent.due()).map((t) => `${t.kind} ${t.name} ${t.node}`).sort()).toEqual(['start crashing a2', 'start good a2']);
    expect((store.get('pods', 'default', 'good') as Pod).status?.phase).not.toBe('Running');
    await agent.release((t) => t.name === 'good');
    const good = store.get('pods', 'default', 'good') as Pod;
    expect(good.status?.phase).toBe('Running');
    expect(good.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect((await agent.due()).map((t) => t.name)).toEqual(['crashing']);
    await agent.release();
    const crashing = store.get('pods', 'default', 'crashing') as Pod;
    expect(crashing.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('CrashLoopBackOff');
    expect(await agent.due()).toEqual([]);
  });
});
