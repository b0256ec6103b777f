// `npm run demo`: the main job on the embedded default. Starts the simulated demo cluster (API server,
// kubelets, the DaemonSet controller), then runs `kubectl ds-plan` against it through the live path,
// exactly as a user would against a real cluster, and stops the cluster again.
import {execFile} from 'node:child_process';
import {promisify} from 'node:util';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {startSimulatedCluster} from '../dist/sim/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cluster = await startSimulatedCluster({agents: true, scenario: 'demo'});
const dir = mkdtempSync(join(tmpdir(), 'ds-rollout-demo-'));
try {
  const kubeconfig = join(dir, 'kubeconfig');
  await cluster.writeKubeconfig(kubeconfig, {namespace: 'kube-system'});
  // Let the controller and the kubelets take the cluster from its loaded state for a moment.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  process.stdout.write(`Simulated cluster: ${cluster.scenario.description}\n`);
  process.stdout.write(`$ kubectl ds-plan fluentd -n kube-system\n\n`);
  // Asynchronously: this process serves the cluster the child talks to.
  const {stdout: output} = await promisify(execFile)(
    process.execPath,
    [join(root, 'bin', 'kubectl-ds_plan'), 'fluentd', '-n', 'kube-system', '--kubeconfig', kubeconfig],
    {
      encoding: 'utf8',
      env: {...process.env, FORCE_COLOR: process.stdout.isTTY && !process.env.NO_COLOR ? '1' : '0'},
    },
  );
  process.stdout.write(output);
  process.stdout.write(`\nTo keep a simulated cluster running and try every command: kubectl ds-rollout sim start (see docs/commands/sim.md).\n`);
} finally {
  await cluster.stop();
  rmSync(dir, {recursive: true, force: true});
}
