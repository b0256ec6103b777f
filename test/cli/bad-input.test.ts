// The battery of wrong types and values through the BUILT binaries: a snapshot, a manifest (-f), --now and a
// server's answer. Every case is one line on stderr naming the field, exit 1 (2 for a server's bad answer), and
// never "internal error" or a stack trace: "internal error" is kept for bugs.
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {createServer, type Server} from 'node:http';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {dump} from 'js-yaml';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {newDaemonSet, newNode, newPod, newRevision} from '../helpers/builders.js';
import {runCli, type CliResult} from '../helpers/run-cli.js';

const NOW = ['--now', '2026-11-21T12:00:00Z'];
const ds = newDaemonSet('fluentd');
const nodes = [newNode('node-a'), newNode('node-b')];
const pods = [newPod('fluentd-aaaaa', 'node-a', ds, {hash: 'h1'}), newPod('fluentd-bbbbb', 'node-b', ds, {hash: 'h1'})];
// items: [node-a, node-b, pod-a, pod-b, fluentd, revision]
const all: unknown[] = [...nodes, ...pods, ds, newRevision(ds, 'h1', 1)];

function withValue(index: number, path: readonly string[], value: unknown): unknown[] {
  const items = structuredClone(all);
  let at = items[index] as Record<string, unknown>;
  for (const key of path.slice(0, -1)) {
    at[key] ??= {};
    at = at[key] as Record<string, unknown>;
  }
  at[path[path.length - 1]!] = value;
  return items;
}

function expectOneLine(result: CliResult, code: number, message: string): void {
  expect(result.stdout).toBe('');
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/internal error|\s{4}at |\.js:\d/);
  expect(result.stderr).toContain(message);
  expect(result.code).toBe(code);
}

describe('a snapshot with wrong types or values: ds-plan and history say which field, exit 1', () => {
  const RU = ['spec', 'updateStrategy', 'rollingUpdate'];
  const rows: {name: string; items: unknown[]; message: string}[] = [
    {
      name: 'labels that are numbers',
      items: withValue(2, ['metadata', 'labels'], {app: 1}),
      message: 'items[2].metadata.labels[app]: Invalid value: 1: must be a string (Pod default/fluentd-aaaaa)',
    },
    {
      name: 'containers as a string',
      items: withValue(4, ['spec', 'template', 'spec', 'containers'], 'x'),
      message: 'items[4].spec.template.spec.containers: Invalid value: "x": must be a list',
    },
    {
      name: 'matchExpressions [null]',
      items: withValue(4, ['spec', 'selector', 'matchExpressions'], [null]),
      message: 'items[4].spec.selector.matchExpressions[0].operator: Invalid value: "": not a valid selector operator',
    },
    {name: 'tolerations [null]', items: withValue(3, ['spec', 'tolerations'], [null]), message: 'items[3].spec.tolerations[0].operator'},
    {
      name: 'ownerReferences as a string',
      items: withValue(2, ['metadata', 'ownerReferences'], 'x'),
      message: 'items[2].metadata.ownerReferences: Invalid value: "x": must be a list',
    },
    {name: 'pod conditions [null]', items: withValue(2, ['status', 'conditions'], [null]), message: 'items[2].status.conditions[0].type: Required value'},
    {name: 'node taints [null]', items: withValue(0, ['spec', 'taints'], [null]), message: 'items[0].spec.taints[0].key'},
    {
      name: 'minReadySeconds "abc"',
      items: withValue(4, ['spec', 'minReadySeconds'], 'abc'),
      message: 'items[4].spec.minReadySeconds: Invalid value: "abc": must be an integer',
    },
    {
      name: 'minReadySeconds 2^31',
      items: withValue(4, ['spec', 'minReadySeconds'], 2 ** 31),
      message: 'items[4].spec.minReadySeconds: Invalid value: 2147483648: must be an integer from',
    },
    {
      name: 'maxUnavailable 1e20',
      items: withValue(4, [...RU, 'maxUnavailable'], 1e20),
      message: 'items[4].spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 100000000000000000000',
    },
    {
      name: 'rollingUpdate "fast"',
      items: withValue(4, RU, 'fast'),
      message: 'items[4].spec.updateStrategy.rollingUpdate: Invalid value: "fast": must be an object',
    },
    {name: 'the same pod twice', items: [...all, pods[0]], message: 'items[6]: Duplicate value: Pod default/fluentd-aaaaa is also items[2]'},
    {name: 'the same node twice', items: [...all, nodes[0]], message: 'items[6]: Duplicate value: Node node-a is also items[0]'},
  ];

  test.each(rows)('$name', async ({items, message}) => {
    const stdin = JSON.stringify({apiVersion: 'v1', kind: 'List', items});
    const [plan, history] = await Promise.all([
      runCli(['fluentd', '--snapshot', '-', ...NOW], {stdin}),
      runCli(['history', 'fluentd', '--snapshot', '-'], {stdin, bin: 'bin/kubectl-ds_rollout'}),
    ]);
    expectOneLine(plan, 1, `<stdin>: ${message}`);
    expectOneLine(history, 1, `<stdin>: ${message}`);
  });

  test('null is an absent field, as the API server decodes it: labels: null plans', async () => {
    const items = withValue(0, ['metadata', 'labels'], null);
    const result = await runCli(['fluentd', '--snapshot', '-', ...NOW], {stdin: JSON.stringify({kind: 'List', items})});
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});

describe('a manifest (-f) with wrong types: one line naming the field, exit 1', () => {
  const snapshot = dump({kind: 'List', items: all});
  let dir: string;
  let snapshotPath: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ds-bad-input-'));
    snapshotPath = join(dir, 'snapshot.yaml');
    await writeFile(snapshotPath, snapshot);
  });
  afterAll(async () => {
    await rm(dir, {recursive: true, force: true});
  });

  function manifest(edit: (spec: Record<string, any>) => void): string {
    const copy = structuredClone(ds) as Record<string, any>;
    edit(copy['spec']);
    return dump(copy);
  }
  const rows: {name: string; text: string; message: string}[] = [
    {
      name: 'minReadySeconds 1.5',
      text: manifest((s) => (s['minReadySeconds'] = 1.5)),
      message: 'DaemonSet "fluentd": spec.minReadySeconds: Invalid value: 1.5: must be an integer',
    },
    {name: 'minReadySeconds 1e300', text: manifest((s) => (s['minReadySeconds'] = 1e300)), message: 'spec.minReadySeconds: Invalid value: 1e+300'},
    {
      name: 'updateStrategy as a string',
      text: manifest((s) => (s['updateStrategy'] = 'RollingUpdate')),
      message: 'spec.updateStrategy: Invalid value: "RollingUpdate": must be an object',
    },
    {
      name: 'template labels that are numbers',
      text: manifest((s) => (s['template'].metadata.labels = {name: 5})),
      message: 'spec.template.metadata.labels[name]: Invalid value: 5: must be a string',
    },
    {
      name: 'selector values as a string',
      text: manifest((s) => (s['selector'] = {matchExpressions: [{key: 'name', operator: 'In', values: 'fluentd'}]})),
      message: 'spec.selector.matchExpressions[0].values',
    },
    {name: 'spec as a string', text: dump({...ds, spec: 'x'}), message: 'DaemonSet "fluentd": spec: Invalid value: "x": must be an object'},
    {
      name: 'minReadySeconds -1 (a value the API server refuses)',
      text: manifest((s) => (s['minReadySeconds'] = -1)),
      message:
        'the API server would refuse this manifest: DaemonSet.apps "fluentd" is invalid: spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0',
    },
  ];

  test.each(rows)('$name', async ({text, message}) => {
    expectOneLine(await runCli(['-f', '-', '--snapshot', snapshotPath, ...NOW], {stdin: text}), 1, message);
  });
});

test('--now 2024-02-30T00:00:00Z is an error, not 1 March', async () => {
  const result = await runCli(['fluentd', '--snapshot', '-', '--now', '2024-02-30T00:00:00Z'], {stdin: dump({kind: 'List', items: all})});
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('invalid --now "2024-02-30T00:00:00Z": want an RFC3339 time');
  expect(result.stderr).not.toMatch(/internal error|\s{4}at /);
});

describe('a server that answers a DaemonSet with spec: "x"', () => {
  let server: Server;
  let dir: string;
  let kubeconfig: string;
  beforeAll(async () => {
    const daemonSet = {apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {name: 'fluentd', namespace: 'default', uid: 'u', resourceVersion: '1'}, spec: 'x'};
    server = createServer((request, response) => {
      const path = (request.url ?? '').split('?')[0]!;
      // The DaemonSet read by name (GET) and by a list (status watches: list by metadata.name, then watch).
      const body = path.endsWith('/daemonsets/fluentd')
        ? daemonSet
        : {apiVersion: 'v1', kind: 'List', metadata: {resourceVersion: '1'}, items: path.endsWith('/daemonsets') ? [daemonSet] : []};
      response.writeHead(200, {'Content-Type': 'application/json'});
      response.end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const {port} = server.address() as {port: number};
    dir = await mkdtemp(join(tmpdir(), 'ds-bad-server-'));
    kubeconfig = join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      dump({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'bad',
        clusters: [{name: 'bad', cluster: {server: `http://127.0.0.1:${port}`}}],
        contexts: [{name: 'bad', context: {cluster: 'bad', user: 'u', namespace: 'default'}}],
        users: [{name: 'u', user: {}}],
      }),
    );
  });
  afterAll(async () => {
    server.close();
    await rm(dir, {recursive: true, force: true});
  });

  test.each([['pause'], ['history'], ['status']])('%s exits 2 with the field', async (verb) => {
    const result = await runCli([verb, 'fluentd', '--kubeconfig', kubeconfig], {bin: 'bin/kubectl-ds_rollout'});
    expectOneLine(result, 2, 'the server answered a DaemonSet that is not valid: spec: Invalid value: "x": must be an object (DaemonSet default/fluentd)');
  });

  test('ds-plan exits 2 with the field', async () => {
    expectOneLine(await runCli(['fluentd', '--kubeconfig', kubeconfig, ...NOW]), 2, 'spec: Invalid value: "x": must be an object');
  });
});
