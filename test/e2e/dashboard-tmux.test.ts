// End to end: the BUILT `kubectl-ds_rollout dashboard` in a real terminal (tmux), against the simulated demo cluster
// running in this process (API server, DaemonSet controller, kubelets, at real-time speed). Keys go in with
// send-keys (p, s, r, u, with y to confirm; q); assertions are on what capture-pane shows.
// Needs `npm run build` first (npm test does it) and tmux; skipped without tmux.
import {execFile, execFileSync} from 'node:child_process';
import {existsSync} from 'node:fs';
import {join} from 'node:path';
import {promisify} from 'node:util';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {ROOT} from '../helpers/run-cli.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

const run = promisify(execFile);

function hasTmux(): boolean {
  try {
    execFileSync('tmux', ['-V'], {stdio: 'ignore'});
    return true;
  } catch {
    return false;
  }
}

/** A tmux server of our own, its socket in the test cluster's temp dir (removed with it). */
let socket = '';
const SESSION = 'dashboard';
const COLUMNS = 160;
const ROWS = 48;

function tmux(...args: string[]): Promise<{stdout: string}> {
  // -f /dev/null: nobody's tmux.conf changes the terminal under test.
  return run('tmux', ['-S', socket, '-f', '/dev/null', ...args]);
}

async function screen(): Promise<string> {
  return (await tmux('capture-pane', '-p', '-t', SESSION)).stdout;
}

async function waitForScreen(check: (text: string) => boolean, what: string, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let text = '';
  while (Date.now() < deadline) {
    text = await screen();
    if (check(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the screen did not show ${what} within ${timeoutMs} ms:\n${text}`);
}

const waitForText = (text: string | RegExp, timeoutMs?: number) =>
  waitForScreen((s) => (typeof text === 'string' ? s.includes(text) : text.test(s)), String(text), timeoutMs);

async function keys(...sequence: string[]): Promise<void> {
  for (const key of sequence) {
    await tmux('send-keys', '-t', SESSION, key);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

function updatedCount(text: string): number {
  const match = /updated \S+ (\d+)\/18/.exec(text);
  return match ? Number(match[1]) : -1;
}

describe.skipIf(!hasTmux())('dashboard in tmux against the simulated demo cluster', () => {
  let t: TestCluster;

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist', 'commands', 'rollout', 'dashboard.js'))) throw new Error('run `npm run build` first');
    t = await startTestCluster({scenario: 'demo', namespace: 'kube-system', speed: 1});
    socket = join(t.dir, 'tmux.sock');
    const bin = join(ROOT, 'bin', 'kubectl-ds_rollout');
    // CI is unset inside the terminal (the dashboard draws nothing under CI); the wrapper shell reports the exit
    // status and keeps the pane open so the test can read it.
    const command = `env -u CI LANG=C.UTF-8 TERM=xterm-256color NO_COLOR=1 '${process.execPath}' '${bin}' dashboard fluentd -n kube-system --kubeconfig '${t.kubeconfig}'; echo "dashboard exited with $?"; sleep 60`;
    await tmux('new-session', '-d', '-s', SESSION, '-x', String(COLUMNS), '-y', String(ROWS), command);
  }, 30_000);

  afterAll(async () => {
    if (socket) await tmux('kill-server').catch(() => undefined);
    await t?.stop();
  });

  test('shows the rollout: header, revisions with images, gauges, every node', async () => {
    const text = await waitForText('Nodes 20', 20_000);
    expect(text).toContain('DaemonSet kube-system/fluentd');
    expect(text).toContain('● live');
    expect(text).toContain('context ds-rollout-sim');
    expect(text).toContain('revision 1 (fluent/fluentd:v1.16.2) → 2 (fluent/fluentd:v1.17.0)');
    expect(text).toMatch(/unavailable \S+ \d\/2/);
    expect(text).toMatch(/worker-07 not eligible .*taint dedicated=gpu/);
    expect(text).toMatch(/› ● worker-01 updated/);
    expect(text.split('\n').length).toBeGreaterThanOrEqual(ROWS - 1);
  }, 30_000);

  test('the controller works through a wave and the screen shows it', async () => {
    const before = updatedCount(await screen());
    expect(before).toBeGreaterThanOrEqual(6);
    const after = await waitForScreen((s) => updatedCount(s) >= before + 2, 'two more nodes updated', 60_000);
    expect(after).toMatch(/Next sync: |waves to go|Every node/);
  }, 70_000);

  test('moves, filters and shows help', async () => {
    await keys('j', 'j');
    await waitForScreen((s) => /› . worker-03/.test(s), 'worker-03 selected');
    expect(await screen()).toContain('worker-03  ');
    await keys('/', 'worker-1', 'Enter');
    await waitForText('filter "worker-1": 10 of 20');
    await keys('Escape');
    await waitForScreen((s) => !s.includes('filter "'), 'the filter cleared');
    await keys('?');
    await waitForText('Node states');
    await keys('?');
    await waitForText('Nodes 20');
  }, 30_000);

  test('p pauses (after y), s steps one wave and the screen shows it land, r resumes', async () => {
    await keys('p');
    await waitForText('Pause the rollout of kube-system/fluentd on context ds-rollout-sim (https://127.0.0.1:');
    await keys('y');
    await waitForText('paused: no more old pods are replaced; maxUnavailable 2, maxSurge 0 recorded for resume');
    const paused = await waitForText('PAUSED by ds-rollout');
    expect(paused).toContain('rollout paused');
    expect(paused).toContain('(resume restores maxUnavailable 2, maxSurge 0)');
    const before = updatedCount(paused);

    await keys('s');
    await waitForText('Step one wave of kube-system/fluentd on context ds-rollout-sim');
    await keys('y');
    // The status line follows the step (deleting, new pods starting: see the component tests), then says the wave landed.
    const landed = await waitForScreen((s) => /wave \d+ landed in \d+s: replaced [12] pods?/.test(s), 'the wave landed', 60_000);
    expect(updatedCount(landed)).toBeGreaterThan(before);

    await keys('r');
    await waitForText('Resume the rollout of kube-system/fluentd on context ds-rollout-sim');
    await keys('y');
    await waitForText('resumed: RollingUpdate with maxUnavailable 2, maxSurge 0; the controller carries on');
    await waitForScreen((s) => !s.includes('PAUSED') && s.includes('rollout in progress'), 'the rollout running again');
  }, 90_000);

  test('u shows the undo diff and asks; y rolls back, and the screen follows the new rollout', async () => {
    await keys('u');
    const prompt = await waitForText(
      /Undo kube-system\/fluentd on context ds-rollout-sim \(https:\/\/127\.0\.0\.1:\d+\) to revision 1 \(fluent\/fluentd:v1\.16\.2\)\?/,
    );
    expect(prompt).toContain('[y/n]');
    expect(prompt).toContain('+  fluentd: fluent/fluentd:v1.16.2');
    await keys('y');
    await waitForText('rolled back to revision 1');
    // The controller renumbers the old revision: the update revision is now 3, running the old image.
    await waitForText('→ 3 (fluent/fluentd:v1.16.2)', 20_000);
  }, 40_000);

  test('q quits and leaves the terminal as it was', async () => {
    await keys('q');
    const text = await waitForText('dashboard exited with 0');
    expect(text).not.toContain('Nodes 20');
  }, 20_000);
});
