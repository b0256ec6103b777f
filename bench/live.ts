// Live mode end to end: `kubectl-ds_plan` against a 5,000-node simulated cluster, side by side with
// `kubectl get pods,nodes -o json` against the same cluster (targets, issue 4: no slower than kubectl, at most
// five API requests), and the plan's peak memory with 50,000 pods (target < 400 MB), measured on the child.
// The cluster runs in this process, so children are run asynchronously (a blocking spawn would starve it).
import {execFile, execFileSync} from 'node:child_process';
import {existsSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {startSimulatedCluster, type SimulatedCluster} from '../src/sim/index.js';
import {median, report} from './report.js';

const ROOT = join(import.meta.dirname, '..');
const PLAN = join(ROOT, 'bin', 'kubectl-ds_plan');

function run(file: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ms: number; stderr: string}> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    execFile(file, [...args], {env, maxBuffer: 512 * 1024 * 1024}, (error, _stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')} failed: ${stderr || error.message}`));
      else resolve({ms: performance.now() - t0, stderr});
    });
  });
}

function findKubectl(): string | undefined {
  try {
    return execFileSync('which', ['kubectl'], {encoding: 'utf8'}).trim() || undefined;
  } catch {
    return undefined;
  }
}

async function withCluster<T>(nodes: number, body: (cluster: SimulatedCluster, kubeconfig: string, env: NodeJS.ProcessEnv) => Promise<T>): Promise<T> {
  const cluster = await startSimulatedCluster({scenario: 'large', scenarioOptions: {nodes}});
  const dir = await mkdtemp(join(tmpdir(), 'ds-rollout-bench-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await cluster.writeKubeconfig(kubeconfig, {namespace: 'kube-system'});
  // A fresh HOME and kubectl cache per cluster: kubectl caches discovery per host:port.
  const env = {PATH: process.env['PATH'] ?? '', HOME: join(dir, 'home'), KUBECACHEDIR: join(dir, 'cache'), KUBECONFIG: kubeconfig};
  try {
    return await body(cluster, kubeconfig, env);
  } finally {
    await cluster.stop();
    await rm(dir, {recursive: true, force: true});
  }
}

export async function benchLive(): Promise<void> {
  const runs = 5;
  await withCluster(5000, async (cluster, kubeconfig, env) => {
    const planArgs = [PLAN, 'fluentd', '-n', 'kube-system', '--kubeconfig', kubeconfig, '-o', 'json'];
    await run(process.execPath, planArgs, env); // warm the file cache
    cluster.requestLog.clear();
    await run(process.execPath, planArgs, env);
    const requests = cluster.requestLog.entries.filter((e) => e.resource !== undefined).map((e) => `${e.verb} ${e.resource}`);
    const ours: number[] = [];
    for (let i = 0; i < runs; i++) ours.push((await run(process.execPath, planArgs, env)).ms);

    const kubectl = findKubectl();
    let line = `live  kubectl-ds_plan, 5,000 nodes: ${median(ours).toFixed(0)} ms, ${requests.length} API requests (${requests.join(', ')}) (target <= 5)`;
    if (kubectl) {
      const getArgs = ['get', 'pods,nodes', '-n', 'kube-system', '-o', 'json', '--kubeconfig', kubeconfig];
      await run(kubectl, getArgs, env); // discovery, once, as for any kubectl user
      const theirs: number[] = [];
      for (let i = 0; i < runs; i++) theirs.push((await run(kubectl, getArgs, env)).ms);
      line += `; kubectl get pods,nodes -o json: ${median(theirs).toFixed(0)} ms; ratio ${(median(ours) / median(theirs)).toFixed(2)} (target <= 1.00)`;
    } else {
      line += '; kubectl not on PATH, no comparison';
    }
    report(line);
  });

  const time = '/usr/bin/time';
  if (!existsSync(time)) {
    report('live  peak memory: /usr/bin/time not found, skipped');
    return;
  }
  await withCluster(50_000, async (_cluster, kubeconfig, env) => {
    const {stderr, ms} = await run(
      time,
      ['-f', 'maxrss=%M', process.execPath, PLAN, 'fluentd', '-n', 'kube-system', '--kubeconfig', kubeconfig, '-o', 'json'],
      env,
    );
    const kb = Number(/maxrss=(\d+)/.exec(stderr)?.[1] ?? Number.NaN);
    report(`live  kubectl-ds_plan, 50,000 nodes and 50,000 pods: peak RSS ${(kb / 1024).toFixed(0)} MB (target < 400 MB), ${ms.toFixed(0)} ms`);
  });
}
