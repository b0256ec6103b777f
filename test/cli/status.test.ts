// `kubectl ds-rollout status` end to end: the BUILT bin/kubectl-ds_rollout against simulated clusters.
// Goldens (fixed --now on a ManualClock cluster): test/fixtures/golden/status/; regenerate with -u, then read them.
// --watch runs against clusters on real (sped-up) time, since the command judges availability by the real clock.
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest';
import type {DaemonSet} from '../../src/core/index.js';
import {afterClusterHeader, runCli, type CliResult} from '../helpers/run-cli.js';
import {START, startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

// Each test spawns the CLI (about 0.5 s per start) and shares two cores with the rest of the suite.
vi.setConfig({testTimeout: 20_000});

const ROLLOUT = {bin: 'bin/kubectl-ds_rollout'};
const at = (ms: number) => ['--now', new Date(START + ms).toISOString().replace('.000Z', 'Z')];

function status(cluster: TestCluster, ...args: string[]): Promise<CliResult> {
  return runCli(['status', ...args, '--kubeconfig', cluster.kubeconfig], ROLLOUT);
}

function setImage(cluster: TestCluster, image: string, change: (ds: DaemonSet) => DaemonSet = (ds) => ds): void {
  cluster.cluster.store.modify('daemonsets', 'kube-system', 'fluentd', (current) => {
    const ds = change(current as unknown as DaemonSet);
    const containers = ds.spec.template.spec.containers.map((c) => ({...c, image}));
    return {...ds, spec: {...ds.spec, template: {...ds.spec.template, spec: {...ds.spec.template.spec, containers}}}} as never;
  });
}

function oneErrorLine(result: CliResult): string {
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('status of a rollout (ManualClock, fixed --now)', () => {
  let t: TestCluster;

  beforeAll(async () => {
    t = await startTestCluster({scenario: 'demo', namespace: 'kube-system'});
  });

  afterAll(async () => {
    await t.stop();
  });

  test('in progress: text and json, exit 4', async () => {
    const [text, json] = await Promise.all([status(t, 'fluentd', ...at(0)), status(t, 'fluentd', ...at(0), '-o', 'json')]);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(4);
    await expect(afterClusterHeader(text.stdout, t.cluster.url)).toMatchFileSnapshot('../fixtures/golden/status/demo-progressing.txt');
    expect(json.code).toBe(4);
    await expect(json.stdout).toMatchFileSnapshot('../fixtures/golden/status/demo-progressing.json');
  });

  test("the dashboard without a terminal prints status's output, byte for byte, with status's exit code", async () => {
    const dashboard = (...args: string[]) => runCli(['dashboard', 'fluentd', '-n', 'kube-system', ...args, '--kubeconfig', t.kubeconfig], ROLLOUT);
    for (const format of [[], ['-o', 'json'], ['-o', 'yaml']]) {
      const [plain, looked] = await Promise.all([dashboard(...format), status(t, 'fluentd', '-n', 'kube-system', '--watch=false', ...format)]);
      expect(plain.stderr).toBe('');
      expect(plain.code).toBe(looked.code);
      expect(plain.stdout).toBe(looked.stdout);
    }
  });

  test('stuck: exit 3, the nodes that hold the budget named', async () => {
    t.advance(120_000, 250);
    const result = await status(t, 'fluentd', ...at(120_000));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(3);
    await expect(afterClusterHeader(result.stdout, t.cluster.url)).toMatchFileSnapshot('../fixtures/golden/status/demo-stuck.txt');
  });

  test('errors: unknown DaemonSet (1), RBAC (2), unreachable (2), --watch with --snapshot (1)', async () => {
    const undo = t.cluster.forbid({verb: 'list', resource: 'nodes'});
    const [missing, forbidden, unreachable, usage] = await Promise.all([
      status(t, 'nope', ...at(0)),
      status(t, 'fluentd', ...at(0)),
      runCli(['status', 'fluentd', '--kubeconfig', `${t.dir}/missing-kubeconfig`], ROLLOUT),
      runCli(['status', 'fluentd', '--watch', '--snapshot', 'x.yaml'], ROLLOUT),
    ]);
    undo();
    expect([missing.code, oneErrorLine(missing)]).toEqual([1, 'error: daemonset "nope" not found in namespace "kube-system"']);
    expect([forbidden.code, oneErrorLine(forbidden)]).toEqual([2, 'error: forbidden: cannot list nodes at the cluster scope']);
    expect([unreachable.code, oneErrorLine(unreachable)]).toEqual([
      1,
      expect.stringMatching(/^error: cannot load kubeconfig ".*missing-kubeconfig": no such file$/),
    ]);
    expect([usage.code, oneErrorLine(usage)]).toEqual([1, 'error: --watch follows a live cluster; it cannot be used with --snapshot']);
    for (const r of [missing, forbidden, unreachable, usage]) expect(r.stdout).toBe('');
  });
});

describe('status of a cluster that cannot be reached', () => {
  test('exit 2, one line naming the server', async () => {
    const t = await startTestCluster({scenario: 'empty', agents: false});
    const url = t.cluster.url;
    await t.cluster.stop();
    const result = await status(t, 'fluentd');
    await t.stop();
    expect(result.code).toBe(2);
    expect(oneErrorLine(result)).toBe(`error: cannot reach the cluster at ${url}: connection refused`);
  });
});

describe('status --watch (clusters on sped-up real time)', () => {
  test('follows the rollout to completion: exit 0', async () => {
    const t = await startTestCluster({scenario: 'large', nodes: 4, speed: 2, kubelet: {startDelayMs: 1000, stopDelayMs: 200}});
    try {
      setImage(t, 'fluent/fluentd:v2', (ds) => ({...ds, spec: {...ds.spec, minReadySeconds: 0}}));
      const result = await status(t, 'fluentd', '-n', 'kube-system', '--watch', '--timeout', '60s');
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('daemon set "fluentd" successfully rolled out\n  Rollout complete: 4 of 4 nodes run revision 2\n');
      expect(
        result.stdout.endsWith(
          'kube-system/fluentd revision 2 (RollingUpdate, maxUnavailable 2, maxSurge 0): 4 nodes, 4 updated and available, 0 waiting, 0 blocked\n\nNODE    STATE    WHY\nnode-1  updated\nnode-2  updated\nnode-3  updated\nnode-4  updated\n',
        ),
      ).toBe(true);
      // Followed through watches: the four lists, then no more reads.
      expect(t.cluster.requestLog.entries.filter((e) => e.verb === 'list' || e.verb === 'get').length).toBe(4);
    } finally {
      await t.stop();
    }
  }, 30_000);

  test('the scheduler down: --watch ends stuck (exit 3) once the cluster clock passes the scheduling grace, not at --timeout', async () => {
    // A ManualClock: the cluster's time moves only when the test moves it, and nothing else changes meanwhile.
    const t = await startTestCluster({scenario: 'large', nodes: 3, namespace: 'kube-system'});
    try {
      // No scheduler (nor kubelet) from now on: the controller's new pod stays unbound, pinned to its node.
      t.cluster.kubelets!.stop();
      setImage(t, 'fluent/fluentd:v2', (ds) => ({
        ...ds,
        spec: {...ds.spec, minReadySeconds: 0, updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: 0}}},
      }));
      t.advance(2_000);
      const unbound = () => t.cluster.store.list('pods', {namespace: 'kube-system'}).items.filter((p) => !(p as {spec: {nodeName?: string}}).spec.nodeName);
      expect(unbound()).toHaveLength(1);
      const listed = () => t.cluster.requestLog.entries.filter((e) => e.verb === 'list').length;
      const run = status(t, 'fluentd', '-n', 'kube-system', '--watch', '--stuck-after', '1s', '--timeout', '20s', '-o', 'json');
      // The command follows a young pod (starting: progressing); then 31 s pass on the cluster's clock, and no
      // event says so. On this machine's clock alone the grace would end after the timeout.
      await vi.waitFor(() => expect(listed()).toBeGreaterThanOrEqual(4), {timeout: 15_000, interval: 20});
      t.advance(31_000);
      const stuck = await run;
      expect(stuck.code).toBe(3);
      expect(oneErrorLine(stuck)).toBe(
        'error: rollout of daemon set "fluentd" is stuck: no progress is possible without a change: 1 of 1 maxUnavailable in use (node-1)',
      );
      const report = JSON.parse(stuck.stdout) as {verdict: string; nodes: Array<{name: string; state: string; reason: string}>};
      expect(report.nodes.filter((n) => n.state === 'blocked')).toEqual([
        expect.objectContaining({
          name: 'node-1',
          reason: expect.stringMatching(/^pod fluentd-\w+ on node-1 is not ready \(not scheduled for 3\ds: is a scheduler running\?\)$/),
        }),
      ]);
    } finally {
      await t.stop();
    }
  }, 60_000);

  test('a crashing new pod: exit 3 once stuck; a pod that never gets ready but is young: exit 4 at the timeout', async () => {
    const t = await startTestCluster({
      scenario: 'large',
      nodes: 3,
      speed: 5,
      kubelet: {
        startDelayMs: 500,
        stopDelayMs: 100,
        failures: [
          {image: 'v-crash', mode: 'crash'},
          {image: 'v-slow', mode: 'never-ready'},
        ],
      },
    });
    try {
      setImage(t, 'fluent/fluentd:v-crash', (ds) => ({
        ...ds,
        spec: {...ds.spec, minReadySeconds: 0, updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: 0}}},
      }));
      const stuck = await status(t, 'fluentd', '-n', 'kube-system', '--watch', '--stuck-after', '1s', '--timeout', '60s', '-o', 'json');
      expect(stuck.code).toBe(3);
      expect(oneErrorLine(stuck)).toBe(
        'error: rollout of daemon set "fluentd" is stuck: no progress is possible without a change: 1 of 1 maxUnavailable in use (node-1)',
      );
      const report = JSON.parse(stuck.stdout) as {verdict: string; nodes: Array<{name: string; state: string; reason: string}>};
      expect(report.verdict).toBe('stuck');
      expect(report.nodes.filter((n) => n.state === 'blocked')).toEqual([
        expect.objectContaining({name: 'node-1', reason: expect.stringMatching(/^pod fluentd-\w+ on node-1 is not ready \(CrashLoopBackOff\)$/)}),
      ]);

      setImage(t, 'fluent/fluentd:v-slow');
      const slow = await status(t, 'fluentd', '-n', 'kube-system', '--watch', '--timeout', '2s');
      expect(slow.code).toBe(4);
      expect(oneErrorLine(slow)).toBe('error: timed out after 2s waiting for daemon set "fluentd" to finish its rollout');
      expect(slow.stdout).toMatch(/Rollout in progress: .*1 pod is starting/);
    } finally {
      await t.stop();
    }
  }, 30_000);
});

// Issue 28, finding 8: --help said the default lists the nodes "not updated yet" and --all-nodes adds the updated
// ones; the default lists every node up to 40 (the demo's 20), and --all-nodes matters above that.
describe('status says which nodes it lists, and lists them', () => {
  test('the demo: every node, the updated ones too, with or without --all-nodes; --help says so', async () => {
    const demo = await startTestCluster({scenario: 'demo', agents: false});
    try {
      const run = (...extra: string[]) =>
        runCli(['status', 'fluentd', '-n', 'kube-system', '--watch=false', '--kubeconfig', demo.kubeconfig, ...extra], ROLLOUT);
      const [plain, all, help] = [await run(), await run('--all-nodes'), await runCli(['status', '--help'], ROLLOUT)];
      const nodeRows = (result: CliResult) => result.stdout.split('\n').filter((line) => /^worker-\d+ /.test(line));
      expect(nodeRows(plain), plain.stdout).toHaveLength(20);
      expect(nodeRows(plain).filter((line) => /^worker-\d+ +updated/.test(line)).length, plain.stdout).toBeGreaterThan(0);
      expect(all.stdout).toBe(plain.stdout);
      const text = help.stdout.replace(/\s+/g, ' ');
      expect(text).not.toContain('not updated yet');
      expect(text).toContain('every node with its state and why (above 40 nodes, counts per state)');
      expect(text).toContain('--all-nodes List every node, also in large clusters.');
    } finally {
      await demo.stop();
    }
  });
});
