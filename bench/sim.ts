// Benchmark of the simulated cluster at 5,000 nodes (issue 3): start-up, LIST pods through
// @kubernetes/client-node, a full rolling update at high speed, the controller's sync cost, peak memory.
// Targets: start-up within 10 s, memory under 1 GiB, a sync of the 5,000-node DaemonSet within 200 ms.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import type {DaemonSet} from '../src/core/types.js';
import {RealClock, type SimulatedCluster, startSimulatedCluster} from '../src/sim/index.js';
import {collectGarbage, report} from './report.js';

/** A new image for fluentd in kube-system, rolled out 10% at a time: the update every rollout bench follows. */
export function startRollingUpdate(cluster: SimulatedCluster): void {
  cluster.store.modify('daemonsets', 'kube-system', 'fluentd', (current) => {
    const ds = current as DaemonSet;
    const container = {...ds.spec.template.spec.containers[0]!, image: 'fluent/fluentd:v1.17.0'};
    return {
      ...ds,
      spec: {
        ...ds.spec,
        updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: '10%', maxSurge: 0}},
        template: {...ds.spec.template, spec: {...ds.spec.template.spec, containers: [container]}},
      },
    };
  });
}

/** The benches' cluster: the large scenario's DaemonSet on `nodes` nodes, kubelets that start pods in 2 s, at `speed`. */
export function startAgentCluster(nodes: number, speed: number): Promise<SimulatedCluster> {
  return startSimulatedCluster({
    clock: new RealClock({speed}),
    agents: true,
    scenario: 'large',
    scenarioOptions: {nodes},
    kubelet: {startDelayMs: 2000, stopDelayMs: 500},
  });
}

export async function benchSim(nodes = 5000): Promise<void> {
  collectGarbage();
  const t0 = performance.now();
  const cluster = await startAgentCluster(nodes, 500);
  const startup = performance.now() - t0;
  report(`sim   start-up with ${nodes} nodes and ${nodes} daemon pods: ${(startup / 1000).toFixed(2)} s (target <= 10 s)`);
  const dir = await mkdtemp(join(tmpdir(), 'ds-rollout-bench-'));
  try {
    const kubeconfig = join(dir, 'kubeconfig');
    await cluster.writeKubeconfig(kubeconfig);
    const k8s = await import('@kubernetes/client-node');
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const t1 = performance.now();
    const list = await core.listNamespacedPod({namespace: 'kube-system'});
    report(`sim   LIST ${list.items.length} pods through client-node: ${(performance.now() - t1).toFixed(0)} ms`);

    // A rolling update of the whole DaemonSet, 10% at a time, at 500x real time.
    const controller = cluster.controller!;
    controller.syncCount = 0;
    controller.syncTotalMs = 0;
    controller.syncMaxMs = 0;
    startRollingUpdate(cluster);
    const t2 = performance.now();
    let peakRss = process.memoryUsage().rss;
    for (;;) {
      await new Promise((r) => setTimeout(r, 100));
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      const status = (cluster.store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet).status;
      if (status?.updatedNumberScheduled === nodes && status.numberAvailable === nodes && status.observedGeneration === 2) break;
      if (performance.now() - t2 > 600_000) throw new Error('rolling update did not finish in 10 minutes');
    }
    const rollout = performance.now() - t2;
    report(
      `sim   rolling update of ${nodes} nodes (maxUnavailable 10%, 500x speed): ${(rollout / 1000).toFixed(1)} s real; ${controller.syncCount} syncs, mean ${(controller.syncTotalMs / controller.syncCount).toFixed(1)} ms, max ${controller.syncMaxMs.toFixed(1)} ms (target <= 200 ms)`,
    );
    report(`sim   peak RSS during the rollout: ${(peakRss / 2 ** 20).toFixed(0)} MiB (target < 1024 MiB)`);
  } finally {
    await cluster.stop();
    await rm(dir, {recursive: true, force: true});
  }
}
