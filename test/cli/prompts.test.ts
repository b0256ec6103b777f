// Every command that asks names what it acts on and the cluster, in one shape (docs/conventions.md; issue 28,
// finding 6: abort and promote did not name the cluster). Answered "n" on a terminal: nothing is deleted.
import {existsSync} from 'node:fs';
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest';
import {runCli, runOnTerminal} from '../helpers/run-cli.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

vi.setConfig({testTimeout: 60_000});

let t: TestCluster;

beforeAll(async () => {
  t = await startTestCluster({scenario: 'demo', agents: false});
  const paused = await runCli(['pause', 'fluentd', '-n', 'kube-system', '--kubeconfig', t.kubeconfig], {bin: 'bin/kubectl-ds_rollout'});
  expect(paused.code).toBe(0);
});

afterAll(async () => {
  await t?.stop();
});

describe.skipIf(!existsSync('/usr/bin/script'))('on a terminal, every prompt names the DaemonSet and the cluster', () => {
  test.each([
    ['step', /Delete these \d+ pods of kube-system\/fluentd on CLUSTER\? \[y\/N\/a\(ll waves\)\] /],
    ['undo', /Roll back kube-system\/fluentd to revision 1 on CLUSTER\? \[y\/N\] /],
    ['promote', /Promote the gated rollout of kube-system\/fluentd on CLUSTER\? \[y\/N\] /],
    ['abort', /Abort the gated rollout of kube-system\/fluentd on CLUSTER\? \[y\/N\] /],
  ])('%s', async (command, prompt) => {
    const answered = await runOnTerminal([command, 'fluentd', '-n', 'kube-system', '--kubeconfig', t.kubeconfig], 'n\n');
    const cluster = `context ds-rollout-sim (${t.cluster.url})`.replace(/[.()]/g, '\\$&');
    expect(answered.output).toMatch(new RegExp(prompt.source.replace('CLUSTER', cluster)));
    expect(t.cluster.requestLog.countMatching({verb: 'delete'})).toBe(0);
  });
});
