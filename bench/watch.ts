// Benchmark of a watch-heavy path as a user runs it: `status -w` (the bundle, a child process) follows a rolling
// update of a 2,000-node DaemonSet on the simulated cluster served by this process, from just after the update until the
// rollout is complete. Reported: the follower's CPU time (user + system, by /usr/bin/time) and the wall time, and the
// watch events the server sent it. The update is the same each run; the CPU is what following it cost.
import {spawn} from 'node:child_process';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {report} from './report.js';
import {startAgentCluster, startRollingUpdate} from './sim.js';

const ROOT = join(import.meta.dirname, '..');
const ROLLOUT = join(ROOT, 'bin', 'kubectl-ds_rollout');
const TIME = '/usr/bin/time';

export async function benchWatch(nodes = 2000): Promise<void> {
  const cluster = await startAgentCluster(nodes, 50);
  const dir = await mkdtemp(join(tmpdir(), 'ds-rollout-bench-'));
  try {
    const kubeconfig = join(dir, 'kubeconfig');
    await cluster.writeKubeconfig(kubeconfig, {namespace: 'kube-system'});
    cluster.requestLog.clear();
    startRollingUpdate(cluster);
    const t0 = performance.now();
    const child = spawn(TIME, ['-f', 'cpu=%U+%S', process.execPath, ROLLOUT, 'status', 'fluentd', '--kubeconfig', kubeconfig, '--timeout', '10m'], {
      env: {PATH: process.env['PATH'] ?? '', HOME: join(dir, 'home')},
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const code = await exited;
    const wall = performance.now() - t0;
    const cpu = /cpu=([\d.]+)\+([\d.]+)/.exec(stderr);
    if (code !== 0 || !cpu) throw new Error(`status -w exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
    const cpuSeconds = Number(cpu[1]) + Number(cpu[2]);
    const watches = cluster.requestLog.entries.filter((e) => e.verb === 'watch').length;
    report(
      `watch status -w following a rolling update of ${nodes} nodes (10% at a time, 50x speed): CPU ${cpuSeconds.toFixed(2)} s, wall ${(wall / 1000).toFixed(1)} s, ${watches} watch requests`,
    );
  } finally {
    await cluster.stop();
    await rm(dir, {recursive: true, force: true});
  }
}
