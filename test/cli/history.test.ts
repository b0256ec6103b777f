// `kubectl ds-rollout history` end to end (BUILT bin/kubectl-ds_rollout) on a ManualClock cluster, with goldens
// (test/fixtures/golden/history/), and side by side with the real `kubectl rollout history`.
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest';
import {afterClusterHeader, runCli, type CliResult} from '../helpers/run-cli.js';
import {kubectlSession, skipWithoutKubectl, table, type KubectlSession} from '../helpers/kubectl.js';
import {START, startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

// Each test spawns the CLI (about 0.5 s per start) and shares two cores with the rest of the suite.
vi.setConfig({testTimeout: 20_000});

const ROLLOUT = {bin: 'bin/kubectl-ds_rollout'};
const AN_HOUR_LATER = ['--now', new Date(START + 3_600_000).toISOString().replace('.000Z', 'Z')];
let t: TestCluster;

function history(...args: string[]): Promise<CliResult> {
  return runCli(['history', 'fluentd', '-n', 'kube-system', '--kubeconfig', t.kubeconfig, ...AN_HOUR_LATER, ...args], ROLLOUT);
}

beforeAll(async () => {
  t = await startTestCluster({scenario: 'demo'});
  // A third revision with a change-cause, as `kubectl annotate` + `kubectl set image` would leave it.
  t.cluster.store.modify('daemonsets', 'kube-system', 'fluentd', (ds) => {
    const spec = ds.spec as unknown as {template: {spec: {containers: Array<Record<string, unknown>>}}};
    const containers = spec.template.spec.containers.map((c) => ({
      ...c,
      image: 'fluent/fluentd:v1.18.0',
      resources: {limits: {memory: '300Mi'}, requests: {cpu: '100m', memory: '300Mi'}},
    }));
    return {
      ...ds,
      metadata: {
        ...ds.metadata,
        annotations: {...ds.metadata.annotations, 'kubernetes.io/change-cause': 'kubectl set image ds/fluentd fluentd=fluent/fluentd:v1.18.0'},
      },
      spec: {...ds.spec, template: {...spec.template, spec: {...spec.template.spec, containers}}},
    } as never;
  });
  t.advance(1000);
});

afterAll(async () => {
  await t.stop();
});

describe('kubectl ds-rollout history', () => {
  test('the table and its JSON', async () => {
    const [text, json] = await Promise.all([history(), history('-o', 'json')]);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    await expect(afterClusterHeader(text.stdout, t.cluster.url)).toMatchFileSnapshot('../fixtures/golden/history/demo.txt');
    await expect(json.stdout).toMatchFileSnapshot('../fixtures/golden/history/demo.json');
  });

  test('--revision N prints the template; --diff A B the diff, images first', async () => {
    const [revision, diff, yaml] = await Promise.all([history('--revision', '1'), history('--diff', '1', '3'), history('--revision', '3', '-o', 'yaml')]);
    await expect(afterClusterHeader(revision.stdout, t.cluster.url)).toMatchFileSnapshot('../fixtures/golden/history/revision-1.txt');
    await expect(diff.stdout).toMatchFileSnapshot('../fixtures/golden/history/diff-1-3.txt');
    expect(yaml.stdout).toMatch(/^apiVersion: ds-rollout.io\/v1alpha1\nkind: DaemonSetRevision\n/);
    expect(yaml.stdout).toContain('image: fluent/fluentd:v1.18.0');
  });

  test("an unknown revision: exit 1, kubectl's words", async () => {
    const [unknown, both] = await Promise.all([history('--revision', '9'), history('--diff', '1', '9')]);
    expect([unknown.code, unknown.stdout, unknown.stderr]).toEqual([1, '', 'error: unable to find the specified revision 9\n']);
    expect([both.code, both.stderr]).toEqual([1, 'error: unable to find the specified revision 9\n']);
  });
});

describe.skipIf(skipWithoutKubectl)('side by side with kubectl rollout history', () => {
  let kubectl: KubectlSession;

  beforeAll(async () => {
    kubectl = await kubectlSession(t.cluster, {namespace: 'kube-system'});
  });

  afterAll(async () => {
    await kubectl?.close();
  });

  test('the same revisions and change-causes', async () => {
    const [theirs, ours] = await Promise.all([kubectl.ok('rollout', 'history', 'ds/fluentd'), history('-o', 'json')]);
    const rows = table(theirs).slice(2); // "daemonset.apps/fluentd", then the header
    const report = JSON.parse(ours.stdout) as {revisions: Array<{revision: number; changeCause?: string}>};
    expect(rows).toEqual(report.revisions.map((r) => [String(r.revision), r.changeCause ?? '<none>']));
    expect(rows.map((r) => r[0])).toEqual(['1', '2', '3']);
  });
});
