// The live ClusterSource against the simulated cluster's HTTP API: what it reads (and that the slim projection
// plans exactly like the full objects), how many requests it takes, paging, kubeconfig resolution, and how every
// failure becomes one of the project's errors.
import {createServer} from 'node:net';
import {readFile, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {setFlagsFromString} from 'node:v8';
import {runInNewContext} from 'node:vm';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {connectLiveCluster} from '../../../src/cluster/live/index.js';
import {resolveKubeconfig} from '../../../src/cluster/live/kubeconfig.js';
import type {ClusterState, ControllerRevision, DaemonSet, Node, Pod} from '../../../src/core/index.js';
import {planRollout} from '../../../src/core/index.js';
import {ClusterForbiddenError, ClusterUnreachableError, InputError, NotFoundError} from '../../../src/platform/errors.js';
import {START, startTestCluster, type TestCluster} from '../../helpers/sim-cluster.js';

const REF = {namespace: 'kube-system', name: 'fluentd'};
let t: TestCluster;

beforeAll(async () => {
  t = await startTestCluster({scenario: 'demo', namespace: 'kube-system'});
});

afterAll(async () => {
  await t.stop();
});

function storeState(): ClusterState {
  const store = t.cluster.store;
  return {
    daemonSet: store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet,
    nodes: store.list('nodes').items as Node[],
    pods: store.list('pods', {namespace: 'kube-system'}).items as Pod[],
    revisions: store.list('controllerrevisions', {namespace: 'kube-system'}).items as ControllerRevision[],
  };
}

/** A port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as {port: number}).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('LiveClusterSource.readState', () => {
  test('reads the DaemonSet, every node, and the pods and revisions of its namespace in four requests', async () => {
    const live = connectLiveCluster({kubeconfig: t.kubeconfig});
    const before = t.cluster.requestLog.count;
    const state = await live.source.readState(REF);
    const requests = t.cluster.requestLog.entries.slice(before - t.cluster.requestLog.count).map((e) => `${e.verb} ${e.resource}`);
    expect(requests.sort()).toEqual(['get daemonsets', 'list controllerrevisions', 'list nodes', 'list pods']);
    const expected = storeState();
    expect(state.daemonSet.metadata.uid).toBe(expected.daemonSet.metadata.uid);
    expect(state.nodes.map((n) => n.metadata.name)).toEqual(expected.nodes.map((n) => n.metadata.name));
    expect(state.pods.map((p) => p.metadata.name).sort()).toEqual(expected.pods.map((p) => p.metadata.name).sort());
    expect(state.revisions.map((r) => r.revision).sort()).toEqual([1, 2]);
  });

  test('the slim projection plans exactly like the full objects', async () => {
    const live = connectLiveCluster({kubeconfig: t.kubeconfig});
    const state = await live.source.readState(REF);
    for (const now of [START, START + 60_000]) {
      expect(planRollout(state, {now})).toEqual(planRollout(storeState(), {now}));
    }
    // And it is slim: no managedFields, node images or pod volumes survive.
    expect(JSON.stringify(state.pods[0]!).length).toBeLessThan(JSON.stringify(storeState().pods[0]!).length / 2);
  });

  test('pages: small pages give the same state in more requests, each with limit and continue', async () => {
    const live = connectLiveCluster({kubeconfig: t.kubeconfig, pageSize: 7});
    const before = t.cluster.requestLog.count;
    const state = await live.source.readState(REF);
    const lists = t.cluster.requestLog.entries.slice(before - t.cluster.requestLog.count).filter((e) => e.verb === 'list' && e.resource === 'nodes');
    expect(lists.map((e) => e.query['limit'])).toEqual(['7', '7', '7']);
    expect(lists.map((e) => e.query['continue'] !== undefined)).toEqual([false, true, true]);
    expect(state.nodes).toHaveLength(20);
  });

  test('namespace: -n, else the context namespace, else default', () => {
    expect(resolveKubeconfig({kubeconfig: t.kubeconfig}).namespace).toBe('kube-system');
    expect(resolveKubeconfig({kubeconfig: t.kubeconfig, namespace: 'monitoring'}).namespace).toBe('monitoring');
  });
});

describe('errors', () => {
  test('a DaemonSet that does not exist', async () => {
    const live = connectLiveCluster({kubeconfig: t.kubeconfig});
    const error = await live.source.readState({namespace: 'kube-system', name: 'nope'}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toBe('daemonset "nope" not found in namespace "kube-system"');
  });

  test('RBAC: names the verb and the resource refused', async () => {
    const undo = t.cluster.forbid({verb: 'list', resource: 'pods', namespace: 'kube-system'});
    try {
      const error = await connectLiveCluster({kubeconfig: t.kubeconfig})
        .source.readState(REF)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClusterForbiddenError);
      expect((error as Error).message).toBe('forbidden: cannot list pods in namespace kube-system');
    } finally {
      undo();
    }
    const nodes = t.cluster.forbid({verb: 'list', resource: 'nodes'});
    try {
      const error = await connectLiveCluster({kubeconfig: t.kubeconfig})
        .source.readState(REF)
        .catch((e: unknown) => e);
      expect((error as Error).message).toBe('forbidden: cannot list nodes at the cluster scope');
    } finally {
      nodes();
    }
  });

  test('unreachable: a closed port', async () => {
    const port = await closedPort();
    const path = join(t.dir, 'closed.yaml');
    const text = (await readFile(t.kubeconfig, 'utf8')).replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${port}`);
    await writeFile(path, text);
    const error = await connectLiveCluster({kubeconfig: path})
      .source.readState(REF)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClusterUnreachableError);
    expect((error as Error).message).toBe(`cannot reach the cluster at https://127.0.0.1:${port}: connection refused`);
  });

  test('unreachable: no answer within the request timeout', async () => {
    const undo = t.cluster.delay({verb: 'get', resource: 'daemonsets', ms: 1500});
    try {
      const error = await connectLiveCluster({kubeconfig: t.kubeconfig, timeoutMs: 200})
        .source.readState(REF)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClusterUnreachableError);
      expect((error as Error).message).toMatch(/^cannot reach the cluster at https:\/\/127\.0\.0\.1:\d+: no answer within 200ms \(--request-timeout\)$/);
    } finally {
      undo();
    }
  });

  test('the request timeout holds while the garbage collector runs (a timeout signal it could take would never fire)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const collecting = setInterval(gc, 10);
    const undo = t.cluster.delay({verb: 'get', resource: 'daemonsets', ms: 3000});
    try {
      const error = await connectLiveCluster({kubeconfig: t.kubeconfig, timeoutMs: 200, attempts: 1})
        .source.readDaemonSet(REF)
        .catch((e: unknown) => e);
      // Without the timeout, the server's answer after 3 s would be read as a success.
      expect(error).toBeInstanceOf(ClusterUnreachableError);
    } finally {
      clearInterval(collecting);
      undo();
    }
  });

  test('overload and server errors are retried', async () => {
    const undo = t.cluster.injectFaults({rate: 0.6, codes: [500, 429], seed: 9, match: {verb: 'list', resource: 'nodes'}});
    try {
      const live = connectLiveCluster({kubeconfig: t.kubeconfig});
      (live.client as unknown as {delay: (ms: number) => Promise<void>}).delay = async () => undefined;
      const before = t.cluster.requestLog.count;
      const state = await live.source.readState(REF);
      expect(state.nodes).toHaveLength(20);
      const statuses = t.cluster.requestLog.entries
        .slice(before - t.cluster.requestLog.count)
        .filter((e) => e.resource === 'nodes')
        .map((e) => e.status);
      expect(statuses).toEqual([429, 429, 200]);
    } finally {
      undo();
    }
  });

  test('kubeconfig problems are input errors', async () => {
    expect(() => resolveKubeconfig({kubeconfig: join(t.dir, 'missing.yaml')})).toThrow(InputError);
    expect(() => resolveKubeconfig({kubeconfig: join(t.dir, 'missing.yaml')})).toThrow(/^cannot load kubeconfig ".*missing\.yaml": no such file$/);
    expect(() => resolveKubeconfig({kubeconfig: t.kubeconfig, context: 'prod'})).toThrow('context "prod" does not exist in the kubeconfig');
  });
});
