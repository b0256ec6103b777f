// A fleet for the e2e suite: the real 1.20.2 control plane and two simulated clusters started in the test process,
// each running the DaemonSet `agent` (registry.example/agent:1.0) on its own nodes, and one kubeconfig holding them
// as contexts `real-1.20`, `sim-a`, `sim-b`, plus `down`, whose server nothing listens on. In every member, pods of
// an image containing `agent:broken` crash-loop, and pods of JOB_IMAGE run the plugin (a detached rollout's Job).
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join, resolve} from 'node:path';
import {closedPort, fleetKubeconfig} from '../helpers/fleet-kubeconfig.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';
import {agentManifest, applyAgent, eventually, startControlPlane, type ControlPlane, type RunResult} from './control-plane.js';

export const BROKEN = 'agent:broken';

/** The image of a detached rollout's Job in every member: this checkout's plugin, run by this machine's node. */
export const JOB_IMAGE = 'ds-rollout:e2e';
const JOB_COMMAND = [process.execPath, join(resolve(import.meta.dirname, '../..'), 'bin/kubectl-ds_rollout')];

export interface Fleet {
  readonly cp: ControlPlane;
  readonly sims: {readonly 'sim-a': TestCluster; readonly 'sim-b': TestCluster};
  readonly kubeconfig: string;
  /** The server of context `down`. */
  readonly down: string;
  /** kubectl with the fleet's kubeconfig (the plugins are on cp.kubectl's PATH). */
  run(args: readonly string[], input?: string): Promise<RunResult>;
  stop(): Promise<void>;
}

/** Starts the members in parallel, writes the kubeconfig, and rolls `agent` out in each. */
export async function startFleet(nodes: number): Promise<Fleet> {
  const failures = [{image: BROKEN, mode: 'crash' as const}];
  const images = [{image: JOB_IMAGE, command: JOB_COMMAND}];
  const sim = () =>
    startTestCluster({scenario: 'empty', nodes, speed: 20, kubelet: {failures}, exec: {images, dir: mkdtempSync(join(tmpdir(), 'ds-rollout-jobs-'))}});
  const started = await Promise.allSettled([startControlPlane({nodes, startDelayMs: 300, stopDelayMs: 300, failures, execImages: images}), sim(), sim()]);
  const [cp, simA, simB] = started.map((s) => (s.status === 'fulfilled' ? s.value : undefined)) as [ControlPlane?, TestCluster?, TestCluster?];
  const stop = async () => {
    cp?.stop();
    await Promise.all([simA, simB].map((t) => t?.stop()));
  };
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  try {
    const down = `https://127.0.0.1:${await closedPort()}`;
    const kubeconfig = join(simA!.dir, 'fleet-kubeconfig');
    writeFileSync(
      kubeconfig,
      fleetKubeconfig([
        {name: 'real-1.20', kubeconfig: readFileSync(cp!.kubeconfig, 'utf8')},
        {name: 'sim-a', kubeconfig: simA!.cluster.kubeconfigYaml()},
        {name: 'sim-b', kubeconfig: simB!.cluster.kubeconfigYaml()},
        {name: 'down', kubeconfig: simA!.cluster.kubeconfigYaml(), server: down},
      ]),
      {mode: 0o600},
    );
    const run = (args: readonly string[], input?: string) => cp!.kubectl([...args, '--kubeconfig', kubeconfig], input);
    await applyAgent(cp!, nodes, 'registry.example/agent:1.0');
    for (const context of ['sim-a', 'sim-b']) {
      const applied = await run(['apply', '-f', '-', '--context', context], agentManifest('registry.example/agent:1.0'));
      if (applied.code !== 0) throw new Error(`kubectl apply --context ${context}: ${applied.stderr}`);
    }
    await eventually('agent rolled out on both simulated clusters', async () => {
      const r = await run(['ds-rollout', 'status', 'agent', '--contexts', 'sim-*']);
      return r.code === 0 ? r : undefined;
    });
    return {cp: cp!, sims: {'sim-a': simA!, 'sim-b': simB!}, kubeconfig, down, run, stop};
  } catch (error) {
    await stop();
    throw error;
  }
}
