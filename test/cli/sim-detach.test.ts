// `sim start --detach` returns once the API serves, printing the line that points kubectl at it; `sim stop` ends it by
// name or port (issue 28, finding 1: the quick start's `sim start &` raced the next command to the kubeconfig).
import {existsSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
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

  test('a cluster that cannot start: its error, exit 1, nothing left running', async () => {
    const bad = await rollout(['sim', 'start', '--detach', '--scenario', 'nope']);
    expect([bad.code, bad.stdout, bad.stderr]).toEqual([1, '', 'error: unknown scenario "nope" (have: demo, empty, large)\n']);
    const none = await rollout(['sim', 'stop']);
    expect(none.stderr).toBe('error: no simulated cluster started with --detach is running\n');
  });
});
