// The real kubectl's rollout commands against the simulated cluster with its agents running (controller,
// scheduler, kubelets): set image, rollout status/history/undo/restart, describe, get -w. Time runs 20x
// faster than real time so a rollout takes a second or two.
import {spawn} from 'node:child_process';
import {writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {DaemonSet, Pod} from '../../src/core/types.js';
import {RealClock, startSimulatedCluster, type SimulatedCluster} from '../../src/sim/index.js';
import {type KubectlSession, kubectlPath, kubectlSession, skipWithoutKubectl, table} from '../helpers/kubectl.js';
import {runCli} from '../helpers/run-cli.js';
import {dsManifest} from './helpers.js';
import {until} from './http-helpers.js';

let cluster: SimulatedCluster;
let k: KubectlSession;

const images = () =>
  (cluster.store.list('pods', {namespace: 'default'}).items as Pod[])
    .filter((p) => !p.metadata.deletionTimestamp && p.metadata.labels?.['app'] === 'agent')
    .map((p) => p.spec.containers[0]!.image)
    .sort();

describe.skipIf(skipWithoutKubectl)('real kubectl rollout commands against the simulated controller', () => {
  beforeAll(async () => {
    cluster = await startSimulatedCluster({
      clock: new RealClock({speed: 20}),
      agents: true,
      kubelet: {startDelayMs: 1000, stopDelayMs: 400, failures: [{image: 'busybox:broken', mode: 'crash'}]},
    });
    cluster.seed({nodes: 3});
    k = await kubectlSession(cluster);
    const file = join(k.dir, 'agent.json');
    await writeFile(file, JSON.stringify(dsManifest('agent', 'busybox:1.36')));
    expect((await k.ok('apply', '-f', file)).trim()).toBe('daemonset.apps/agent created');
  });

  afterAll(async () => {
    await cluster?.stop();
    await k?.close();
  });

  it('rollout status waits for the controller and the kubelets, then says so', async () => {
    const out = await k.ok('rollout', 'status', 'ds/agent', '--timeout=60s');
    expect(out.trim().split('\n').at(-1)).toBe('daemon set "agent" successfully rolled out');
    const rows = table(await k.ok('get', 'ds', 'agent'));
    expect(rows[0]).toEqual(['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE']);
    expect(rows[1]!.slice(0, 7)).toEqual(['agent', '3', '3', '3', '3', '3', '<none>']);
    expect(images()).toEqual(['busybox:1.36', 'busybox:1.36', 'busybox:1.36']);
  });

  it('set image rolls out a new revision; history lists both, --revision shows one', async () => {
    expect((await k.ok('set', 'image', 'ds/agent', 'main=busybox:1.37')).trim()).toBe('daemonset.apps/agent image updated');
    await k.ok('rollout', 'status', 'ds/agent', '--timeout=60s');
    expect(images()).toEqual(['busybox:1.37', 'busybox:1.37', 'busybox:1.37']);
    const history = table(await k.ok('rollout', 'history', 'ds/agent'));
    expect(history).toEqual([['daemonset.apps/agent'], ['REVISION', 'CHANGE-CAUSE'], ['1', '<none>'], ['2', '<none>']]);
    const revision1 = await k.ok('rollout', 'history', 'ds/agent', '--revision', '1');
    expect(revision1).toContain('daemonset.apps/agent with revision #1');
    expect(revision1).toMatch(/Image:\s+busybox:1\.36/);
  });

  it('rollout undo goes back to revision 1, which the controller renumbers to 3', async () => {
    expect((await k.ok('rollout', 'undo', 'ds/agent')).trim()).toBe('daemonset.apps/agent rolled back');
    await k.ok('rollout', 'status', 'ds/agent', '--timeout=60s');
    expect(images()).toEqual(['busybox:1.36', 'busybox:1.36', 'busybox:1.36']);
    const history = table(await k.ok('rollout', 'history', 'ds/agent'));
    expect(history.slice(2).map((r) => r[0])).toEqual(['2', '3']);
    // Undoing to the revision that is already current changes nothing.
    const skipped = await k.run('rollout', 'undo', 'ds/agent', '--to-revision', '3');
    expect(skipped.code).toBe(0);
    expect(skipped.stdout.trim()).toBe('daemonset.apps/agent skipped rollback (current template already matches revision 3)');
    const missing = await k.run('rollout', 'undo', 'ds/agent', '--to-revision', '9');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('unable to find specified revision 9 in history');
  });

  it('rollout undo --to-revision 2 and rollout restart each make a new revision', async () => {
    await k.ok('rollout', 'undo', 'ds/agent', '--to-revision', '2');
    await k.ok('rollout', 'status', 'ds/agent', '--timeout=60s');
    expect(images()).toEqual(['busybox:1.37', 'busybox:1.37', 'busybox:1.37']);
    expect((await k.ok('rollout', 'restart', 'ds/agent')).trim()).toBe('daemonset.apps/agent restarted');
    await k.ok('rollout', 'status', 'ds/agent', '--timeout=60s');
    const ds = cluster.store.get('daemonsets', 'default', 'agent') as DaemonSet;
    expect(ds.spec.template.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt']).toBeDefined();
    const history = table(await k.ok('rollout', 'history', 'ds/agent'));
    expect(history.slice(2).map((r) => r[0])).toEqual(['3', '4', '5']);
  });

  it('describe ds shows the counters and the controller events', async () => {
    const out = await k.ok('describe', 'ds', 'agent');
    expect(out).toMatch(/Desired Number of Nodes Scheduled: 3/);
    expect(out).toMatch(/Pods Status:\s+3 Running \/ 0 Waiting \/ 0 Succeeded \/ 0 Failed/);
    expect(out).toMatch(/SuccessfulCreate\s+\S+\s+daemonset-controller\s+Created pod: agent-/);
    expect(out).toMatch(/SuccessfulDelete\s+\S+\s+daemonset-controller\s+Deleted pod: agent-/);
  });

  it('ds-rollout status says what kubectl rollout status says, then why: on a stuck rollout', async () => {
    const file = join(k.dir, 'stuck.json');
    await writeFile(file, JSON.stringify(dsManifest('stuck', 'busybox:1.36')));
    await k.ok('apply', '-f', file);
    await k.ok('rollout', 'status', 'ds/stuck', '--timeout=60s');
    await k.ok('set', 'image', 'ds/stuck', 'main=busybox:broken');
    // maxUnavailable 1: one pod is replaced by a crash-looping one, and nothing more can move.
    await until(() =>
      (cluster.store.list('pods', {namespace: 'default', labelSelector: 'app=stuck'}).items as Pod[]).some(
        (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff',
      ),
    );
    await new Promise((r) => setTimeout(r, 300));
    const theirs = await k.run('rollout', 'status', 'ds/stuck', '--watch=false');
    const ours = await runCli(['status', 'stuck', '-n', 'default', '--watch=false', '--kubeconfig', k.kubeconfig], {bin: 'bin/kubectl-ds_rollout'});
    expect(theirs.stdout.trim()).toBe('Waiting for daemon set "stuck" rollout to finish: 1 out of 3 new pods have been updated...');
    // The first line after the cluster header is kubectl's own.
    expect(ours.stdout.split('\n')[0]).toMatch(/^Cluster: context ds-rollout-sim \(https:\/\/127\.0\.0\.1:\d+\)$/);
    expect(ours.stdout.split('\n')[1]).toBe(theirs.stdout.trim());
    expect(ours.code).toBe(3);
    expect(ours.stdout).toMatch(/CrashLoopBackOff/);
  });

  it('get pods -w follows a rollout: new pods appear, old ones terminate', async () => {
    const watcher = spawn(kubectlPath!, ['--kubeconfig', k.kubeconfig, 'get', 'pods', '-w', '-l', 'app=agent'], {env: k.env});
    let out = '';
    watcher.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await new Promise((r) => setTimeout(r, 500));
    await k.ok('set', 'image', 'ds/agent', 'main=busybox:1.38');
    await k.ok('rollout', 'status', 'ds/agent', '--timeout=60s');
    await new Promise((r) => setTimeout(r, 300));
    watcher.kill();
    const rows = table(out);
    expect(rows[0]).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(rows.some((r) => r[2] === 'Terminating')).toBe(true);
    expect(rows.some((r) => r[2] === 'Pending' || r[2] === 'ContainerCreating')).toBe(true);
    expect(rows.filter((r) => r[1] === '1/1' && r[2] === 'Running').length).toBeGreaterThanOrEqual(6);
  });
});
