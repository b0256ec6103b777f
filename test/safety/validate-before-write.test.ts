// Issue 30, finding 2: every flag is checked, in the API's ranges (int32 where the API is int32), before the first
// request that changes anything. Each mutating command of the BUILT `kubectl ds-rollout` (`npm run build` first) runs
// with each invalid value on a live simulated cluster: exit 1, one line naming the flag, and not one write request.
import {afterAll, beforeAll, expect, test, vi} from 'vitest';
import {runCli} from '../helpers/run-cli.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

vi.setConfig({testTimeout: 60_000});

let t: TestCluster;

beforeAll(async () => {
  t = await startTestCluster({scenario: 'demo', agents: false});
});

afterAll(async () => {
  await t?.stop();
});

const WRITES = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

const CASES: {command: string; args: string[]; flag: string}[] = [
  {command: 'abort', args: ['--yes', '--max-unavailable', '200%'], flag: '--max-unavailable'},
  {command: 'abort', args: ['--yes', '--max-unavailable', '0'], flag: '--max-unavailable'},
  {command: 'abort', args: ['--yes', '--max-unavailable', '0%'], flag: '--max-unavailable'},
  {command: 'abort', args: ['--yes', '--max-unavailable', '2147483648'], flag: '--max-unavailable'},
  {command: 'abort', args: ['--yes', '--timeout', '5x'], flag: '--timeout'},
  {command: 'resume', args: ['--force', '--max-unavailable', '99999999999'], flag: '--max-unavailable'},
  {command: 'resume', args: ['--force', '--max-unavailable', '1', '--max-surge', '101%'], flag: '--max-surge'},
  {command: 'resume', args: ['--force', '--max-unavailable', '-1'], flag: '--max-unavailable'},
  {command: 'step', args: ['--yes', '--max-unavailable', '1e3'], flag: '--max-unavailable'},
  {command: 'step', args: ['--yes', '--max-unavailable', '2147483648'], flag: '--max-unavailable'},
  {command: 'step', args: ['--yes', '--max-restarts', '2147483648'], flag: '--max-restarts'},
  {command: 'step', args: ['--yes', '--timeout', '-1s'], flag: '--timeout'},
  {command: 'step', args: ['--yes', '--canary-nodes', 'worker-01', '--bake', '1y'], flag: '--bake'},
  {command: 'promote', args: ['--yes', '--timeout', 'soon'], flag: '--timeout'},
  {command: 'undo', args: ['--yes', '--to-revision', '9223372036854775808'], flag: '--to-revision'},
  {command: 'pause', args: ['--request-timeout', '0'], flag: '--request-timeout'},
];

test.each(CASES)('$command $args: exit 1 naming $flag, nothing written', async ({command, args, flag}) => {
  const writesBefore = t.cluster.requestLog.entries.filter((e) => WRITES.has(e.verb ?? '')).length;
  const result = await runCli([command, 'fluentd', '-n', 'kube-system', ...args, '--kubeconfig', t.kubeconfig], {bin: 'bin/kubectl-ds_rollout'});
  expect(result.code, result.stderr).toBe(1);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toContain(`invalid ${flag}`);
  expect(t.cluster.requestLog.entries.filter((e) => WRITES.has(e.verb ?? '')).length).toBe(writesBefore);
});
