// Running the real kubectl against a simulated cluster: a fresh HOME and cache per session (kubectl
// caches discovery and OpenAPI per host:port for hours), one-line results, and table parsing.
import {execFile, execFileSync} from 'node:child_process';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import type {SimulatedCluster} from '../../src/sim/index.js';

function findKubectl(): string | undefined {
  try {
    const found = execFileSync('which', ['kubectl'], {encoding: 'utf8'}).trim();
    return found === '' ? undefined : found;
  } catch {
    return undefined;
  }
}

export const kubectlPath = findKubectl();

/**
 * The client's minor version (the dispatcher here reports 1.32; Debian's kubernetes-client, which .ci/run
 * installs on a machine without kubectl, is 1.20). Old clients decide some features from OpenAPI v2,
 * which the simulator serves only as an empty document.
 */
export const kubectlMinor: number = (() => {
  if (!kubectlPath) return 0;
  try {
    const out = execFileSync(kubectlPath, ['version', '--client', '-o', 'json'], {encoding: 'utf8', env: {PATH: process.env['PATH'], HOME: tmpdir()}});
    return Number.parseInt((JSON.parse(out) as {clientVersion: {minor: string}}).clientVersion.minor, 10);
  } catch {
    return 0;
  }
})();

/** Suites that need kubectl are skipped locally without it; in CI a missing kubectl fails them. */
export const skipWithoutKubectl = !process.env['CI'] && !kubectlPath;
if (skipWithoutKubectl) console.warn('kubectl not found on PATH: skipping the real-kubectl suites (they fail in CI).');

export interface Run {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number;
}

export interface KubectlSession {
  readonly dir: string;
  readonly kubeconfig: string;
  readonly env: NodeJS.ProcessEnv;
  run(...args: string[]): Promise<Run>;
  /** Runs and fails with kubectl's stderr unless it exits 0; returns stdout. */
  ok(...args: string[]): Promise<string>;
  close(): Promise<void>;
}

export async function kubectlSession(cluster: SimulatedCluster, options: {namespace?: string} = {}): Promise<KubectlSession> {
  if (!kubectlPath) throw new Error('kubectl not found on PATH: the fidelity suites need it in CI');
  const dir = await mkdtemp(join(tmpdir(), 'ds-rollout-kubectl-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await cluster.writeKubeconfig(kubeconfig, options.namespace ? {namespace: options.namespace} : {});
  const env = {PATH: process.env['PATH'], HOME: join(dir, 'home'), KUBECACHEDIR: join(dir, 'cache'), KUBECONFIG: kubeconfig};
  const run = (...args: string[]) =>
    new Promise<Run>((resolve) => {
      execFile(kubectlPath, ['--kubeconfig', kubeconfig, ...args], {env, timeout: 60_000}, (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({stdout, stderr, code});
      });
    });
  return {
    dir,
    kubeconfig,
    env,
    run,
    async ok(...args: string[]) {
      const r = await run(...args);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
      return r.stdout;
    },
    close: () => rm(dir, {recursive: true, force: true}),
  };
}

/** Splits a kubectl table into rows of cells (two or more spaces separate columns). */
export function table(text: string): string[][] {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));
}
