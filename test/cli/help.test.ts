// Help reads as the user typed it: `kubectl ds-rollout step`, not oclif's `ds rollout step`.
import {expect, test} from 'vitest';
import {runCli} from '../helpers/run-cli.js';

test('kubectl ds-rollout lists its commands under the kubectl spelling', async () => {
  const {stdout, code} = await runCli([], {bin: 'bin/kubectl-ds_rollout'});
  expect(code).toBe(0);
  expect(stdout).toContain('Usage:\n  kubectl ds-rollout COMMAND [flags]');
  expect(stdout).toMatch(/^ {2}step {10,}Replace the next wave/m);
  expect(stdout).not.toMatch(/^ {2}rollout /m);
});

test('the oclif entry keeps its own spelling', async () => {
  const {stdout} = await runCli(['rollout'], {bin: 'bin/run.js'});
  expect(stdout).toContain('Usage:\n  ds rollout COMMAND [flags]');
});

test('kubectl ds-plan --help shows the kubectl usage line and real examples', async () => {
  const {stdout, code} = await runCli(['--help']);
  expect(code).toBe(0);
  expect(stdout).toContain('Usage:\n  kubectl ds-plan [NAME] [flags]');
  expect(stdout).toContain('  kubectl ds-plan fluentd -n kube-system --snapshot cluster.yaml\n');
});

// Issue 28, findings 3 and 8: `help` was an unknown command, and the root help sent users to docs/commands/, which
// the packages do not contain.
test('kubectl ds-rollout help [COMMAND] is --help; the root help gives the docs an address and names the glossary', async () => {
  const [help, flag, step, stepFlag] = await Promise.all([
    runCli(['help'], {bin: 'bin/kubectl-ds_rollout'}),
    runCli(['--help'], {bin: 'bin/kubectl-ds_rollout'}),
    runCli(['help', 'step'], {bin: 'bin/kubectl-ds_rollout'}),
    runCli(['step', '--help'], {bin: 'bin/kubectl-ds_rollout'}),
  ]);
  expect([help.code, help.stderr, help.stdout]).toEqual([0, '', flag.stdout]);
  expect([step.code, step.stderr, step.stdout]).toEqual([0, '', stepFlag.stdout]);
  expect(help.stdout.replace(/\n/g, ' ')).toContain('https://github.com/ds-rollout/ds-rollout/tree/main/docs');
  expect(help.stdout).toContain('glossary');
  expect(help.stdout).not.toContain('docs/commands/');
});

// Issue 29: `[COMMAND] --help` prints the text the help class rendered when the bundle was built, without loading
// oclif. `help [COMMAND]` still renders it through oclif at run time: the two must be the same bytes.
test('the help built into the bundle is what the help class renders at run time', async () => {
  const cases: Array<[bin: string, built: string[], live: string[]]> = [
    ['bin/kubectl-ds_plan', ['--help'], ['help']],
    ['bin/kubectl-ds_plan', ['-h'], ['help']],
    ['bin/kubectl-ds_rollout', ['--help'], ['help']],
    ['bin/kubectl-ds_rollout', ['step', '-h'], ['help', 'step']],
    ['bin/kubectl-ds_rollout', ['sim', '--help'], ['help', 'sim']],
    ['bin/kubectl-ds_rollout', ['sim', 'start', '--help'], ['help', 'sim', 'start']],
  ];
  for (const [bin, built, live] of cases) {
    const [fast, rendered] = await Promise.all([runCli(built, {bin}), runCli(live, {bin})]);
    expect([fast.code, fast.stderr], `${bin} ${built.join(' ')}`).toEqual([0, '']);
    expect(fast.stdout, `${bin} ${built.join(' ')}`).toBe(rendered.stdout);
  }
  // The oclif spelling (an empty KUBECTL_DS_INVOKED_AS) is rendered at run time, never the kubectl text.
  const oclif = await runCli(['--help'], {env: {KUBECTL_DS_INVOKED_AS: ''}});
  expect(oclif.stdout).toContain('Usage:\n  ds plan [NAME] [flags]');
});
