// `kubectl ds-rollout version` and `--version` on both plugins (BUILT bin/), offline and against a simulated cluster.
import {afterAll, beforeAll, expect, test, vi} from 'vitest';
import {load} from 'js-yaml';
import {runCli} from '../helpers/run-cli.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

vi.setConfig({testTimeout: 20_000});

const ROLLOUT = {bin: 'bin/kubectl-ds_rollout'};
const VERSION = JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))).version as string;
let t: TestCluster;

beforeAll(async () => {
  t = await startTestCluster({scenario: 'empty'});
});
afterAll(() => t?.stop());

test('--version on both plugins prints the client line only', async () => {
  for (const bin of ['bin/kubectl-ds_plan', 'bin/kubectl-ds_rollout']) {
    const result = await runCli(['--version'], {bin, env: {KUBECONFIG: t.kubeconfig}});
    expect(result).toMatchObject({code: 0, stderr: ''});
    expect(result.stdout).toBe(`Client Version: v${VERSION} (ds-rollout, node ${process.version}, linux/amd64)\n`);
  }
});

test('version with a reachable cluster adds the server version', async () => {
  const result = await runCli(['version', '--kubeconfig', t.kubeconfig], ROLLOUT);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(new RegExp(`^Client Version: v${VERSION.replace(/\./g, '\\.')} .*\nServer Version: v1\\.\\d+\\.\\d+.*\n$`));
});

test('-o json and -o yaml: a Version document', async () => {
  const json = JSON.parse((await runCli(['version', '--kubeconfig', t.kubeconfig, '-o', 'json'], ROLLOUT)).stdout);
  expect(json).toMatchObject({apiVersion: 'ds-rollout.io/v1alpha1', kind: 'Version', clientVersion: {version: `v${VERSION}`}});
  expect(json.serverVersion.gitVersion).toMatch(/^v1\./);
  const yaml = load((await runCli(['version', '--client', '-o', 'yaml'], ROLLOUT)).stdout);
  expect(yaml).toEqual({apiVersion: 'ds-rollout.io/v1alpha1', kind: 'Version', clientVersion: json.clientVersion});
});

test('no cluster: the client version, one warning, exit 0', async () => {
  const result = await runCli(['version', '--kubeconfig', '/nonexistent/kubeconfig'], ROLLOUT);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/^Client Version: /);
  expect(result.stderr).toMatch(/^warning: server version unknown: cannot load kubeconfig "\/nonexistent\/kubeconfig": no such file\n$/);
});

test('an unknown subcommand is one usage line, exit 1', async () => {
  const result = await runCli(['frobnicate'], ROLLOUT);
  expect(result).toEqual({code: 1, stdout: '', stderr: `error: unknown command "frobnicate" for "kubectl ds-rollout"; see 'kubectl ds-rollout --help'\n`});
});
