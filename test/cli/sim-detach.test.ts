// `sim start --detach` returns once the API serves, printing the line that points kubectl at it; `sim stop` ends it by
// name or port (issue 28, finding 1: the quick start's `sim start &` raced the next command to the kubeconfig).
import {existsSync} from 'node:fs';
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {load} from 'js-yaml';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest';
import {runCli} from '../helpers/run-cli.js';
import {stopDetachedSims} from '../helpers/sim-cluster.js';

vi.setConfig({testTimeout: 60_000});

const ROLLOUT = 'bin/kubectl-ds_rollout';
let dir: string;
// Each test's clusters are recorded in its own temp directory, so none meets another run's.
const rollout = (args: readonly string[], env: Record<string, string> = {}) => runCli(args, {bin: ROLLOUT, env: {TMPDIR: dir, ...env}});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ds-rollout-detach-'));
});

afterAll(async () => {
  // Whatever a failed test left running.
  await stopDetachedSims(dir);
  await rm(dir, {recursive: true, force: true});
});

describe('sim start --detach, then sim stop', () => {
  test('ready when it returns: the export line on stdout, the kubeconfig written, the API serving; stop by name', async () => {
    const started = await rollout(['sim', 'start', '--detach']);
    expect(started.code).toBe(0);
    const kubeconfig = /^export KUBECONFIG=(\S+)\n$/.exec(started.stdout)?.[1];
    expect(kubeconfig).toMatch(new RegExp(`^${dir}/ds-rollout-sim-\\d+\\.kubeconfig$`));
    expect(started.stderr).toMatch(
      /^Simulated cluster "demo" serving at https:\/\/127\.0\.0\.1:\d+ \(pid \d+, log .*\); stop it with: kubectl ds-rollout sim stop demo\n$/,
    );
    const plan = await runCli(['fluentd', '-n', 'kube-system', '-o', 'jsonpath={.daemonSet.name}'], {env: {KUBECONFIG: kubeconfig!}});
    expect([plan.code, plan.stdout, plan.stderr]).toEqual([0, 'fluentd', '']);

    const again = await rollout(['sim', 'start', '-d']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /^error: a simulated cluster named "demo" is already running \(port \d+\): stop it with kubectl ds-rollout sim stop demo, or pass --name\n$/,
    );

    const stopped = await rollout(['sim', 'stop', 'demo']);
    expect([stopped.code, stopped.stderr]).toEqual([0, '']);
    expect(stopped.stdout).toMatch(/^Simulated cluster "demo" \(port \d+\) stopped\.\n$/);
    expect(existsSync(kubeconfig!)).toBe(false);
    const gone = await rollout(['sim', 'stop', 'demo']);
    expect([gone.code, gone.stderr]).toEqual([1, 'error: no simulated cluster "demo" is running\n']);
  });

  test('two at once, by --name and by port; sim stop without a name refuses to choose', async () => {
    const a = await rollout(['sim', 'start', '-d', '--scenario', 'empty', '--name', 'a']);
    const b = await rollout(['sim', 'start', '-d', '--scenario', 'empty', '--name', 'b']);
    expect([a.code, b.code]).toEqual([0, 0]);
    const portOf = (result: {stdout: string}) => /ds-rollout-sim-(\d+)\.kubeconfig/.exec(result.stdout)![1]!;
    const which = await rollout(['sim', 'stop']);
    expect(which.code).toBe(1);
    expect(which.stderr).toBe(
      `error: several simulated clusters are running: name one (${[a, b]
        .map((started, index) => ({port: Number(portOf(started)), name: 'ab'[index]}))
        .sort((x, y) => x.port - y.port)
        .map(({port, name}) => `${name} (port ${port})`)
        .join(', ')})\n`,
    );
    expect((await rollout(['sim', 'stop', portOf(b)])).code).toBe(0);
    expect((await rollout(['sim', 'stop'])).stdout).toBe(`Simulated cluster "a" (port ${portOf(a)}) stopped.\n`);
  });

  test('--context-name into one --kubeconfig: several clusters become one fleet kubeconfig, what was there kept', async () => {
    const kubeconfig = join(dir, 'fleet.kubeconfig');
    // The operator's own entries are kept; an entry of the same name is replaced.
    await writeFile(
      kubeconfig,
      'apiVersion: v1\nkind: Config\nclusters: [{name: mine, cluster: {server: "https://10.0.0.1"}}, {name: stage, cluster: {server: "https://old"}}]\nusers: [{name: mine, user: {token: t}}]\ncontexts: [{name: mine, context: {cluster: mine, user: mine}}]\ncurrent-context: mine\n',
    );
    const start = (context: string) =>
      rollout(['sim', 'start', '-d', '--scenario', 'large', '--nodes', '2', '--context-name', context, '--kubeconfig', kubeconfig]);
    const stage = await start('stage');
    const prod = await start('prod-eu');
    expect([stage.code, stage.stdout, prod.code, prod.stdout]).toEqual([0, `export KUBECONFIG=${kubeconfig}\n`, 0, `export KUBECONFIG=${kubeconfig}\n`]);
    // Named after its context for sim stop.
    expect(prod.stderr).toMatch(/^Simulated cluster "prod-eu" serving at .*stop it with: kubectl ds-rollout sim stop prod-eu\n$/);
    const config = load(await readFile(kubeconfig, 'utf8')) as Record<string, {name: string; cluster?: {server: string}}[] | string>;
    const names = (list: string) => (config[list] as {name: string}[]).map((e) => e.name);
    expect([names('clusters'), names('users'), names('contexts')]).toEqual([
      ['mine', 'stage', 'prod-eu'],
      ['mine', 'stage', 'prod-eu'],
      ['mine', 'stage', 'prod-eu'],
    ]);
    expect(config['current-context']).toBe('prod-eu');
    expect((config['clusters'] as {cluster: {server: string}}[])[1]!.cluster.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    // The fleet view reads both, by context.
    const status = await runCli(['status', 'fluentd', '-n', 'kube-system', '--contexts', 'stage,prod-eu', '--kubeconfig', kubeconfig], {bin: ROLLOUT});
    expect([status.code, status.stderr]).toEqual([0, '']);
    expect(status.stdout).toMatch(/^stage\s.*\n^prod-eu\s/m);
    for (const name of ['stage', 'prod-eu']) expect((await rollout(['sim', 'stop', name])).code).toBe(0);
    // A kubeconfig the user named is kept.
    expect(existsSync(kubeconfig)).toBe(true);

    const bad = await rollout(['sim', 'start', '-d', '--scenario', 'empty', '--context-name', 'no spaces', '--name', 'x']);
    expect([bad.code, bad.stderr]).toEqual([
      1,
      'error: invalid --context-name "no spaces": want letters, digits, "-", "_", "." or "@" (at most 64), as in prod-eu\n',
    ]);
    await writeFile(join(dir, 'not-a-kubeconfig'), '- a list\n');
    const notKubeconfig = await rollout(['sim', 'start', '-d', '--scenario', 'empty', '--name', 'y', '--kubeconfig', join(dir, 'not-a-kubeconfig')]);
    expect([notKubeconfig.code, notKubeconfig.stderr]).toEqual([
      1,
      `error: cannot write the kubeconfig ${join(dir, 'not-a-kubeconfig')}: it is not a kubeconfig (want a mapping with clusters, users, contexts)\n`,
    ]);
  });

  test('a cluster that cannot start: its error, exit 1, nothing left running', async () => {
    const bad = await rollout(['sim', 'start', '--detach', '--scenario', 'nope']);
    expect([bad.code, bad.stdout, bad.stderr]).toEqual([1, '', 'error: unknown scenario "nope" (have: demo, empty, large)\n']);
    const none = await rollout(['sim', 'stop']);
    expect(none.stderr).toBe('error: no simulated cluster started with --detach is running\n');
  });
});
