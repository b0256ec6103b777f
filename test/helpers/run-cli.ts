// Runs a BUILT entry point (bin/kubectl-ds_plan by default) in a child process, as kubectl would.
// `npm test` builds first; run `npm run build` before `vitest run test/cli` by hand.
import {execFile} from 'node:child_process';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface CliResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number;
}

export interface RunOptions {
  /** Written to the child's stdin, which is then closed (it is always closed, so `-` never waits). */
  readonly stdin?: string;
  /** Added to a minimal environment (PATH, HOME): no colour, no DEBUG, unless a test asks for them. */
  readonly env?: Readonly<Record<string, string>>;
  /** Entry point relative to the project root. */
  readonly bin?: string;
}

export function runCli(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  const env = {PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env};
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [join(ROOT, options.bin ?? 'bin/kubectl-ds_plan'), ...args],
      {cwd: ROOT, env, maxBuffer: 64 * 1024 * 1024, timeout: 60_000},
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') {
          reject(error);
          return;
        }
        resolve({stdout, stderr, code: typeof error?.code === 'number' ? error.code : 0});
      },
    );
    child.stdin?.end(options.stdin ?? '');
  });
}

/** Path of a scenario's cluster.yaml, relative to the project root (as a user would type it). */
export function scenarioPath(name: string): string {
  return `test/fixtures/scenarios/${name}/cluster.yaml`;
}

/** Live text output starts by naming the cluster: checks that line (context and server) and returns the rest. */
export function afterClusterHeader(stdout: string, server: string, context = 'ds-rollout-sim'): string {
  const [first, ...rest] = stdout.split('\n');
  if (first !== `Cluster: context ${context} (${server})`) throw new Error(`expected the cluster header, got: ${first}`);
  return rest.join('\n');
}

/** Runs the built CLI on a pseudo-terminal (util-linux `script`), typing `answer`; output is the terminal's, escapes removed. */
export function runOnTerminal(args: readonly string[], answer: string, options: {readonly bin?: string} = {}): Promise<{output: string; code: number}> {
  const quoted = [process.execPath, join(ROOT, options.bin ?? 'bin/kubectl-ds_rollout'), ...args].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
  return new Promise((resolve) => {
    const child = execFile(
      'script',
      ['-qec', quoted, '/dev/null'],
      {env: {PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', NO_COLOR: '1'}, timeout: 30_000},
      (error, stdout) => resolve({output: stdout.replace(/\u001B\[[0-9;]*[A-Za-z]/g, ''), code: typeof error?.code === 'number' ? error.code : 0}),
    );
    child.stdin?.end(answer);
  });
}
