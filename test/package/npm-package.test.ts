// The npm package as a user gets it: packed (after `npm run build`, as `npm test` does), installed globally
// into a temporary prefix, and run through the real kubectl from there.
import {execFile, execFileSync} from 'node:child_process';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest';
import {kubectlPath, skipWithoutKubectl} from '../helpers/kubectl.js';
import {ROOT, scenarioPath} from '../helpers/run-cli.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

vi.setConfig({testTimeout: 30_000, hookTimeout: 120_000});

let dir: string;
let packed: {filename: string; files: Array<{path: string}>};
let t: TestCluster;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ds-rollout-npm-'));
  // --ignore-scripts: prepack would build again; the suite runs after `npm run build`.
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {cwd: ROOT, encoding: 'utf8'});
  packed = (JSON.parse(out) as Array<typeof packed>)[0]!;
  // The package has no runtime dependencies (they are bundled), so this needs no registry.
  execFileSync('npm', ['install', '--global', '--prefix', join(dir, 'prefix'), '--offline', '--no-audit', '--no-fund', join(dir, packed.filename)], {
    env: {...process.env, npm_config_cache: join(dir, 'npm-cache')},
    stdio: 'ignore',
  });
  t = await startTestCluster({scenario: 'demo'});
});

afterAll(async () => {
  await t?.stop();
  if (dir) await rm(dir, {recursive: true, force: true});
});

function run(command: string, args: string[]): Promise<{code: number; stdout: string; stderr: string}> {
  // The installed bin directory first; HOME elsewhere, so no kubeconfig or kubectl cache of the user's is read.
  const env = {PATH: `${join(dir, 'prefix', 'bin')}:${process.env['PATH']}`, HOME: dir, KUBECONFIG: t.kubeconfig};
  return new Promise((resolve) =>
    execFile(command, args, {env, cwd: dir}, (error, stdout, stderr) => resolve({code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr})),
  );
}

test('the tarball holds what runs: the bundle, the four executables, LICENSE, CHANGELOG, README, examples', () => {
  const files = packed.files.map((file) => file.path);
  expect(files.filter((file) => /\.map$|\.ts$/.test(file))).toEqual([]);
  expect(files.filter((file) => file.startsWith('bin/')).sort()).toEqual([
    'bin/kubectl-ds_plan',
    'bin/kubectl-ds_rollout',
    'bin/kubectl_complete-ds_plan',
    'bin/kubectl_complete-ds_rollout',
  ]);
  expect(files).toEqual(expect.arrayContaining(['LICENSE', 'CHANGELOG.md', 'README.md', 'package.json', 'dist/cli.mjs']));
  expect(files.filter((file) => file.startsWith('dist/') && file !== 'dist/cli.mjs' && !/^dist\/chunks\/[\w-]+\.mjs$/.test(file))).toEqual([]);
  expect(files.some((file) => file.startsWith('src/') || file.startsWith('test/') || file === 'oclif.manifest.json')).toBe(false);
  // Exactly what a global install runs and documents, nothing else (no build scripts, plugins or dist-release).
  const needed =
    /^(LICENSE|README\.md|CHANGELOG\.md|package\.json|bin\/kubectl(-|_complete-)ds_(plan|rollout)|dist\/cli\.mjs|dist\/chunks\/[\w-]+\.mjs|examples\/[\w.-]+)$/;
  expect(files.filter((file) => !needed.test(file))).toEqual([]);
});

test('a global install puts only the kubectl plugin and completion executables on PATH', () => {
  const bins = execFileSync('ls', [join(dir, 'prefix', 'bin')], {encoding: 'utf8'})
    .trim()
    .split('\n');
  expect(bins).toEqual(['kubectl-ds_plan', 'kubectl-ds_rollout', 'kubectl_complete-ds_plan', 'kubectl_complete-ds_rollout']);
});

test('the installed executables run without kubectl (a snapshot) and print their version', async () => {
  const plan = await run('kubectl-ds_plan', ['kube-proxy', '-n', 'kube-system', '--snapshot', join(ROOT, scenarioPath('rollout-in-progress'))]);
  expect(plan.stderr).toBe('');
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain('kube-proxy');
  const version = await run('kubectl-ds_rollout', ['--version']);
  expect(version.stdout).toMatch(/^Client Version: v\d+\.\d+\.\d+ /);
});

describe.skipIf(skipWithoutKubectl)('through kubectl, from the install prefix', () => {
  test('kubectl plugin list finds both plugins in the prefix', async () => {
    const list = await run(kubectlPath!, ['plugin', 'list']);
    expect(list.stdout).toContain(join(dir, 'prefix', 'bin', 'kubectl-ds_plan'));
    expect(list.stdout).toContain(join(dir, 'prefix', 'bin', 'kubectl-ds_rollout'));
  });

  test('kubectl ds-plan and kubectl ds-rollout status against a live cluster', async () => {
    const plan = await run(kubectlPath!, ['ds-plan', 'fluentd', '-n', 'kube-system', '-o', 'json']);
    expect(plan.stderr).toBe('');
    expect(JSON.parse(plan.stdout)).toMatchObject({kind: 'DaemonSetRolloutPlan'});
    // One look: status watches by default, as kubectl rollout status does.
    const status = await run(kubectlPath!, ['ds-rollout', 'status', 'fluentd', '-n', 'kube-system', '--watch=false']);
    expect(status.stderr).toBe('');
    expect(status.stdout).toContain('fluentd');
    const help = await run(kubectlPath!, ['ds-rollout', '--help']);
    expect(help.stdout).toContain('kubectl ds-rollout COMMAND [flags]');
  });
});
