// kubectl's arguments (issue 12, findings 2-4), through the BUILT binaries: stdin for -f - and --snapshot - (and
// never as NAME), TYPE/NAME, --flag=value and --flag=false, --dry-run=none|client|server, status watching by default,
// -o name / jsonpath / wide, apiVersion and kind on every document, suggestions, and `a` at the step prompt.
import {execFile} from 'node:child_process';
import {existsSync} from 'node:fs';
import {readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {dump, load} from 'js-yaml';
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest';
import type {DaemonSet} from '../../src/core/index.js';
import {ROOT, runCli, type CliResult} from '../helpers/run-cli.js';
import {START_TEXT, startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';
import {type RolloutSim, startRolloutSim} from '../safety/rollout-sim.js';

vi.setConfig({testTimeout: 30_000});

const EXAMPLE = 'examples/rollout-in-progress.yaml';
const NOW = ['--now', '2026-11-21T12:00:00Z'];
const ROLLOUT = {bin: 'bin/kubectl-ds_rollout'};

interface Item {
  kind: string;
  metadata: {name: string; namespace?: string; annotations?: Record<string, string>};
}

async function exampleItems(): Promise<Item[]> {
  const text = await readFile(join(ROOT, EXAMPLE), 'utf8');
  const document = load(text) as {items: Item[]};
  return document.items;
}

function oneLine(result: CliResult): string {
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  return result.stderr.trimEnd();
}

describe('stdin: -f - and --snapshot - read it, and it is never taken as NAME', () => {
  test('-f - plans the manifest piped in', async () => {
    const fluentd = (await exampleItems()).find((item) => item.kind === 'DaemonSet' && item.metadata.name === 'fluentd') as unknown as DaemonSet;
    const manifest = {...fluentd, spec: {...fluentd.spec, template: {...fluentd.spec.template}}};
    manifest.spec.template.spec = {
      ...manifest.spec.template.spec,
      containers: manifest.spec.template.spec.containers.map((c) => ({...c, image: 'fluent/fluentd:v9'})),
    };
    const result = await runCli(['-f', '-', '--snapshot', EXAMPLE, ...NOW], {stdin: dump(manifest)});
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('+  fluentd: fluent/fluentd:v9');
  });

  test('piped text is not NAME: `echo foo | kubectl ds-plan fluentd ...` and `... --snapshot FILE` without NAME', async () => {
    const named = await runCli(['fluentd', '-n', 'kube-system', '--snapshot', EXAMPLE, ...NOW, '-o', 'jsonpath={.daemonSet.name}'], {stdin: 'foo\n'});
    expect([named.code, named.stdout, named.stderr]).toEqual([0, 'fluentd', '']);
    const unnamed = await runCli(['--snapshot', EXAMPLE, ...NOW], {stdin: 'foo\n'});
    expect(unnamed.code).toBe(1);
    expect(oneLine(unnamed)).toBe(`error: snapshot ${EXAMPLE} holds 2 DaemonSets: name one (kube-system/fluentd, kube-system/kube-proxy)`);
  });

  test('--snapshot - without NAME: the one DaemonSet it holds; several: a short error listing them, never the input', async () => {
    const items = await exampleItems();
    const onlyFluentd = items.filter((item) => item.kind !== 'DaemonSet' || item.metadata.name === 'fluentd');
    const one = await runCli(['--snapshot', '-', ...NOW, '-o', 'jsonpath={.daemonSet.namespace}/{.daemonSet.name}'], {
      stdin: JSON.stringify({apiVersion: 'v1', kind: 'List', items: onlyFluentd}),
    });
    expect([one.code, one.stdout, one.stderr]).toEqual([0, 'kube-system/fluentd', '']);
    const history = await runCli(['history', '--snapshot', '-', '-o', 'name'], {
      ...ROLLOUT,
      stdin: JSON.stringify({apiVersion: 'v1', kind: 'List', items: onlyFluentd}),
    });
    expect([history.code, history.stdout]).toEqual([0, 'daemonset.apps/fluentd\n']);

    // 150 KB of JSON, as `kubectl get ... -o json` prints it.
    const padded = items.map((item) => ({...item, metadata: {...item.metadata, annotations: {...item.metadata.annotations, note: 'x'.repeat(3000)}}}));
    const big = JSON.stringify({apiVersion: 'v1', kind: 'List', items: padded}, null, 2);
    expect(big.length).toBeGreaterThan(150_000);
    const several = await runCli(['--snapshot', '-', ...NOW], {stdin: big});
    expect(several.code).toBe(1);
    expect(oneLine(several)).toBe('error: snapshot <stdin> holds 2 DaemonSets: name one (kube-system/fluentd, kube-system/kube-proxy)');
    // A document passed as NAME (a mistyped pipe; 100 KB, under the kernel's limit for one argument) is cut in the error.
    const asName = await runCli([big.slice(0, 100_000), '--snapshot', EXAMPLE]);
    expect(asName.code).toBe(1);
    expect(oneLine(asName).length).toBeLessThan(200);
  });
});

describe('TYPE/NAME', () => {
  test.each(['fluentd', 'ds/fluentd', 'daemonset/fluentd', 'daemonsets/fluentd', 'daemonset.apps/fluentd', 'daemonsets.apps/fluentd', 'DaemonSet/fluentd'])(
    '%s',
    async (name) => {
      const [plan, status, history] = await Promise.all([
        runCli([name, '-n', 'kube-system', '--snapshot', EXAMPLE, ...NOW, '-o', 'name']),
        runCli(['status', name, '-n', 'kube-system', '--snapshot', EXAMPLE, ...NOW, '-o', 'name'], ROLLOUT),
        runCli(['history', name, '-n', 'kube-system', '--snapshot', EXAMPLE, '-o', 'name'], ROLLOUT),
      ]);
      expect([plan.stdout, status.stdout, history.stdout]).toEqual(Array(3).fill('daemonset.apps/fluentd\n'));
    },
  );

  test('another type is a one-line error, exit 1', async () => {
    const result = await runCli(['status', 'deployment/fluentd', '--snapshot', EXAMPLE], ROLLOUT);
    expect([result.code, result.stdout]).toEqual([1, '']);
    expect(oneLine(result)).toBe(
      'error: "deployment/fluentd" is not a DaemonSet: ds-rollout works on daemonsets (NAME, ds NAME, ds/NAME or daemonset.apps/NAME)',
    );
  });
});

describe('status -l SELECTOR and -f FILE: each DaemonSet in turn (against a live cluster: kubectl-conventions.test.ts)', () => {
  const at = ['-n', 'kube-system', '--snapshot', EXAMPLE, ...NOW];

  test('-l: the matches by name, -o json a List; one look exits with the worst verdict', async () => {
    const [both, one, json] = await Promise.all([
      runCli(['status', '-l', 'k8s-app in (kube-proxy),!missing', ...at, '-o', 'name'], ROLLOUT),
      runCli(['status', '-l', 'app.kubernetes.io/name=fluentd', ...at, '-o', 'name'], ROLLOUT),
      runCli(['status', '-l', 'app.kubernetes.io/name', ...at, '-o', 'json'], ROLLOUT),
    ]);
    // kube-proxy is complete (0); fluentd is progressing (4).
    expect([both.code, both.stdout, both.stderr]).toEqual([0, 'daemonset.apps/kube-proxy\n', '']);
    expect([one.code, one.stdout]).toEqual([4, 'daemonset.apps/fluentd\n']);
    const list = JSON.parse(json.stdout) as {kind: string; items: Array<{kind: string; verdict: string}>};
    expect([json.code, list.kind, list.items.map((item) => [item.kind, item.verdict])]).toEqual([4, 'List', [['DaemonSetRolloutStatus', 'progressing']]]);
  });

  test("-f: the manifest's DaemonSets in its order, text for each; a bad selector or another kind is one line", async () => {
    const items = await exampleItems();
    const manifest = join(tmpdir(), `ds-rollout-status-f-${process.pid}.yaml`);
    const daemonSets = items.filter((item) => item.kind === 'DaemonSet').reverse();
    await writeFile(manifest, daemonSets.map((item) => dump(item)).join('---\n'));
    try {
      const [named, text, nodes, badSelector] = await Promise.all([
        runCli(['status', '-f', manifest, ...at, '-o', 'name'], ROLLOUT),
        runCli(['status', '-f', manifest, ...at], ROLLOUT),
        runCli(['status', '-f', EXAMPLE, ...at], ROLLOUT),
        runCli(['status', '-l', 'a in (', ...at], ROLLOUT),
      ]);
      expect([named.code, named.stdout]).toEqual([4, 'daemonset.apps/kube-proxy\ndaemonset.apps/fluentd\n']);
      expect(text.stdout.indexOf('daemon set "kube-proxy"')).toBeLessThan(text.stdout.indexOf('daemon set "fluentd"'));
      expect([nodes.code, oneLine(nodes)]).toEqual([1, `error: manifest "${EXAMPLE}": Node "cp-01" is not a DaemonSet: ds-rollout works on daemonsets`]);
      expect([badSelector.code, oneLine(badSelector)]).toEqual([1, expect.stringMatching(/^error: invalid label selector "a in \(": /)]);
    } finally {
      await rm(manifest, {force: true});
    }
  });
});

describe('--flag=value forms and suggestions', () => {
  test('--watch=false, -w=false, --all-nodes=true; a value that is not a boolean is refused', async () => {
    const base = ['status', 'fluentd', '-n', 'kube-system', '--snapshot', EXAMPLE, ...NOW, '-o', 'jsonpath={.verdict}'];
    const [long, short, allNodes, bad] = await Promise.all([
      runCli([...base, '--watch=false'], ROLLOUT),
      runCli([...base, '-w=false'], ROLLOUT),
      runCli(['fluentd', '-n', 'kube-system', '--snapshot', EXAMPLE, ...NOW, '--all-nodes=true']),
      runCli([...base, '--watch=maybe'], ROLLOUT),
    ]);
    expect([long.code, long.stdout, long.stderr]).toEqual([4, 'progressing', '']);
    expect([short.code, short.stdout, short.stderr]).toEqual([4, 'progressing', '']);
    expect(allNodes.code).toBe(0);
    expect([bad.code, oneLine(bad)]).toEqual([1, 'error: invalid argument "maybe" for "--watch" flag: want true or false']);
    // --watch=true asks to follow, which a snapshot cannot.
    const follow = await runCli(['status', 'fluentd', '-n', 'kube-system', '--snapshot', EXAMPLE, '--watch=true'], ROLLOUT);
    expect([follow.code, oneLine(follow)]).toEqual([1, 'error: --watch follows a live cluster; it cannot be used with --snapshot']);
  });

  test('unknown commands and flags suggest the nearest', async () => {
    const [command, flag, planFlag] = await Promise.all([
      runCli(['stats', 'x'], {...ROLLOUT, env: {KUBECTL_DS_INVOKED_AS: 'kubectl'}}),
      runCli(['status', 'x', '--stuk-after', '1s'], {...ROLLOUT, env: {KUBECTL_DS_INVOKED_AS: 'kubectl'}}),
      runCli(['fluentd', '--snaphot', EXAMPLE], {env: {KUBECTL_DS_INVOKED_AS: 'kubectl'}}),
    ]);
    expect([command.code, command.stdout, oneLine(command)]).toEqual([
      1,
      '',
      `error: unknown command "stats" for "kubectl ds-rollout". Did you mean status? (see 'kubectl ds-rollout --help')`,
    ]);
    expect([flag.code, oneLine(flag)]).toEqual([1, "error: unknown flag: --stuk-after (did you mean --stuck-after?); see 'kubectl ds-rollout status --help'"]);
    expect([planFlag.code, oneLine(planFlag)]).toEqual([1, "error: unknown flag: --snaphot (did you mean --snapshot?); see 'kubectl ds-plan --help'"]);
  });
});

describe('-o name, jsonpath and wide; apiVersion and kind on every document', () => {
  test('jsonpath templates as kubectl writes them', async () => {
    const run = (template: string) => runCli(['fluentd', '-n', 'kube-system', '--snapshot', EXAMPLE, ...NOW, '-o', `jsonpath=${template}`]);
    const [simple, ranged, filtered, quoted] = await Promise.all([
      run('{.revisions.current.revision} -> {.revisions.update.revision}'),
      run('{range .nodes[0:2]}{.name}{"\\n"}{end}'),
      run('{.nodes[?(@.name=="worker-01")].pods[0].updated}'),
      run("'{.kind}'"),
    ]);
    expect(simple.stdout).toBe('2 -> 3');
    expect(ranged.stdout).toBe('cp-01\ngpu-01\n');
    expect(filtered.stdout).toBe('true');
    expect(quoted.stdout).toBe('DaemonSetRolloutPlan');
    const bad = await run('{range .nodes[*]}{.name}');
    expect([bad.code, oneLine(bad)]).toEqual([1, 'error: jsonpath: {range} without {end}']);
    const unknown = await runCli(['fluentd', '-n', 'kube-system', '--snapshot', EXAMPLE, '-o', 'wide']);
    expect(unknown.code).toBe(1);
    expect(oneLine(unknown)).toContain('allowed formats are: text, json, yaml, name, jsonpath=TEMPLATE');
  });

  test('plan, status, history and dashboard documents carry apiVersion ds-rollout.io/v1alpha1 and their kind', async () => {
    const documents = await Promise.all([
      runCli(['fluentd', '-n', 'kube-system', '--snapshot', EXAMPLE, ...NOW, '-o', 'json']),
      runCli(['status', 'fluentd', '-n', 'kube-system', '--snapshot', EXAMPLE, ...NOW, '-o', 'yaml'], ROLLOUT),
      runCli(['history', 'fluentd', '-n', 'kube-system', '--snapshot', EXAMPLE, '-o', 'json'], ROLLOUT),
      runCli(['history', 'fluentd', '-n', 'kube-system', '--snapshot', EXAMPLE, '--revision', '2', '-o', 'json'], ROLLOUT),
      runCli(['status', '-n', 'kube-system', '--snapshot', EXAMPLE, ...NOW, '-o', 'json'], ROLLOUT),
      runCli(['history', 'fluentd', '-n', 'kube-system', '--snapshot', EXAMPLE, '--diff', '2', '3', '-o', 'json'], ROLLOUT),
      runCli(['dashboard', 'fluentd', '-n', 'kube-system', '--snapshot', EXAMPLE, '-o', 'json'], ROLLOUT),
    ]);
    const heads = documents.map((result) => {
      const document = load(result.stdout) as {apiVersion: string; kind: string};
      return [document.apiVersion, document.kind];
    });
    expect(heads).toEqual([
      ['ds-rollout.io/v1alpha1', 'DaemonSetRolloutPlan'],
      ['ds-rollout.io/v1alpha1', 'DaemonSetRolloutStatus'],
      ['ds-rollout.io/v1alpha1', 'DaemonSetHistory'],
      ['ds-rollout.io/v1alpha1', 'DaemonSetRevision'],
      ['ds-rollout.io/v1alpha1', 'DaemonSetRolloutStatusList'],
      ['ds-rollout.io/v1alpha1', 'DaemonSetRevisionDiff'],
      ['ds-rollout.io/v1alpha1', 'DaemonSetRolloutStatus'],
    ]);
  });
});

describe('live: --dry-run=none|client|server, status watching by default, the cluster named', () => {
  let t: TestCluster;
  const rollout = (...args: string[]) => runCli([...args, '--kubeconfig', t.kubeconfig], ROLLOUT);
  const stored = () => t.cluster.store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet;
  const writes = () => t.cluster.requestLog.entries.filter((e) => e.method !== 'GET');

  beforeAll(async () => {
    t = await startTestCluster({scenario: 'demo', agents: false});
  });
  afterAll(async () => {
    await t.stop();
  });

  test('pause: --dry-run=server sends the patch with dryRun=All and changes nothing; client and bare --dry-run send nothing', async () => {
    const before = stored().metadata.resourceVersion;
    const sent = writes().length;
    const server = await rollout('pause', 'ds/fluentd', '-n', 'kube-system', '--dry-run=server', '-o', 'json');
    expect(server.stderr).toBe('');
    expect(server.code).toBe(0);
    expect(JSON.parse(server.stdout)).toMatchObject({apiVersion: 'ds-rollout.io/v1alpha1', kind: 'DaemonSetPause', outcome: 'paused', dryRun: true});
    const patches = writes().slice(sent);
    expect(patches.map((e) => [e.method, e.resource, e.query['dryRun']])).toEqual([['PATCH', 'daemonsets', 'All']]);
    expect(stored().metadata.resourceVersion).toBe(before);

    const [client, bare, bad] = await Promise.all([
      rollout('pause', 'fluentd', '-n', 'kube-system', '--dry-run=client', '-o', 'jsonpath={.outcome} {.dryRun}'),
      rollout('pause', 'fluentd', '-n', 'kube-system', '--dry-run'),
      rollout('pause', 'fluentd', '-n', 'kube-system', '--dry-run=maybe'),
    ]);
    expect([client.code, client.stdout]).toEqual([0, 'paused true']);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toContain('would be paused (dry run, nothing was changed)');
    expect([bad.code, oneLine(bad)]).toEqual([1, `error: invalid --dry-run "maybe": want none, client or server; see 'kubectl ds-rollout pause --help'`]);
    expect(writes().length).toBe(sent + 1);
    expect(stored().metadata.resourceVersion).toBe(before);
  });

  test('undo and resume: --dry-run=server is sent with dryRun=All, and the cluster is left as it was', async () => {
    const before = stored().metadata.resourceVersion;
    const sent = writes().length;
    const undo = await rollout('undo', 'daemonset.apps/fluentd', '-n', 'kube-system', '--dry-run=server');
    expect(undo.code).toBe(0);
    expect(undo.stdout).toContain('daemonset.apps/fluentd rolled back (server dry run: nothing was changed)');
    expect(
      writes()
        .slice(sent)
        .map((e) => [e.method, e.query['dryRun']]),
    ).toEqual([['PATCH', 'All']]);
    expect(stored().metadata.resourceVersion).toBe(before);

    const paused = await rollout('pause', 'fluentd', '-n', 'kube-system');
    expect(paused.code).toBe(0);
    const pausedVersion = stored().metadata.resourceVersion;
    const resume = await rollout('resume', 'fluentd', '-n', 'kube-system', '--dry-run=server', '-o', 'jsonpath={.outcome}');
    expect([resume.code, resume.stdout]).toEqual([0, 'resumed']);
    expect(writes().at(-1)!.query['dryRun']).toBe('All');
    expect(stored().metadata.resourceVersion).toBe(pausedVersion);
    expect(stored().spec.updateStrategy?.type).toBe('OnDelete');

    // step --dry-run=server: the next wave's deletions go to the server with dryRun=All; every pod stays.
    const pods = t.cluster.store.list('pods', {namespace: 'kube-system'}).items.length;
    const stepSent = writes().length;
    const step = await rollout('step', 'fluentd', '-n', 'kube-system', '--dry-run=server');
    expect(step.stderr).toBe('');
    expect(step.code).toBe(0);
    expect(step.stdout).toMatch(/The API server accepted the \d+ deletions \(server dry run: nothing was deleted\)/);
    const deletes = writes().slice(stepSent);
    expect(deletes.length).toBeGreaterThan(0);
    expect(deletes.every((e) => e.method === 'DELETE' && e.query['dryRun'] === 'All')).toBe(true);
    expect(t.cluster.store.list('pods', {namespace: 'kube-system'}).items.length).toBe(pods);
    expect((await rollout('resume', 'fluentd', '-n', 'kube-system')).code).toBe(0);
  });

  test('status watches by default (--timeout ends it, exit 4); --watch=false looks once and takes --timeout too', async () => {
    const watched = await rollout('status', 'fluentd', '-n', 'kube-system', '--timeout', '1s');
    expect(watched.code).toBe(4);
    expect(oneLine(watched)).toBe('error: timed out after 1s waiting for daemon set "fluentd" to finish its rollout');
    const once = await rollout('status', 'fluentd', '-n', 'kube-system', '--watch=false', '--timeout', '30s');
    expect([once.code, once.stderr]).toEqual([4, '']);
    expect(once.stdout.split('\n')[0]).toBe(`Cluster: context ds-rollout-sim (${t.cluster.url})`);
    expect(once.stdout).toContain('Rollout in progress');
    const history = await rollout('history', 'fluentd', '-n', 'kube-system');
    expect(history.stdout.split('\n')[0]).toBe(`Cluster: context ds-rollout-sim (${t.cluster.url})`);
    const plan = await runCli(['fluentd', '-n', 'kube-system', '--kubeconfig', t.kubeconfig, '--now', START_TEXT]);
    expect(plan.stdout.split('\n')[0]).toBe(`Cluster: context ds-rollout-sim (${t.cluster.url})`);
  });
});

describe.skipIf(!existsSync('/usr/bin/script'))('on a terminal, step names the cluster and `a` runs every wave', () => {
  let sim: RolloutSim;
  beforeAll(async () => {
    sim = await startRolloutSim({nodes: 6, maxUnavailable: 2});
  });
  afterAll(async () => {
    await sim?.stop();
  });

  test('a: this wave and every later one, without asking again', async () => {
    const args = ['step', 'agent', '--kubeconfig', sim.kubeconfig, '--timeout', '60s'];
    const quoted = [process.execPath, `${ROOT}/bin/kubectl-ds_rollout`, ...args].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
    const output = await new Promise<{text: string; code: number}>((resolve) => {
      const child = execFile(
        'script',
        ['-qec', quoted, '/dev/null'],
        {env: {PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', NO_COLOR: '1'}, timeout: 60_000},
        (error, stdout) => resolve({text: stdout.replace(/\u001B\[[0-9;]*[A-Za-z]/g, ''), code: typeof error?.code === 'number' ? error.code : 0}),
      );
      child.stdin?.end('a\n');
    });
    expect(output.code).toBe(0);
    // The simulated cluster speaks HTTPS: the prompt names its server as the kubeconfig does.
    const prompt = `Delete these 2 pods of default/agent on context ds-rollout-sim (${sim.test.cluster.url})? [y/N/a(ll waves)]`;
    expect(output.text.split(prompt)).toHaveLength(2);
    expect(Object.values(sim.images()).flat()).toEqual(Array(6).fill('agent:v2'));
  }, 90_000);
});

describe('step --controller --dry-run=server', () => {
  test('sends the resume that starts the controller wave with dryRun=All; the DaemonSet stays paused', async () => {
    const sim = await startRolloutSim({nodes: 3, maxSurge: 1, maxUnavailable: 0});
    try {
      const before = sim.daemonSet().metadata.resourceVersion;
      const sent = sim.test.cluster.requestLog.count;
      const result = await runCli(['step', 'agent', '--controller', '--dry-run=server', '--kubeconfig', sim.kubeconfig], ROLLOUT);
      expect([result.code, result.stderr]).toEqual([0, '']);
      expect(result.stdout).toContain('The API server accepted the resume for the controller wave (server dry run: nothing was changed).');
      const writes = sim.test.cluster.requestLog.entries.slice(-(sim.test.cluster.requestLog.count - sent)).filter((e) => e.method !== 'GET');
      expect(writes.map((e) => [e.method, e.resource, e.query['dryRun']])).toEqual([['PATCH', 'daemonsets', 'All']]);
      expect(sim.daemonSet().metadata.resourceVersion).toBe(before);
      expect(sim.daemonSet().spec.updateStrategy?.type).toBe('OnDelete');
    } finally {
      await sim.stop();
    }
  });
});
