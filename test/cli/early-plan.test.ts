// Issue 29: a plain live `kubectl ds-plan NAME` sends its reads before oclif and the planner load (src/cli/early-plan.ts).
// The same requests, the same plan, the same failures; any other form of the command opens its session as before.
import {afterAll, beforeAll, expect, test, vi} from 'vitest';
import {plainLivePlan, startEarlyPlan, takeEarlyPlan} from '../../src/cli/early-plan.js';
import {runCli} from '../helpers/run-cli.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

vi.setConfig({testTimeout: 30_000});

let t: TestCluster;

beforeAll(async () => {
  t = await startTestCluster({scenario: 'demo'});
});

afterAll(async () => {
  await t.stop();
});

test('only the plain form of a live plan is read early', () => {
  expect(plainLivePlan(['fluentd', '-n', 'kube-system', '--kubeconfig', 'k', '--context', 'c', '-o', 'json'])).toEqual({
    name: 'fluentd',
    connection: {namespace: 'kube-system', kubeconfig: 'k', context: 'c'},
  });
  expect(plainLivePlan(['fluentd'])).toEqual({name: 'fluentd', connection: {}});
  for (const args of [
    [],
    ['-n', 'kube-system'],
    ['ds/fluentd'],
    ['ds', 'fluentd'],
    ['daemonsets.apps'],
    ['Fluentd'],
    ['fluentd', 'other'],
    ['fluentd', '-n', 'a', '-n', 'b'],
    ['fluentd', '-n', 'Bad_NS'],
    ['fluentd', '-n'],
    ['fluentd', '-n', '--context'],
    ['fluentd', '--namespace=kube-system'],
    ['fluentd', '-o', 'wide'],
    ['fluentd', '--now', '2024-01-01T00:00:00Z'],
    ['fluentd', '--snapshot', 'cluster.yaml'],
    ['fluentd', '--request-timeout', '15s'],
    ['fluentd', '--', '-n'],
  ])
    expect(plainLivePlan(args), args.join(' ')).toBeUndefined();
});

test('read early or not: the same requests and the same plan', async () => {
  const requests = async (args: string[]) => {
    const before = t.cluster.requestLog.count;
    const result = await runCli(args);
    return {
      result,
      sent: t.cluster.requestLog.entries
        .slice(before)
        .map((entry) => `${entry.method} ${entry.path}`)
        .sort(),
    };
  };
  // --request-timeout at its default is not the plain form: that run opens its session after oclif parsed it.
  const early = await requests(['fluentd', '-n', 'kube-system', '--kubeconfig', t.kubeconfig, '-o', 'json']);
  const late = await requests(['fluentd', '-n', 'kube-system', '--kubeconfig', t.kubeconfig, '-o', 'json', '--request-timeout', '15s']);
  expect(early.result.stderr).toBe('');
  expect(early.result.code).toBe(0);
  expect(early.result.stdout).toBe(late.result.stdout);
  expect(early.sent).toEqual(late.sent);
  expect(early.sent).toHaveLength(5);
});

test('a failure of the early session is the command failure it would have been', async () => {
  const args = ['fluentd', '-n', 'kube-system', '--kubeconfig', `${t.dir}/missing-kubeconfig`];
  const [early, late] = await Promise.all([runCli(args), runCli([...args, '--request-timeout', '15s'])]);
  expect(early.code).not.toBe(0);
  expect([early.code, early.stderr, early.stdout]).toEqual([late.code, late.stderr, late.stdout]);
  const missing = await runCli(['nothere', '-n', 'kube-system', '--kubeconfig', t.kubeconfig]);
  const missingLate = await runCli(['nothere', '-n', 'kube-system', '--kubeconfig', t.kubeconfig, '--request-timeout', '15s']);
  expect(missing.code).not.toBe(0);
  expect([missing.code, missing.stderr]).toEqual([missingLate.code, missingLate.stderr]);
});

test('the command takes the early session only for the same name and connection, once', async () => {
  const flags = {namespace: 'kube-system', kubeconfig: t.kubeconfig, 'request-timeout': 15_000, output: 'json', 'all-nodes': false};
  await startEarlyPlan(['fluentd', '-n', 'kube-system', '--kubeconfig', t.kubeconfig, '-o', 'json']);
  const taken = takeEarlyPlan('fluentd', flags);
  expect(taken).toBeDefined();
  const session = await taken!;
  const state = await session.source.readState({namespace: 'kube-system', name: 'fluentd'});
  expect(state.daemonSet.metadata.name).toBe('fluentd');
  expect(state.nodes.length).toBeGreaterThan(0);
  session.close();
  expect(takeEarlyPlan('fluentd', flags)).toBeUndefined();

  for (const [name, other] of [
    ['fluentd', {...flags, namespace: 'default'}],
    ['other', flags],
    ['fluentd', {...flags, 'request-timeout': 5_000}],
    ['fluentd', {...flags, now: 0}],
  ] as const) {
    await startEarlyPlan(['fluentd', '-n', 'kube-system', '--kubeconfig', t.kubeconfig]);
    expect(takeEarlyPlan(name, other), JSON.stringify(other)).toBeUndefined();
  }
});
