// Benchmark of a gated rollout's reads as a user runs it: the bundle (a child process) runs `step --until-complete
// --canary 1 --canary-bake B --approve` on a 2,000-node DaemonSet of the simulated cluster served by this process
// (at 20x speed), once with a 60 s bake and once with a 10-minute one. Reported: the requests it sent that are not
// part of a watch (the simulated API server's request log is the counting proxy), the clock asks among them, and the
// watches. The goal (issue 26): at most 12 for either bake, the same for both.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import type {DaemonSet} from '../src/core/index.js';
import type {SimulatedCluster} from '../src/sim/index.js';
import {report, runChild} from './report.js';
import {startAgentCluster} from './sim.js';

const ROOT = join(import.meta.dirname, '..');
const ROLLOUT = join(ROOT, 'bin', 'kubectl-ds_rollout');

function setImage(cluster: SimulatedCluster, image: string): void {
  cluster.store.modify('daemonsets', 'kube-system', 'fluentd', (current) => {
    const ds = current as DaemonSet;
    const container = {...ds.spec.template.spec.containers[0]!, image};
    return {...ds, spec: {...ds.spec, template: {...ds.spec.template, spec: {...ds.spec.template.spec, containers: [container]}}}};
  });
}

/** The reads a run sent outside its watches (409s read again at the controller's pace, not the bake's: not counted). */
function reads(cluster: SimulatedCluster): {outside: number; clock: number; watches: number} {
  const log = cluster.requestLog.entries;
  const watches = log.filter((e) => e.verb === 'watch').length;
  const lists = log.filter((e) => e.resource !== undefined && e.verb === 'list').length;
  const gets = log.filter((e) => e.resource !== undefined && e.verb === 'get').length;
  const clock = log.filter((e) => e.path === '/version').length;
  const conflicts = log.filter((e) => e.verb === 'patch' && e.status === 409).length;
  return {outside: clock + gets + lists - Math.min(lists, watches) - conflicts, clock, watches};
}

export async function benchGated(nodes = 2000): Promise<void> {
  const cluster = await startAgentCluster(nodes, 20);
  const dir = await mkdtemp(join(tmpdir(), 'ds-rollout-bench-'));
  try {
    const kubeconfig = join(dir, 'kubeconfig');
    await cluster.writeKubeconfig(kubeconfig, {namespace: 'kube-system'});
    const env = {PATH: process.env['PATH'] ?? '', HOME: join(dir, 'home')};
    const cli = (args: readonly string[]) => runChild(process.execPath, [ROLLOUT, ...args, '--kubeconfig', kubeconfig], env);
    await cli(['pause', 'fluentd']);
    for (const [bake, image] of [
      ['60s', 'fluent/fluentd:v1.17.1'],
      ['10m', 'fluent/fluentd:v1.17.2'],
    ] as const) {
      setImage(cluster, image);
      cluster.requestLog.clear();
      const run = await cli(['step', 'fluentd', '--until-complete', '--canary', '1', '--canary-bake', bake, '--approve', '--yes']);
      const counted = reads(cluster);
      report(
        `gated ${bake} canary bake on ${nodes} nodes (20x speed): ${counted.outside} reads outside watches (goal <= 12), ${counted.clock} of them clock asks; ${counted.watches} watches; wall ${(run.ms / 1000).toFixed(1)} s`,
      );
      await cli(['abort', 'fluentd', '--yes']);
    }
  } finally {
    await cluster.stop();
    await rm(dir, {recursive: true, force: true});
  }
}
