// The fleet view (`status`, `ds-plan` and `history` with --contexts / --all-contexts), BUILT CLI: three simulated
// clusters in this process and ONE kubeconfig with a context each, as a fleet operator has, plus a context whose
// user may read nothing (RBAC: forbidden) and one pointing at a closed port (unreachable). Every cluster is a row,
// none ends the command; the exit code is the worst cluster's; the last line counts them.
import {existsSync} from 'node:fs';
import {writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {dump} from 'js-yaml';
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest';
import type {DaemonSet} from '../../src/core/index.js';
import {closedPort, fleetKubeconfig} from '../helpers/fleet-kubeconfig.js';
import {runCli, type CliResult} from '../helpers/run-cli.js';
import {START, startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

vi.setConfig({testTimeout: 30_000});

const ROLLOUT = {bin: 'bin/kubectl-ds_rollout'};
const NOW = ['--now', new Date(START).toISOString().replace('.000Z', 'Z')];

/** One kubeconfig holding a context per `name: cluster` (each cluster's own entries, renamed), current-context the first. */
function kubeconfigOf(members: ReadonlyArray<readonly [string, TestCluster, {user?: Record<string, unknown>; server?: string}?]>): string {
  return fleetKubeconfig(
    members.map(([name, t, override]) => ({name, kubeconfig: t.cluster.kubeconfigYaml({context: name, namespace: 'kube-system'}), ...override})),
  );
}

describe('the fleet view: three clusters, a forbidding user and a closed port in one kubeconfig', () => {
  let staging: TestCluster;
  let east: TestCluster;
  let west: TestCluster;
  let kubeconfig: string;
  let down: string;
  let viewerToken: string;
  let marker: string;
  const run = (...args: string[]): Promise<CliResult> => runCli([...args, '--kubeconfig', kubeconfig, ...NOW], ROLLOUT);

  beforeAll(async () => {
    // staging: fluentd rolled out; prod-east: a rollout in progress; prod-west: no fluentd at all.
    [staging, east, west] = await Promise.all([
      startTestCluster({scenario: 'large', nodes: 3}),
      startTestCluster({scenario: 'demo'}),
      startTestCluster({scenario: 'empty', agents: false}),
    ]);
    down = `https://127.0.0.1:${await closedPort()}`;
    viewerToken = east.cluster.issueToken('viewer');
    marker = join(staging.dir, 'exec-ran');
    kubeconfig = join(staging.dir, 'fleet-kubeconfig');
    await writeFile(
      kubeconfig,
      kubeconfigOf([
        ['staging', staging],
        ['prod-east', east],
        ['prod-west', west],
        // A user without system:masters: the simulated API server lets it read nothing (403).
        ['prod-viewer', east, {user: {token: viewerToken}}],
        ['prod-down', staging, {server: down}],
        // A credential plugin that leaves a mark and fails: run only when its context is asked.
        ['qa-exec', staging, {user: {exec: {apiVersion: 'client.authentication.k8s.io/v1', command: 'sh', args: ['-c', `touch '${marker}'; exit 1`]}}}],
      ]),
      {mode: 0o600},
    );
  });

  afterAll(async () => {
    await Promise.all([staging, east, west].map((t) => t?.stop()));
  });

  test('--contexts resolves only the contexts asked: no other credential plugin runs', async () => {
    const result = await run('status', 'fluentd', '--contexts', 'staging,prod-*', '-o', 'json');
    expect(result.code).toBe(2);
    expect(existsSync(marker)).toBe(false);
  });

  test('status --all-contexts: one row per cluster, the worst exit code (unreachable: 2), the count line', async () => {
    const result = await run('status', 'fluentd', '--all-contexts');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(2);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^CONTEXT +VERDICT +REVISION +BUDGET +BLOCKER$/);
    expect(lines.slice(1, 6)).toEqual([
      expect.stringMatching(/^staging +complete +1 +- *$/),
      expect.stringMatching(/^prod-east +progressing +1->2 +\d+\/\d+ (unavailable|surge)/),
      expect.stringMatching(/^prod-west +not found +- +- +daemonset "fluentd" not found in namespace "kube-system"$/),
      expect.stringMatching(/^prod-viewer +forbidden +- +- +forbidden: cannot get daemonsets/),
      expect.stringMatching(new RegExp(`^prod-down +unreachable +- +- +.*${down.replace(/\./g, '\\.')}`)),
    ]);
    // Asked, the plugin runs, fails, and its context is a row like any other.
    expect(lines[6]).toMatch(/^qa-exec +forbidden +- +- +.*sh.* failed \(exit status 1\)/);
    expect(existsSync(marker)).toBe(true);
    expect(lines[7]).toBe('6 clusters: 1 complete, 1 progressing, 1 not found, 2 forbidden, 1 unreachable');
    expect(lines).toHaveLength(8);
  });

  test("--contexts takes names and patterns in the order given; the exit code is the worst cluster's", async () => {
    const both = await run('status', 'fluentd', '--contexts', 'prod-e*,staging');
    expect([both.code, both.stderr]).toEqual([4, '']);
    expect(both.stdout.split('\n').map((line) => line.split(' ')[0])).toEqual(['CONTEXT', 'prod-east', 'staging', '2', '']);
    expect(both.stdout).toMatch(/\n2 clusters: 1 complete, 1 progressing\n$/);
    const one = await run('status', 'ds/fluentd', '--contexts', 'staging');
    expect([one.code, one.stdout.trimEnd().split('\n').at(-1)]).toEqual([0, '1 cluster: 1 complete']);
    const missing = await run('status', 'fluentd', '--contexts', 'staging,prod-west');
    expect(missing.code).toBe(1);
  });

  test('each cluster has its own --request-timeout: a frozen one is an unreachable row, the others answer', async () => {
    const thaw = east.cluster.delay({resource: 'daemonsets', ms: 5_000});
    try {
      const result = await run('status', 'fluentd', '--contexts', 'staging,prod-east', '--request-timeout', '300ms');
      expect([result.code, result.stderr]).toEqual([2, '']);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines[1]).toMatch(/^staging +complete +1 +-$/);
      expect(lines[2]).toMatch(/^prod-east +unreachable +- +- +\S/);
      expect(lines[3]).toBe('2 clusters: 1 complete, 1 unreachable');
    } finally {
      thaw();
    }
  });

  test('-o json keys each result by context: the report, or the error with its reason', async () => {
    const result = await run('status', 'fluentd', '--contexts', 'staging,prod-*', '-o', 'json');
    expect(result.code).toBe(2);
    const document = JSON.parse(result.stdout) as {
      kind: string;
      exitCode: number;
      summary: {clusters: number; counts: Record<string, number>};
      contexts: Record<
        string,
        {server?: string; state: string; exitCode: number; result?: {kind: string; verdict: string}; error?: {reason: string; message: string}}
      >;
    };
    expect([document.kind, document.exitCode]).toEqual(['DaemonSetRolloutStatusFleet', 2]);
    expect(Object.keys(document.contexts)).toEqual(['staging', 'prod-east', 'prod-west', 'prod-viewer', 'prod-down']);
    expect(document.summary).toEqual({clusters: 5, counts: {complete: 1, progressing: 1, 'not found': 1, forbidden: 1, unreachable: 1}});
    expect(document.contexts['staging']).toMatchObject({server: staging.cluster.url, state: 'complete', exitCode: 0, result: {verdict: 'complete'}});
    expect(document.contexts['prod-east']).toMatchObject({state: 'progressing', exitCode: 4, result: {kind: 'DaemonSetRolloutStatus', verdict: 'progressing'}});
    expect(document.contexts['prod-west']).toMatchObject({exitCode: 1, error: {reason: 'NotFound'}});
    expect(document.contexts['prod-viewer']).toMatchObject({exitCode: 2, error: {reason: 'Forbidden'}});
    expect(document.contexts['prod-down']).toMatchObject({exitCode: 2, error: {reason: 'Unreachable'}});
    // No credential in the output: the viewer's token and the admin's are in the kubeconfig only.
    expect(result.stdout).not.toContain(viewerToken);
  });

  test('ds-plan and history take the same flags: one table each, a row per cluster', async () => {
    const [plan, history] = await Promise.all([
      runCli(['fluentd', '--contexts', 'staging,prod-east,prod-west', '--kubeconfig', kubeconfig, ...NOW]),
      run('history', 'fluentd', '--contexts', 'staging,prod-east,prod-viewer'),
    ]);
    expect([plan.code, plan.stderr]).toEqual([1, '']);
    const planLines = plan.stdout.trimEnd().split('\n');
    expect(planLines[0]).toMatch(/^CONTEXT +VERDICT +REVISION +BUDGET +WAVES +ETA +BLOCKER$/);
    expect(planLines[1]).toMatch(/^staging +complete +1 +- +0 +- *$/);
    expect(planLines[2]).toMatch(/^prod-east +(progressing|stuck) +1->2 +\d+\/\d+ \w+ +\d+ /);
    expect(planLines[3]).toMatch(/^prod-west +not found +- +- +- +- +daemonset "fluentd" not found/);
    expect(planLines[4]).toMatch(/^3 clusters: 1 complete, 1 (progressing|stuck), 1 not found$/);

    expect([history.code, history.stderr]).toEqual([2, '']);
    const historyLines = history.stdout.trimEnd().split('\n');
    expect(historyLines[0]).toMatch(/^CONTEXT +STATE +REVISION +REVISIONS +PODS +IMAGES$/);
    expect(historyLines[1]).toMatch(/^staging +current +1 +1 +3\/3 +\S+$/);
    expect(historyLines[2]).toMatch(/^prod-east +mixed +2 +2 +\d+\/\d+ +\S+$/);
    expect(historyLines[3]).toMatch(/^prod-viewer +forbidden +- +- +- +forbidden: /);
    expect(historyLines[4]).toBe('3 clusters: 1 current, 1 mixed, 1 forbidden');
  });

  test('ds-plan -f MANIFEST --contexts: the manifest planned on every cluster, its change summarised in one line each', async () => {
    // staging's fluentd with a new image: an update there and on prod-east, a create on prod-west.
    const stored = staging.cluster.store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet;
    const [main, ...others] = stored.spec.template.spec.containers;
    const manifest = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: {name: 'fluentd', namespace: 'kube-system', labels: stored.metadata.labels ?? {}},
      spec: {
        ...stored.spec,
        template: {...stored.spec.template, spec: {...stored.spec.template.spec, containers: [{...main!, image: 'fluent/fluentd:v1.18.0'}, ...others]}},
      },
    };
    const path = join(staging.dir, 'fluentd-next.yaml');
    await writeFile(path, dump(manifest));
    const result = await runCli(['-f', path, '--kubeconfig', kubeconfig, ...NOW, '--contexts', 'staging,prod-east,prod-west,prod-viewer']);
    expect([result.code, result.stderr]).toEqual([2, '']);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^CONTEXT +VERDICT +REVISION +BUDGET +WAVES +ETA +CHANGE$/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^staging +progressing +1->2 +0\/2 unavailable +\d+ +\S+ +fluentd: fluent\/fluentd:v1\.16\.2 -> fluent\/fluentd:v1\.18\.0$/),
      // The rollout under way there goes on to a third revision, from the second's template.
      expect.stringMatching(/^prod-east +\w+ +1->3 +.* fluentd: fluent\/fluentd:v1\.17\.0 -> fluent\/fluentd:v1\.18\.0$/),
      expect.stringMatching(/^prod-west +\w+ +1 +.* creates it; fluentd: fluent\/fluentd:v1\.18\.0$/),
      expect.stringMatching(/^prod-viewer +forbidden +- +- +- +- +forbidden: /),
      '4 clusters: 3 progressing, 1 forbidden',
    ]);
    // Planned, not applied: each cluster's API server only dry-ran it.
    expect((staging.cluster.store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet).spec.template.spec.containers[0]!.image).toBe(main!.image);
    expect(west.cluster.store.get('daemonsets', 'kube-system', 'fluentd')).toBeUndefined();

    const json = await runCli(['-f', path, '--kubeconfig', kubeconfig, ...NOW, '--contexts', 'staging,prod-west', '-o', 'json']);
    expect(json.code).toBe(0);
    const document = JSON.parse(json.stdout) as {contexts: Record<string, {result: {kind: string; update: {from: string; to: string; diff: string}}}>};
    expect(document.contexts['staging']!.result).toMatchObject({
      kind: 'DaemonSetRolloutPlan',
      update: {from: expect.stringMatching(/^revision 1 /) as string, to: path},
    });
    expect(document.contexts['staging']!.result.update.diff).toContain('+  fluentd: fluent/fluentd:v1.18.0');
    expect(document.contexts['prod-west']!.result.update.from).toBe('(daemonset "fluentd" does not exist yet)');
  });

  test('dashboard --contexts without a terminal prints what status --contexts prints, with its exit code', async () => {
    const [dashboard, status] = await Promise.all([
      // Both on each cluster's clock: the dashboard has no --now.
      runCli(['dashboard', 'fluentd', '--contexts', 'staging,prod-east,prod-west', '--kubeconfig', kubeconfig], ROLLOUT),
      runCli(['status', 'fluentd', '--contexts', 'staging,prod-east,prod-west', '--kubeconfig', kubeconfig], ROLLOUT),
    ]);
    expect([dashboard.code, dashboard.stderr]).toEqual([1, '']);
    // The same table (the demo's rollout may move a pod between the two looks: compare contexts and verdicts).
    const words = (stdout: string) => stdout.split('\n').map((line) => line.split(/ {2,}/).slice(0, 2).join(' '));
    expect(words(dashboard.stdout)).toEqual(words(status.stdout));
    expect(dashboard.stdout).toMatch(/\n3 clusters: 1 complete, 1 progressing, 1 not found\n$/);
  });

  test('bad input: one line, exit 1, no cluster asked', async () => {
    const before = [staging, east, west].map((t) => t.cluster.requestLog.count);
    const cases: Array<[string[], string]> = [
      [['status', 'fluentd', '--contexts', 'nope'], 'error: context "nope" does not exist in the kubeconfig'],
      [['status', 'fluentd', '--contexts', 'dev-*'], 'error: --contexts pattern "dev-*" matches no context of the kubeconfig'],
      [
        ['status', '--all-contexts'],
        "error: --contexts and --all-contexts need NAME (the DaemonSet to ask every cluster for); see 'kubectl ds-rollout status --help'",
      ],
      [
        ['status', 'fluentd', '--all-contexts', '--context', 'staging'],
        expect.stringMatching(/^error: --context overrides one context; it cannot be used with --contexts/) as never,
      ],
      [['status', 'fluentd', '--all-contexts', '-w'], 'error: --contexts looks once at every cluster: drop -w (or use --watch=false)'],
      [['history', 'fluentd', '--all-contexts', '--revision', '1'], 'error: --revision and --diff read one cluster: they cannot be used with --contexts'],
    ];
    const results = await Promise.all(cases.map(([args]) => run(...args)));
    results.forEach((result, index) => {
      expect([result.code, result.stdout, result.stderr.trimEnd()]).toEqual([1, '', cases[index]![1]]);
    });
    expect([staging, east, west].map((t) => t.cluster.requestLog.count)).toEqual(before);
  });
});
