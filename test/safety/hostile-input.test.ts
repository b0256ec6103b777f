// The fault table of issue 23: hostile files, frozen networks, objects the API server refuses, control characters,
// flag values out of range and a bad exec credential, through the BUILT binaries (`npm run build` first) and the
// simulated cluster's HTTP API. Every case is bounded in time (generously: the machine may be busy) and must end
// in one stderr line with its exit code, never "internal error", never a raw control character on the terminal.
import {chmod, mkdtemp, readFile, rm, truncate, writeFile} from 'node:fs/promises';
import {createServer as createHttpServer, type Server as HttpServer} from 'node:http';
import {createServer, type Server, type Socket} from 'node:net';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {readFileSync} from 'node:fs';
import {type ChildProcess, execFileSync, spawn} from 'node:child_process';
import {dump, loadAll} from 'js-yaml';
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest';
import {formatFieldError, validateAnnotationsSize, validateControllerRevision, validateDaemonSet, validatePod, type FieldError} from '../../src/core/index.js';
import {newDaemonSet, newNode, newPod, newRevision} from '../helpers/builders.js';
import {ROOT, runCli, type CliResult} from '../helpers/run-cli.js';
import {type FreezableProxy, startFreezableProxy} from '../helpers/freezable-proxy.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';
import {call} from '../sim/http-helpers.js';

vi.setConfig({testTimeout: 120_000});

/** What any case may take, start-up included, on a busy machine: far above what each needs (a second or two). */
const CASE_BOUND_MS = 30_000;
// The point: no control character but newline reaches the terminal.
const RAW_CONTROL = /[\u0000-\u0009\u000B-\u001F\u007F]/;

const ds = newDaemonSet('fluentd');
const nodes = [newNode('node-a'), newNode('node-b')];
const pods = [newPod('fluentd-aaaaa', 'node-a', ds, {hash: 'h1'}), newPod('fluentd-bbbbb', 'node-b', ds, {hash: 'h1'})];

/** A snapshot (List) of the fixture with `edit` applied to a copy of item `index` (0-1 nodes, 2-3 pods, 4 the DaemonSet, 5 its revision). */
function snapshotWith(index: number, edit: (item: Record<string, any>) => void): string {
  const items: Record<string, any>[] = structuredClone([...nodes, ...pods, ds, newRevision(ds, 'h1', 1)]) as Record<string, any>[];
  edit(items[index]!);
  return JSON.stringify({apiVersion: 'v1', kind: 'List', items});
}

/** A "billion laughs" YAML value, nine levels of nine aliases (9^9 strings expanded), indented by `indent`. */
function aliasBomb(indent: string): string {
  const lines = [`${indent}a: &a ["x","x","x","x","x","x","x","x","x"]`];
  for (const [prev, name] of [...'abcdefgh'].map((c, i) => [c, 'bcdefghi'[i]!]))
    lines.push(`${indent}${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
  return lines.join('\n');
}

const BOMB_DAEMONSET = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: fluentd
  namespace: default
spec:
  selector: {matchLabels: {app: fluentd}}
  template:
    metadata: {labels: {app: fluentd}}
    spec:
      containers:
      - name: c
        image: fluentd:v2
        env:
        - name: BOMB
          value:
${aliasBomb('            ')}
`;

/** A DaemonSet whose container args alias one `size`-character string `count` times (a small text, a huge tree). */
function aliasedString(size: number, count: number): string {
  return `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: fluentd
  namespace: default
  annotations: {big: &big "${'x'.repeat(size)}"}
spec:
  selector: {matchLabels: {app: fluentd}}
  template:
    metadata: {labels: {app: fluentd}}
    spec:
      containers: [{name: c, image: x, args: [${Array(count).fill('*big').join(',')}]}]
`;
}

function deepJson(depth: number): string {
  return snapshotWith(4, (item) => {
    item.metadata.labels = {app: 'fluentd', deep: '__DEEP__'};
  }).replace('"__DEEP__"', `${'['.repeat(depth)}${']'.repeat(depth)}`);
}

let dir: string;
let sim: TestCluster;
let frozen: FreezableProxy;
let silent: Server;
const silentSockets = new Set<Socket>();
/** A web server whose answers never end (chunked, or a Content-Length of 10^15 for nodes). */
let endless: HttpServer;
/** A web server that answers 200 with JSON that is no API object, to every request. */
let jsonServer: HttpServer;

/** A kubeconfig whose cluster is reached through `proxy` (a proxy that accepts and never answers). */
async function proxiedKubeconfig(name: string, proxy: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(
    path,
    dump({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{name: 'c', cluster: {server: 'https://10.255.255.1:6443', 'insecure-skip-tls-verify': true, 'proxy-url': proxy}}],
      users: [{name: 'u', user: {token: 'abc'}}],
      contexts: [{name: 'x', context: {cluster: 'c', user: 'u', namespace: 'default'}}],
      'current-context': 'x',
    }),
    {mode: 0o600},
  );
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ds-hostile-'));
  const files: Record<string, string> = {
    'bomb-annotation.yaml': `apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: fluentd\n  namespace: default\n  annotations:\n    bomb:\n${aliasBomb('      ')}\nspec:\n  selector: {matchLabels: {app: fluentd}}\n  template:\n    metadata: {labels: {app: fluentd}}\n    spec:\n      containers: [{name: c, image: x}]\n`,
    'bomb-env.yaml': BOMB_DAEMONSET,
    'bomb-label.yaml': `apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: fluentd\n  namespace: default\n  labels:\n    bomb:\n${aliasBomb('      ')}\nspec:\n  selector: {matchLabels: {app: fluentd}}\n  template:\n    metadata: {labels: {app: fluentd}}\n    spec:\n      containers: [{name: c, image: x}]\n`,
    'bomb-volumes.yaml': `apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: fluentd\n  namespace: default\nspec:\n  selector: {matchLabels: {app: fluentd}}\n  template:\n    metadata: {labels: {app: fluentd}}\n    spec:\n      containers: [{name: c, image: x}]\n      volumes:\n      - name: v\n        emptyDir:\n${aliasBomb('          ')}\n`,
    'bomb-strategy.yaml': `waves:\n${aliasBomb('  ')}\n`,
    'deep.json': deepJson(100_000),
    'node-selector.json': snapshotWith(4, (item) => (item.spec.template.spec.nodeSelector = {'bad key!': 'x'})),
    'host-port.json': snapshotWith(4, (item) => (item.spec.template.spec.containers[0].ports = [{containerPort: 80, hostPort: 70000}])),
    'annotations.json': snapshotWith(4, (item) => (item.metadata.annotations = {big: 'x'.repeat(300 * 1024)})),
    'generation.json': snapshotWith(4, (item) => (item.metadata.generation = -1)),
    'revision-2-63.json': snapshotWith(5, (item) => (item.revision = '__R__')).replace('"__R__"', '9223372036854775808'),
    'revision-2-53.json': snapshotWith(5, (item) => (item.revision = '__R__')).replace('"__R__"', '9007199254740993'),
    'change-cause.json': snapshotWith(5, (item) => (item.metadata.annotations = {'kubernetes.io/change-cause': 'deploy \u001B[2J\u001B[Hclear'})),
    'change-cause-colour.json': snapshotWith(5, (item) => (item.metadata.annotations = {'kubernetes.io/change-cause': 'deploy \u001B[31mred \u001B[8mhidden'})),
    'manifest-host-port.yaml': dump(exampleDaemonSet((spec) => (spec.containers[0].ports = [{containerPort: 70000}]))),
    ...Object.fromEntries(POD_RULES.map((rule, i) => [`pod-rule-${i}.yaml`, dump(exampleDaemonSet(rule.edit))])),
    'alias-64k.yaml': aliasedString(64 * 1024, 8000),
    'endless.sh': `#!/bin/sh\nexec yes '{"apiVersion":"client.authentication.k8s.io/v1"}'\n`,
    'hang.sh': '#!/bin/sh\nexec sleep 600\n',
    'revision-1e3.json': snapshotWith(5, (item) => (item.revision = '__R__')).replace('"__R__"', '1e3'),
    'revision-1.0.json': snapshotWith(5, (item) => (item.revision = '__R__')).replace('"__R__"', '1.0'),
    'revision-1.0.yaml': dump(JSON.parse(snapshotWith(5, (item) => (item.revision = '__R__')))).replace('revision: __R__', 'revision: 1.0'),
    'zero-budgets.json': snapshotWith(4, (item) => (item.spec.updateStrategy = {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 0, maxSurge: 0}})),
    'strategy-restarts-2-63.yaml': 'maxRestarts: 9223372036854775808\n',
    'strategy-canary-huge.yaml': 'canary: 9999999999999\n',
    'strategy-bake-huge.yaml': 'bake: 1e300\n',
    // YAML's "\e" is ESC: a key that would be the pattern "\x1b[31mred" (an unterminated class) if made into one.
    'strategy-control-key.yaml': 'waves: [50%, 100%]\n"\\e[31mred(": 1\n',
    'bad-expiry.sh': `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t","expirationTimestamp":"yesterday"}}'\n`,
  };
  const withTemplateAnnotations = exampleDaemonSet(() => undefined) as Record<string, any>;
  withTemplateAnnotations['spec']['template']['metadata']['annotations'] = {big: 'x'.repeat(300 * 1024)};
  files['template-annotations.yaml'] = dump(withTemplateAnnotations);
  const withoutName = exampleDaemonSet(() => undefined) as Record<string, any>;
  delete withoutName['metadata']['name'];
  files['no-name.yaml'] = dump(withoutName);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  await chmod(join(dir, 'bad-expiry.sh'), 0o755);
  await chmod(join(dir, 'endless.sh'), 0o755);
  await chmod(join(dir, 'hang.sh'), 0o755);
  // A FIFO no one ever opens for writing: opening it to read blocks for ever.
  execFileSync('mkfifo', [join(dir, 'silent-fifo')]);
  // 600 MiB on stat, no blocks on disk: refused by its size before a byte is read.
  await writeFile(join(dir, 'huge-kubeconfig'), '');
  await truncate(join(dir, 'huge-kubeconfig'), 600 * 2 ** 20);
  await writeFile(join(dir, 'huge-ca.crt'), '');
  await truncate(join(dir, 'huge-ca.crt'), 600 * 2 ** 20);
  for (const [name, user, cluster] of [
    ['zero-token', {tokenFile: '/dev/zero'}, {}],
    ['garbage-key', {'client-certificate-data': Buffer.from('garbage').toString('base64'), 'client-key-data': Buffer.from('garbage').toString('base64')}, {}],
    ['endless-exec', {exec: {apiVersion: 'client.authentication.k8s.io/v1', command: join(dir, 'endless.sh'), interactiveMode: 'Never'}}, {}],
    ['zero-ca', {token: 'abc'}, {'certificate-authority': '/dev/urandom', 'insecure-skip-tls-verify': false}],
    ['huge-ca', {token: 'abc'}, {'certificate-authority': join(dir, 'huge-ca.crt'), 'insecure-skip-tls-verify': false}],
    ['fifo-ca', {token: 'abc'}, {'certificate-authority': join(dir, 'silent-fifo'), 'insecure-skip-tls-verify': false}],
    ['fifo-token', {tokenFile: join(dir, 'silent-fifo')}, {}],
    ['gcp-hang', {'auth-provider': {name: 'gcp', config: {'cmd-path': join(dir, 'hang.sh'), 'cmd-args': 'config config-helper --format=json'}}}, {}],
  ] as const) {
    await writeFile(
      join(dir, name),
      dump({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{name: 'c', cluster: {server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true, ...cluster}}],
        users: [{name: 'u', user}],
        contexts: [{name: 'x', context: {cluster: 'c', user: 'u'}}],
        'current-context': 'x',
      }),
    );
  }
  endless = createHttpServer((req, res) => {
    if (req.url?.startsWith('/api/v1/nodes')) res.writeHead(200, {'Content-Type': 'application/json', 'Content-Length': String(10 ** 15)});
    else res.writeHead(200, {'Content-Type': 'application/json'});
    res.write(req.url === '/version' ? '{"gitVersion":"v1.20.2"}' : '{"kind":"DaemonSet","metadata":{"name":"');
    if (req.url === '/version') return void res.end();
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    const more = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', more);
    };
    more();
  });
  await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
  await writeFile(
    join(dir, 'endless-server'),
    dump({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{name: 'c', cluster: {server: `http://127.0.0.1:${(endless.address() as {port: number}).port}`}}],
      users: [{name: 'u', user: {}}],
      contexts: [{name: 'x', context: {cluster: 'c', user: 'u', namespace: 'default'}}],
      'current-context': 'x',
    }),
  );
  await writeFile(
    join(dir, 'exec-kubeconfig'),
    dump({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{name: 'c', cluster: {server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true}}],
      users: [{name: 'u', user: {exec: {apiVersion: 'client.authentication.k8s.io/v1', command: join(dir, 'bad-expiry.sh'), interactiveMode: 'Never'}}}],
      contexts: [{name: 'x', context: {cluster: 'c', user: 'u'}}],
      'current-context': 'x',
    }),
  );
  silent = createServer((socket) => {
    silentSockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const silentPort = (silent.address() as {port: number}).port;
  await proxiedKubeconfig('http-proxy', `http://user:secret@127.0.0.1:${silentPort}`);
  await proxiedKubeconfig('socks-proxy', `socks5://user:secret@127.0.0.1:${silentPort}`);
  jsonServer = createHttpServer((req, res) => {
    res.writeHead(200, {'Content-Type': 'application/json'});
    res.end(req.url === '/version' ? '{"gitVersion":"v1.20.2","major":"1","minor":"20"}' : '{"hello":"world"}');
  });
  await new Promise<void>((resolve) => jsonServer.listen(0, '127.0.0.1', resolve));
  await writeFile(
    join(dir, 'json-server'),
    dump({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{name: 'c', cluster: {server: `http://127.0.0.1:${(jsonServer.address() as {port: number}).port}`}}],
      users: [{name: 'u', user: {}}],
      contexts: [{name: 'x', context: {cluster: 'c', user: 'u', namespace: 'default'}}],
      'current-context': 'x',
    }),
  );
  sim = await startTestCluster();
  frozen = await startFreezableProxy(sim.cluster.url);
  await frozen.kubeconfigFor(sim.kubeconfig, join(dir, 'frozen'));
  frozen.freeze();
});

afterAll(async () => {
  for (const socket of silentSockets) socket.destroy();
  await new Promise<void>((resolve) => silent?.close(() => resolve()));
  endless?.closeAllConnections();
  await new Promise<void>((resolve) => endless?.close(() => resolve()));
  jsonServer?.closeAllConnections();
  await new Promise<void>((resolve) => jsonServer?.close(() => resolve()));
  await frozen?.close();
  await sim?.stop();
  await rm(dir, {recursive: true, force: true});
});

interface CliCase {
  readonly name: string;
  readonly bin?: 'plan' | 'rollout';
  /** `{dir}` is the case files' directory. */
  readonly args: readonly string[];
  readonly stdin?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly code: number;
  /** A part of the one stderr line. */
  readonly message: string | RegExp;
}

const ON = (file: string) => ['--snapshot', `{dir}/${file}`];
const EXAMPLE = 'examples/rollout-in-progress.yaml';

/** The example snapshot's fluentd DaemonSet with `edit` applied to its pod spec: a manifest for -f. */
function exampleDaemonSet(edit: (spec: Record<string, any>) => void): unknown {
  const documents = loadAll(readFileSync(join(ROOT, EXAMPLE), 'utf8')) as Record<string, any>[];
  const items = documents.flatMap((doc) => (Array.isArray(doc?.['items']) ? (doc['items'] as Record<string, any>[]) : [doc]));
  const found = structuredClone(items.find((item) => item?.['kind'] === 'DaemonSet' && item['metadata']?.['name'] === 'fluentd'))!;
  edit(found['spec']['template']['spec']);
  return found;
}

/** Pod template rules the API server applies, each broken once in a -f manifest (issue 30, finding 7). */
const POD_RULES: {rule: string; edit: (spec: Record<string, any>) => void; message: string}[] = [
  {
    rule: 'a port name over 15 characters',
    edit: (spec) => (spec.containers[0].ports = [{name: 'a-very-long-port-name', containerPort: 80}]),
    message: 'containers[0].ports[0].name: Invalid value: "a-very-long-port-name": must be no more than 15 characters',
  },
  {
    rule: 'protocol XYZ',
    edit: (spec) => (spec.containers[0].ports = [{containerPort: 80, protocol: 'XYZ'}]),
    message: 'containers[0].ports[0].protocol: Unsupported value: "XYZ": supported values: "SCTP", "TCP", "UDP"',
  },
  {
    rule: 'dnsPolicy Bogus',
    edit: (spec) => (spec.dnsPolicy = 'Bogus'),
    message: 'spec.template.spec.dnsPolicy: Unsupported value: "Bogus"',
  },
  {
    rule: 'duplicate volume names',
    edit: (spec) => (spec.volumes = [...(spec.volumes ?? []), {name: 'v', emptyDir: {}}, {name: 'v', emptyDir: {}}]),
    message: '.name: Duplicate value: "v"',
  },
  {
    rule: 'a volumeMount with no volume',
    edit: (spec) => (spec.containers[0].volumeMounts = [{name: 'nowhere', mountPath: '/x'}]),
    message: 'containers[0].volumeMounts[0].name: Not found: "nowhere"',
  },
  {
    rule: 'requests over limits',
    edit: (spec) => (spec.containers[0].resources = {requests: {cpu: '2'}, limits: {cpu: '1'}}),
    message: 'containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit',
  },
  {
    rule: 'quantity lots',
    edit: (spec) => (spec.containers[0].resources = {limits: {memory: 'lots'}}),
    message: 'containers[0].resources.limits[memory]: Invalid value: "lots": quantities must match the regular expression',
  },
  {rule: 'an empty env name', edit: (spec) => (spec.containers[0].env = [{name: '', value: 'x'}]), message: 'containers[0].env[0].name: Required value'},
  {
    rule: 'hostNetwork with hostPort not containerPort',
    edit: (spec) => {
      spec.hostNetwork = true;
      spec.containers[0].ports = [{containerPort: 80, hostPort: 81}];
    },
    message: 'containers[0].ports[0].containerPort: Invalid value: 80: must match `hostPort` when `hostNetwork` is true',
  },
  {
    rule: 'runAsUser -1',
    edit: (spec) => (spec.securityContext = {runAsUser: -1}),
    message: 'spec.template.spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive',
  },
];

const CLI_CASES: Record<string, readonly CliCase[]> = {
  '1. files that eat the machine': [
    {
      name: 'an alias bomb as a DaemonSet annotation',
      args: ['fluentd', ...ON('bomb-annotation.yaml')],
      code: 1,
      message: /YAML aliases expand it past [\d,]+ nodes/,
    },
    {
      name: 'an alias bomb as template env (history)',
      bin: 'rollout',
      args: ['history', 'fluentd', ...ON('bomb-env.yaml')],
      code: 1,
      message: /YAML aliases expand/,
    },
    {
      name: 'an alias bomb in -f',
      args: ['-f', '{dir}/bomb-env.yaml', ...ON('node-selector.json')],
      code: 1,
      message: /manifest ".*bomb-env.yaml": YAML aliases expand/,
    },
    {
      name: 'an alias bomb in --strategy',
      bin: 'rollout',
      args: ['step', 'fluentd', '--strategy', '{dir}/bomb-strategy.yaml', '--yes', '--kubeconfig', '{dir}/http-proxy'],
      code: 1,
      message: /YAML aliases expand/,
    },
    {
      name: 'an alias bomb as a label value, -o yaml',
      args: ['fluentd', ...ON('bomb-label.yaml'), '-o', 'yaml'],
      code: 1,
      message: /YAML aliases expand it past [\d,]+ nodes/,
    },
    {
      name: 'an alias bomb as template volumes (history --diff)',
      bin: 'rollout',
      args: ['history', 'fluentd', '--diff', '1,2', ...ON('bomb-volumes.yaml')],
      code: 1,
      message: /YAML aliases expand/,
    },
    ...[
      {bin: 'plan' as const, args: ['fluentd', ...ON('alias-64k.yaml')]},
      {bin: 'rollout' as const, args: ['status', 'fluentd', ...ON('alias-64k.yaml')]},
      {bin: 'rollout' as const, args: ['history', 'fluentd', '--diff', '1,2', ...ON('alias-64k.yaml')]},
      {bin: 'plan' as const, args: ['-f', '{dir}/alias-64k.yaml', ...ON('node-selector.json')]},
    ].map(({bin, args}): CliCase => ({
      name: `one 64 KiB string aliased 8,000 times: ${args.join(' ')}`,
      bin,
      args,
      code: 1,
      message: /YAML aliases expand it past [\d,]+ characters of text/,
    })),
    {
      name: 'one 64 KiB string aliased 8,000 times on stdin (-f -)',
      args: ['-f', '-', ...ON('node-selector.json')],
      stdin: aliasedString(64 * 1024, 8000),
      code: 1,
      message: /YAML aliases expand it past [\d,]+ characters of text/,
    },
    {name: '--kubeconfig /dev/zero', args: ['fluentd', '--kubeconfig', '/dev/zero'], code: 1, message: 'kubeconfig "/dev/zero" is a device, not a file'},
    {name: 'KUBECONFIG=/dev/urandom', args: ['fluentd'], env: {KUBECONFIG: '/dev/urandom'}, code: 1, message: 'kubeconfig "/dev/urandom" is a device'},
    {
      name: 'a 600 MiB kubeconfig',
      args: ['fluentd', '--kubeconfig', '{dir}/huge-kubeconfig'],
      code: 1,
      message: /kubeconfig ".*huge-kubeconfig" is larger than the 4 MiB limit/,
    },
    {
      name: '--certificate-authority /dev/zero',
      args: ['fluentd', '--kubeconfig', '{dir}/zero-ca', '--certificate-authority', '/dev/zero'],
      code: 1,
      message: '--certificate-authority: "/dev/zero" is a device, not a file',
    },
    {
      name: 'certificate-authority: /dev/urandom',
      args: ['fluentd', '--kubeconfig', '{dir}/zero-ca'],
      code: 1,
      message: '.certificate-authority: "/dev/urandom" is a device',
    },
    {name: 'a 600 MiB CA file', args: ['fluentd', '--kubeconfig', '{dir}/huge-ca'], code: 1, message: /huge-ca\.crt" is larger than the 1 MiB limit/},
    {name: 'tokenFile: /dev/zero', args: ['fluentd', '--kubeconfig', '{dir}/zero-token'], code: 1, message: '.tokenFile: "/dev/zero" is a device'},
    {
      name: 'an exec plugin that writes without end',
      args: ['fluentd', '--kubeconfig', '{dir}/endless-exec'],
      code: 2,
      message: /endless\.sh" printed more than 1 MiB on stdout/,
    },
    {
      name: 'a DaemonSet answer without end (chunked)',
      args: ['fluentd', '--kubeconfig', '{dir}/endless-server'],
      code: 2,
      message: /the server at http:\/\/127\.0\.0\.1:\d+ answered GET \/apis\/apps\/v1\/namespaces\/default\/daemonsets\/fluentd with more than 16 MiB: refused/,
    },
    {
      name: 'a node list with a Content-Length of 10^15',
      bin: 'rollout',
      args: ['status', '-A', '--kubeconfig', '{dir}/endless-server'],
      code: 2,
      message: /answered GET \/\S+ with more than 16 MiB: refused/,
    },
    {name: 'JSON nested 100,000 deep in a label', args: ['fluentd', ...ON('deep.json')], code: 1, message: 'nested deeper than 1000 levels'},
    {name: '--snapshot /dev/zero', args: ['fluentd', '--snapshot', '/dev/zero'], code: 1, message: 'snapshot file "/dev/zero" is a device, not a file'},
    {name: '--snapshot /dev/urandom', args: ['fluentd', '--snapshot', '/dev/urandom'], code: 1, message: 'is a device, not a file'},
    {name: 'NUL bytes on stdin', args: ['fluentd', '--snapshot', '-'], stdin: '\u0000'.repeat(100_000), code: 1, message: 'holds binary data (a NUL byte)'},
    {
      name: '300 KiB of annotations',
      args: ['fluentd', ...ON('annotations.json')],
      code: 1,
      message: 'metadata.annotations: Too long: must have at most 262144 bytes',
    },
  ],
  '2. frozen networks': [
    {
      name: 'ds-plan through an http proxy that never answers',
      args: ['fluentd', '--kubeconfig', '{dir}/http-proxy', '--request-timeout', '2s'],
      code: 2,
      message: /through the proxy http:\/\/127\.0\.0\.1:\d+: no answer within 2s/,
    },
    {
      name: 'status through a socks5 proxy that never answers',
      bin: 'rollout',
      args: ['status', 'fluentd', '--kubeconfig', '{dir}/socks-proxy', '--request-timeout', '2s'],
      code: 2,
      message: /through the proxy socks5:\/\/127\.0\.0\.1:\d+: no answer within 2s/,
    },
    {
      name: 'history through an http proxy that never answers',
      bin: 'rollout',
      args: ['history', 'fluentd', '--kubeconfig', '{dir}/http-proxy', '--request-timeout', '2s'],
      code: 2,
      message: 'no answer within 2s',
    },
    {
      name: 'step --dry-run through a socks5 proxy that never answers',
      bin: 'rollout',
      args: ['step', 'fluentd', '--dry-run', '--kubeconfig', '{dir}/socks-proxy', '--request-timeout', '2s'],
      code: 2,
      message: 'no answer within 2s',
    },
    {
      name: 'ds-plan on a cluster frozen before it starts',
      args: ['fluentd', '--kubeconfig', '{dir}/frozen', '--request-timeout', '2s'],
      code: 2,
      message: 'no answer within 2s (--request-timeout)',
    },
    {
      name: 'status -A on a cluster frozen before it starts',
      bin: 'rollout',
      args: ['status', '-A', '--kubeconfig', '{dir}/frozen', '--request-timeout', '2s'],
      code: 2,
      message: 'no answer within 2s (--request-timeout)',
    },
  ],
  "3. the API server's limits": [
    {
      name: 'a nodeSelector key that is not a label key',
      args: ['fluentd', ...ON('node-selector.json')],
      code: 1,
      message: 'spec.template.spec.nodeSelector: Invalid value: "bad key!"',
    },
    {
      name: 'hostPort 70000',
      args: ['fluentd', ...ON('host-port.json')],
      code: 1,
      message: 'spec.template.spec.containers[0].ports[0].hostPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    },
    {
      name: 'containerPort 70000 in -f',
      args: ['-f', '{dir}/manifest-host-port.yaml', '--snapshot', EXAMPLE],
      code: 1,
      message: 'spec.template.spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    },
    ...POD_RULES.map(({rule, message}, i): CliCase => ({
      name: `${rule} in -f`,
      args: ['-f', `{dir}/pod-rule-${i}.yaml`, '--snapshot', EXAMPLE],
      code: 1,
      message,
    })),
    {
      name: 'a manifest without metadata.name',
      args: ['-f', '{dir}/no-name.yaml', '--snapshot', EXAMPLE],
      code: 1,
      message: 'DaemonSet.apps "" is invalid: metadata.name: Required value',
    },
    {
      name: 'template annotations over 256 KiB in -f',
      args: ['-f', '{dir}/template-annotations.yaml', '--snapshot', EXAMPLE],
      code: 1,
      message: 'spec.template.metadata.annotations: Too long: must have at most 262144 bytes',
    },
    {
      name: 'metadata.generation -1',
      args: ['fluentd', ...ON('generation.json')],
      code: 1,
      message: 'metadata.generation: Invalid value: -1: must be greater than or equal to 0',
    },
    {
      name: 'a revision of 2^63',
      bin: 'rollout',
      args: ['history', 'fluentd', ...ON('revision-2-63.json')],
      code: 1,
      message: 'revision: Invalid value: 9223372036854775808: must be an integer from -9223372036854775808 to 9223372036854775807',
    },
    // Go's JSON decoder refuses a number with a fraction or an exponent for an int64, whatever its value.
    ...['revision-1e3.json', 'revision-1.0.json', 'revision-1.0.yaml'].map((file): CliCase => ({
      name: `a revision written ${/1e3/.test(file) ? '1e3' : '1.0'} (${file})`,
      bin: 'rollout',
      args: ['history', 'fluentd', ...ON(file)],
      code: 1,
      message: `revision: Invalid value: ${/1e3/.test(file) ? '1e3' : '1.0'}: must be an integer written without a fraction or an exponent`,
    })),
    {
      name: 'sim start --snapshot with both budgets zero: the API server refuses it, in its words',
      bin: 'rollout',
      args: ['sim', 'start', ...ON('zero-budgets.json')],
      code: 1,
      message:
        /^error: snapshot ".*zero-budgets\.json": DaemonSet\.apps "fluentd" is invalid: spec\.updateStrategy\.rollingUpdate\.maxUnavailable: Required value: cannot be 0 when maxSurge is 0$/m,
    },
  ],
  '4. raw bytes to the terminal': [
    {name: 'a DaemonSet name with ESC', args: ['flu\u001B[2Jentd', ...ON('node-selector.json')], code: 1, message: 'invalid DaemonSet name "flu\\x1b[2Jentd"'},
    {
      name: 'a 5,000-character --now',
      args: ['fluentd', '--now', 'x'.repeat(5000), ...ON('node-selector.json')],
      code: 1,
      message: /\.\.\." \(5000 characters\)/,
    },
    {name: 'a 5,000-character path', args: ['fluentd', '--snapshot', `/${'d'.repeat(5000)}`], code: 1, message: /\(5001 characters\)/},
    {
      name: 'a DaemonSet name with ESC (status)',
      bin: 'rollout',
      args: ['status', 'flu\u001B[2Jentd', ...ON('node-selector.json')],
      code: 1,
      message: 'invalid DaemonSet name "flu\\x1b[2Jentd"',
    },
    {
      name: 'a 5,000-character path (history)',
      bin: 'rollout',
      args: ['history', 'fluentd', '--snapshot', `/${'d'.repeat(5000)}`],
      code: 1,
      message: /\(5001 characters\)/,
    },
  ],
  '5. flag errors name the flag': [
    {
      name: '--max-restarts -1',
      bin: 'rollout',
      args: ['step', 'fluentd', '--max-restarts', '-1'],
      code: 1,
      message: 'invalid --max-restarts "-1": want a whole number from 0 to 2147483647',
    },
    {name: '--max-restarts abc', bin: 'rollout', args: ['step', 'fluentd', '--max-restarts', 'abc'], code: 1, message: 'invalid --max-restarts "abc"'},
    {
      name: 'undo --to-revision abc',
      bin: 'rollout',
      args: ['undo', 'fluentd', '--to-revision', 'abc'],
      code: 1,
      message: 'invalid --to-revision "abc": want a whole number from 0',
    },
    {name: 'undo --to-revision 1.5', bin: 'rollout', args: ['undo', 'fluentd', '--to-revision', '1.5'], code: 1, message: 'invalid --to-revision "1.5"'},
    {
      name: 'history --diff abc,2',
      bin: 'rollout',
      args: ['history', 'fluentd', '--diff', 'abc,2', '--snapshot', EXAMPLE],
      code: 1,
      message: 'invalid --diff "abc": want a whole number from 1 to 9223372036854775807',
    },
    {
      name: '--pod-start 9999999999999h',
      args: ['fluentd', '--pod-start', '9999999999999h'],
      code: 1,
      message: 'invalid --pod-start "9999999999999h": want a duration from 0 to 596h',
    },
    {
      name: '--request-timeout 10000000000000h',
      args: ['fluentd', '--request-timeout', '10000000000000h'],
      code: 1,
      message: 'invalid --request-timeout "10000000000000h"',
    },
    {name: '--request-timeout 0 (no limit) is refused', args: ['fluentd', '--request-timeout', '0'], code: 1, message: '0 would let a frozen cluster hang'},
  ],
  '7. something that is not Kubernetes answering 200': [
    ...[
      {bin: 'plan', args: ['fluentd']},
      {bin: 'rollout', args: ['status', 'fluentd']},
      {bin: 'rollout', args: ['history', 'fluentd']},
      {bin: 'rollout', args: ['step', 'fluentd', '--dry-run']},
      {bin: 'rollout', args: ['undo', 'fluentd', '--dry-run']},
      {bin: 'rollout', args: ['pause', 'fluentd']},
      {bin: 'rollout', args: ['status', '-A']},
    ].map(({bin, args}): CliCase => ({
      name: `${args.join(' ')}: JSON that is no API object`,
      bin: bin as 'plan' | 'rollout',
      args: [...args, '--kubeconfig', '{dir}/json-server', '--request-timeout', '5s'],
      code: 2,
      message: /^error: the server at http:\/\/127\.0\.0\.1:\d+ is not a Kubernetes API server: it answered GET \/\S+ with JSON without a kind/,
    })),
  ],
  '8. waits that could last for ever': [
    {
      name: '--kubeconfig a FIFO no one writes to',
      args: ['fluentd', '--kubeconfig', '{dir}/silent-fifo', '--request-timeout', '2s'],
      code: 2,
      message: /^error: kubeconfig ".*silent-fifo" did not end within 2s \(--request-timeout\): a pipe or FIFO that no one writes to\?$/m,
    },
    {
      name: 'KUBECONFIG a FIFO no one writes to, at the default timeout',
      bin: 'rollout',
      args: ['status', 'fluentd'],
      env: {KUBECONFIG: '{dir}/silent-fifo'},
      code: 2,
      message: /kubeconfig ".*silent-fifo" did not end within 15s \(--request-timeout\)/,
    },
    {
      name: '--certificate-authority a FIFO no one writes to',
      args: ['fluentd', '--kubeconfig', '{dir}/zero-ca', '--certificate-authority', '{dir}/silent-fifo', '--request-timeout', '2s'],
      code: 2,
      message: /--certificate-authority: ".*silent-fifo" did not end within 2s/,
    },
    {
      name: 'certificate-authority: a FIFO no one writes to',
      bin: 'rollout',
      args: ['history', 'fluentd', '--kubeconfig', '{dir}/fifo-ca', '--request-timeout', '2s'],
      code: 2,
      message: /clusters\[0\]\.cluster\.certificate-authority: ".*silent-fifo" did not end within 2s/,
    },
    {
      name: 'tokenFile: a FIFO no one writes to',
      args: ['fluentd', '--kubeconfig', '{dir}/fifo-token', '--request-timeout', '2s'],
      code: 2,
      message: /users\[0\]\.user\.tokenFile: ".*silent-fifo" did not end within 2s/,
    },
    {
      name: 'a gcp auth-provider whose cmd-path never exits',
      args: ['fluentd', '--kubeconfig', '{dir}/gcp-hang', '--request-timeout', '2s'],
      code: 2,
      message: /users\[0\]\.user\.auth-provider: the gcp auth-provider's cmd-path ".*hang\.sh" gave no credential within 2s \(--request-timeout\)/,
    },
    {
      name: 'a gcp auth-provider whose cmd-path never exits (status)',
      bin: 'rollout',
      args: ['status', 'fluentd', '--kubeconfig', '{dir}/gcp-hang', '--request-timeout', '2s'],
      code: 2,
      message: /gave no credential within 2s \(--request-timeout\)/,
    },
  ],
  '9. strategy files within range': [
    ...(
      [
        ['strategy-restarts-2-63.yaml', ':1: maxRestarts: want a whole number from 0 to 2147483647'],
        ['strategy-canary-huge.yaml', ':1: canary: want a node count of at least 1'],
        ['strategy-bake-huge.yaml', ':1: bake: want a duration from 0 to 596h (24 days)'],
        ['strategy-control-key.yaml', 'unknown field "\\x1b[31mred(" (want one of canary'],
      ] as const
    ).map(([file, message]): CliCase => ({
      name: `--strategy ${file}`,
      bin: 'rollout',
      args: ['step', 'fluentd', '--strategy', `{dir}/${file}`, '--yes', '--kubeconfig', '{dir}/http-proxy'],
      code: 1,
      message,
    })),
  ],
  '6. credentials': [
    {
      name: 'a client-key-data that is no key',
      args: ['fluentd', '--kubeconfig', '{dir}/garbage-key'],
      code: 1,
      message: /users\[0\]\.user\.client-key-data: not a PEM private key that TLS can use/,
    },
    {
      name: 'an exec plugin with an invalid expirationTimestamp',
      args: ['fluentd', '--kubeconfig', '{dir}/exec-kubeconfig'],
      code: 2,
      message: /invalid expirationTimestamp "yesterday"/,
    },
  ],
};

function expectOneSafeLine(result: CliResult, elapsedMs: number, c: CliCase): void {
  expect(elapsedMs).toBeLessThan(CASE_BOUND_MS);
  expect(result.stderr).not.toMatch(/internal error|\s{4}at |Warning/);
  expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
  expect(result.stderr.trimEnd()).not.toMatch(RAW_CONTROL);
  expect(result.stdout).not.toMatch(RAW_CONTROL);
  if (typeof c.message === 'string') expect(result.stderr).toContain(c.message);
  else expect(result.stderr).toMatch(c.message);
  expect(result.code).toBe(c.code);
}

function mapValues(record: Readonly<Record<string, string>> | undefined, map: (value: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(record ?? {}).map(([key, value]) => [key, map(value)]));
}

/** Peak memory any case may use (issue 30): Node alone takes about 60 MB. */
const MAX_PEAK_RSS_BYTES = 300 * 1e6;
let runs = 0;

for (const [group, cases] of Object.entries(CLI_CASES)) {
  describe(group, () => {
    test.each(cases.map((c) => ({...c, label: c.name})))('$label', async (c) => {
      const started = performance.now();
      const rssFile = join(dir, `rss-${++runs}`);
      const result = await runCli(
        c.args.map((arg) => arg.replace('{dir}', dir)),
        {
          bin: c.bin === 'rollout' ? 'bin/kubectl-ds_rollout' : 'bin/kubectl-ds_plan',
          env: {
            ...mapValues(c.env, (value) => value.replace('{dir}', dir)),
            NODE_OPTIONS: `--import=${join(ROOT, 'test/helpers/peak-rss.mjs')}`,
            DS_PEAK_RSS_FILE: rssFile,
          },
          ...(c.stdin !== undefined ? {stdin: c.stdin} : {}),
        },
      );
      expectOneSafeLine(result, performance.now() - started, c);
      // No refused input may take the machine's memory: the peak resident set stays far under 300 MB.
      expect(Number(await readFile(rssFile, 'utf8')) * 1024).toBeLessThan(MAX_PEAK_RSS_BYTES);
      if (/proxy/.test(c.name)) expect(result.stderr).not.toContain('secret');
    });
  });
}

/**
 * Runs ds-plan with `args` until its first stderr line (the notice), then `feed`s its input and waits for its exit.
 * The notice's delay is a parameter: the test waits for the notice itself, never for a time.
 */
async function afterNotice(
  args: readonly string[],
  feed: (child: ChildProcess) => Promise<void>,
): Promise<{notice: string; stderr: string; stdout: string; code: number | null}> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/kubectl-ds_plan'), ...args], {
    cwd: ROOT,
    env: {PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', DS_ROLLOUT_STDIN_NOTICE_MS: '50'},
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  await new Promise<void>((resolve) =>
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('\n')) resolve();
    }),
  );
  const notice = stderr;
  await feed(child);
  const code = await closed;
  return {notice, stderr, stdout, code};
}

describe('8. a silent standard input is waited for (as kubectl does), and said once to be', () => {
  test.each([
    {reader: '--snapshot -', args: ['fluentd', '-n', 'kube-system', '--snapshot', '-'], stdin: () => readFileSync(join(ROOT, EXAMPLE), 'utf8')},
    {reader: '-f -', args: ['-f', '-', '--snapshot', EXAMPLE], stdin: () => dump(exampleDaemonSet(() => undefined))},
  ])('$reader', async ({reader, args, stdin}) => {
    const run = await afterNotice(args, async (child) => void child.stdin!.end(stdin()));
    expect(run.notice).toBe(`waiting for standard input (${reader})...\n`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe(run.notice);
    expect(run.stdout).toContain('fluentd');
  });

  test('a snapshot FIFO silent for a while too', async () => {
    const fifo = join(dir, 'snapshot-fifo');
    execFileSync('mkfifo', [fifo]);
    const run = await afterNotice(['fluentd', '-n', 'kube-system', '--snapshot', fifo], () => writeFile(fifo, readFileSync(join(ROOT, EXAMPLE), 'utf8')));
    expect(run.notice).toBe(`waiting for snapshot file "${fifo}" (a pipe or FIFO)...\n`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe(run.notice);
    expect(run.stdout).toContain('fluentd');
  });
});

test('3. a revision of 2^53+1 is read exactly, not rounded (more in test/cli/int64-revisions.test.ts)', async () => {
  const result = await runCli(['history', 'fluentd', '--snapshot', join(dir, 'revision-2-53.json')], {bin: 'bin/kubectl-ds_rollout'});
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('9007199254740993');
});

test.each<{file: string; shown: string; env: Record<string, string>}>([
  {file: 'change-cause.json', shown: 'deploy \\x1b[2J\\x1b[Hclear', env: {}},
  {file: 'change-cause-colour.json', shown: 'deploy \\x1b[31mred \\x1b[8mhidden', env: {}},
  // With colour on, the program's own colours stay, but a colour code that came from input is still shown escaped.
  {file: 'change-cause-colour.json', shown: 'deploy \\x1b[31mred \\x1b[8mhidden', env: {FORCE_COLOR: '1'}},
])('4. a change-cause with escape sequences ($file, $env) is printed escaped, exit 0', async ({file, shown, env}) => {
  const result = await runCli(['history', 'fluentd', '--snapshot', join(dir, file)], {bin: 'bin/kubectl-ds_rollout', env});
  expect(result.code).toBe(0);
  expect(result.stdout).toContain(shown);
  expect(result.stdout.replace(/\u001B\[(?:1|2|22|31|32|33|36|39)m(?=[^\\])/g, '')).not.toMatch(RAW_CONTROL);
});

describe("3. the API server's rules, each beside its message", () => {
  const template = ds.spec.template;
  const withPodSpec = (extra: Record<string, unknown>) => ({...ds, spec: {...ds.spec, template: {...template, spec: {...template.spec, ...extra}}}});
  const rows: {rule: string; errors: () => readonly FieldError[]; message: string}[] = [
    {
      rule: 'nodeSelector keys are label keys',
      errors: () => validateDaemonSet(withPodSpec({nodeSelector: {'a/b/c': 'x'}})),
      message:
        "spec.template.spec.nodeSelector: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    },
    {
      rule: 'a hostPort is a port number',
      errors: () => validateDaemonSet(withPodSpec({containers: [{name: 'c', image: 'x', ports: [{containerPort: 80, hostPort: 70000}]}]})),
      message: 'spec.template.spec.containers[0].ports[0].hostPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    },
    {
      rule: 'a containerPort is required',
      errors: () => validateDaemonSet(withPodSpec({containers: [{name: 'c', image: 'x', ports: [{containerPort: 0}]}]})),
      message: 'spec.template.spec.containers[0].ports[0].containerPort: Required value',
    },
    {
      rule: 'annotations total at most 256 KiB',
      errors: () => validateAnnotationsSize({big: 'x'.repeat(256 * 1024)}),
      message: 'metadata.annotations: Too long: must have at most 262144 bytes',
    },
    {
      rule: 'annotation keys are qualified names',
      errors: () => validatePod({...pods[0]!, metadata: {...pods[0]!.metadata, annotations: {'-bad': 'x'}}}),
      message:
        "metadata.annotations: Invalid value: \"-bad\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    },
    {
      rule: 'generation is not negative',
      errors: () => validateDaemonSet({...ds, metadata: {...ds.metadata, generation: -1}}),
      message: 'metadata.generation: Invalid value: -1: must be greater than or equal to 0',
    },
    {
      rule: 'a ControllerRevision revision is not negative',
      errors: () => validateControllerRevision({...newRevision(ds, 'h1', 1), revision: -1}),
      message: 'revision: Invalid value: -1: must be greater than or equal to 0',
    },
  ];
  test.each(rows)('$rule', ({errors, message}) => {
    expect(errors().map(formatFieldError)).toContain(message);
  });
});

describe('the simulated cluster answers at once, never stalls', () => {
  const DS_PATH = '/apis/apps/v1/namespaces/default/daemonsets';
  const manifest = () => structuredClone({...ds, metadata: {name: 'hostile', namespace: 'default'}});
  const cases: {name: string; request: () => Promise<{status: number; body: any}>; status: number; message: string | RegExp}[] = [
    {
      name: 'a 477-byte YAML bomb in one POST',
      request: () =>
        call(sim.cluster, 'POST', DS_PATH, {
          body: `kind: DaemonSet\napiVersion: apps/v1\nmetadata: {name: bomb}\nbomb:\n${aliasBomb('  ')}\n`,
          headers: {'content-type': 'application/yaml'},
        }),
      // The API server's answer: a decode error (400) at once, in go-yaml's words.
      status: 400,
      message: /^yaml: document contains excessive aliasing \(the request body's YAML aliases expand it past [\d,]+ nodes/,
    },
    {
      name: 'a YAML bomb in a PUT',
      request: () =>
        call(sim.cluster, 'PUT', `${DS_PATH}/bomb`, {
          body: `kind: DaemonSet\napiVersion: apps/v1\nmetadata: {name: bomb}\nbomb:\n${aliasBomb('  ')}\n`,
          headers: {'content-type': 'application/yaml'},
        }),
      status: 400,
      message: 'yaml: document contains excessive aliasing',
    },
    {
      name: 'a ControllerRevision whose revision is written 1e3',
      request: () =>
        call(sim.cluster, 'POST', '/apis/apps/v1/namespaces/default/controllerrevisions', {
          body: '{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"r"},"data":{},"revision":1e3}',
          headers: {'content-type': 'application/json'},
        }),
      // The API server's decoder refuses it (400), as Go's JSON decoder refuses 1e3 for an int64.
      status: 400,
      message: 'cannot be handled as a ControllerRevision: revision: Invalid value: 1e3: must be an integer written without a fraction or an exponent',
    },
    {
      name: "a body over the API server's 3 MiB",
      request: () => call(sim.cluster, 'POST', DS_PATH, {body: {...manifest(), metadata: {name: 'big', annotations: {big: 'x'.repeat(3 * 1024 * 1024)}}}}),
      status: 413,
      message: 'Request entity too large: limit is 3145728',
    },
    {
      name: 'hostPort 70000',
      request: () => {
        const body = manifest();
        (body.spec.template.spec.containers[0] as {ports?: unknown}).ports = [{containerPort: 80, hostPort: 70000}];
        return call(sim.cluster, 'POST', DS_PATH, {body});
      },
      status: 422,
      message: 'spec.template.spec.containers[0].ports[0].hostPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    },
    {
      name: 'a volumeMount with no volume (the same rules as ds-plan -f)',
      request: () => {
        const body = manifest();
        (body.spec.template.spec.containers[0] as {volumeMounts?: unknown}).volumeMounts = [{name: 'nowhere', mountPath: '/x'}];
        return call(sim.cluster, 'POST', DS_PATH, {body});
      },
      status: 422,
      message: 'spec.template.spec.containers[0].volumeMounts[0].name: Not found: "nowhere"',
    },
    {
      name: '300 KiB of annotations',
      request: () => call(sim.cluster, 'POST', DS_PATH, {body: {...manifest(), metadata: {name: 'hostile', annotations: {big: 'x'.repeat(300 * 1024)}}}}),
      status: 422,
      message: 'metadata.annotations: Too long: must have at most 262144 bytes',
    },
    {
      name: 'a nodeSelector key that is not a label key',
      request: () => {
        const body = manifest();
        (body.spec.template.spec as {nodeSelector?: unknown}).nodeSelector = {'bad key!': 'x'};
        return call(sim.cluster, 'POST', DS_PATH, {body});
      },
      status: 422,
      message: 'spec.template.spec.nodeSelector: Invalid value: "bad key!"',
    },
    {
      name: 'a JSON patch that removes /metadata',
      request: async () => {
        await call(sim.cluster, 'POST', DS_PATH, {body: {...manifest(), metadata: {name: 'patched'}}});
        return call(sim.cluster, 'PATCH', `${DS_PATH}/patched`, {
          body: [{op: 'remove', path: '/metadata'}],
          headers: {'content-type': 'application/json-patch+json'},
        });
      },
      status: 422,
      message: 'metadata.name: Required value',
    },
    {
      name: 'a DELETE with a grace period beyond int64',
      request: () => call(sim.cluster, 'DELETE', '/api/v1/namespaces/default/pods/none?gracePeriodSeconds=100000000000000000000'),
      status: 400,
      message: 'invalid gracePeriodSeconds',
    },
    {
      name: 'an admin impersonating a user without rights',
      request: () => call(sim.cluster, 'GET', DS_PATH, {headers: {'Impersonate-User': 'someone'}}),
      status: 403,
      message: 'daemonsets.apps is forbidden: User "someone" cannot list resource "daemonsets" in API group "apps" in the namespace "default"',
    },
    {
      name: 'a user without rights impersonating the admin',
      request: () => {
        const token = sim.cluster.issueToken('nobody');
        const nobody = {url: sim.cluster.url, caCert: sim.cluster.caCert, authHeaders: () => ({authorization: `Bearer ${token}`})};
        return call(nobody, 'GET', DS_PATH, {headers: {'Impersonate-User': 'admin'}});
      },
      status: 403,
      message: 'User "nobody" cannot impersonate resource "users"',
    },
  ];
  test.each(cases)('$name: $status', async ({request, status, message}) => {
    const started = performance.now();
    const answer = await request();
    expect(performance.now() - started).toBeLessThan(CASE_BOUND_MS);
    expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(status);
    if (typeof message === 'string') expect(answer.body.message).toContain(message);
    else expect(answer.body.message).toMatch(message);
  });

  test('a pod deleted with a grace period of centuries can still be deleted at once', async () => {
    const pod = {apiVersion: 'v1', kind: 'Pod', metadata: {name: 'slow'}, spec: {nodeName: 'node-0', containers: [{name: 'c', image: 'x'}]}};
    expect((await call(sim.cluster, 'POST', '/api/v1/namespaces/default/pods', {body: pod})).status).toBe(201);
    const first = await call(sim.cluster, 'DELETE', '/api/v1/namespaces/default/pods/slow?gracePeriodSeconds=9000000000000');
    expect(first.status).toBe(200);
    expect(first.body.metadata.deletionTimestamp).toBe('9999-12-31T23:59:59Z');
    expect((await call(sim.cluster, 'DELETE', '/api/v1/namespaces/default/pods/slow?gracePeriodSeconds=0')).status).toBe(200);
    expect((await call(sim.cluster, 'GET', '/api/v1/namespaces/default/pods/slow')).status).toBe(404);
  });
});
