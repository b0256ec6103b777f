// Following a cluster: the reflector with injected list/watch (resume, re-list on 410, fatal errors), then
// watchClusterState against the simulated cluster, also with watch streams dropped at random.
import {readFile, writeFile} from 'node:fs/promises';
import {createServer, type Server} from 'node:http';
import {type AddressInfo, connect, type Socket} from 'node:net';
import {dirname, join} from 'node:path';
import {dump, load} from 'js-yaml';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {ApiStatusError} from '../../../src/cluster/live/errors.js';
import {connectLiveCluster, Follower} from '../../../src/cluster/live/index.js';
import {Reflector, type StartWatch, type WatchEventType} from '../../../src/cluster/live/watch.js';
import type {ClusterState, ObjectMeta} from '../../../src/core/index.js';
import {ClusterForbiddenError, ClusterUnreachableError, type DsRolloutError} from '../../../src/platform/errors.js';
import {RETRY_ATTEMPTS} from '../../../src/cluster/live/retry.js';
import {startTestCluster, type TestCluster} from '../../helpers/sim-cluster.js';

interface Item {
  readonly metadata: ObjectMeta;
}

const item = (name: string, resourceVersion: string): Item => ({metadata: {name, resourceVersion}});

/** A scripted server: each watch call runs the next script with the event and done callbacks. */
function fakeWatch(scripts: Array<(emit: (type: WatchEventType, object: unknown) => void, done: (error?: DsRolloutError) => void) => void>) {
  const starts: string[] = [];
  const watch: StartWatch = async (resourceVersion, onEvent, onDone) => {
    starts.push(resourceVersion);
    const script = scripts.shift();
    let open = true;
    if (script) queueMicrotask(() => script(onEvent, (error) => open && ((open = false), onDone(error))));
    return {abort: () => open && ((open = false), onDone(undefined))};
  };
  return {watch, starts};
}

async function until(check: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('Reflector', () => {
  test('lists, applies events, resumes from the last resourceVersion, re-lists after 410', async () => {
    let lists = 0;
    const {watch, starts} = fakeWatch([
      (emit, done) => {
        emit('ADDED', item('b', '11'));
        emit('MODIFIED', item('a', '12'));
        emit('BOOKMARK', {metadata: {resourceVersion: '15'}});
        done(); // the server closed the stream (timeoutSeconds)
      },
      (emit) => emit('ERROR', {kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 15 (40)'}),
      (emit) => emit('DELETED', item('a', '41')),
    ]);
    const errors: unknown[] = [];
    const reflector = new Reflector<Item>({
      list: async () => (++lists === 1 ? {items: [item('a', '9')], resourceVersion: '10'} : {items: [item('a', '39'), item('c', '38')], resourceVersion: '40'}),
      watch,
      project: (raw) => raw as Item,
      onChange: () => undefined,
      onError: (error) => errors.push(error),
      delay: async () => undefined,
    });
    reflector.start();
    await until(() => starts.length === 3 && !reflector.items.has('/a'));
    reflector.stop();
    expect(starts).toEqual(['10', '15', '40']);
    expect(lists).toBe(2);
    expect([...reflector.items.keys()]).toEqual(['/c']);
    expect(errors).toEqual([]);
  });

  test('refusals end it with the error; passing trouble after the first list is retried', async () => {
    const forbidden = new ClusterForbiddenError('forbidden: cannot watch pods in namespace x');
    const {watch, starts} = fakeWatch([
      (_emit, done) => done(new ApiStatusError('the server refused', 500, 'InternalError')),
      (_emit, done) => done(forbidden),
    ]);
    const errors: unknown[] = [];
    const reflector = new Reflector<Item>({
      list: async () => ({items: [], resourceVersion: '5'}),
      watch,
      project: (raw) => raw as Item,
      onChange: () => undefined,
      onError: (error) => errors.push(error),
      delay: async () => undefined,
    });
    reflector.start();
    await until(() => errors.length === 1);
    expect(errors[0]).toBe(forbidden);
    expect(starts).toEqual(['5', '5']);
  });
});

describe('Reflector health', () => {
  test('failures in a row are counted for the follower: each failed watch one, a failed re-list every try; a watch that starts ends the run', async () => {
    const down = () => new ClusterUnreachableError('cannot reach the cluster at http://x: connection refused');
    const {watch, starts} = fakeWatch([
      (_emit, done) => done(down()),
      (_emit, done) => done(down()),
      (_emit, done) => done(down()), // third failure: the position is no longer trusted, re-list
      () => undefined, // after the re-list: a watch that starts and stays open
    ]);
    let lists = 0;
    const trouble: number[] = [];
    const reflector = new Reflector<Item>({
      list: async () => {
        lists++;
        if (lists === 2) throw down(); // the re-list fails (the client tried it RETRY_ATTEMPTS times)
        return {items: [], resourceVersion: String(lists)};
      },
      watch,
      project: (raw) => raw as Item,
      onChange: () => undefined,
      onError: () => undefined,
      onTrouble: (_error, failures) => trouble.push(failures),
      delay: async () => undefined,
    });
    reflector.start();
    await until(() => starts.length === 4);
    reflector.stop();
    expect(trouble).toEqual([1, 2, 3, RETRY_ATTEMPTS]);
    expect(starts).toEqual(['1', '1', '1', '3']);
  });
});

test('a stream still starting (a frozen server never answers) is dropped by stop()', async () => {
  const signals: AbortSignal[] = [];
  const reflector = new Reflector<Item>({
    list: async () => ({items: [], resourceVersion: '1'}),
    watch: (_rv, _onEvent, _onDone, signal) => {
      signals.push(signal);
      return new Promise(() => undefined); // no answer, ever
    },
    project: (raw) => raw as Item,
    onChange: () => undefined,
    onError: () => undefined,
  });
  reflector.start();
  await until(() => signals.length === 1);
  expect(signals[0]!.aborted).toBe(false);
  reflector.stop();
  expect(signals[0]!.aborted).toBe(true);
});

describe('watchClusterState against the simulated cluster', () => {
  let t: TestCluster;

  beforeAll(async () => {
    t = await startTestCluster({scenario: 'demo', agents: false, namespace: 'kube-system'});
  });

  afterAll(async () => {
    await t.stop();
  });

  test('reports the first full read, then every change, also when streams drop', async () => {
    const live = connectLiveCluster({kubeconfig: t.kubeconfig});
    const undo = t.cluster.injectFaults({rate: 0.3, codes: [500], seed: 5, dropWatches: true, match: {verb: 'watch'}});
    const states: ClusterState[] = [];
    const errors: unknown[] = [];
    const watch = live.watch({namespace: 'kube-system', name: 'fluentd'}, {onState: (s) => states.push(s), onError: (e) => errors.push(e), throttleMs: 10});
    try {
      await until(() => states.length > 0);
      expect(states[0]!.nodes).toHaveLength(20);
      for (let i = 1; i <= 5; i++) {
        t.cluster.store.modify('daemonsets', 'kube-system', 'fluentd', (ds) => ({
          ...ds,
          metadata: {...ds.metadata, labels: {...ds.metadata.labels, step: String(i)}},
        }));
        t.cluster.store.modify('nodes', undefined, 'worker-01', (n) => ({...n, metadata: {...n.metadata, labels: {...n.metadata.labels, step: String(i)}}}));
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      await until(() => {
        const last = states.at(-1)!;
        return last.daemonSet.metadata.labels?.['step'] === '5' && last.nodes.find((n) => n.metadata.name === 'worker-01')?.metadata.labels?.['step'] === '5';
      }, 8000);
      expect(errors).toEqual([]);
    } finally {
      watch.stop();
      undo();
    }
  }, 20_000);

  test('onStreaming: reported once every stream is open; the follower waits for it', async () => {
    const live = connectLiveCluster({kubeconfig: t.kubeconfig});
    const heard: string[] = [];
    const follower = new Follower((handlers) => live.watch({namespace: 'kube-system', name: 'fluentd'}, {...handlers, throttleMs: 10}), {
      onState: () => heard.push('state'),
      onStreaming: () => heard.push('streaming'),
    });
    try {
      expect(await follower.untilStreaming(15_000)).toBe(true);
      expect(heard.filter((h) => h === 'streaming')).toHaveLength(1);
      // Open already: answered at once.
      expect(await follower.untilStreaming(1)).toBe(true);
    } finally {
      follower.stop();
    }
    // A source that never says its streams are open: false once the time is up.
    const silent = new Follower(() => ({stop: () => undefined}));
    expect(await silent.untilStreaming(20)).toBe(false);
  }, 20_000);

  test('a watch stream silent past watchSilenceMs (no event, no bookmark) is watched again, without a re-list', async () => {
    const live = connectLiveCluster({kubeconfig: t.kubeconfig});
    const states: ClusterState[] = [];
    const errors: unknown[] = [];
    const watch = live.watch(
      {namespace: 'kube-system', name: 'fluentd'},
      {onState: (s) => states.push(s), onError: (e) => errors.push(e), watchSilenceMs: 300},
    );
    try {
      await until(() => states.length > 0);
      const count = (verb: string) => t.cluster.requestLog.filter({verb}).length;
      const [watches, lists] = [count('watch'), count('list')];
      // Nothing changes on the simulated cluster's stopped clock: every stream stays silent and is replaced.
      await until(() => count('watch') >= watches + 4, 15_000);
      expect(count('list')).toBe(lists);
      expect(errors).toEqual([]);
    } finally {
      watch.stop();
    }
  }, 30_000);

  test('through a proxy (HTTP CONNECT), the streams follow the cluster, and stop closes their tunnels', async () => {
    const tunnels: Socket[] = [];
    const proxy: Server = createServer();
    proxy.on('connect', (req, socket: Socket, head) => {
      const [host, port] = (req.url ?? '').split(':');
      const upstream = connect(Number(port), host!, () => {
        tunnels.push(socket);
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
      socket.on('close', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const config = load(await readFile(t.kubeconfig, 'utf8')) as {clusters: {cluster: Record<string, unknown>}[]};
    config.clusters[0]!.cluster['proxy-url'] = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const kubeconfig = join(dirname(t.kubeconfig), 'kubeconfig-proxy');
    await writeFile(kubeconfig, dump(config), {mode: 0o600});
    const live = connectLiveCluster({kubeconfig});
    const states: ClusterState[] = [];
    const errors: unknown[] = [];
    const watch = live.watch({namespace: 'kube-system', name: 'fluentd'}, {onState: (s) => states.push(s), onError: (e) => errors.push(e), throttleMs: 10});
    try {
      // The first read loads client-node for the proxy agent: seconds on a busy machine.
      await until(() => states.length > 0, 20_000);
      t.cluster.store.modify('daemonsets', 'kube-system', 'fluentd', (ds) => ({
        ...ds,
        metadata: {...ds.metadata, labels: {...ds.metadata.labels, proxied: 'yes'}},
      }));
      await until(() => states.at(-1)!.daemonSet.metadata.labels?.['proxied'] === 'yes', 8000);
      expect(errors).toEqual([]);
      // Four streams, four tunnels at least; stopping the watch closes them.
      const open = () => tunnels.filter((socket) => !socket.destroyed).length;
      const before = open();
      expect(before).toBeGreaterThanOrEqual(4);
      watch.stop();
      await until(() => open() <= before - 4, 8000);
    } finally {
      watch.stop();
      live.client.close();
      proxy.closeAllConnections();
      proxy.close();
      for (const socket of tunnels) socket.destroy();
    }
  }, 40_000);

  test('a DaemonSet that does not exist ends the watch with NotFound', async () => {
    const live = connectLiveCluster({kubeconfig: t.kubeconfig});
    const errors: Error[] = [];
    const watch = live.watch({namespace: 'kube-system', name: 'nope'}, {onState: () => undefined, onError: (e) => errors.push(e)});
    await until(() => errors.length > 0);
    watch.stop();
    expect(errors[0]!.message).toBe('daemonset "nope" not found in namespace "kube-system"');
  });
});
