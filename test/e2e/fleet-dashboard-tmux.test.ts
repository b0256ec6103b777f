// End to end: the BUILT `kubectl-ds_rollout dashboard fluentd --all-contexts` in a real terminal (tmux), on a
// fleet of one kubeconfig: two simulated clusters running in this process (staging rolled out, prod-east's
// rollout under way at real-time speed) and a context whose server nothing listens on. The fleet screen shows a
// row per cluster and follows them live; Enter opens prod-east's usual screen, whose keys act on prod-east only;
// esc comes back. Needs `npm run build` first and tmux; skipped without tmux.
import {execFile, execFileSync} from 'node:child_process';
import {existsSync} from 'node:fs';
import {writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {promisify} from 'node:util';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import type {DaemonSet} from '../../src/core/index.js';
import {closedPort, fleetKubeconfig} from '../helpers/fleet-kubeconfig.js';
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

let socket = '';
const SESSION = 'fleet';

function tmux(...args: string[]): Promise<{stdout: string}> {
  return run('tmux', ['-S', socket, '-f', '/dev/null', ...args]);
}

async function screen(): Promise<string> {
  return (await tmux('capture-pane', '-p', '-t', SESSION)).stdout;
}

async function waitForScreen(check: (text: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
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

/** prod-east's row: its updated pods, e.g. 7 of `7/18`. */
function eastUpdated(text: string): number {
  const match = /prod-east +\w+ +1->2 +(\d+)\/18/.exec(text);
  return match ? Number(match[1]) : -1;
}

describe.skipIf(!hasTmux())('the fleet dashboard in tmux: two simulated clusters and an unreachable one', () => {
  let staging: TestCluster;
  let east: TestCluster;
  let down: string;

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist', 'commands', 'rollout', 'dashboard.js'))) throw new Error('run `npm run build` first');
    [staging, east] = await Promise.all([
      startTestCluster({scenario: 'large', nodes: 3, namespace: 'kube-system'}),
      startTestCluster({scenario: 'demo', namespace: 'kube-system', speed: 1}),
    ]);
    down = `https://127.0.0.1:${await closedPort()}`;
    const kubeconfig = join(staging.dir, 'fleet-kubeconfig');
    await writeFile(
      kubeconfig,
      fleetKubeconfig([
        {name: 'staging', kubeconfig: staging.cluster.kubeconfigYaml({namespace: 'kube-system'})},
        {name: 'prod-east', kubeconfig: east.cluster.kubeconfigYaml({namespace: 'kube-system'})},
        {name: 'prod-down', kubeconfig: staging.cluster.kubeconfigYaml({namespace: 'kube-system'}), server: down},
      ]),
      {mode: 0o600},
    );
    socket = join(staging.dir, 'tmux.sock');
    const bin = join(ROOT, 'bin', 'kubectl-ds_rollout');
    // --request-timeout keeps the closed port's row quick; CI is unset inside the terminal (nothing is drawn under CI).
    const command = `env -u CI LANG=C.UTF-8 TERM=xterm-256color NO_COLOR=1 '${process.execPath}' '${bin}' dashboard fluentd --all-contexts --kubeconfig '${kubeconfig}' --request-timeout 2s; echo "dashboard exited with $?"; sleep 60`;
    await tmux('new-session', '-d', '-s', SESSION, '-x', '150', '-y', '40', command);
  }, 60_000);

  afterAll(async () => {
    if (socket) await tmux('kill-server').catch(() => undefined);
    await Promise.all([staging, east].map((t) => t?.stop()));
  });

  test('one row per cluster: the rolled-out one, the rollout under way, the unreachable one', async () => {
    const text = await waitForText(/prod-down +unreachable/, 40_000);
    expect(text).toContain('DaemonSet fluentd  on 3 clusters, each followed live');
    expect(text).toMatch(/› ● staging +complete +1 +3\/3 +-\n/);
    expect(text).toMatch(/ {2}● prod-east +progressing +1->2 +\d+\/18 +\d\/2 unavailable/);
    expect(text).toMatch(/ {2}✖ prod-down +unreachable +- +- +- +.*127\.0\.0\.1/);
    expect(text).toMatch(/3 clusters: 1 complete, 1 progressing, 1 unreachable/);
  }, 60_000);

  test("live: prod-east's row follows its controller", async () => {
    const before = eastUpdated(await screen());
    expect(before).toBeGreaterThanOrEqual(0);
    await waitForScreen((s) => eastUpdated(s) >= before + 2, "two more of prod-east's nodes updated", 60_000);
  }, 70_000);

  test('enter on the unreachable cluster says why; on prod-east it opens its screen, whose keys act there; esc comes back', async () => {
    await keys('G', 'Enter');
    await waitForText('prod-down: unreachable: no screen to open');
    await keys('k', 'Enter');
    const inside = await waitForText('Fleet › prod-east');
    await waitForText('Nodes 20');
    expect(inside).toMatch(/3 clusters: 1 complete, 1 progressing, 1 unreachable {2}esc back/);
    // p asks about prod-east by name and server; n leaves both clusters as they are.
    await keys('p');
    await waitForText(`Pause the rollout of kube-system/fluentd on context prod-east (${east.cluster.url})`);
    await keys('n');
    await waitForText('pause cancelled');
    await keys('Escape');
    await waitForScreen((s) => s.includes('on 3 clusters') && !s.includes('Fleet ›'), 'the fleet again');
    const strategy = (t: TestCluster) => (t.cluster.store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet).spec.updateStrategy?.type;
    expect([strategy(east), strategy(staging)]).toEqual(['RollingUpdate', 'RollingUpdate']);
  }, 60_000);

  test('q quits with exit 0', async () => {
    await keys('q');
    await waitForText('dashboard exited with 0');
  }, 30_000);
});
