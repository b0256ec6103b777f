// The krew archive as a user installs it: built by `npm run package` (here: its two steps, gzip -1; the single
// executable's bundle only when older than the build), unpacked, and run with a PATH that holds no node, against a simulated
// cluster, directly and through kubectl. The manifests' sha256 must be the archive's.
import {execFile, execFileSync, spawnSync} from 'node:child_process';
import {createHash} from 'node:crypto';
import {existsSync, readFileSync, statSync} from 'node:fs';
import {mkdir, mkdtemp, readdir, rm, symlink} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {load} from 'js-yaml';
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest';
import {kubectlMinor, kubectlPath, skipWithoutKubectl} from '../helpers/kubectl.js';
import {ROOT} from '../helpers/run-cli.js';
import {archiveUri} from '../../build/release-url.mjs';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

vi.setConfig({testTimeout: 30_000, hookTimeout: 600_000});

const PJSON = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {version: string; config: {releaseBaseUrl: string}};
const VERSION = PJSON.version;
const ARCHIVE = join(ROOT, 'dist-release', `ds-rollout_${VERSION}_linux_amd64.tar.gz`);

interface KrewManifest {
  apiVersion: string;
  kind: string;
  metadata: {name: string};
  spec: {
    version: string;
    shortDescription: string;
    description: string;
    caveats: string;
    platforms: Array<{selector: {matchLabels: Record<string, string>}; uri: string; sha256: string; files: Array<{from: string; to: string}>; bin: string}>;
  };
}

let dir: string;
let bin: string;
let t: TestCluster;

/** What `npm run package`'s two steps printed on stderr: nothing, when all is well (no postject warnings). */
let packageStderr = '';

beforeAll(async () => {
  const bundle = join(ROOT, 'dist', 'cli.mjs');
  const step = (args: string[]) => {
    const result = spawnSync(process.execPath, args, {cwd: ROOT, encoding: 'utf8', env: {...process.env, DS_ROLLOUT_RELEASE_URL: ''}});
    if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${result.stderr}`);
    packageStderr += result.stderr;
  };
  const seaBundle = join(ROOT, 'dist-sea', 'main.cjs');
  if (!existsSync(seaBundle) || statSync(seaBundle).mtimeMs < statSync(bundle).mtimeMs) step(['build/bundle.mjs', '--sea']);
  // Always: the manifests, checksums and warnings are what this suite checks. --fast: a lighter gzip level, the one
  // difference from the release archive (CI's time budget).
  step(['build/package.mjs', '--fast']);
  dir = await mkdtemp(join(tmpdir(), 'ds-rollout-krew-'));
  bin = join(dir, 'unpacked');
  await mkdir(bin);
  execFileSync('tar', ['-xzf', ARCHIVE, '-C', bin]);
  t = await startTestCluster({scenario: 'demo'});
});

afterAll(async () => {
  await t?.stop();
  if (dir) await rm(dir, {recursive: true, force: true});
});

/** Runs with PATH = the unpacked archive (and, when asked, a directory holding only kubectl). */
function run(command: string, args: string[], path = bin): Promise<{code: number; stdout: string; stderr: string}> {
  const env = {PATH: path, HOME: dir, KUBECONFIG: t.kubeconfig};
  return new Promise((resolve) =>
    execFile(command, args, {env, cwd: dir}, (error, stdout, stderr) => resolve({code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr})),
  );
}

test('npm run package prints no warning', () => {
  expect(packageStderr).toBe('');
});

test('SHA256SUMS holds the archive sha256, as sha256sum -c reads it', () => {
  const sum = createHash('sha256').update(readFileSync(ARCHIVE)).digest('hex');
  expect(readFileSync(join(ROOT, 'dist-release', 'SHA256SUMS'), 'utf8')).toBe(`${sum}  ds-rollout_${VERSION}_linux_amd64.tar.gz\n`);
});

test('no krew manifest is committed: they are generated with the archive they describe', () => {
  expect(execFileSync('git', ['ls-files', '--', 'plugins', '*.yaml'], {cwd: ROOT, encoding: 'utf8'}).split('\n')).not.toContainEqual(
    expect.stringMatching(/(^|\/)plugins\//),
  );
});

test('the archive holds both binaries, their completion executables and LICENSE', async () => {
  expect((await readdir(bin)).sort()).toEqual(['LICENSE', 'kubectl-ds_plan', 'kubectl-ds_rollout', 'kubectl_complete-ds_plan', 'kubectl_complete-ds_rollout']);
  expect(readFileSync(join(bin, 'LICENSE'), 'utf8')).toContain('Apache License\n                           Version 2.0, January 2004');
});

test.each([
  ['ds-plan', 'kubectl-ds_plan'],
  ['ds-rollout', 'kubectl-ds_rollout'],
])('krew manifest %s: one binary, the archive sha256, linux/amd64', (name, binary) => {
  const manifest = load(readFileSync(join(ROOT, 'dist-release', 'plugins', `${name}.yaml`), 'utf8')) as KrewManifest;
  expect(manifest).toMatchObject({
    apiVersion: 'krew.googlecontainertools.github.com/v1alpha2',
    kind: 'Plugin',
    metadata: {name},
    spec: {version: `v${VERSION}`},
  });
  expect(manifest.spec.shortDescription.length).toBeLessThanOrEqual(80);
  expect(manifest.spec.description).not.toBe('');
  expect(manifest.spec.caveats).toContain(binary.replace('kubectl-', 'kubectl_complete-'));
  const [platform, ...others] = manifest.spec.platforms;
  expect(others).toEqual([]);
  expect(platform!.selector.matchLabels).toEqual({os: 'linux', arch: 'amd64'});
  // The one configurable base (package.json config.releaseBaseUrl) and the archive's name.
  expect(platform!.uri).toBe(archiveUri(PJSON, `ds-rollout_${VERSION}_linux_amd64.tar.gz`, {}));
  expect(platform!.sha256).toBe(createHash('sha256').update(readFileSync(ARCHIVE)).digest('hex'));
  expect(platform!.bin).toBe(binary);
  expect(platform!.files.map((file) => file.from).sort()).toEqual(['LICENSE', binary, binary.replace('kubectl-', 'kubectl_complete-')].sort());
});

describe('the binaries, with no node on PATH', () => {
  test('PATH holds no node', async () => {
    expect(await readdir(bin)).not.toContain('node');
    expect((await run('kubectl-ds_rollout', ['version', '--client'])).stdout).toMatch(/^Client Version: v.* \(ds-rollout, node v20\./);
  });

  test('kubectl-ds_plan plans a live DaemonSet', async () => {
    const plan = await run('kubectl-ds_plan', ['fluentd', '-n', 'kube-system', '-o', 'json']);
    expect(plan.stderr).toBe('');
    expect(JSON.parse(plan.stdout)).toMatchObject({kind: 'DaemonSetRolloutPlan'});
  });

  test('kubectl-ds_rollout: help, status, history, and errors as one line', async () => {
    expect((await run('kubectl-ds_rollout', ['--help'])).stdout).toContain('kubectl ds-rollout COMMAND [flags]');
    const status = await run('kubectl-ds_rollout', ['status', 'fluentd', '-n', 'kube-system', '--watch=false']);
    expect(status.stderr).toBe('');
    expect(status.stdout).toContain('fluentd');
    const history = await run('kubectl-ds_rollout', ['history', 'fluentd', '-n', 'kube-system']);
    expect(history).toMatchObject({code: 0, stderr: ''});
    expect(await run('kubectl-ds_rollout', ['status', 'nope', '-n', 'kube-system'])).toMatchObject({code: 1, stdout: ''});
  });

  test('the completion executables', async () => {
    const result = await run('kubectl_complete-ds_rollout', ['status', '-n', 'kube-system', 'flu']);
    expect(result).toEqual({code: 0, stdout: 'fluentd\n:4\n', stderr: ''});
    expect((await run('kubectl_complete-ds_plan', ['-o', ''])).stdout).toBe('text\njson\nyaml\nname\njsonpath=\n:4\n');
  });

  describe.skipIf(skipWithoutKubectl)('through kubectl', () => {
    let path: string;
    beforeAll(async () => {
      // kubectl's directory may hold node too (/usr/bin): link kubectl alone.
      await mkdir(join(dir, 'kubectl-only'));
      await symlink(kubectlPath!, join(dir, 'kubectl-only', 'kubectl'));
      path = `${bin}:${join(dir, 'kubectl-only')}`;
    });

    test('kubectl ds-plan and kubectl ds-rollout', async () => {
      const plan = await run('kubectl', ['ds-plan', 'fluentd', '-n', 'kube-system'], path);
      expect(plan).toMatchObject({code: 0, stderr: ''});
      expect(plan.stdout).toContain('fluentd');
      const version = await run('kubectl', ['ds-rollout', 'version', '-o', 'json'], path);
      expect(JSON.parse(version.stdout)).toMatchObject({kind: 'Version', serverVersion: {}});
    });

    test.skipIf(kubectlMinor < 26)('kubectl __complete', async () => {
      const result = await run('kubectl', ['__complete', 'ds-rollout', 'undo', '-n', 'kube-system', 'fl'], path);
      expect(result.stdout).toBe('fluentd\n:4\n');
    });
  });
});
