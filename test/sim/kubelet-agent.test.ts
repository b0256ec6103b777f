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

  it('a node-breaking pod is Ready and breaks its node, or the pods beside it, until it is deleted', async () => {
    tc = await startTestCluster({scenario: 'empty', nodes: 0, agents: false});
    const kc = new KubeConfig();
    kc.loadFromFile(tc.kubeconfig);
    agent = new KubeletAgent(kc, {
      nodes: ['a1'],
      pollMs: 20,
      startDelayMs: 0,
      stopDelayMs: 0,
      failures: [
        {image: 'cni', mode: 'network-unavailable'},
        {image: 'bully', mode: 'break-neighbours'},
      ],
    });
    await agent.start();
    const store = tc.cluster.store;
    const until = async (what: string, check: () => boolean) => {
      for (let i = 0; !check(); i++) {
        if (i > 6000) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const pod = (name: string) => store.get('pods', 'default', name) as Pod | undefined;
    const ready = (name: string) => pod(name)?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
    const network = () => (store.get('nodes', undefined, 'a1') as unknown as Node).status?.conditions?.find((c) => c.type === 'NetworkUnavailable')?.status;
    const create = (name: string, image: string) =>
      store.create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {name, namespace: 'default'},
        spec: {nodeName: 'a1', containers: [{name: 'c', image}]},
      } as unknown as Pod);
    create('neighbour', 'app:1');
    await until('the neighbour Ready', () => ready('neighbour') === 'True');

    create('cni', 'cni:2');
    await until('the network to go', () => network() === 'True');
    expect(ready('cni')).toBe('True');
    store.delete('pods', 'default', 'cni', {gracePeriodSeconds: 0});
    await until('the network back', () => network() === 'False');

    create('bully', 'bully:2');
    await until('the neighbour broken', () => ready('neighbour') === 'False');
    expect(pod('neighbour')?.status?.containerStatuses?.[0]?.restartCount).toBe(1);
    expect(ready('bully')).toBe('True');
    store.delete('pods', 'default', 'bully', {gracePeriodSeconds: 0});
    await until('the neighbour Ready again', () => ready('neighbour') === 'True');
  });
});
