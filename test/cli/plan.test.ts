// ds-plan end to end: the BUILT bin/kubectl-ds_plan against scenario snapshots, with --now fixed.
// Goldens: test/fixtures/golden/plan/<scenario>.{txt,json}; regenerate with `npx vitest run test/cli -u`, then read them.
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {dump, loadAll} from 'js-yaml';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {runCli, scenarioPath, type CliResult} from '../helpers/run-cli.js';

const NOW = ['--now', '2026-11-21T12:00:00Z'];
const EXAMPLE = 'examples/rollout-in-progress.yaml';

const scenarios = [
  {scenario: 'rollout-in-progress', target: ['fluentd', '-n', 'kube-system']},
  {scenario: 'surge', target: ['node-exporter', '-n', 'monitoring']},
  {scenario: 'budget-exhausted', target: ['node-exporter', '-n', 'monitoring']},
  {scenario: 'on-delete', target: ['node-exporter', '-n', 'monitoring']},
  {scenario: 'complete', target: ['node-exporter', '-n', 'monitoring']},
  {scenario: 'large-cluster', target: ['node-exporter', '-n', 'monitoring']},
];

function expectSuccess(result: CliResult): void {
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
}

/** Exit 1, exactly one `error: ...` line on stderr, nothing on stdout. */
function expectInputError(result: CliResult, message: string | RegExp): void {
  expect(result.stdout).toBe('');
  expect(result.stderr.endsWith('\n')).toBe(true);
  const lines = result.stderr.slice(0, -1).split('\n');
  expect(lines).toHaveLength(1);
  if (typeof message === 'string') expect(lines[0]).toBe(`error: ${message}`);
  else expect(lines[0]).toMatch(message);
  expect(result.code).toBe(1);
}

describe.each(scenarios)('kubectl ds-plan on $scenario', ({scenario, target}) => {
  const args = [...target, '--snapshot', scenarioPath(scenario), ...NOW];

  test('text', async () => {
    const result = await runCli(args);
    expectSuccess(result);
    await expect(result.stdout).toMatchFileSnapshot(`../fixtures/golden/plan/${scenario}.txt`);
  });

  test('json', async () => {
    const result = await runCli([...args, '-o', 'json']);
    expectSuccess(result);
    await expect(result.stdout).toMatchFileSnapshot(`../fixtures/golden/plan/${scenario}.json`);
  });
});

describe('kubectl ds-plan output', () => {
  const example = ['fluentd', '-n', 'kube-system', '--snapshot', EXAMPLE, ...NOW];

  test('the example is the rollout-in-progress scenario', async () => {
    const [fromExample, fromScenario] = await Promise.all([
      runCli(example),
      runCli(['fluentd', '-n', 'kube-system', '--snapshot', scenarioPath('rollout-in-progress'), ...NOW]),
    ]);
    expectSuccess(fromExample);
    expect(fromExample.stdout).toBe(fromScenario.stdout);
  });

  test('DS_ROLLOUT_TIMINGS=1: the same output, and one stderr line saying where the time went', async () => {
    const [plain, timed] = await Promise.all([runCli([...example, '-o', 'json']), runCli([...example, '-o', 'json'], {env: {DS_ROLLOUT_TIMINGS: '1'}})]);
    expectSuccess(plain);
    expect(timed.code).toBe(0);
    expect(timed.stdout).toBe(plain.stdout);
    expect(timed.stderr).toMatch(/^timings: start-up \d+ ms, read \d+ ms, plan \d+ ms, output \d+ ms \(total \d+ ms since the process started\)\n$/);
  });

  test('yaml is the json document', async () => {
    const [json, yaml] = await Promise.all([runCli([...example, '-o', 'json']), runCli([...example, '--output=yaml'])]);
    expectSuccess(yaml);
    const {load} = await import('js-yaml');
    expect(load(yaml.stdout)).toEqual(JSON.parse(json.stdout));
    await expect(yaml.stdout).toMatchFileSnapshot('../fixtures/golden/plan/rollout-in-progress.yaml');
  });

  test('the ETA says what it rests on: observed pod starts, or --pod-start', async () => {
    const observed = await runCli(example);
    expectSuccess(observed);
    expect(observed.stdout).toContain('  complete in about 1m46s (ETA), from 9 observed pod starts (median 22s); deletions assumed 1s (none seen to finish)');
    const [text, json] = await Promise.all([runCli([...example, '--pod-start', '4s']), runCli([...example, '--pod-start', '4s', '-o', 'json'])]);
    expectSuccess(text);
    expect(text.stdout).toContain('  complete in about 1m10s (ETA), from 4s per pod start (--pod-start); deletions assumed 1s (none seen to finish)');
    const plan = JSON.parse(json.stdout) as {timing: unknown; waves: {at: number}[]};
    expect(plan.timing).toEqual({
      etaSeconds: 70,
      podStart: {seconds: 4, basis: 'given', observations: 0},
      podDeletion: {seconds: 1, basis: 'assumed', observations: 0},
    });
    expect(Object.keys(plan).at(-1)).toBe('timing');
    const bad = await runCli([...example, '--pod-start', 'soon']);
    expectInputError(bad, /invalid --pod-start "soon"/);
  });

  test('json follows the contract key order', async () => {
    const plan = JSON.parse((await runCli([...example, '-o', 'json'])).stdout) as Record<string, any>;
    expect(Object.keys(plan).slice(0, 10)).toEqual([
      'apiVersion',
      'kind',
      'daemonSet',
      'strategy',
      'revisions',
      'status',
      'nodes',
      'nextSync',
      'waves',
      'complete',
    ]);
    expect(plan.kind).toBe('DaemonSetRolloutPlan');
    expect(Object.keys(plan.nodes[0]).slice(0, 5)).toEqual(['name', 'shouldRun', 'shouldContinueRunning', 'reason', 'pods']);
    expect(plan.nodes.map((n: {name: string}) => n.name)).toEqual([...plan.nodes.map((n: {name: string}) => n.name)].sort());
  });

  test('the snapshot can come from stdin, as YAML or JSON', async () => {
    const text = await readFile(EXAMPLE, 'utf8');
    const fromFile = await runCli(example);
    const fromStdin = await runCli(['fluentd', '-n', 'kube-system', '--snapshot', '-', ...NOW], {stdin: text});
    expectSuccess(fromStdin);
    expect(fromStdin.stdout).toBe(fromFile.stdout);
    const {load} = await import('js-yaml');
    const asJson = await runCli(['fluentd', '-n', 'kube-system', '--snapshot', '-', ...NOW], {stdin: JSON.stringify(load(text))});
    expect(asJson.stdout).toBe(fromFile.stdout);
  });

  test('--all-nodes lists every node of a large cluster', async () => {
    const args = ['node-exporter', '-n', 'monitoring', '--snapshot', scenarioPath('large-cluster'), ...NOW];
    const [some, all] = await Promise.all([runCli(args), runCli([...args, '--all-nodes'])]);
    expect(all.stdout.match(/^node-\d+ /gm)).toHaveLength(120);
    expect(some.stdout.match(/^node-\d+ /gm)!.length).toBeLessThan(120);
  });

  test('colour only when forced, and NO_COLOR wins', async () => {
    const [forced, plain, both] = await Promise.all([
      runCli(example, {env: {FORCE_COLOR: '1'}}),
      runCli(example),
      runCli(example, {env: {FORCE_COLOR: '1', NO_COLOR: '1'}}),
    ]);
    expect(forced.stdout).toMatch(/\u001B\[/);
    expect(plain.stdout).not.toMatch(/\u001B\[/);
    expect(both.stdout).toBe(plain.stdout);
    // JSON never carries colour.
    expect((await runCli([...example, '-o', 'json'], {env: {FORCE_COLOR: '1'}})).stdout).not.toMatch(/\u001B\[/);
  });

  test('-n defaults to "default" with a snapshot', async () => {
    const result = await runCli(['fluentd', '--snapshot', EXAMPLE, ...NOW]);
    expectInputError(
      result,
      `daemonset "fluentd" not found in namespace "default" of snapshot ${EXAMPLE} (it has: kube-system/fluentd, kube-system/kube-proxy)`,
    );
  });
});

describe('kubectl ds-plan --help', () => {
  test('shows kubectl usage, its own flags and examples; the connection flags are left to options', async () => {
    const result = await runCli(['--help']);
    expectSuccess(result);
    expect(result.stdout).toContain('Usage:\n  kubectl ds-plan [NAME] [flags]');
    for (const flag of ['--snapshot=FILE', '-f, --filename=MANIFEST', '--now=RFC3339', '-o, --output=FORMAT', '--all-nodes']) {
      expect(result.stdout).toContain(flag);
    }
    for (const flag of ['--namespace=', '--context=', '--kubeconfig=']) expect(result.stdout).not.toContain(flag);
    expect(result.stdout).toContain('Use "kubectl ds-rollout options" for the connection flags.');
    // Each example is one line that runs as written.
    expect(result.stdout).toContain('\n  kubectl ds-plan fluentd -n kube-system --snapshot cluster.yaml\n');
  });
});

describe('kubectl ds-plan errors: exit 1, one line on stderr, nothing on stdout', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ds-plan-cli-'));
    await writeFile(join(dir, 'bad.yaml'), 'apiVersion: v1\nkind: List\nitems:\n- kind: Node\n  metadata:\n    name: a\n   labels: {}\n');
    await writeFile(join(dir, 'bad.json'), '{\n  "kind": "List",\n  "items": [\n    {"kind": "Node",, "metadata": {}}\n  ]\n}\n');
  });
  afterAll(async () => {
    await rm(dir, {recursive: true, force: true});
  });

  const validation = (scenario: string) => ['node-exporter', '-n', 'monitoring', '--snapshot', scenarioPath(scenario), ...NOW];
  // Every object of a snapshot goes through one validation pass: the message names the item and the object.
  const invalid = (scenario: string, error: string) => `${scenarioPath(scenario)}: items[6].${error} (DaemonSet monitoring/node-exporter)`;

  test.each([
    {name: 'a missing snapshot file', args: ['fluentd', '--snapshot', 'nope.yaml'], message: 'snapshot file "nope.yaml" does not exist'},
    {
      name: 'an unknown DaemonSet lists the ones the snapshot has',
      args: ['fluentbit', '-n', 'kube-system', '--snapshot', EXAMPLE],
      message: `daemonset "fluentbit" not found in namespace "kube-system" of snapshot ${EXAMPLE} (it has: kube-system/fluentd, kube-system/kube-proxy)`,
    },
    {
      name: 'a DaemonSet without selector',
      args: validation('no-selector'),
      message: invalid(
        'no-selector',
        'spec.template.metadata.labels: Invalid value: map[string]string{"app.kubernetes.io/name":"node-exporter"}: `selector` does not match template `labels`',
      ),
    },
    {
      name: 'a selector not matching the template',
      args: validation('selector-mismatch'),
      message: invalid(
        'selector-mismatch',
        'spec.template.metadata.labels: Invalid value: map[string]string{"app.kubernetes.io/name":"node-exporter"}: `selector` does not match template `labels`',
      ),
    },
    {
      name: 'maxUnavailable "abc"',
      args: validation('invalid-budget'),
      message: /^error: \S+invalid-budget\/cluster\.yaml: items\[6\]\.spec\.updateStrategy\.rollingUpdate\.maxUnavailable: Invalid value: "abc": /,
    },
    {
      name: 'maxUnavailable "150%"',
      args: validation('budget-over-100'),
      message: invalid('budget-over-100', 'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%'),
    },
    {
      name: 'a bad --now',
      args: ['fluentd', '--snapshot', EXAMPLE, '--now', 'yesterday'],
      message: `invalid --now "yesterday": want an RFC3339 time such as 2026-11-21T12:00:00Z; see 'kubectl ds-plan --help'`,
    },
    {
      name: 'a --now without zone',
      args: ['fluentd', '--snapshot', EXAMPLE, '--now', '2026-11-21T12:00:00'],
      message: /^error: invalid --now "2026-11-21T12:00:00": /,
    },
    {name: 'an unknown flag', args: ['fluentd', '--snapshot', EXAMPLE, '--bogus'], message: `unknown flag: --bogus; see 'kubectl ds-plan --help'`},
    {
      name: 'a missing NAME, with a snapshot of several DaemonSets',
      args: ['--snapshot', EXAMPLE],
      message: `snapshot ${EXAMPLE} holds 2 DaemonSets: name one (kube-system/fluentd, kube-system/kube-proxy)`,
    },
    {
      name: 'two words: TYPE NAME, as kubectl reads them',
      args: ['fluentd', 'fluentbit', '--snapshot', EXAMPLE],
      message: '"fluentd" is not a DaemonSet type: ds-rollout works on daemonsets (NAME, ds NAME, ds/NAME or daemonset.apps/NAME)',
    },
    {
      name: 'an extra argument',
      args: ['ds', 'fluentd', 'fluentbit', '--snapshot', EXAMPLE],
      message: `unexpected argument: ds/fluentbit; see 'kubectl ds-plan --help'`,
    },
    {
      name: 'an unknown output format',
      args: ['fluentd', '--snapshot', EXAMPLE, '-o', 'xml'],
      message: `unable to match a printer suitable for the output format "xml", allowed formats are: text, json, yaml, name, jsonpath=TEMPLATE; see 'kubectl ds-plan --help'`,
    },
    {name: '--snapshot without a value', args: ['fluentd', '--snapshot'], message: `flag --snapshot expects a value; see 'kubectl ds-plan --help'`},
    {
      name: '--context with --snapshot',
      args: ['fluentd', '--snapshot', EXAMPLE, '--context', 'prod'],
      message: '--context selects a live cluster; it cannot be used with --snapshot',
    },
    {
      name: 'live mode, a missing kubeconfig',
      args: ['fluentd', '-n', 'kube-system', '--kubeconfig', 'nope.yaml'],
      message: 'cannot load kubeconfig "nope.yaml": no such file',
    },
    {name: '-f, a missing manifest', args: ['fluentd', '--snapshot', EXAMPLE, '-f', 'ds.yaml'], message: 'manifest "ds.yaml" does not exist'},
    {name: 'an input error in -o json mode', args: ['fluentd', '--snapshot', 'nope.yaml', '-o', 'json'], message: 'snapshot file "nope.yaml" does not exist'},
  ])('$name', async ({args, message}) => {
    expectInputError(await runCli(args), message);
  });

  // A stored object the API server would not admit now is planned as the controller acts on it, with a warning;
  // the same thing given with -f is a write the API server refuses (exit 1).
  test.each([
    {name: 'both budgets zero', edit: (ds: Record<string, any>): Record<string, any> => ds, maxUnavailable: 1, waves: true, blocker: undefined},
    {
      name: 'an empty selector',
      edit: (ds: Record<string, any>): Record<string, any> => ({...ds, spec: {...ds['spec'], selector: {}}}),
      maxUnavailable: 1,
      waves: false,
      blocker: 'selects-all',
    },
  ])('a stored DaemonSet with $name is planned as the controller acts on it; with -f it is refused', async ({name, edit, maxUnavailable, waves, blocker}) => {
    const docs = loadAll(await readFile(scenarioPath('budget-both-zero'), 'utf8')) as Record<string, any>[];
    const items = docs.flatMap((d) => (d['kind'] === 'List' ? d['items'] : [d])) as Record<string, any>[];
    const edited = items.map((o) => (o['kind'] === 'DaemonSet' && o['metadata'].name === 'node-exporter' ? edit(o) : o));
    const snapshot = join(dir, `stored-${name.replace(/ /g, '-')}.yaml`);
    await writeFile(snapshot, dump({apiVersion: 'v1', kind: 'List', items: edited}));
    const stored = await runCli(['node-exporter', '-n', 'monitoring', '--snapshot', snapshot, ...NOW, '-o', 'json']);
    expectSuccess(stored);
    const plan = JSON.parse(stored.stdout);
    expect(plan.warnings[0]).toMatchObject({
      kind: 'not-admissible',
      message: expect.stringContaining('the API server would not admit this DaemonSet as stored'),
    });
    expect(plan.strategy.maxUnavailable).toBe(maxUnavailable);
    expect(plan.waves.length > 0).toBe(waves);
    if (blocker) expect(plan.blockers.map((b: {kind: string}) => b.kind)).toEqual([blocker]);
    const manifest = join(dir, `manifest-${name.replace(/ /g, '-')}.yaml`);
    const ds = edited.find((o) => o['kind'] === 'DaemonSet' && o['metadata'].name === 'node-exporter')!;
    await writeFile(manifest, dump({apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {name: 'node-exporter', namespace: 'monitoring'}, spec: ds['spec']}));
    expectInputError(
      await runCli(['node-exporter', '-n', 'monitoring', '--snapshot', snapshot, ...NOW, '-f', manifest]),
      /^error: the API server would refuse this manifest: DaemonSet\.apps "node-exporter" is invalid: /,
    );
  });

  test('a DaemonSet being deleted (foreground, its pods still there) plans nothing and says why, as upstream syncDaemonSet returns at once', async () => {
    const docs = loadAll(await readFile(EXAMPLE, 'utf8')) as Record<string, any>[];
    const items = docs.flatMap((d) => (d['kind'] === 'List' ? d['items'] : [d])) as Record<string, any>[];
    const edited = items.map((o) =>
      o['kind'] === 'DaemonSet' && o['metadata'].name === 'fluentd'
        ? {...o, metadata: {...o['metadata'], deletionTimestamp: '2026-11-21T11:59:00Z', finalizers: ['foregroundDeletion']}}
        : o,
    );
    const snapshot = join(dir, 'being-deleted.yaml');
    await writeFile(snapshot, dump({apiVersion: 'v1', kind: 'List', items: edited}));
    const [json, text] = await Promise.all([
      runCli(['fluentd', '-n', 'kube-system', '--snapshot', snapshot, ...NOW, '-o', 'json']),
      runCli(['fluentd', '-n', 'kube-system', '--snapshot', snapshot, ...NOW]),
    ]);
    expectSuccess(json);
    const plan = JSON.parse(json.stdout);
    expect(plan.blockers.map((b: {kind: string}) => b.kind)).toEqual(['being-deleted']);
    expect(plan.nextSync).toEqual({create: [], delete: []});
    expect(plan.waves).toEqual([]);
    expectSuccess(text);
    expect(text.stdout).toContain('the DaemonSet is being deleted (since 2026-11-21T11:59:00Z): the controller does nothing more for it');
  });

  test('a YAML syntax error names the file and line', async () => {
    const path = join(dir, 'bad.yaml');
    expectInputError(await runCli(['fluentd', '--snapshot', path]), `${path}: line 7: bad indentation of a mapping entry`);
  });

  test('a JSON syntax error names the file and line', async () => {
    const path = join(dir, 'bad.json');
    expectInputError(
      await runCli(['fluentd', '--snapshot', path, '-o', 'json']),
      new RegExp(`^error: ${path.replace(/[.\\/]/g, '\\$&')}: line 4: invalid JSON: `),
    );
  });

  test('DEBUG adds the stack', async () => {
    const result = await runCli(['fluentd', '--snapshot', 'nope.yaml'], {env: {DEBUG: '1'}});
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')[0]).toBe('error: snapshot file "nope.yaml" does not exist');
    expect(result.stderr).toMatch(/\n\s+at /);
  });
});

describe('kubectl ds-plan --kube-version', () => {
  let dir: string;
  const target = ['fluentd', '-n', 'kube-system', '--snapshot', scenarioPath('rollout-in-progress'), ...NOW];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ds-plan-version-'));
  });
  afterAll(async () => {
    await rm(dir, {recursive: true, force: true});
  });

  async function manifestWith(rollingUpdate: Record<string, number>): Promise<string> {
    const docs = loadAll(await readFile(scenarioPath('rollout-in-progress'), 'utf8')) as Record<string, any>[];
    const items = docs.flatMap((d) => (d['kind'] === 'List' ? d['items'] : [d])) as Record<string, any>[];
    const ds = items.find((o) => o['kind'] === 'DaemonSet' && o['metadata'].name === 'fluentd')!;
    const spec = {...ds['spec'], updateStrategy: {type: 'RollingUpdate', rollingUpdate}};
    spec.template = {...spec.template, spec: {...spec.template.spec, containers: [{...spec.template.spec.containers[0], image: 'fluentd:9.9'}]}};
    const path = join(dir, `manifest-${Object.values(rollingUpdate).join('-')}.yaml`);
    await writeFile(path, dump({apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {name: 'fluentd', namespace: 'kube-system'}, spec}));
    return path;
  }

  test("the plan says which controller it modelled: the dump's (its newest kubelet's) by default, 1.20 when asked (text and json)", async () => {
    const [newest, old, text] = await Promise.all([
      runCli([...target, '-o', 'json']),
      runCli([...target, '--kube-version', '1.20', '-o', 'json']),
      runCli([...target, '--kube-version', 'v1.20.2']),
    ]);
    expectSuccess(newest);
    expectSuccess(old);
    expect(JSON.parse(newest.stdout).controllerVersion).toBe('1.31');
    expect(JSON.parse(old.stdout).controllerVersion).toBe('1.20');
    expect(text.stdout).toContain('Controller: planned as the Kubernetes 1.20 DaemonSet controller decides');
  });

  test('a version outside the modelled range is planned with the nearest one, and a warning', async () => {
    const result = await runCli([...target, '--kube-version', '1.19', '-o', 'json']);
    expectSuccess(result);
    const plan = JSON.parse(result.stdout);
    expect(plan.controllerVersion).toBe('1.20');
    expect(plan.warnings[0]).toEqual({
      kind: 'unmodelled-version',
      message: 'Kubernetes 1.19 is outside the controller versions this plan models (1.20 to 1.36): planned as the 1.20 controller decides',
    });
  });

  test('a malformed --kube-version is a usage error', async () => {
    expectInputError(await runCli([...target, '--kube-version', '2.0']), /--kube-version "2\.0": want a Kubernetes version such as 1\.20/);
  });

  test('-f - without NAME reads the manifest from stdin (oclif does not take it for the missing NAME)', async () => {
    const path = await manifestWith({maxUnavailable: 1, maxSurge: 2});
    const stdin = await readFile(path, 'utf8');
    const result = await runCli(
      ['-n', 'kube-system', '--snapshot', scenarioPath('rollout-in-progress'), ...NOW, '--kube-version', '1.20', '-f', '-', '-o', 'json'],
      {stdin},
    );
    expectSuccess(result);
    expect(JSON.parse(result.stdout).update.warnings[0].kind).toBe('dropped-field');
  });

  test('-f offline on 1.20: maxSurge is dropped with a warning; maxUnavailable 0 is refused', async () => {
    const surge = await manifestWith({maxUnavailable: 1, maxSurge: 2});
    const planned = await runCli([...target, '--kube-version', '1.20', '-f', surge, '-o', 'json']);
    expectSuccess(planned);
    const plan = JSON.parse(planned.stdout);
    expect(plan.strategy.maxSurge).toBe(0);
    expect(plan.update.warnings[0]).toMatchObject({
      kind: 'dropped-field',
      message: expect.stringContaining('Kubernetes 1.20 does not know spec.updateStrategy.rollingUpdate.maxSurge'),
    });
    // On the newest, the same manifest is refused (both budgets non-zero), as that API server refuses it.
    expectInputError(await runCli([...target, '-f', surge]), /^error: the API server would refuse this manifest: .*maxSurge: Invalid value: 2/);
    const zero = await manifestWith({maxUnavailable: 0, maxSurge: 2});
    expectInputError(
      await runCli([...target, '--kube-version', '1.20', '-f', zero]),
      /^error: the API server would refuse this manifest: .*maxUnavailable: Invalid value: 0: cannot be 0$/m,
    );
    expectSuccess(await runCli([...target, '-f', zero]));
  });
});
