// Every command's --help in kubectl's shape: a description, Examples, the command's own flags, Usage, and the
// pointer to `kubectl ds-rollout options`; within one screen (40 lines of at most 80 columns). Through the built
// CLI, as kubectl runs it (`npm run build` first).
import {describe, expect, test} from 'vitest';
import {COMMANDS} from '../../src/cli.js';
import {runCli} from '../helpers/run-cli.js';

const KUBECTL = {KUBECTL_DS_INVOKED_AS: 'kubectl'};
const OPTIONS_LINE = 'Use "kubectl ds-rollout options" for the connection flags.';
const CONNECTION_FLAGS = ['--namespace', '--context', '--kubeconfig', '--request-timeout', '--cluster', '--user', '--server', '--token', '--as'];

/** `rollout:sim:start` as the user types it: the binary and the words after it. */
function invocation(id: string): {bin: string; words: string[]; typed: string} {
  const [plugin, ...words] = id.split(':');
  return {bin: `bin/kubectl-ds_${plugin}`, words, typed: ['kubectl', `ds-${plugin}`, ...words].join(' ')};
}

function expectOneScreen(stdout: string): void {
  const lines = stdout.replace(/\n$/, '').split('\n');
  expect(lines.length, stdout).toBeLessThanOrEqual(40);
  for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
}

describe.each(Object.keys(COMMANDS))('%s --help', (id) => {
  test('kubectl shape, one screen, runnable examples', async () => {
    const {bin, words, typed} = invocation(id);
    const {stdout, stderr, code} = await runCli([...words, '--help'], {bin, env: KUBECTL});
    expect({code, stderr}).toEqual({code: 0, stderr: ''});
    expectOneScreen(stdout);

    // Description first, then the sections in kubectl's order.
    const headings = stdout.split('\n').filter((line) => /^(?:Examples|Flags|[A-Z][a-z ]* flags|Usage):$/.test(line));
    expect(headings[0]).toBe('Examples:');
    expect(headings.at(-1)).toBe('Usage:');
    expect(stdout).not.toMatch(/FLAGS FLAGS|CONNECTION/);
    expect(stdout.indexOf('Examples:')).toBeGreaterThan(0);

    // Each example is `  # what` then command lines that run as written: no continuation joining two commands.
    const examples = stdout.slice(stdout.indexOf('Examples:'), stdout.search(/\n\n(?:[^\n]*[Ff]lags|Usage):\n/));
    const commands = examples.split('\n').filter((line) => line.startsWith('  ') && !line.startsWith('  #'));
    expect(commands.length).toBeGreaterThan(0);
    for (const line of commands) {
      expect(line).toMatch(/^ {2}(?:kubectl |source <\(kubectl |eval "\$\(kubectl )/);
      expect(line).not.toMatch(/\\$/);
    }
    expect(commands.some((line) => line.includes(typed))).toBe(true);

    // Usage names the command and its arguments, then [flags]: never the connection flags.
    const usage = stdout.slice(stdout.indexOf('Usage:\n') + 'Usage:\n'.length).split('\n')[0]!;
    expect(usage.startsWith(`  ${typed}`)).toBe(true);
    expect(usage).not.toMatch(/--/);

    // The connection flags are left to `options`, and pointed at, whenever the command takes them.
    const flags = (COMMANDS[id]!.flags ?? {}) as Record<string, {helpGroup?: string}>;
    const takesConnection = Object.values(flags).some((flag) => flag.helpGroup === 'CONNECTION');
    for (const name of CONNECTION_FLAGS) if (takesConnection) expect(stdout).not.toContain(`${name}=`);
    expect(stdout.trimEnd().endsWith(OPTIONS_LINE)).toBe(takesConnection);
  });
});

describe('topics', () => {
  test('kubectl ds-rollout --help lists every command and topic once, each on one line', async () => {
    const {stdout, code} = await runCli(['--help'], {bin: 'bin/kubectl-ds_rollout', env: KUBECTL});
    expect(code).toBe(0);
    expectOneScreen(stdout);
    const listed = stdout
      .slice(stdout.indexOf('Available Commands:\n'), stdout.indexOf('\n\nUsage:'))
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/)[0]);
    const expected = [...new Set(Object.keys(COMMANDS).flatMap((id) => (id.startsWith('rollout:') ? [id.split(':')[1]!] : [])))].sort();
    expect(listed).toEqual(expected);
    // The sim topic has its own description, not one of its commands' summaries.
    expect(stdout).toMatch(/^ {2}sim {2,}A simulated cluster to try rollouts on\.$/m);
    expect(stdout).toContain('Use "kubectl ds-rollout COMMAND --help" for more about a command.');
  });

  test('kubectl ds-rollout sim --help lists its commands in one column', async () => {
    const {stdout, code} = await runCli(['sim', '--help'], {bin: 'bin/kubectl-ds_rollout', env: KUBECTL});
    expect(code).toBe(0);
    expectOneScreen(stdout);
    expect(stdout).toMatch(/^ {2}kubelets {2,}Play the kubelets/m);
    expect(stdout).toMatch(/^ {2}start {2,}Run a simulated cluster/m);
    expect(stdout).toContain('kubectl ds-rollout sim COMMAND [flags]');
  });
});

describe('bugs of the old help', () => {
  test('sim start shows no empty alternative, undo claims no change-cause patch, -n says nothing of --snapshot', async () => {
    const rollout = (...args: string[]) => runCli(args, {bin: 'bin/kubectl-ds_rollout', env: KUBECTL});
    expect((await rollout('sim', 'start', '--help')).stdout).not.toContain('| ]');
    expect((await rollout('undo', '--help')).stdout).not.toContain('same patch');
    for (const verb of ['step', 'pause', 'promote', 'abort']) expect((await rollout(verb, '--help')).stdout).not.toContain('--snapshot');
  });
});

describe('kubectl ds-rollout options', () => {
  test('lists every connection flag, as kubectl options does', async () => {
    const {stdout, stderr, code} = await runCli(['options'], {bin: 'bin/kubectl-ds_rollout', env: KUBECTL});
    expect({code, stderr}).toEqual({code: 0, stderr: ''});
    for (const name of [...CONNECTION_FLAGS, '--as-group', '--certificate-authority', '--insecure-skip-tls-verify', '--tls-server-name']) {
      expect(stdout).toContain(name);
    }
    expect(stdout).toContain('-n, --namespace=NAMESPACE');
    expect(stdout).toMatch(/--request-timeout=DURATION .*\(default\s+15s;/);
    for (const line of stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
  });
});
