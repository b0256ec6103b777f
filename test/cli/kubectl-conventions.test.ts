// kubectl's conventions, one row each: what the real kubectl does, run against the simulated cluster where it has the
// command (rollout status/pause/resume of DaemonSets, KUBECONFIG lists, version), beside what ds-rollout does, the
// BUILT binaries (run `npm run build` first). Compared: the exit code and the message's shape (stdout empty on an
// error, one `error: ` line on stderr, kubectl's own words where ds-rollout prints them). Where the simulator has
// no such resource (Deployments), the row states kubectl's behaviour from its source (rollout_pause.go,
// polymorphichelpers/objectpauser.go and objectresumer.go) and checks the same shape. docs/kubectl-conventions.md
// is this table in prose.
import {execFile} from 'node:child_process';
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {createServer, type Server} from 'node:http';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest';
import {kubectlPath, kubectlSession, type KubectlSession, type Run, skipWithoutKubectl} from '../helpers/kubectl.js';
import {runCli} from '../helpers/run-cli.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

vi.setConfig({testTimeout: 60_000, hookTimeout: 120_000});

const ROLLOUT = 'bin/kubectl-ds_rollout';
let t: TestCluster;
let kubectl: KubectlSession;

/** ds-rollout with the same kubeconfig kubectl uses. */
function ours(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return runCli(args, {bin: ROLLOUT, env: {KUBECONFIG: t.kubeconfig, ...env}});
}

/** kubectl with an environment of the test's choosing (session.run always passes --kubeconfig). */
function kubectlWith(env: Record<string, string>, args: readonly string[]): Promise<Run> {
  return new Promise((resolve) =>
    execFile(kubectlPath!, args, {env: {...kubectl.env, ...env}, timeout: 60_000}, (error, stdout, stderr) =>
      resolve({stdout, stderr, code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1}),
    ),
  );
}

/** An error as kubectl prints one: nothing on stdout, one `error: ` line (kubectl may prefix its own log lines). */
function oneErrorLine(run: Run): string {
  const lines = run.stderr.trimEnd().split('\n');
  expect(run.stdout).toBe('');
  const errors = lines.filter((line) => line.startsWith('error: ') || line.startsWith('Error from server'));
  expect(errors).toHaveLength(1);
  return errors[0]!;
}

/** kubectl rollout status's lines (`daemon set "x" successfully rolled out`), in the order printed. */
function statusLines(text: string): string[] {
  return text.split('\n').filter((line) => /^(Waiting for )?daemon set "/.test(line));
}

/** The DaemonSet names of kubectl's lines, in order, each once (a watch may repeat the waiting line). */
function namesInTurn(text: string): string[] {
  const names = statusLines(text).map((line) => /daemon set "([^"]+)"/.exec(line)![1]!);
  return names.filter((name, index) => names.indexOf(name) === index);
}

beforeAll(async () => {
  if (skipWithoutKubectl) return;
  t = await startTestCluster({scenario: 'demo'});
  kubectl = await kubectlSession(t.cluster);
  // A second DaemonSet in monitoring (no hostPort, so it can run beside node-exporter), and a label on both.
  const agent = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {name: 'log-agent', namespace: 'monitoring', labels: {tier: 'node'}},
    spec: {
      selector: {matchLabels: {app: 'log-agent'}},
      template: {metadata: {labels: {app: 'log-agent'}}, spec: {containers: [{name: 'agent', image: 'example.com/log-agent:v1'}]}},
    },
  };
  writeFileSync(join(kubectl.dir, 'log-agent.json'), JSON.stringify(agent));
  await kubectl.ok('create', '-f', join(kubectl.dir, 'log-agent.json'));
  await kubectl.ok('label', 'ds', 'node-exporter', '-n', 'monitoring', 'tier=node');
  t.advance(120_000, 250);
  // Both are complete now: kubectl says so without waiting (a ManualClock would never move otherwise).
  const ready = await kubectl.ok('rollout', 'status', 'ds', '-n', 'monitoring', '--watch=false');
  expect(statusLines(ready)).toEqual(['daemon set "log-agent" successfully rolled out', 'daemon set "node-exporter" successfully rolled out']);
});

afterAll(async () => {
  await kubectl?.close();
  await t?.stop();
});

describe.skipIf(skipWithoutKubectl)('kubectl conventions, beside the real kubectl', () => {
  test.each([
    ['TYPE NAME as two words', ['daemonset', 'node-exporter']],
    ['TYPE NAME with the group', ['daemonsets.apps', 'node-exporter']],
    ['TYPE/NAME', ['ds/node-exporter']],
  ])('%s: kubectl rollout status takes it, so does status', async (_convention, words) => {
    const [theirs, mine] = await Promise.all([kubectl.run('rollout', 'status', ...words, '-n', 'monitoring'), ours(['status', ...words, '-n', 'monitoring'])]);
    expect([theirs.code, mine.code]).toEqual([0, 0]);
    expect(statusLines(theirs.stdout)).toEqual(['daemon set "node-exporter" successfully rolled out']);
    expect(statusLines(mine.stdout)).toEqual(statusLines(theirs.stdout));
  });

  // Issue 28, finding 2: a boolean flag (any spelling) once made the NAME an unexpected argument, and `ds` a NAME.
  test.each([['--watch=false'], ['-w=false'], ['--no-watch'], ['--watch']])('TYPE NAME and TYPE alone with %s', async (flag) => {
    const [theirs, mine] = await Promise.all([
      kubectl.run('rollout', 'status', 'daemonset', 'node-exporter', '-n', 'monitoring', flag === '--no-watch' ? '--watch=false' : flag),
      ours(['status', 'daemonset', 'node-exporter', '-n', 'monitoring', flag]),
    ]);
    expect([theirs.code, mine.code, mine.stderr]).toEqual([0, 0, '']);
    expect(statusLines(mine.stdout)).toEqual(statusLines(theirs.stdout));
    const all = await ours(['status', 'ds', flag, '-n', 'monitoring', '-o', 'name']);
    expect([all.code, all.stdout, all.stderr]).toEqual([0, 'daemonset.apps/log-agent\ndaemonset.apps/node-exporter\n', '']);
  });

  test('TYPE alone is the collection: every DaemonSet of the namespace', async () => {
    const [theirs, mine] = await Promise.all([
      kubectl.run('rollout', 'status', 'ds', '-n', 'monitoring'),
      ours(['status', 'ds', '-n', 'monitoring', '-o', 'name']),
    ]);
    expect([theirs.code, mine.code]).toEqual([0, 0]);
    expect(namesInTurn(theirs.stdout)).toEqual(['log-agent', 'node-exporter']);
    expect(mine.stdout).toBe('daemonset.apps/log-agent\ndaemonset.apps/node-exporter\n');
  });

  test('another TYPE: exit 1, one error line, nothing on stdout', async () => {
    const [theirs, mine] = await Promise.all([
      kubectl.run('rollout', 'status', 'deployment', 'node-exporter', '-n', 'monitoring'),
      ours(['status', 'deployment', 'node-exporter', '-n', 'monitoring']),
    ]);
    expect([theirs.code, mine.code]).toEqual([1, 1]);
    // kubectl asks the server (which has no deployments here); ds-rollout knows its one resource.
    expect(oneErrorLine(theirs)).toBe('error: the server doesn\'t have a resource type "deployment"');
    expect(oneErrorLine(mine)).toBe(
      'error: "deployment" is not a DaemonSet type: ds-rollout works on daemonsets (NAME, ds NAME, ds/NAME or daemonset.apps/NAME)',
    );
  });

  test('-l SELECTOR: each match in turn, by name; watching, each until it is done', async () => {
    const [theirs, mine] = await Promise.all([
      kubectl.run('rollout', 'status', 'ds', '-l', 'tier=node', '-n', 'monitoring'),
      ours(['status', '-l', 'tier=node', '-n', 'monitoring']),
    ]);
    expect([theirs.code, mine.code]).toEqual([0, 0]);
    expect(namesInTurn(theirs.stdout)).toEqual(['log-agent', 'node-exporter']);
    expect(namesInTurn(mine.stdout)).toEqual(namesInTurn(theirs.stdout));
    expect(statusLines(mine.stdout)).toEqual(statusLines(theirs.stdout));
  });

  test('-l matching nothing: kubectl\'s "No resources found", exit 0', async () => {
    const [theirs, mine] = await Promise.all([
      kubectl.run('rollout', 'status', 'ds', '-l', 'tier=none', '-n', 'monitoring'),
      ours(['status', '-l', 'tier=none', '-n', 'monitoring']),
    ]);
    expect([theirs.code, theirs.stdout, theirs.stderr]).toEqual([0, '', 'No resources found in monitoring namespace.\n']);
    expect([mine.code, mine.stdout, mine.stderr]).toEqual([theirs.code, theirs.stdout, theirs.stderr]);
  });

  test("NAME and -l together: kubectl's refusal, in its words", async () => {
    const [theirs, mine] = await Promise.all([
      kubectl.run('rollout', 'status', 'ds/node-exporter', '-l', 'tier=node', '-n', 'monitoring'),
      ours(['status', 'ds/node-exporter', '-l', 'tier=node', '-n', 'monitoring']),
    ]);
    expect([theirs.code, mine.code]).toEqual([1, 1]);
    expect(oneErrorLine(mine)).toBe(oneErrorLine(theirs));
  });

  test("-f FILE: the DaemonSets the manifest names, each in turn, in the file's order", async () => {
    const manifest = join(kubectl.dir, 'monitoring.yaml');
    // kubectl's own printout of the two (a List), in the reverse of name order.
    const listed = await kubectl.ok('get', 'ds', 'node-exporter', 'log-agent', '-n', 'monitoring', '-o', 'yaml');
    writeFileSync(manifest, listed);
    const [theirs, mine] = await Promise.all([kubectl.run('rollout', 'status', '-f', manifest), ours(['status', '-f', manifest])]);
    expect([theirs.code, mine.code]).toEqual([0, 0]);
    expect(namesInTurn(theirs.stdout)).toEqual(['node-exporter', 'log-agent']);
    expect(statusLines(mine.stdout)).toEqual(statusLines(theirs.stdout));
  });

  test('pause of a paused one is an error (Deployments: `deployments.apps "NAME" is already paused`, exit 1)', async () => {
    // kubectl refuses to pause DaemonSets at all; its message has the same shape: resource.group "NAME" problem.
    const theirs = await kubectl.run('rollout', 'pause', 'ds', 'log-agent', '-n', 'monitoring');
    expect([theirs.code, oneErrorLine(theirs)]).toEqual([1, 'error: daemonsets.apps "log-agent" pausing is not supported']);
    const first = await ours(['pause', 'ds', 'log-agent', '-n', 'monitoring']);
    expect(first).toMatchObject({code: 0, stderr: ''});
    const again = await ours(['pause', 'ds', 'log-agent', '-n', 'monitoring']);
    expect([again.code, oneErrorLine(again)]).toEqual([1, 'error: daemonsets.apps "log-agent" is already paused']);
    expect((await ours(['resume', 'log-agent', '-n', 'monitoring'])).code).toBe(0);
  });

  test('resume of a running one is an error (Deployments: `deployments.apps "NAME" is not paused`, exit 1)', async () => {
    const theirs = await kubectl.run('rollout', 'resume', 'ds', 'log-agent', '-n', 'monitoring');
    expect([theirs.code, oneErrorLine(theirs)]).toEqual([1, 'error: daemonsets.apps "log-agent" resuming is not supported']);
    const mine = await ours(['resume', 'daemonset', 'log-agent', '-n', 'monitoring']);
    expect([mine.code, oneErrorLine(mine)]).toEqual([1, 'error: daemonsets.apps "log-agent" is not paused']);
  });

  test('KUBECONFIG: a file of the list that does not exist is skipped', async () => {
    const env = {KUBECONFIG: ['/nonexistent/kubeconfig', t.kubeconfig].join(':')};
    const [theirs, mine] = await Promise.all([
      kubectlWith(env, ['rollout', 'status', 'ds', 'node-exporter', '-n', 'monitoring']),
      ours(['status', 'ds', 'node-exporter', '-n', 'monitoring'], env),
    ]);
    expect([theirs.code, theirs.stderr, mine.code, mine.stderr]).toEqual([0, '', 0, '']);
    expect(statusLines(mine.stdout)).toEqual(statusLines(theirs.stdout));
  });

  // Issue 28, finding 1: kubectl silently falls back to localhost:8080; the quick start met that while the file was being written.
  test('KUBECONFIG naming no file that exists: kubectl tries localhost:8080, ds-rollout names the missing file (exit 1)', async () => {
    const env = {KUBECONFIG: '/nonexistent/kubeconfig'};
    const [theirs, mine] = await Promise.all([
      kubectlWith(env, ['rollout', 'status', 'ds', 'node-exporter', '-n', 'monitoring']),
      ours(['status', 'ds', 'node-exporter', '-n', 'monitoring'], env),
    ]);
    expect(theirs.code).toBe(1);
    expect(theirs.stderr).toContain('The connection to the server localhost:8080 was refused');
    expect([mine.code, oneErrorLine(mine)]).toEqual([
      1,
      'error: KUBECONFIG names no file that exists (/nonexistent/kubeconfig): set it to a kubeconfig file, or unset it',
    ]);
  });

  test('--kubeconfig naming a missing file is an error naming it', async () => {
    const [theirs, mine] = await Promise.all([
      kubectlWith({}, ['--kubeconfig', '/nonexistent/kubeconfig', 'rollout', 'status', 'ds', 'node-exporter']),
      runCli(['status', 'node-exporter', '--kubeconfig', '/nonexistent/kubeconfig'], {bin: ROLLOUT}),
    ]);
    expect([theirs.code, mine.code]).toEqual([1, 1]);
    expect(oneErrorLine(theirs)).toBe('error: stat /nonexistent/kubeconfig: no such file or directory');
    expect(oneErrorLine(mine)).toBe('error: cannot load kubeconfig "/nonexistent/kubeconfig": no such file');
  });

  test('version without a cluster: the client line at once; kubectl exits 1, ds-rollout warns and exits 0', async () => {
    const env = {KUBECONFIG: '/nonexistent/kubeconfig'};
    const [theirs, mine] = await Promise.all([kubectlWith(env, ['version']), ours(['version'], env)]);
    expect(theirs.code).toBe(1);
    expect(theirs.stdout).toMatch(/^Client Version: v1\./);
    expect(mine.code).toBe(0);
    expect(mine.stdout).toMatch(/^Client Version: v/);
    expect(mine.stderr).toBe(
      'warning: server version unknown: KUBECONFIG names no file that exists (/nonexistent/kubeconfig): set it to a kubeconfig file, or unset it\n',
    );
  });
});

describe('version asks the server once: no retries, so no cluster is said at once', () => {
  let server: Server;
  let requests = 0;
  beforeAll(async () => {
    // A server in trouble (503), which every other read tries four times.
    server = createServer((_req, res) => {
      requests++;
      res.writeHead(503, {'content-type': 'application/json'}).end('{"kind":"Status","status":"Failure","code":503}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('one GET /version, then the client line and one warning', async () => {
    const address = server.address() as {port: number};
    const dir = mkdtempSync(join(tmpdir(), 'ds-rollout-version-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'trouble',
        clusters: [{name: 'trouble', cluster: {server: `http://127.0.0.1:${address.port}`}}],
        contexts: [{name: 'trouble', context: {cluster: 'trouble', user: 'nobody'}}],
        users: [{name: 'nobody', user: {}}],
      }),
    );
    const result = await runCli(['version', '--kubeconfig', kubeconfig], {bin: ROLLOUT});
    rmSync(dir, {recursive: true, force: true});
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Client Version: v/);
    expect(result.stderr).toMatch(/^warning: server version unknown: /);
    expect(requests).toBe(1);
  });
});
