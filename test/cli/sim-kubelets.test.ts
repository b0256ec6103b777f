// `kubectl ds-rollout sim kubelets` through the built binary, against the simulated API server with its own agents off.
import {spawn} from 'node:child_process';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {ROOT, runCli} from '../helpers/run-cli.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

let tc: TestCluster | undefined;
afterEach(async () => tc?.stop());

describe('ds-rollout sim kubelets', () => {
  it('registers the nodes, starts their bound pods, and exits 0 on SIGTERM', async () => {
    tc = await startTestCluster({scenario: 'empty', nodes: 0, agents: false});
    const child = spawn(
      process.execPath,
      [join(ROOT, 'bin/kubectl-ds_rollout'), 'sim', 'kubelets', '--kubeconfig', tc.kubeconfig, '--nodes', '2', '--start-delay', '0'],
      {cwd: ROOT, env: {PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? ''}},
    );
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const store = tc.cluster.store;
    while (!stdout.includes('Nodes registered')) await new Promise((r) => setTimeout(r, 50));
    expect(
      store
        .list('nodes')
        .items.map((n) => n.metadata.name)
        .sort(),
    ).toEqual(['sim-node-1', 'sim-node-2']);
    store.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {name: 'p', namespace: 'default'},
      spec: {nodeName: 'sim-node-2', containers: [{name: 'c', image: 'i:1'}]},
    } as never);
    while ((store.get('pods', 'default', 'p') as {status?: {phase?: string}}).status?.phase !== 'Running') await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain('Playing the kubelets of 2 nodes (sim-node-1..sim-node-2)');
  });

  it('refuses --nodes 0 with one line and exit 1', async () => {
    const r = await runCli(['sim', 'kubelets', '--nodes', '0'], {bin: 'bin/kubectl-ds_rollout'});
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('--nodes must be at least 1');
  });

  it('refuses an unknown --fail-mode with one line and exit 1, naming the modes', async () => {
    const r = await runCli(['sim', 'kubelets', '--fail-image', 'bad', '--fail-mode', 'melt'], {bin: 'bin/kubectl-ds_rollout'});
    expect({code: r.code, stdout: r.stdout, stderr: r.stderr}).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: invalid --fail-mode "melt" (have: crash, image-pull, never-ready, errors, node-not-ready, network-unavailable, break-neighbours)\n',
    });
  });

  it('refuses an --exec-image without a command with one line and exit 1', async () => {
    const r = await runCli(['sim', 'kubelets', '--exec-image', 'ds-rollout:e2e'], {bin: 'bin/kubectl-ds_rollout'});
    expect({code: r.code, stdout: r.stdout, stderr: r.stderr}).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: --exec-image "ds-rollout:e2e": want IMAGE=COMMAND\n',
    });
  });
});
