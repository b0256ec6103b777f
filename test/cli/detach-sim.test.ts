// `step --detach` end to end on the simulated cluster, through the BUILT `kubectl ds-rollout` (run `npm run build`
// first): the simulated Job controller makes the Job's pod, the simulated kubelets run it as this plugin's own binary
// with in-cluster credentials (the image is this plugin's), the Job ends Complete or Failed as its rollout did, and
// `kubectl logs job/NAME` shows the driver's output, served by the simulated API.
import {type ChildProcess, execFile, spawn} from 'node:child_process';
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, expect, test, vi} from 'vitest';
import {type KubectlSession, kubectlPath, kubectlSession, skipWithoutKubectl} from '../helpers/kubectl.js';
import {ROOT, runCli} from '../helpers/run-cli.js';
import {type RolloutSim, startRolloutSim} from '../safety/rollout-sim.js';

vi.setConfig({testTimeout: 120_000});

const BIN = 'bin/kubectl-ds_rollout';
const IMAGE = 'registry.local/ds-rollout:sim';
let sim: RolloutSim | undefined;
let kubectl: KubectlSession | undefined;
let dir: string | undefined;
let child: ChildProcess | undefined;

afterEach(async () => {
  child?.kill('SIGTERM');
  child = undefined;
  await kubectl?.close();
  kubectl = undefined;
  await sim?.stop();
  sim = undefined;
  if (dir) await rm(dir, {recursive: true, force: true});
  dir = undefined;
});

interface SimJob {
  metadata: {name: string; uid: string};
  status?: {active?: number; succeeded?: number; failed?: number; conditions?: {type: string; status: string; reason?: string}[]};
}

/** A simulated cluster whose kubelets run pods of IMAGE as this checkout's plugin. */
async function detachableSim(): Promise<RolloutSim> {
  dir = await mkdtemp(join(tmpdir(), 'ds-rollout-jobs-'));
  return startRolloutSim({nodes: 4, maxUnavailable: 1, exec: {images: [{image: IMAGE, command: [process.execPath, join(ROOT, BIN)]}], dir}});
}

async function detach(s: RolloutSim, args: string[]): Promise<string> {
  const run = await runCli([...args, '--detach', '--image', IMAGE, '--yes', '--kubeconfig', s.kubeconfig], {bin: BIN});
  expect({code: run.code, stderr: run.stderr}).toEqual({code: 0, stderr: ''});
  return /^Job default\/(\S+) created/.exec(run.stdout)![1]!;
}

const jobOf = (s: RolloutSim, name: string) => s.test.cluster.store.get('jobs', 'default', name) as unknown as SimJob;
const ended = (job: SimJob) => (job.status?.conditions ?? []).find((c) => c.status === 'True');
const podsOf = (s: RolloutSim, job: SimJob) => s.pods().filter((p) => (p.metadata.ownerReferences ?? []).some((r) => r.uid === job.metadata.uid));

test.skipIf(skipWithoutKubectl)('the Job runs the driver in the cluster: the rollout completes, the Job is Complete, kubectl logs shows it', async () => {
  sim = await detachableSim();
  const name = await detach(sim, ['step', 'agent', '--canary', '1', '--canary-bake', '10s', '--bake', '5s']);
  await sim.until(() => ended(jobOf(sim!, name)) !== undefined, 100_000, 'the Job to end');
  const job = jobOf(sim, name);
  expect(job.status).toMatchObject({active: 0, succeeded: 1, failed: 0, conditions: [{type: 'Complete', status: 'True'}]});
  expect(Object.values(sim.images()).every((images) => images.length === 1 && images[0] === 'agent:v2')).toBe(true);
  // The driver's pod ran on one of the cluster's nodes: no node was added for it, so the DaemonSet covers the same four.
  const [pod] = podsOf(sim, job);
  expect(sim.nodes).toContain(pod!.spec.nodeName);
  expect(sim.test.cluster.store.list('nodes').items).toHaveLength(4);
  expect(sim.daemonSet().status?.desiredNumberScheduled).toBe(4);

  kubectl = await kubectlSession(sim.test.cluster);
  const logs = await kubectl.run('logs', `job/${name}`);
  expect({code: logs.code, stderr: logs.stderr}).toEqual({code: 0, stderr: ''});
  expect(logs.stdout).toMatch(/Gated rollout complete: every stage passed/);
});

test.skipIf(skipWithoutKubectl)(
  'a crash-looping canary: the driver rolls back and fails its Job at once (BackoffLimitExceeded, one pod, no retries), non-zero exit in its log',
  async () => {
    sim = await detachableSim();
    sim.test.cluster.kubelets!.injectFailure({image: 'agent:v2', mode: 'crash'});
    const name = await detach(sim, ['step', 'agent', '--canary', '1', '--canary-bake', '1m', '--on-failure', 'undo']);
    await sim.until(() => ended(jobOf(sim!, name)) !== undefined, 100_000, 'the Job to end');
    const job = jobOf(sim, name);
    expect(job.status).toMatchObject({active: 0, succeeded: 0, failed: 1, conditions: [{type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded'}]});
    // One pod, terminated with the driver's exit status 3: the Job controller does not run the rollout again.
    const pods = podsOf(sim, job);
    expect(pods.map((p) => p.status?.containerStatuses?.[0]?.state?.terminated?.exitCode)).toEqual([3]);
    await sim.until(() => Object.values(sim!.images()).every((images) => images.length === 1 && images[0] === 'agent:v1'), 20_000, 'v1 everywhere');

    kubectl = await kubectlSession(sim.test.cluster);
    const logs = await kubectl.run('logs', `job/${name}`);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toMatch(/gate failed at stage canary: .*CrashLoopBackOff.*; rolled back to revision 3/);
  },
);

/** The gated record's phase on the DaemonSet. */
const phaseOf = (s: RolloutSim) => {
  const text = s.daemonSet().metadata.annotations?.['ds-rollout.io/gated-rollout'];
  return text === undefined ? undefined : (JSON.parse(text) as {phase: string}).phase;
};

test('a failed gate with --on-failure pause fails the Job at once; the record stays failed', async () => {
  sim = await detachableSim();
  sim.test.cluster.kubelets!.injectFailure({image: 'agent:v2', mode: 'crash'});
  const name = await detach(sim, ['step', 'agent', '--canary', '1', '--canary-bake', '1m', '--on-failure', 'pause']);
  await sim.until(() => ended(jobOf(sim!, name)) !== undefined, 100_000, 'the Job to end');
  const job = jobOf(sim, name);
  expect(job.status).toMatchObject({failed: 1, conditions: [{type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded'}]});
  expect(podsOf(sim, job)).toHaveLength(1);
  expect(phaseOf(sim)).toBe('failed');
});

test('abort from a terminal while the Job bakes: the driver stops, the Job ends Failed, not Complete', async () => {
  sim = await detachableSim();
  const name = await detach(sim, ['step', 'agent', '--canary', '1', '--canary-bake', '1h']);
  await sim.until(() => phaseOf(sim!) === 'baking', 100_000, 'the canary bake');
  const aborted = await runCli(['abort', 'agent', '--yes', '--kubeconfig', sim.kubeconfig], {bin: BIN});
  expect({code: aborted.code, stderr: aborted.stderr}).toEqual({code: 0, stderr: ''});
  await sim.until(() => ended(jobOf(sim!, name)) !== undefined, 100_000, 'the Job to end');
  const job = jobOf(sim, name);
  expect(job.status).toMatchObject({succeeded: 0, failed: 1, conditions: [{type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded'}]});
  const [pod] = podsOf(sim, job);
  expect(pod!.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).not.toBe(0);
  expect(phaseOf(sim)).toBe('aborted');
});

test.skipIf(skipWithoutKubectl)('kubectl logs of a pod that ran no process is empty; of no such pod, 404', async () => {
  sim = await detachableSim();
  kubectl = await kubectlSession(sim.test.cluster);
  const [daemonPod] = sim.pods();
  expect(await kubectl.run('logs', daemonPod!.metadata.name)).toMatchObject({code: 0, stdout: ''});
  const missing = await kubectl.run('logs', 'no-such-pod');
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('pods "no-such-pod" not found');
});

const AGENT = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default}
spec:
  selector: {matchLabels: {app: agent}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: main, image: 'agent:v1'}]}
`;

test.skipIf(skipWithoutKubectl)('sim start runs step --detach with no --image: the release image is this plugin, the Job completes', async () => {
  dir = await mkdtemp(join(tmpdir(), 'ds-rollout-sim-start-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const proc = spawn(process.execPath, [join(ROOT, BIN), 'sim', 'start', '--scenario', 'empty', '--speed', '20', '--kubeconfig', kubeconfig], {
    cwd: ROOT,
    env: {PATH: process.env['PATH'] ?? '', HOME: dir},
  });
  child = proc;
  let out = '';
  proc.stdout.on('data', (d) => (out += String(d)));
  proc.stderr.on('data', (d) => (out += String(d)));
  for (let waited = 0; !out.includes('Press Ctrl-C'); waited += 50) {
    if (proc.exitCode !== null || waited > 30_000) throw new Error(`sim start did not come up: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const env = {PATH: process.env['PATH'] ?? '', HOME: dir, KUBECACHEDIR: join(dir, 'cache'), KUBECONFIG: kubeconfig};
  const kubectlRun = (...args: string[]) =>
    new Promise<{code: number; stdout: string; stderr: string}>((resolve) =>
      execFile(kubectlPath!, args, {env, timeout: 60_000}, (error, stdout, stderr) => resolve({code: error === null ? 0 : 1, stdout, stderr})),
    );
  const plugin = (...args: string[]) => runCli([...args, '--kubeconfig', kubeconfig], {bin: BIN});
  await writeFile(join(dir, 'agent.yaml'), AGENT);
  expect((await kubectlRun('apply', '-f', join(dir, 'agent.yaml'))).code).toBe(0);
  expect((await plugin('status', 'agent', '--watch', '--timeout', '5m')).code).toBe(0);
  expect((await plugin('pause', 'agent')).code).toBe(0);
  expect((await kubectlRun('set', 'image', 'daemonset/agent', 'main=agent:v2')).code).toBe(0);

  const detached = await plugin('step', 'agent', '--canary', '1', '--canary-bake', '10s', '--detach', '--yes');
  expect({code: detached.code, stderr: detached.stderr}).toEqual({code: 0, stderr: ''});
  const name = /^Job default\/(\S+) created/.exec(detached.stdout)![1]!;
  let job: SimJob | undefined;
  for (let waited = 0; job === undefined || ended(job) === undefined; waited += 250) {
    if (waited > 100_000) throw new Error(`the Job did not end: ${JSON.stringify(job?.status)}`);
    await new Promise((r) => setTimeout(r, 250));
    job = JSON.parse((await kubectlRun('get', 'job', name, '-o', 'json')).stdout) as SimJob;
  }
  expect(job.status).toMatchObject({succeeded: 1, conditions: [{type: 'Complete', status: 'True'}]});
  const logs = await kubectlRun('logs', `job/${name}`);
  expect(logs.stdout).toMatch(/Gated rollout complete: every stage passed/);
});
