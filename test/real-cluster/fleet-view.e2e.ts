// Issue 27 part 4, the fleet view: the real 1.20.2 control plane as one member of a fleet. One kubeconfig holds
// it, two simulated clusters started in this process, and a context whose server nothing listens on; through
// kubectl, `ds-rollout status agent --all-contexts` and `ds-plan agent --all-contexts` print one table with a
// row per cluster (the unreachable one a row saying so), exit with the worst cluster's code and end with the
// line that counts them.
import {readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {closedPort, fleetKubeconfig} from '../helpers/fleet-kubeconfig.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';
import {agentManifest, applyAgent, eventually, startControlPlane, type ControlPlane} from './control-plane.js';

const NODES = 3;
let cp: ControlPlane;
let simA: TestCluster;
let simB: TestCluster;
let kubeconfig: string;
let down: string;

/** kubectl with the fleet's kubeconfig (the plugins are on cp.kubectl's PATH). */
const fleet = (args: readonly string[], input?: string) => cp.kubectl([...args, '--kubeconfig', kubeconfig], input);

beforeAll(async () => {
  [cp, simA, simB] = await Promise.all([
    startControlPlane({nodes: NODES, startDelayMs: 300, stopDelayMs: 300}),
    startTestCluster({scenario: 'empty', nodes: NODES, speed: 20}),
    // Pods of agent:broken crash-loop there: its rollout sticks.
    startTestCluster({scenario: 'empty', nodes: NODES, speed: 20, kubelet: {failures: [{image: 'agent:broken', mode: 'crash'}]}}),
  ]);
  down = `https://127.0.0.1:${await closedPort()}`;
  kubeconfig = join(simA.dir, 'fleet-kubeconfig');
  writeFileSync(
    kubeconfig,
    fleetKubeconfig([
      {name: 'real-1.20', kubeconfig: readFileSync(cp.kubeconfig, 'utf8')},
      {name: 'sim-a', kubeconfig: simA.cluster.kubeconfigYaml()},
      {name: 'sim-b', kubeconfig: simB.cluster.kubeconfigYaml()},
      {name: 'down', kubeconfig: simA.cluster.kubeconfigYaml(), server: down},
    ]),
    {mode: 0o600},
  );
  // The same DaemonSet everywhere: rolled out on the real cluster and sim-a; on sim-b a release that crashes.
  await applyAgent(cp, NODES, 'registry.example/agent:1.0');
  for (const context of ['sim-a', 'sim-b']) {
    const applied = await fleet(['apply', '-f', '-', '--context', context], agentManifest('registry.example/agent:1.0'));
    expect(applied.code, applied.stderr).toBe(0);
  }
  await eventually('agent rolled out on both simulated clusters', async () => {
    const r = await fleet(['ds-rollout', 'status', 'agent', '--contexts', 'sim-*']);
    return r.code === 0 ? r : undefined;
  });
  const set = await fleet(['set', 'image', 'daemonset/agent', 'agent=registry.example/agent:broken', '--context', 'sim-b']);
  expect(set.code, set.stderr).toBe(0);
  await eventually('sim-b stuck on the crashing release', async () => {
    const r = await fleet(['ds-rollout', 'status', 'agent', '--contexts', 'sim-b']);
    return r.code === 3 ? r : undefined;
  });
});

afterAll(async () => {
  cp?.stop();
  await Promise.all([simA, simB].map((t) => t?.stop()));
});

describe('the fleet view with the real 1.20.2 control plane as a member', () => {
  it('status --all-contexts: one table, a row per cluster, the unreachable one included; the worst exit code; the count line', async () => {
    const r = await fleet(['ds-rollout', 'status', 'agent', '--all-contexts', '--request-timeout', '5s']);
    expect(r.stderr).toBe('');
    // unreachable (2) outranks stuck (3): nothing is known of the rollout there.
    expect(r.code).toBe(2);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^CONTEXT +VERDICT +REVISION +BUDGET +BLOCKER$/),
      expect.stringMatching(/^real-1\.20 +complete +1 +- *$/),
      expect.stringMatching(/^sim-a +complete +1 +- *$/),
      expect.stringMatching(/^sim-b +stuck +1->2 +1\/1 unavailable +\S/),
      expect.stringMatching(new RegExp(`^down +unreachable +- +- +.*${down.replace(/\./g, '\\.')}`)),
      '4 clusters: 2 complete, 1 stuck, 1 unreachable',
    ]);

    const json = await fleet(['ds-rollout', 'status', 'agent', '--all-contexts', '--request-timeout', '5s', '-o', 'json']);
    const document = JSON.parse(json.stdout) as {exitCode: number; contexts: Record<string, {state: string; server?: string}>};
    expect(document.exitCode).toBe(2);
    expect(Object.entries(document.contexts).map(([context, entry]) => `${context}:${entry.state}`)).toEqual([
      'real-1.20:complete',
      'sim-a:complete',
      'sim-b:stuck',
      'down:unreachable',
    ]);
  });

  it('ds-plan --all-contexts: each cluster planned on its own controller version, one row each', async () => {
    const r = await fleet(['ds-plan', 'agent', '--all-contexts', '--request-timeout', '5s']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^CONTEXT +VERDICT +REVISION +BUDGET +WAVES +ETA +BLOCKER$/),
      expect.stringMatching(/^real-1\.20 +complete +1 +- +0 +- *$/),
      expect.stringMatching(/^sim-a +complete +1 +- +0 +- *$/),
      expect.stringMatching(/^sim-b +(stuck|progressing) +1->2 +1\/1 unavailable +\d+ +\S+ +\S/),
      expect.stringMatching(/^down +unreachable +- +- +- +- +\S/),
      expect.stringMatching(/^4 clusters: 2 complete, 1 (stuck|progressing), 1 unreachable$/),
    ]);
  });

  it('ds-plan -f: a new release planned on every cluster, the real one checked by its own API server', async () => {
    const path = join(simA.dir, 'agent-2.yaml');
    writeFileSync(path, agentManifest('registry.example/agent:2.0'));
    const r = await fleet(['ds-plan', '-f', path, '--contexts', 'real-1.20,sim-a', '--request-timeout', '5s']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(
        /^real-1\.20 +progressing +1->2 +0\/1 unavailable +\d+ +\S+ +agent: registry\.example\/agent:1\.0 -> registry\.example\/agent:2\.0$/,
      ),
      expect.stringMatching(/^sim-a +progressing +1->2 +0\/1 unavailable +\d+ +\S+ +agent: registry\.example\/agent:1\.0 -> registry\.example\/agent:2\.0$/),
      '2 clusters: 2 progressing',
    ]);
  });
});
