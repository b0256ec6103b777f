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
