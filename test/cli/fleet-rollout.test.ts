// The fleet rollout (`fleet rollout|status|promote|abort`), BUILT CLI: three simulated clusters in this process and
// ONE kubeconfig with a context each, as a fleet operator has. Each runs `agent` (v1) on its own nodes; a release
// whose image the simulated kubelets crash fails in the first wave's cluster, is undone there, and the others are
// never touched; a healthy release reaches every cluster wave by wave; a driver stopped between waves continues
// when rerun (another HOME: another machine); abort takes each cluster back to its OWN origin. Each gated rollout
// runs in the driver (--no-detach): the clusters' clocks run 20 times faster than real time.
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {mkdtemp, readFile, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {tmpdir} from 'node:os';
import {dump, load} from 'js-yaml';
import {afterEach, beforeEach, describe, expect, test, vi} from 'vitest';
import type {DaemonSet, Pod} from '../../src/core/index.js';
import {FLEET_ROLLOUT_ANNOTATION} from '../../src/core/index.js';
import {makeNode} from '../../src/sim/index.js';
import {ROOT, runCli, type CliResult} from '../helpers/run-cli.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

vi.setConfig({testTimeout: 180_000});

const ROLLOUT = {bin: 'bin/kubectl-ds_rollout'};
const CONTEXTS = ['staging', 'prod-eu', 'prod-us'] as const;
const JOB_IMAGE = 'registry.local/ds-rollout:sim';
/** A Job image whose process exits 1 at once: the Job fails, its rollout never having run. */
const BROKEN_JOB_IMAGE = 'registry.local/ds-rollout:broken';

interface Kubeconfig {
  clusters: Array<{name: string; cluster: Record<string, unknown>}>;
  users: Array<{name: string; user: Record<string, unknown>}>;
  contexts: Array<{name: string; context: Record<string, unknown>}>;
}

/** A cluster running `agent` on `nodes` nodes, each on `image` (the cluster's own origin), RollingUpdate. */
async function agentCluster(nodes: number, image: string): Promise<TestCluster> {
  const jobs = await mkdtemp(join(tmpdir(), 'ds-rollout-jobs-'));
  const tc = await startTestCluster({
    speed: 20,
    kubelet: {startDelayMs: 1000, stopDelayMs: 500, failures: [{image: 'agent:bad', mode: 'crash'}]},
    // A detached gated rollout's Job: its pod runs this checkout's plugin, with in-cluster credentials.
    exec: {
      images: [
        {image: JOB_IMAGE, command: [process.execPath, join(ROOT, ROLLOUT.bin)]},
        {image: BROKEN_JOB_IMAGE, command: [process.execPath, '-e', 'process.exit(1)']},
      ],
      dir: jobs,
    },
  });
  const {store} = tc.cluster;
  for (let i = 0; i < nodes; i++) store.create(makeNode(`node-${i + 1}`, {index: i}));
  store.create({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {name: 'agent', namespace: 'default'},
    spec: {
      selector: {matchLabels: {app: 'agent'}},
      template: {metadata: {labels: {app: 'agent'}}, spec: {containers: [{name: 'main', image}]}},
      updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: 0}},
    },
  } as never);
  await vi.waitFor(() => expect(daemonSet(tc).status?.numberAvailable).toBe(nodes), {timeout: 60_000, interval: 50});
  return tc;
}

const daemonSet = (tc: TestCluster) => tc.cluster.store.get('daemonsets', 'default', 'agent') as unknown as DaemonSet;

/** The image each node's live agent pod runs. */
function images(tc: TestCluster): string[] {
  return tc.cluster.store
    .list('pods', {namespace: 'default'})
    .items.map((item) => item as unknown as Pod)
    .filter((pod) => pod.metadata.labels?.['app'] === 'agent' && !pod.metadata.deletionTimestamp && pod.spec.nodeName)
    .map((pod) => pod.spec.containers[0]!.image!)
    .sort();
}

const writes = (tc: TestCluster) =>
  tc.cluster.requestLog.filter({verb: 'patch', resource: 'daemonsets'}).length + tc.cluster.requestLog.filter({verb: 'delete'}).length;

describe('fleet rollout on three simulated clusters', () => {
  let clusters: TestCluster[] = [];
  let kubeconfig: string;
  let dir: string;
  const run = (args: readonly string[], home?: string): Promise<CliResult> =>
    runCli([...args, '--kubeconfig', kubeconfig], {...ROLLOUT, ...(home ? {env: {HOME: home}} : {})});
  /** The fleet's kubeconfig with prod-us's server at a port nothing listens on, in a file of its own. */
  const kubeconfigWithProdUsUnreachable = async () => {
    const config = load(await readFile(kubeconfig, 'utf8')) as Kubeconfig;
    config.clusters.find((c) => c.name === 'prod-us')!.cluster['server'] = 'https://127.0.0.1:9';
    const broken = join(dir, 'broken-kubeconfig');
    await writeFile(broken, dump(config), {mode: 0o600});
    return broken;
  };
  const fleet = (verb: string, ...args: string[]) => run(['fleet', verb, 'agent', '-n', 'default', '--contexts', CONTEXTS.join(','), ...args]);

  beforeEach(async () => {
    // Each cluster its own origin: the abort must take each back to its own.
    clusters = await Promise.all([agentCluster(2, 'agent:v1'), agentCluster(3, 'agent:v1.1'), agentCluster(2, 'agent:v1.2')]);
    dir = clusters[0]!.dir;
    kubeconfig = join(dir, 'fleet-kubeconfig');
    const merged: Kubeconfig = {clusters: [], users: [], contexts: []};
    CONTEXTS.forEach((name, i) => {
      const one = load(clusters[i]!.cluster.kubeconfigYaml({context: name, namespace: 'default'})) as Kubeconfig;
      merged.clusters.push(...one.clusters);
      merged.users.push(...one.users);
      merged.contexts.push(...one.contexts);
    });
    await writeFile(kubeconfig, dump({apiVersion: 'v1', kind: 'Config', ...merged, 'current-context': CONTEXTS[0]}), {mode: 0o600});
  });

  afterEach(async () => {
    await Promise.all(clusters.map((tc) => tc.stop()));
  });

  test('bad --cluster-waves or --image: one line, exit 1, no cluster touched', async () => {
    const before = clusters.map(writes);
    for (const [args, message] of [
      [['--cluster-waves', '1,50%', '--image', 'main=agent:v2'], /^error: invalid --cluster-waves "1,50%": the last wave must reach every context/],
      [['--cluster-waves', '1,x', '--image', 'main=agent:v2'], /^error: invalid --cluster-waves "1,x": "x" is not a cluster count/],
      [['--image', 'agent:v2'], /^error: invalid --image "agent:v2": want CONTAINER=IMAGE/],
    ] as const) {
      const result = await fleet('rollout', ...args, '--no-detach', '--yes');
      expect({code: result.code, stdout: result.stdout}).toEqual({code: 1, stdout: ''});
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    // No fleet rollout yet: status, promote and abort say so in one line.
    for (const verb of ['status', 'promote', 'abort']) {
      const none = await fleet(verb, ...(verb === 'status' ? [] : ['--yes']));
      expect({code: none.code, stdout: none.stdout, stderr: none.stderr}).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: no fleet rollout of daemonset default/agent is recorded in context staging, prod-eu, prod-us\n',
      });
    }
    expect(clusters.map(writes)).toEqual(before);
  });

  test('a release that crashes fails in the first wave, is undone there, and never touches the others', async () => {
    const before = [1, 2].map((i) => writes(clusters[i]!));
    const result = await fleet(
      'rollout',
      '--cluster-waves',
      '1,100%',
      '--image',
      'main=agent:bad',
      '--canary',
      '1',
      '--on-failure',
      'undo',
      '--no-detach',
      '--yes',
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /^error: fleet rollout failed in context staging \(wave 1\/2\): gate failed, undone: pod agent-\S+ on node node-\d: CrashLoopBackOff.*no later cluster was touched/,
    );
    expect(result.stdout).toContain('Wave 1/2: staging');
    expect(result.stdout).not.toContain('prod-eu');
    // Undone: the template and every node back on staging's origin.
    expect(daemonSet(clusters[0]!).spec.template.spec.containers[0]!.image).toBe('agent:v1');
    await vi.waitFor(() => expect(images(clusters[0]!)).toEqual(['agent:v1', 'agent:v1']), {timeout: 30_000, interval: 50});
    // Untouched: not one write, no record.
    expect([1, 2].map((i) => writes(clusters[i]!))).toEqual(before);
    expect(daemonSet(clusters[1]!).metadata.annotations?.[FLEET_ROLLOUT_ANNOTATION]).toBeUndefined();

    const status = await fleet('status', '-o', 'json');
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      kind: 'FleetRollout',
      phase: 'failed',
      wave: 1,
      waves: 2,
      clusters: [
        {context: 'staging', wave: 1, phase: 'failed'},
        {context: 'prod-eu', wave: 2, phase: 'pending'},
        {context: 'prod-us', wave: 2, phase: 'pending'},
      ],
    });
    // A rerun says the same, and touches nothing more.
    const rerun = await fleet(
      'rollout',
      '--cluster-waves',
      '1,100%',
      '--image',
      'main=agent:bad',
      '--canary',
      '1',
      '--on-failure',
      'undo',
      '--no-detach',
      '--yes',
    );
    expect(rerun.code).toBe(3);
    expect([1, 2].map((i) => writes(clusters[i]!))).toEqual(before);
  });

  test('a healthy release reaches every cluster wave by wave; a driver stopped between waves continues when rerun elsewhere; abort takes each back to its own origin', async () => {
    const args = ['--cluster-waves', '1,100%', '--image', 'main=agent:v2', '--canary', '1', '--no-detach', '--yes'];
    // Waves: staging alone, first; --approve stops each cluster after its canary, so the driver ends between waves.
    const first = await fleet('rollout', ...args, '--approve');
    // --approve: staging stops after its canary; the fleet waits for fleet promote (exit 0).
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/Fleet rollout of daemonset default\/agent \(main=agent:v2\): waiting for promote, wave 1\/2, 0\/3 clusters complete/);
    expect(daemonSet(clusters[1]!).metadata.annotations?.[FLEET_ROLLOUT_ANNOTATION]).toBeUndefined();

    // Another machine (another HOME) promotes: staging completes, then prod-eu and prod-us, each after its canary... which waits again.
    const home = await mkdtemp(join(tmpdir(), 'ds-rollout-home-'));
    const promoted = await run(['fleet', 'promote', 'agent', '-n', 'default', '--contexts', 'staging', '--no-detach', '--yes'], home);
    expect(promoted.stderr).toBe('');
    expect(promoted.code).toBe(0);
    expect(promoted.stdout).toContain('Wave 2/2: prod-eu, prod-us');
    expect(promoted.stdout).toMatch(/waiting for promote, wave 2\/2, 1\/3 clusters complete/);
    // A different release meanwhile is refused, naming the one under way.
    const other = await fleet('rollout', '--cluster-waves', '1,100%', '--image', 'main=agent:v3', '--no-detach', '--yes');
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/^error: another fleet rollout of default\/agent \(main=agent:v2 over staging,prod-eu,prod-us\) is awaiting-approval/);
    // The same command again, from the first machine: it stands where it is, waiting.
    const rerun = await fleet('rollout', ...args, '--approve');
    expect({code: rerun.code, stderr: rerun.stderr}).toEqual({code: 0, stderr: ''});
    expect(rerun.stdout).toMatch(/waiting for promote, wave 2\/2, 1\/3 clusters complete/);

    const done = await run(['fleet', 'promote', 'agent', '-n', 'default', '--contexts', 'prod-us', '--no-detach', '--yes'], home);
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/complete, wave 2\/2, 3\/3 clusters complete/);
    for (const tc of clusters) await vi.waitFor(() => expect(new Set(images(tc))).toEqual(new Set(['agent:v2'])), {timeout: 30_000, interval: 50});

    // Rerun of the same rollout: complete, nothing to do.
    const again = await fleet('rollout', ...args, '--approve');
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/complete, wave 2\/2, 3\/3 clusters complete/);

    // Abort: each cluster back on its OWN origin.
    const aborted = await fleet('abort', '--yes');
    expect(aborted.stderr).toBe('');
    expect(aborted.code).toBe(0);
    expect(aborted.stdout).toMatch(/aborted/);
    const origins = [['agent:v1'], ['agent:v1.1'], ['agent:v1.2']];
    for (const [i, tc] of clusters.entries()) {
      expect(daemonSet(tc).spec.template.spec.containers[0]!.image).toBe(origins[i]![0]);
      await vi.waitFor(() => expect(new Set(images(tc))).toEqual(new Set(origins[i])), {timeout: 30_000, interval: 50});
    }
  });

  test('by default each cluster runs its gated rollout in a Job of its own; the driver follows their watches wave by wave', async () => {
    const args = ['--cluster-waves', '1,100%', '--image', 'main=agent:v2', '--canary', '1', '--job-image', JOB_IMAGE, '--yes'];
    const waiting = await fleet('rollout', ...args, '--approve');
    expect({code: waiting.code, stderr: waiting.stderr}).toEqual({code: 0, stderr: ''});
    expect(waiting.stdout).toMatch(/waiting for promote, wave 1\/2, 0\/3 clusters complete/);
    // The promote's Job in staging, then the next wave's Jobs, which stop after their canaries again.
    const promoted = await fleet('promote', '--job-image', JOB_IMAGE, '--yes');
    expect({code: promoted.code, stderr: promoted.stderr}).toEqual({code: 0, stderr: ''});
    expect(promoted.stdout).toMatch(/waiting for promote, wave 2\/2, 1\/3 clusters complete/);
    const result = await fleet('promote', '--job-image', JOB_IMAGE, '--yes');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(waiting.stdout).toMatch(/\[staging\] Job default\/\S+ created: it runs the gated rollout in the cluster/);
    expect(waiting.stdout).not.toContain('[prod-eu]');
    expect(promoted.stdout).toMatch(
      /\[staging\] Job default\/\S+-promote-\S+ created[\s\S]*Wave 2\/2: prod-eu, prod-us[\s\S]*\[prod-eu\] Job default\/\S+ created/,
    );
    expect(result.stdout).toMatch(/complete, wave 2\/2, 3\/3 clusters complete/);
    for (const tc of clusters) {
      // The step's Job, and the promote's.
      expect(tc.cluster.store.list('jobs', {namespace: 'default'}).items).toHaveLength(2);
      await vi.waitFor(() => expect(new Set(images(tc))).toEqual(new Set(['agent:v2'])), {timeout: 30_000, interval: 50});
    }
  });

  test("the metric gate goes with each cluster's Job (its strategy file); a breach there fails the fleet in that cluster", async () => {
    // Prometheus stood in by a server whose every answer is 5 errors on node-1: over the gate's max 0 at once.
    const queries: string[] = [];
    const prometheus: Server = createServer((req, res) => {
      queries.push(new URL(req.url ?? '/', 'http://x').searchParams.get('query') ?? '');
      const result = [{metric: {node: 'node-1'}, value: [0, '5']}];
      res.writeHead(200, {'Content-Type': 'application/json'}).end(JSON.stringify({status: 'success', data: {resultType: 'vector', result}}));
    });
    await new Promise<void>((resolve) => prometheus.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(prometheus.address() as AddressInfo).port}`;
      const gate = ['--metric-query', 'max(errors{node=~"$nodes"})', '--metric-max', '0', '--metric-interval', '1s', '--prometheus-url', url];
      const args = ['--cluster-waves', '1,100%', '--image', 'main=agent:v2', '--canary', '1', '--on-failure', 'undo', ...gate, '--job-image', JOB_IMAGE];
      const before = [1, 2].map((i) => writes(clusters[i]!));
      const failed = await fleet('rollout', ...args, '--yes');
      expect(failed.code).toBe(3);
      expect(failed.stderr).toMatch(
        /^error: fleet rollout failed in context staging \(wave 1\/2\): gate failed, undone: on node node-\d: metric metric: 5 .*no later cluster was touched/,
      );
      // The Job in staging ran the gated step with the strategy file that holds the gate, mounted from its ConfigMap.
      const staging = clusters[0]!.cluster.store;
      const [job] = staging.list('jobs', {namespace: 'default'}).items as unknown as {
        metadata: {name: string};
        spec: {template: {spec: {containers: {args: string[]}[]}}};
      }[];
      expect(job!.spec.template.spec.containers[0]!.args).toEqual(expect.arrayContaining(['step', 'agent', '--strategy', '/etc/ds-rollout/strategy.yaml']));
      const configMap = staging.get('configmaps', 'default', job!.metadata.name) as unknown as {data: Record<string, string>};
      expect(load(configMap.data['strategy.yaml']!)).toMatchObject({
        canary: 1,
        onFailure: 'undo',
        metrics: [{name: 'metric', query: 'max(errors{node=~"$nodes"})', max: 0, for: 0, interval: 1, noData: 'fail', onError: 'fail'}],
        prometheus: {url},
      });
      // It was the Job that asked Prometheus, the canary's node in the query.
      expect(queries.some((q) => /^max\(errors\{node=~"node-\d"\}\)$/.test(q))).toBe(true);
      expect(daemonSet(clusters[0]!).spec.template.spec.containers[0]!.image).toBe('agent:v1');
      // A rerun: the Job failed because the gate did, so the fleet is failed there; no Job is made again.
      const rerun = await fleet('rollout', ...args, '--yes');
      expect(rerun.code).toBe(3);
      expect(rerun.stderr).toMatch(/^error: fleet rollout failed in context staging \(wave 1\/2\): gate failed, undone/);
      expect(staging.list('jobs', {namespace: 'default'}).items).toHaveLength(1);
      expect([1, 2].map((i) => writes(clusters[i]!))).toEqual(before);
    } finally {
      await new Promise<void>((resolve) => prometheus.close(() => resolve()));
    }
  });

  test("a metric gate through the service proxy: each cluster's Job may get that Service's proxy, and its queries pass through it", async () => {
    // Prometheus stood in by a server whose every answer is 0 errors, reached in each cluster as default/prometheus:9090.
    const prometheus: Server = createServer((_req, res) => {
      const result = [{metric: {}, value: [0, '0']}];
      res.writeHead(200, {'Content-Type': 'application/json'}).end(JSON.stringify({status: 'success', data: {resultType: 'vector', result}}));
    });
    await new Promise<void>((resolve) => prometheus.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(prometheus.address() as AddressInfo).port}`;
      for (const tc of clusters) tc.cluster.exposeService('default/prometheus:9090', url);
      const gate = ['--metric-query', 'max(errors{node=~"$nodes"})', '--metric-max', '0', '--metric-interval', '1s'];
      const args = [
        '--cluster-waves',
        '1,100%',
        '--image',
        'main=agent:v2',
        '--canary',
        '1',
        ...gate,
        '--prometheus-service',
        'service/default/prometheus:9090',
      ];
      const done = await fleet('rollout', ...args, '--job-image', JOB_IMAGE, '--yes');
      expect({code: done.code, stderr: done.stderr}).toEqual({code: 0, stderr: ''});
      expect(done.stdout).toMatch(/complete, wave 2\/2, 3\/3 clusters complete/);
      const rule = {apiGroups: [''], resources: ['services/proxy'], resourceNames: ['prometheus:9090'], verbs: ['get']};
      for (const tc of clusters) {
        // The Service is in the Job's namespace: one more rule in the Job's own Role, no Role elsewhere.
        const roles = tc.cluster.store.list('roles').items as unknown as {metadata: {namespace: string}; rules: unknown[]}[];
        expect(roles.map((r) => r.metadata.namespace)).toEqual(['default']);
        expect(roles[0]!.rules).toContainEqual(rule);
        const proxied = tc.cluster.requestLog.entries.filter((e) => e.path.includes('/proxy/'));
        expect(proxied.length).toBeGreaterThan(0);
        expect(proxied.every((e) => e.path === '/api/v1/namespaces/default/services/prometheus:9090/proxy/api/v1/query' && e.status === 200)).toBe(true);
      }
    } finally {
      await new Promise<void>((resolve) => prometheus.close(() => resolve()));
    }
  });

  test('a Job that failed, or was deleted, before its rollout ended is made afresh by a rerun, one driver at a time', async () => {
    type Job = {metadata: {name: string}; status?: {conditions?: {type: string}[]}};
    const jobs = (tc: TestCluster) => tc.cluster.store.list('jobs', {namespace: 'default'}).items as unknown as Job[];
    const failedJob = (job: Job) => job.status?.conditions?.some((c) => c.type === 'Failed') ?? false;
    const args = ['--cluster-waves', '1,100%', '--image', 'main=agent:v2', '--canary', '1', '--yes'];
    const staging = clusters[0]!;
    // A Job whose image cannot run the plugin, given no retries (backoffLimit 0): it fails on its first pod.
    const brokenRun = async (count: number) => {
      const running = fleet('rollout', ...args, '--job-image', BROKEN_JOB_IMAGE);
      await vi.waitFor(() => expect(jobs(staging)).toHaveLength(count), {timeout: 30_000, interval: 50});
      const job = jobs(staging).find((j) => !failedJob(j))!.metadata.name;
      staging.cluster.store.modify('jobs', 'default', job, (j) => ({...j, spec: {...(j as never as {spec: object}).spec, backoffLimit: 0}}) as never);
      return {job, result: await running};
    };
    const first = await brokenRun(1);
    expect(first.result.code).toBe(3);
    expect(first.result.stderr).toBe(
      `error: context staging: Job default/${first.job} failed (kubectl logs job/${first.job} -n default) before its rollout ended; rerun the same command to start a fresh Job\n`,
    );
    expect(daemonSet(clusters[1]!).metadata.annotations?.[FLEET_ROLLOUT_ANNOTATION]).toBeUndefined();

    // The same command (the Jobs' image is not part of the plan): a fresh Job, under the next name; it fails too.
    const second = await brokenRun(2);
    expect(second.job).toBe(`${first.job}-retry-2`);
    expect(second.result.code).toBe(3);
    // Deleted by the operator: the next rerun does not take its name again.
    staging.cluster.store.delete('jobs', 'default', second.job);

    const rerun = await fleet('rollout', ...args, '--job-image', JOB_IMAGE);
    expect(rerun.stderr).toBe('');
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toContain(`[staging] Job default/${first.job}-retry-3 created`);
    expect(rerun.stdout).toMatch(/complete, wave 2\/2, 3\/3 clusters complete/);
    expect(
      jobs(staging)
        .map((j) => j.metadata.name)
        .sort(),
    ).toEqual([first.job, `${first.job}-retry-3`]);
    // One driver per cluster: never two Jobs of the fleet that had not failed.
    for (const tc of clusters) expect(jobs(tc).filter((j) => !failedJob(j))).toHaveLength(1);
  });

  test('a release rolled out again after an abort gets Jobs of its own: the ended Jobs of the earlier rollout drive nothing', async () => {
    type Job = {metadata: {name: string}};
    const jobs = (tc: TestCluster) => (tc.cluster.store.list('jobs', {namespace: 'default'}).items as unknown as Job[]).map((j) => j.metadata.name).sort();
    const args = ['--cluster-waves', '1,100%', '--image', 'main=agent:v2', '--canary', '1', '--job-image', JOB_IMAGE, '--yes'];
    const origins = clusters.map((tc) => new Set(images(tc)));
    const done = await fleet('rollout', ...args);
    expect({code: done.code, stderr: done.stderr}).toEqual({code: 0, stderr: ''});
    const first = jobs(clusters[0]!);
    expect(first).toHaveLength(1);
    expect((await fleet('abort', '--yes')).code).toBe(0);
    for (const [i, tc] of clusters.entries()) await vi.waitFor(() => expect(new Set(images(tc))).toEqual(origins[i]), {timeout: 30_000, interval: 50});

    // The same release again (the same plan, restarted; then another plan of it): each cluster's rollout gets a
    // fresh Job, where the completed Job of the aborted rollout, of the same name, used to be taken for its driver.
    const again = await fleet('rollout', ...args, '--restart');
    expect({code: again.code, stderr: again.stderr}).toEqual({code: 0, stderr: ''});
    expect(again.stdout).toContain(`[staging] Job default/${first[0]}-retry-2 created`);
    expect(again.stdout).toMatch(/complete, wave 2\/2, 3\/3 clusters complete/);
    for (const tc of clusters) {
      expect(jobs(tc)).toEqual([first[0], `${first[0]}-retry-2`]);
      await vi.waitFor(() => expect(new Set(images(tc))).toEqual(new Set(['agent:v2'])), {timeout: 30_000, interval: 50});
    }
  });

  test('after fleet abort: the same plan says it was aborted and how to start it again (--restart); a new release starts', async () => {
    const args = ['--cluster-waves', '1,100%', '--image', 'main=agent:v2', '--canary', '1', '--approve', '--no-detach', '--yes'];
    expect((await fleet('rollout', ...args)).code).toBe(0);
    const aborted = await fleet('abort', '--yes');
    expect({code: aborted.code, stderr: aborted.stderr}).toEqual({code: 0, stderr: ''});
    await vi.waitFor(() => expect(images(clusters[0]!)).toEqual(['agent:v1', 'agent:v1']), {timeout: 30_000, interval: 50});

    // The same command: exit 1 at once, saying so and how to start again; not one write.
    const before = clusters.map(writes);
    const same = await fleet('rollout', ...args);
    expect({code: same.code, stdout: same.stdout, stderr: same.stderr}).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: the fleet rollout of default/agent (main=agent:v2) was aborted: every cluster it touched is back on its own origin, and nothing was changed; to roll the same release out again from its first wave, rerun the fleet rollout command with --restart\n',
    });
    expect(clusters.map(writes)).toEqual(before);

    // --restart reads every cluster of the plan first: one that does not answer might hold the aborted record still.
    const broken = await kubeconfigWithProdUsUnreachable();
    const fleetArgs = ['fleet', 'rollout', 'agent', '-n', 'default', '--contexts', CONTEXTS.join(','), ...args, '--restart'];
    const held = await runCli([...fleetArgs, '--kubeconfig', broken, '--request-timeout', '2s'], ROLLOUT);
    expect({code: held.code, stdout: held.stdout}).toEqual({code: 2, stdout: ''});
    expect(held.stderr).toMatch(/^error: --restart reads every cluster of the plan first: cannot read context prod-us; rerun once it answers\n$/);
    expect(clusters.map(writes)).toEqual(before);

    // --restart: the same plan from its first wave, its earlier gated rollout in staging not taken for this one's.
    const restarted = await fleet('rollout', ...args, '--restart');
    expect({code: restarted.code, stderr: restarted.stderr}).toEqual({code: 0, stderr: ''});
    expect(restarted.stdout).toContain('Wave 1/2: staging');
    expect(restarted.stdout).toMatch(/waiting for promote, wave 1\/2, 0\/3 clusters complete/);
    expect(new Set(images(clusters[0]!))).toEqual(new Set(['agent:v1', 'agent:v2']));

    // Aborted again, then a new release (another plan): it starts, and reaches every cluster.
    expect((await fleet('abort', '--yes')).code).toBe(0);
    const next = await fleet('rollout', '--cluster-waves', '1,100%', '--image', 'main=agent:v3', '--canary', '1', '--no-detach', '--yes');
    expect({code: next.code, stderr: next.stderr}).toEqual({code: 0, stderr: ''});
    expect(next.stdout).toMatch(/complete, wave 2\/2, 3\/3 clusters complete/);
    for (const tc of clusters) await vi.waitFor(() => expect(new Set(images(tc))).toEqual(new Set(['agent:v3'])), {timeout: 30_000, interval: 50});
  });

  test('a cluster of the next wave that cannot be read holds the fleet there (exit 2); rerun once it answers, it continues', async () => {
    const broken = await kubeconfigWithProdUsUnreachable();
    const args = [
      'fleet',
      'rollout',
      'agent',
      '-n',
      'default',
      '--contexts',
      CONTEXTS.join(','),
      '--cluster-waves',
      '1,2,3',
      '--image',
      'main=agent:v2',
      '--no-detach',
      '--yes',
    ];
    const held = await runCli([...args, '--kubeconfig', broken, '--request-timeout', '2s'], ROLLOUT);
    expect(held.code).toBe(2);
    expect(held.stderr).toMatch(/^error: fleet rollout waits at wave 3\/3: cannot read context prod-us .*rerun the same command once it answers/);
    expect(daemonSet(clusters[1]!).spec.template.spec.containers[0]!.image).toBe('agent:v2');
    expect(daemonSet(clusters[2]!).metadata.annotations?.[FLEET_ROLLOUT_ANNOTATION]).toBeUndefined();
    const resumed = await fleet('rollout', '--cluster-waves', '1,2,3', '--image', 'main=agent:v2', '--no-detach', '--yes');
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).not.toContain('Wave 1/3');
    expect(resumed.stdout).toContain('Wave 3/3: prod-us');
    expect(resumed.stdout).toMatch(/complete, wave 3\/3, 3\/3 clusters complete/);
  });

  test('a fleet that completed stays complete once a later fleet takes one of its clusters: it holds no next one', async () => {
    const args = ['--cluster-waves', '1,100%', '--no-detach', '--yes'];
    const healthy = await fleet('rollout', '--image', 'main=agent:v2', ...args);
    expect({code: healthy.code, stderr: healthy.stderr}).toEqual({code: 0, stderr: ''});
    // The next release takes staging only (it fails there, and is undone), then is aborted: prod-eu and prod-us still
    // hold the first fleet's record, staging the second's.
    const failed = await fleet('rollout', '--image', 'main=agent:bad', '--canary', '1', '--on-failure', 'undo', ...args);
    expect(failed.code).toBe(3);
    const aborted = await fleet('abort', '--yes');
    expect({code: aborted.code, stderr: aborted.stderr}).toEqual({code: 0, stderr: ''});
    expect(daemonSet(clusters[1]!).metadata.annotations?.[FLEET_ROLLOUT_ANNOTATION]).toContain('agent:v2');
    const first = await run(['fleet', 'status', 'agent', '-n', 'default', '--contexts', 'prod-eu', '-o', 'json']);
    expect({code: first.code, stderr: first.stderr}).toEqual({code: 0, stderr: ''});
    expect(JSON.parse(first.stdout)).toMatchObject({
      phase: 'complete',
      release: {images: {main: 'agent:v2'}},
      clusters: [
        {context: 'staging', phase: 'changed', message: 'taken by a later fleet rollout (main=agent:bad)'},
        {context: 'prod-eu', phase: 'complete'},
        {context: 'prod-us', phase: 'complete'},
      ],
    });

    // The first fleet completed: staging taken by a later one does not make it under way again.
    const next = await fleet('rollout', '--image', 'main=agent:v3', ...args);
    expect(next.stderr).toBe('');
    expect(next.code).toBe(0);
    expect(next.stdout).toMatch(/complete, wave 2\/2, 3\/3 clusters complete/);
    for (const tc of clusters) await vi.waitFor(() => expect(new Set(images(tc))).toEqual(new Set(['agent:v3'])), {timeout: 30_000, interval: 50});
  });

  test('a cluster whose own gated rollout is under way is refused, and left as it was', async () => {
    const staging = clusters[0]!;
    expect((await run(['pause', 'agent', '-n', 'default', '--context', 'staging'])).code).toBe(0);
    staging.cluster.store.modify('daemonsets', 'default', 'agent', (ds) => {
      const d = ds as unknown as DaemonSet;
      return {...d, spec: {...d.spec, template: {...d.spec.template, spec: {containers: [{name: 'main', image: 'agent:v9'}]}}}} as never;
    });
    const own = await run(['step', 'agent', '-n', 'default', '--context', 'staging', '--canary', '1', '--approve', '--yes']);
    expect({code: own.code, stderr: own.stderr}).toEqual({code: 0, stderr: ''});
    const refused = await fleet('rollout', '--image', 'main=agent:v2', '--no-detach', '--yes');
    expect({code: refused.code, stdout: refused.stdout.includes('Wave 1/3') ? 'wave' : refused.stdout}).toEqual({code: 1, stdout: 'wave'});
    expect(refused.stderr).toBe(
      'error: context staging: daemonset default/agent has a gated rollout under way (awaiting-approval): finish it or abort it there first; nothing was changed in this cluster\n',
    );
    expect(daemonSet(staging).spec.template.spec.containers[0]!.image).toBe('agent:v9');
    expect(daemonSet(staging).metadata.annotations?.[FLEET_ROLLOUT_ANNOTATION]).toBeUndefined();
  });

  test('a driver killed between waves: the same command from another machine (another HOME) continues at the next wave', async () => {
    const args = ['fleet', 'rollout', 'agent', '-n', 'default', '--contexts', CONTEXTS.join(','), '--cluster-waves', '1,100%', '--image', 'main=agent:v2'];
    const flags = [...args, '--canary', '1', '--no-detach', '--yes', '--kubeconfig', kubeconfig];
    // SIGKILL as wave 2 is about to start: staging is done, prod-eu and prod-us not touched.
    await expect(runCli(flags, {...ROLLOUT, env: {DS_ROLLOUT_TEST_KILL_AT_FLEET_WAVE: '2'}})).rejects.toMatchObject({signal: 'SIGKILL'});
    expect(daemonSet(clusters[0]!).metadata.annotations?.[FLEET_ROLLOUT_ANNOTATION]).toBeDefined();
    expect(daemonSet(clusters[1]!).metadata.annotations?.[FLEET_ROLLOUT_ANNOTATION]).toBeUndefined();
    const home = await mkdtemp(join(tmpdir(), 'ds-rollout-home-'));
    const resumed = await runCli(flags, {...ROLLOUT, env: {HOME: home}});
    expect({code: resumed.code, stderr: resumed.stderr}).toEqual({code: 0, stderr: ''});
    expect(resumed.stdout).not.toContain('[staging]');
    expect(resumed.stdout).toContain('Wave 2/2: prod-eu, prod-us');
    expect(resumed.stdout).toMatch(/complete, wave 2\/2, 3\/3 clusters complete/);
  });

  /** A DaemonSet manifest of `agent` (or `name`), its template `template`, written into the test's directory. */
  async function manifestFile(
    file: string,
    template: Record<string, unknown>,
    metadata: Record<string, unknown> = {name: 'agent', namespace: 'default'},
  ): Promise<string> {
    const path = join(dir, file);
    await writeFile(path, dump({apiVersion: 'apps/v1', kind: 'DaemonSet', metadata, spec: {selector: {matchLabels: {app: 'agent'}}, template}}));
    return path;
  }
  const V3 = {metadata: {labels: {app: 'agent', release: 'v3'}}, spec: {containers: [{name: 'main', image: 'agent:v3'}]}};

  test("-f MANIFEST: the manifest's whole template reaches every cluster wave by wave; abort takes each back to its own origin", async () => {
    const manifest = await manifestFile('agent-v3.yaml', V3);
    const args = ['-f', manifest, '--cluster-waves', '1,100%', '--canary', '1', '--no-detach', '--yes'];
    const result = await fleet('rollout', ...args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Wave 1\/2: staging[\s\S]*Wave 2\/2: prod-eu, prod-us/);
    expect(result.stdout).toMatch(/Fleet rollout of daemonset default\/agent \(main=agent:v3 template \w+\): complete, wave 2\/2, 3\/3 clusters complete/);
    for (const tc of clusters) {
      // The whole template: the manifest's label too, not only its image.
      expect(daemonSet(tc).spec.template.metadata?.labels).toEqual({app: 'agent', release: 'v3'});
      await vi.waitFor(() => expect(new Set(images(tc))).toEqual(new Set(['agent:v3'])), {timeout: 30_000, interval: 50});
    }
    // The document names the release by its images and hash, never the whole template.
    const status = await fleet('status', '-o', 'json');
    expect(JSON.parse(status.stdout)).toMatchObject({phase: 'complete', release: {images: {main: 'agent:v3'}, template: expect.any(String)}});
    // The same manifest again, from another file (another machine's path): the same fleet rollout, complete.
    const copy = await manifestFile('copy-of-v3.yaml', V3);
    const again = await fleet('rollout', ...args.map((arg) => (arg === manifest ? copy : arg)));
    expect({code: again.code, stderr: again.stderr}).toEqual({code: 0, stderr: ''});
    expect(again.stdout).toMatch(/complete, wave 2\/2, 3\/3 clusters complete/);

    const aborted = await fleet('abort', '--yes');
    expect(aborted.stderr).toBe('');
    expect(aborted.code).toBe(0);
    for (const [i, tc] of clusters.entries()) {
      const origin = ['agent:v1', 'agent:v1.1', 'agent:v1.2'][i]!;
      expect(daemonSet(tc).spec.template.spec.containers[0]!.image).toBe(origin);
      expect(daemonSet(tc).spec.template.metadata?.labels).toEqual({app: 'agent'});
      await vi.waitFor(() => expect(new Set(images(tc))).toEqual(new Set([origin])), {timeout: 30_000, interval: 50});
    }
  });

  test('-f: a cluster started but its gated rollout not begun goes back to its own origin revision on abort', async () => {
    const manifest = await manifestFile('agent-v3.yaml', V3);
    const flags = [
      'fleet',
      'rollout',
      'agent',
      '-n',
      'default',
      '--contexts',
      CONTEXTS.join(','),
      '-f',
      manifest,
      '--no-detach',
      '--yes',
      '--kubeconfig',
      kubeconfig,
    ];
    // SIGKILL once staging holds the record and the manifest's template, before its gated rollout begins.
    await expect(runCli(flags, {...ROLLOUT, env: {DS_ROLLOUT_TEST_KILL_AT_FLEET_START: 'staging'}})).rejects.toMatchObject({signal: 'SIGKILL'});
    expect(daemonSet(clusters[0]!).spec.template.metadata?.labels).toEqual({app: 'agent', release: 'v3'});
    const status = await fleet('status', '-o', 'json');
    expect(JSON.parse(status.stdout)).toMatchObject({clusters: [{context: 'staging', phase: 'starting'}, {phase: 'pending'}, {phase: 'pending'}]});
    const aborted = await fleet('abort', '--yes');
    expect({code: aborted.code, stderr: aborted.stderr}).toEqual({code: 0, stderr: ''});
    expect(daemonSet(clusters[0]!).spec.template).toMatchObject({metadata: {labels: {app: 'agent'}}, spec: {containers: [{name: 'main', image: 'agent:v1'}]}});
    expect(daemonSet(clusters[0]!).spec.template.metadata?.labels).toEqual({app: 'agent'});
    expect(images(clusters[0]!)).toEqual(['agent:v1', 'agent:v1']);
    expect(daemonSet(clusters[1]!).metadata.annotations?.[FLEET_ROLLOUT_ANNOTATION]).toBeUndefined();
  });

  test('-f: a manifest of another DaemonSet or namespace, a bad or too large one, or with --image: one line, exit 1, no cluster touched', async () => {
    const before = clusters.map(writes);
    const other = await manifestFile('other.yaml', V3, {name: 'other', namespace: 'default'});
    const elsewhere = await manifestFile('elsewhere.yaml', V3, {name: 'agent', namespace: 'kube-system'});
    const unmatched = await manifestFile('unmatched.yaml', {...V3, metadata: {labels: {app: 'other'}}});
    const huge = await manifestFile('huge.yaml', {...V3, metadata: {...V3.metadata, annotations: {blob: 'x'.repeat(200 * 1024)}}});
    const broken = join(dir, 'broken.yaml');
    await writeFile(broken, 'kind: DaemonSet\nmetadata: {name: agent\n');
    const good = await manifestFile('good.yaml', V3);
    for (const [args, message] of [
      [['-f', other], /^error: manifest "\S+other.yaml" holds no DaemonSet named "agent" \(it has "other"\)$/],
      [['-f', elsewhere], /^error: the namespace from the manifest \("kube-system"\) does not match the namespace "default"; pass --namespace=kube-system$/],
      [['-f', unmatched], /^error: manifest "\S+unmatched.yaml": daemonset "default\/agent" is invalid: .*selector/],
      [['-f', huge], /^error: the fleet rollout's record would be \d+ KiB, over the 128 KiB it may hold/],
      [['-f', broken], /^error: manifest "\S+broken.yaml" is not valid YAML or JSON/],
      [['-f', join(dir, 'missing.yaml')], /^error: .*missing.yaml/],
      [['-f', good, '--image', 'main=agent:v2'], /^error: --image and -f both give the release: give one of them$/],
      [[], /^error: a fleet rollout needs the release: --image CONTAINER=IMAGE or -f MANIFEST$/],
    ] as const) {
      const result = await fleet('rollout', ...args, '--no-detach', '--yes');
      expect({code: result.code, stdout: result.stdout}).toEqual({code: 1, stdout: ''});
      expect(result.stderr.trimEnd()).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(clusters.map(writes)).toEqual(before);
  });

  test('named cluster waves of the strategy file order the clusters; the progress and status name each wave', async () => {
    const strategy = join(dir, 'fleet-strategy.yaml');
    const waves = [
      'clusterWaves:',
      '  - name: first',
      '    contexts: [prod-us]',
      '  - name: eu',
      '    contexts: ["prod-e*"]',
      '  - name: rest',
      '    contexts: ["*"]',
    ];
    await writeFile(strategy, [...waves, 'maxRestarts: 0'].join('\n'));
    // With --cluster-waves too, or a wave that takes none of the contexts: one line, exit 1, nothing touched.
    const before = clusters.map(writes);
    const both = await fleet('rollout', '--strategy', strategy, '--cluster-waves', '1,100%', '--image', 'main=agent:v2', '--no-detach', '--yes');
    expect({code: both.code, stderr: both.stderr}).toEqual({
      code: 1,
      stderr: `error: --cluster-waves and the clusterWaves of --strategy file "${strategy}" both give the waves: give one of them\n`,
    });
    const idle = join(dir, 'idle-strategy.yaml');
    await writeFile(idle, ['clusterWaves:', '  - name: ap', '    contexts: ["prod-ap-*"]', '  - name: rest', '    contexts: ["*"]'].join('\n'));
    const none = await fleet('rollout', '--strategy', idle, '--image', 'main=agent:v2', '--no-detach', '--yes');
    expect({code: none.code, stderr: none.stderr}).toEqual({
      code: 1,
      stderr: `error: the strategy file's cluster wave "ap" (prod-ap-*) takes none of the contexts staging, prod-eu, prod-us\n`,
    });
    expect(clusters.map(writes)).toEqual(before);

    const result = await fleet('rollout', '--strategy', strategy, '--image', 'main=agent:v2', '--no-detach', '--yes');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Wave 1\/3 \(first\): prod-us[\s\S]*Wave 2\/3 \(eu\): prod-eu[\s\S]*Wave 3\/3 \(rest\): staging/);
    expect(result.stdout).toMatch(/complete, wave 3\/3 \(rest\), 3\/3 clusters complete/);
    const status = await fleet('status');
    expect(status.stdout).toMatch(/prod-us\s+1\/3 first\s+complete/);
    expect(status.stdout).toMatch(/staging\s+3\/3 rest\s+complete/);
    const json = JSON.parse((await fleet('status', '-o', 'json')).stdout) as {waveNames: string[]; clusters: {context: string; waveName: string}[]};
    expect(json.waveNames).toEqual(['first', 'eu', 'rest']);
    expect(json.clusters.map((c) => [c.context, c.waveName])).toEqual([
      ['prod-us', 'first'],
      ['prod-eu', 'eu'],
      ['staging', 'rest'],
    ]);
  });

  test('status --contexts says where the fleet rollout stands: a line above the table, a FLEET column, fleetRollout in -o json', async () => {
    const args = ['--cluster-waves', '1,100%', '--image', 'main=agent:v2', '--canary', '1', '--approve', '--no-detach', '--yes'];
    expect((await fleet('rollout', ...args)).code).toBe(0);
    const status = (contexts: string, ...more: string[]) => run(['status', 'agent', '-n', 'default', '--contexts', contexts, ...more]);
    const reads = () => clusters.map((tc) => tc.cluster.requestLog.filter({verb: 'get', resource: 'daemonsets'}).length);

    // Only staging asked: the plan's other contexts are named, not read.
    const before = reads();
    const one = await status('staging');
    expect(one.stderr).toBe('');
    const [line, header, row] = one.stdout.split('\n');
    expect(line).toMatch(/^Fleet rollout \S+ \(main=agent:v2\): waiting for promote, wave 1\/2; prod-eu, prod-us not asked here$/);
    expect(header).toMatch(/^CONTEXT\s+VERDICT\s+REVISION\s+BUDGET\s+FLEET\s+BLOCKER/);
    expect(row).toMatch(/^staging\s+paused\s.*\sw1 awaiting-approval\s/);
    // One look at staging's DaemonSet, as status without a fleet: the record rides on it.
    expect(reads()).toEqual([before[0]! + 1, before[1], before[2]]);

    // The first wave complete: the second waits for promote in both its clusters.
    expect((await fleet('promote', '--no-detach', '--yes')).code).toBe(0);
    const all = await status(CONTEXTS.join(','));
    expect(all.stderr).toBe('');
    const lines = all.stdout.split('\n');
    expect(lines[0]).toMatch(/^Fleet rollout \S+ \(main=agent:v2\): waiting for promote, wave 2\/2$/);
    expect(lines.slice(2, 5).map((l) => /w\d \S+/.exec(l)?.[0])).toEqual(['w1 complete', 'w2 awaiting-approval', 'w2 awaiting-approval']);
    expect(lines).toHaveLength(7);

    const json = JSON.parse((await status(CONTEXTS.join(','), '-o', 'json')).stdout) as {
      fleetRollouts: {id: string; phase: string; wave: number; waves: number; notAsked: string[]}[];
      contexts: Record<string, {result: {fleetRollout?: {id: string; wave: number; phase: string}}}>;
    };
    expect(json.fleetRollouts).toEqual([expect.objectContaining({phase: 'awaiting-approval', wave: 2, waves: 2, notAsked: []})]);
    const id = json.fleetRollouts[0]!.id;
    expect(lines[0]).toContain(id);
    expect(CONTEXTS.map((context) => json.contexts[context]!.result.fleetRollout)).toEqual([
      expect.objectContaining({id, wave: 1, phase: 'complete', release: {images: {main: 'agent:v2'}}}),
      expect.objectContaining({id, wave: 2, phase: 'awaiting-approval'}),
      expect.objectContaining({id, wave: 2, phase: 'awaiting-approval'}),
    ]);
  });

  test("a cluster's own refusal names the cluster: a plain OnDelete DaemonSet is not paused by the fleet", async () => {
    clusters[0]!.cluster.store.modify('daemonsets', 'default', 'agent', (ds) => {
      const d = ds as unknown as DaemonSet;
      return {...d, spec: {...d.spec, updateStrategy: {type: 'OnDelete'}}} as never;
    });
    const refused = await fleet('rollout', '--image', 'main=agent:v2', '--no-detach', '--yes');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: context staging: daemonset default\/agent already uses updateStrategy OnDelete and was not paused by ds-rollout/);
    expect(daemonSet(clusters[0]!).spec.template.spec.containers[0]!.image).toBe('agent:v1');
  });
});
