// `kubectl ds-rollout undo` end to end (BUILT bin/kubectl-ds_rollout): the preview (golden), refusals, and the
// same rollback done by the real `kubectl rollout undo` on an identical cluster, asserting the two agree.
import {existsSync} from 'node:fs';
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest';
import type {DaemonSet} from '../../src/core/index.js';
import {kubectlSession, skipWithoutKubectl, table, type KubectlSession} from '../helpers/kubectl.js';
import {runCli, runOnTerminal, type CliResult} from '../helpers/run-cli.js';
import {START_TEXT, startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

// Each test spawns the CLI (about 0.5 s per start) and shares two cores with the rest of the suite.
vi.setConfig({testTimeout: 20_000});

const ROLLOUT = {bin: 'bin/kubectl-ds_rollout'};
let ours: TestCluster;

function ds(cluster: TestCluster, ...args: string[]): Promise<CliResult> {
  return runCli([...args, '--kubeconfig', cluster.kubeconfig], ROLLOUT);
}

/**
 * Runs undo; once it has rolled the DaemonSet back, the simulated cluster's clock moves so that its controller
 * renumbers the reused revision, which undo waits for before writing the change-cause there.
 */
async function undo(cluster: TestCluster, ...args: string[]): Promise<CliResult> {
  const ticking = tickOnceRolledBack(cluster);
  try {
    return await ds(cluster, 'undo', 'fluentd', '-n', 'kube-system', '--now', START_TEXT, ...args);
  } finally {
    clearInterval(ticking);
  }
}

function tickOnceRolledBack(cluster: TestCluster): NodeJS.Timeout {
  const generation = stored(cluster).metadata.generation;
  return setInterval(() => {
    if (stored(cluster).metadata.generation !== generation) cluster.advance(100);
  }, 20);
}

function stored(cluster: TestCluster): DaemonSet {
  return cluster.cluster.store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet;
}

async function revisions(cluster: TestCluster): Promise<Array<{revision: number; hash: string; current: boolean}>> {
  const result = await ds(cluster, 'history', 'fluentd', '-n', 'kube-system', '-o', 'json');
  return (JSON.parse(result.stdout) as {revisions: Array<{revision: number; hash: string; current: boolean}>}).revisions.map(({revision, hash, current}) => ({
    revision,
    hash,
    current,
  }));
}

beforeAll(async () => {
  ours = await startTestCluster({scenario: 'demo'});
});

afterAll(async () => {
  await ours.stop();
});

describe('kubectl ds-rollout undo', () => {
  test('--dry-run: the diff, the nodes that restart, the renumbering; nothing changes', async () => {
    const rv = ours.cluster.store.resourceVersion;
    const [text, json] = await Promise.all([undo(ours, '--dry-run'), undo(ours, '--dry-run', '-o', 'json')]);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    await expect(text.stdout).toMatchFileSnapshot('../fixtures/golden/undo/demo-dry-run.txt');
    await expect(json.stdout).toMatchFileSnapshot('../fixtures/golden/undo/demo-dry-run.json');
    expect(ours.cluster.store.resourceVersion).toBe(rv);
    expect(ours.cluster.requestLog.countMatching({verb: 'patch'})).toBe(0);
  });

  test('refusals: no terminal and no --yes, an unknown revision, a snapshot', async () => {
    const [noTty, unknown, snapshot] = await Promise.all([
      undo(ours),
      undo(ours, '--to-revision', '9', '--yes'),
      runCli(['undo', 'fluentd', '--snapshot', 'x.yaml'], ROLLOUT),
    ]);
    expect([noTty.code, noTty.stdout, noTty.stderr]).toEqual([
      1,
      '',
      'error: refusing to roll back without confirmation: there is no terminal to ask on; pass --yes, or --dry-run to only look\n',
    ]);
    expect([unknown.code, unknown.stderr]).toEqual([1, 'error: unable to find specified revision 9 in history\n']);
    expect([snapshot.code, snapshot.stderr]).toEqual([1, "error: unknown flag: --snapshot; see 'kubectl ds-rollout undo --help'\n"]);
    expect(ours.cluster.requestLog.countMatching({verb: 'patch'})).toBe(0);
  });
});

describe.skipIf(!existsSync('/usr/bin/script'))('on a terminal, undo asks first', () => {
  test('no: nothing changes (exit 1); yes: rolled back', async () => {
    const cluster = await startTestCluster({scenario: 'demo', agents: false});
    try {
      const args = ['undo', 'fluentd', '-n', 'kube-system', '--kubeconfig', cluster.kubeconfig];
      const no = await runOnTerminal(args, 'n\n');
      expect(no.code).toBe(1);
      expect(no.output).toContain(`Roll back kube-system/fluentd to revision 1 on context ds-rollout-sim (${cluster.cluster.url})? [y/N] `);
      expect(no.output).toContain('error: rollback cancelled: nothing was changed');
      expect(cluster.cluster.requestLog.countMatching({verb: 'patch'})).toBe(0);
      // No controller here (agents off): undo waits its 10 s for the renumbering, then records the cause anyway.
      const yes = await runOnTerminal(args, 'y\n');
      expect(yes.code).toBe(0);
      expect(yes.output).toContain('daemonset.apps/fluentd rolled back');
      expect(stored(cluster).spec.template.spec.containers[0]!.image).toBe('fluent/fluentd:v1.16.2');
      const restored = cluster.cluster.store.list('controllerrevisions').items.find((r) => (r as {revision: number}).revision === 1) as
        {metadata: {annotations?: Record<string, string>}} | undefined;
      expect(restored?.metadata.annotations?.['kubernetes.io/change-cause']).toBe('ds-rollout undo to revision 1');
    } finally {
      await cluster.stop();
    }
  }, 40_000);
});

describe.skipIf(skipWithoutKubectl)('side by side with kubectl rollout undo', () => {
  let theirs: TestCluster;
  let kubectl: KubectlSession;

  beforeAll(async () => {
    theirs = await startTestCluster({scenario: 'demo'});
    kubectl = await kubectlSession(theirs.cluster, {namespace: 'kube-system'});
  });

  afterAll(async () => {
    await kubectl?.close();
    await theirs?.stop();
  });

  test('the same target, the same template, the same renumbered history', async () => {
    const [mine, kubectls] = await Promise.all([undo(ours, '--yes'), kubectl.run('rollout', 'undo', 'ds/fluentd')]);
    expect(mine.stderr).toBe('');
    await expect(mine.stdout).toMatchFileSnapshot('../fixtures/golden/undo/demo-applied.txt');
    expect(kubectls.stdout).toBe('daemonset.apps/fluentd rolled back\n');
    expect(mine.stdout.split('\n').at(-2)).toBe('daemonset.apps/fluentd rolled back');
    // One DaemonSet write each, the revision's data; ours then writes its change-cause onto the reused revision.
    expect(ours.cluster.requestLog.countMatching({verb: 'patch', resource: 'daemonsets'})).toBe(1);
    expect(ours.cluster.requestLog.countMatching({verb: 'patch', resource: 'controllerrevisions'})).toBe(1);
    ours.advance(1000);
    theirs.advance(1000);

    expect(stored(ours).spec.template).toEqual(stored(theirs).spec.template);
    // The DaemonSet keeps the annotation it had (a later `kubectl set image` inherits no cause of ours); the
    // revision the controller reused and renumbered carries it.
    expect(stored(ours).metadata.annotations?.['kubernetes.io/change-cause']).toBe(stored(theirs).metadata.annotations?.['kubernetes.io/change-cause']);
    const history = JSON.parse((await ds(ours, 'history', 'fluentd', '-n', 'kube-system', '-o', 'json')).stdout) as {
      revisions: Array<{revision: number; changeCause?: string}>;
    };
    expect(history.revisions.find((r) => r.revision === 3)?.changeCause).toBe('ds-rollout undo to revision 1');
    const [a, b] = await Promise.all([revisions(ours), revisions(theirs)]);
    expect(a).toEqual(b);
    expect(a.map((r) => [r.revision, r.current])).toEqual([
      [2, false],
      [3, true],
    ]);
    // And kubectl reads our cluster's history the same way.
    const kubectlOnOurs = await kubectlSession(ours.cluster, {namespace: 'kube-system'});
    try {
      expect(
        table(await kubectlOnOurs.ok('rollout', 'history', 'ds/fluentd'))
          .slice(2)
          .map((row) => Number(row[0])),
      ).toEqual([2, 3]);
    } finally {
      await kubectlOnOurs.close();
    }
  });

  test('undoing to the current revision is skipped by both, with the same words', async () => {
    const [mine, kubectls] = await Promise.all([undo(ours, '--to-revision', '3', '--yes'), kubectl.run('rollout', 'undo', 'ds/fluentd', '--to-revision=3')]);
    expect(mine.code).toBe(0);
    expect(mine.stdout).toBe('daemonset.apps/fluentd skipped rollback (current template already matches revision 3)\n');
    expect(kubectls.stdout).toBe(mine.stdout);
  });
});
