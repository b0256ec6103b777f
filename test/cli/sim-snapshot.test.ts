// Rehearsal through the built binaries: a dump of the 2,000-node simulated cluster (taken over HTTP the way
// `kubectl get nodes,pods,daemonsets,controllerrevisions -A -o json` takes it), loaded with
// `sim start --snapshot`, plans exactly as the dump planned offline, and a rollout rehearsed on it completes.
import {spawn, type ChildProcess} from 'node:child_process';
import {writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import type {DaemonSet} from '../../src/core/index.js';
import {snapshotTime} from '../../src/sim/index.js';
import {parseSnapshot} from '../../src/cluster/snapshot/index.js';
import {ROOT, runCli} from '../helpers/run-cli.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';
import {call, type Target} from '../sim/http-helpers.js';

let tc: TestCluster | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  child?.kill('SIGINT');
  child = undefined;
  await tc?.stop();
  tc = undefined;
});

const LISTS = [
  {path: '/api/v1/nodes', kind: 'Node', apiVersion: 'v1'},
  {path: '/api/v1/pods', kind: 'Pod', apiVersion: 'v1'},
  {path: '/apis/apps/v1/daemonsets', kind: 'DaemonSet', apiVersion: 'apps/v1'},
  {path: '/apis/apps/v1/controllerrevisions', kind: 'ControllerRevision', apiVersion: 'apps/v1'},
];

/** What kubectl prints for `get nodes,pods,daemonsets,controllerrevisions -A -o json`: one List, each item with its kind. */
async function dumpCluster(cluster: Target): Promise<string> {
  const items: unknown[] = [];
  for (const list of LISTS) {
    const response = await call(cluster, 'GET', list.path);
    expect(response.status).toBe(200);
    const body = response.body as {items: object[]};
    for (const item of body.items) items.push({apiVersion: list.apiVersion, kind: list.kind, ...item});
  }
  return JSON.stringify({apiVersion: 'v1', kind: 'List', items, metadata: {resourceVersion: ''}}, null, 2);
}

/** Starts `sim start` with `args` (and `stdin`, then closed) and resolves once it serves. */
async function startSim(args: readonly string[], kubeconfig: string, stdin?: string): Promise<{output: () => string; exited: Promise<number | null>}> {
  const proc = spawn(process.execPath, [join(ROOT, 'bin/kubectl-ds_rollout'), 'sim', 'start', '--kubeconfig', kubeconfig, ...args], {
    cwd: ROOT,
    env: {PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? ''},
  });
  child = proc;
  if (stdin !== undefined) proc.stdin.end(stdin);
  let out = '';
  proc.stdout.on('data', (d) => (out += String(d)));
  proc.stderr.on('data', (d) => (out += String(d)));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  for (let waited = 0; !out.includes('Press Ctrl-C'); waited += 50) {
    if (proc.exitCode !== null || waited > 30_000) throw new Error(`sim start did not come up: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {output: () => out, exited};
}

describe('sim start --snapshot', () => {
  it('a dump of the 2,000-node cluster plans the same loaded as offline, and a rollout rehearsed on it completes', async () => {
    tc = await startTestCluster({scenario: 'large', nodes: 2000});
    tc.cluster.store.modify('daemonsets', 'kube-system', 'fluentd', (object) => {
      const ds = object as DaemonSet;
      return {...ds, spec: {...ds.spec, updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: '50%', maxSurge: 0}}}};
    });
    tc.advance(1000);
    // The shape worth rehearsing: a new version held back by ds-rollout pause, half the nodes at a time once resumed.
    const pause = await runCli(['pause', 'fluentd', '-n', 'kube-system', '--kubeconfig', tc.kubeconfig], {bin: 'bin/kubectl-ds_rollout'});
    expect(pause.stderr).toBe('');
    expect(pause.code).toBe(0);
    tc.cluster.store.modify('daemonsets', 'kube-system', 'fluentd', (object) => {
      const ds = object as DaemonSet;
      const [first, ...rest] = ds.spec.template.spec.containers;
      return {
        ...ds,
        spec: {
          ...ds.spec,
          template: {...ds.spec.template, spec: {...ds.spec.template.spec, containers: [{...first!, image: 'fluent/fluentd:v1.17.0'}, ...rest]}},
        },
      };
    });
    tc.advance(3000);
    const dump = await dumpCluster(tc.cluster);
    const dumpPath = join(tc.dir, 'cluster.json');
    await writeFile(dumpPath, dump);
    const dumpTime = new Date(snapshotTime(await parseSnapshot(dump, 'dump'))!).toISOString();

    // Live, ds-plan models the controller of the version the server reports; offline it needs telling (else the newest).
    const {gitVersion} = (await call(tc.cluster, 'GET', '/version')).body as {gitVersion: string};
    const offline = await runCli(['fluentd', '-n', 'kube-system', '--snapshot', dumpPath, '--now', dumpTime, '--kube-version', gitVersion, '-o', 'json']);
    expect(offline.stderr).toBe('');
    expect(offline.code).toBe(0);

    const kubeconfig = join(tc.dir, 'rehearsal.kubeconfig');
    const sim = await startSim(['--snapshot', dumpPath, '--speed', '20'], kubeconfig);
    expect(sim.output()).toContain('from a snapshot: 2,000 nodes, 1 DaemonSet, 2,000 pods, 2 ControllerRevisions');
    const live = await runCli(['fluentd', '-n', 'kube-system', '--kubeconfig', kubeconfig, '-o', 'json']);
    expect(live.stderr).toBe('');
    expect(live.code).toBe(0);
    const livePlan = JSON.parse(live.stdout) as {paused?: unknown; nodes: unknown[]};
    expect(livePlan.paused).toBeDefined();
    expect(livePlan.nodes).toHaveLength(2000);
    expect(livePlan).toEqual(JSON.parse(offline.stdout));

    const resume = await runCli(['resume', 'fluentd', '-n', 'kube-system', '--kubeconfig', kubeconfig], {bin: 'bin/kubectl-ds_rollout'});
    expect(resume.stderr).toBe('');
    expect(resume.code).toBe(0);
    // Polled (--watch=false) rather than watched: 2,000 pods churning at 20x speed on a shared machine make a long event stream.
    let status = await runCli(['status', 'fluentd', '-n', 'kube-system', '--watch=false', '--kubeconfig', kubeconfig], {bin: 'bin/kubectl-ds_rollout'});
    for (let tries = 0; status.code === 4 && tries < 120; tries++) {
      await new Promise((r) => setTimeout(r, 500));
      status = await runCli(['status', 'fluentd', '-n', 'kube-system', '--watch=false', '--kubeconfig', kubeconfig], {bin: 'bin/kubectl-ds_rollout'});
    }
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('successfully rolled out');
    expect(status.stdout).toContain('Rollout complete: 2,000 of 2,000 nodes run revision 2');

    child?.kill('SIGINT');
    expect(await sim.exited).toBe(0);
    child = undefined;
  }, 120_000);

  it('reads the dump from stdin with -', async () => {
    tc = await startTestCluster({scenario: 'empty', nodes: 3, agents: false});
    const dump = await dumpCluster(tc.cluster);
    const kubeconfig = join(tc.dir, 'stdin.kubeconfig');
    const sim = await startSim(['--snapshot', '-'], kubeconfig, dump);
    expect(sim.output()).toContain('Simulated cluster "<stdin>" running at');
    expect(sim.output()).toContain('from a snapshot: 3 nodes, 0 DaemonSets, 0 pods, 0 ControllerRevisions (times moved forward by');
    child?.kill('SIGINT');
    expect(await sim.exited).toBe(0);
    child = undefined;
  });

  it.each([
    {flag: '--nodes', value: '3'},
    {flag: '--scenario', value: 'large'},
  ])('refuses --snapshot with $flag (the snapshot has its own nodes) with one line and exit 1', async ({flag, value}) => {
    const r = await runCli(['sim', 'start', '--snapshot', 'cluster.yaml', flag, value], {bin: 'bin/kubectl-ds_rollout'});
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`--snapshot=cluster.yaml cannot also be provided when using ${flag}`);
  });

  it('refuses a missing snapshot file with one line and exit 1', async () => {
    const r = await runCli(['sim', 'start', '--snapshot', '/nonexistent/cluster.yaml'], {bin: 'bin/kubectl-ds_rollout'});
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('snapshot file "/nonexistent/cluster.yaml" does not exist');
  });
});
