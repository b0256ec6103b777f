// The simulator with the client our own code uses (@kubernetes/client-node 1.4): typed calls, SMP via
// setHeaderOptions, Status errors as ApiException, and the Watch helper.
import {AppsV1Api, CoreV1Api, KubeConfig, PatchStrategy, Watch, setHeaderOptions, type V1DaemonSet} from '@kubernetes/client-node';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {startSimulatedCluster, type SimulatedCluster} from '../../src/sim/index.js';
import {dsManifest} from './helpers.js';

let cluster: SimulatedCluster;
let kc: KubeConfig;

beforeAll(async () => {
  cluster = await startSimulatedCluster();
  cluster.seed({nodes: 4});
  kc = new KubeConfig();
  kc.loadFromString(cluster.kubeconfigYaml());
});

afterAll(async () => {
  await cluster.stop();
});

describe('@kubernetes/client-node 1.4 against the simulator', () => {
  it('lists, creates, patches (SMP) and reports Status errors', async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const apps = kc.makeApiClient(AppsV1Api);
    const nodes = await core.listNode({limit: 2});
    expect(nodes.items.map((n) => n.metadata?.name)).toEqual(['node-0', 'node-1']);
    expect(nodes.metadata?._continue).toEqual(expect.any(String));
    const rest = await core.listNode({limit: 2, _continue: nodes.metadata?._continue});
    expect(rest.items.map((n) => n.metadata?.name)).toEqual(['node-2', 'node-3']);

    const created = await apps.createNamespacedDaemonSet({namespace: 'default', body: dsManifest() as V1DaemonSet});
    expect(created.spec?.updateStrategy?.type).toBe('RollingUpdate');
    const patched = await apps.patchNamespacedDaemonSet(
      {name: 'agent', namespace: 'default', body: {spec: {template: {spec: {containers: [{name: 'main', image: 'busybox:1.37'}]}}}}},
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(patched.spec?.template.spec?.containers[0]?.image).toBe('busybox:1.37');
    expect(patched.metadata?.generation).toBe(2);
    await expect(apps.readNamespacedDaemonSet({name: 'missing', namespace: 'default'})).rejects.toMatchObject({code: 404});
  });

  it('watches from a list resourceVersion', async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const list = await core.listNamespacedPod({namespace: 'default'});
    const seen: string[] = [];
    const controller = await new Watch(kc).watch(
      '/api/v1/namespaces/default/pods',
      {resourceVersion: list.metadata?.resourceVersion},
      (phase, obj: {metadata: {name: string}}) => seen.push(`${phase} ${obj.metadata.name}`),
      () => undefined,
    );
    await core.createNamespacedPod({namespace: 'default', body: {metadata: {name: 'w'}, spec: {containers: [{name: 'c', image: 'x'}]}}});
    await core.deleteNamespacedPod({name: 'w', namespace: 'default'});
    const deadline = Date.now() + 30_000;
    while (seen.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    expect(seen).toEqual(['ADDED w', 'DELETED w']);
  });
});
