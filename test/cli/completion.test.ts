// Shell completion end to end: the BUILT kubectl_complete-* executables (what kubectl 1.26+ runs), the same
// through the real `kubectl __complete`, and `ds-rollout completion bash|zsh|fish`, against a simulated cluster.
import {execFile} from 'node:child_process';
import {mkdtemp, rm, symlink, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest';
import {kubectlMinor, kubectlPath} from '../helpers/kubectl.js';
import {ROOT, runCli} from '../helpers/run-cli.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

vi.setConfig({testTimeout: 20_000});

let t: TestCluster;

beforeAll(async () => {
  t = await startTestCluster({scenario: 'demo'});
  // A second revision of fluentd, as `kubectl set image` leaves it.
  t.cluster.store.modify('daemonsets', 'kube-system', 'fluentd', (ds) => {
    const spec = ds.spec as unknown as {template: {spec: {containers: Array<Record<string, unknown>>}}};
    const containers = spec.template.spec.containers.map((c) => ({...c, image: 'fluent/fluentd:v1.18.0'}));
    return {...ds, spec: {...ds.spec, template: {...spec.template, spec: {...spec.template.spec, containers}}}} as never;
  });
  t.advance(1000);
});

afterAll(() => t?.stop());

/** The completion executable's candidates (values only) and its directive. */
async function complete(plugin: 'plan' | 'rollout', words: string[], env: Record<string, string> = {}) {
  const result = await runCli(words, {bin: `bin/kubectl_complete-ds_${plugin}`, env: {KUBECONFIG: t.kubeconfig, ...env}});
  const lines = result.stdout.trimEnd().split('\n');
  return {
    values: lines.slice(0, -1).map((line) => line.split('\t')[0]!),
    directive: lines.at(-1),
    stderr: result.stderr,
    code: result.code,
  };
}

/** fluentd's revisions in the store, newest first. */
function fluentdRevisions(): string[] {
  return t.cluster.store
    .listStored('controllerrevisions', {namespace: 'kube-system'})
    .items.map((item) => item.object as unknown as {revision: number; metadata: {ownerReferences?: Array<{name: string}>}})
    .filter((revision) => revision.metadata.ownerReferences?.some((owner) => owner.name === 'fluentd'))
    .map((revision) => revision.revision)
    .sort((a, b) => b - a)
    .map(String);
}

function names(resource: 'nodes' | 'namespaces' | 'daemonsets', namespace?: string): string[] {
  return t.cluster.store.listStored(resource, namespace ? {namespace} : {}).items.map((item) => item.name);
}

describe('kubectl_complete-ds_rollout', () => {
  test('subcommands, with their summaries', async () => {
    const all = await complete('rollout', ['']);
    expect(all.values).toEqual(
      expect.arrayContaining(['status', 'history', 'undo', 'pause', 'step', 'resume', 'promote', 'abort', 'dashboard', 'version', 'completion', 'sim']),
    );
    expect(all.directive).toBe(':4');
    expect((await complete('rollout', ['st'])).values).toEqual(['status', 'step']);
    expect((await complete('rollout', ['sim', ''])).values).toEqual(['kubelets', 'start', 'stop']);
  });

  test('flags of the command, and -o values', async () => {
    const flags = await complete('rollout', ['status', '--']);
    expect(flags.values).toEqual(expect.arrayContaining(['--namespace', '--context', '--kubeconfig', '--output', '--watch', '--help']));
    expect((await complete('rollout', ['history', 'fluentd', '-o', ''])).values).toEqual(['text', 'json', 'yaml', 'name', 'jsonpath=']);
    expect((await complete('rollout', ['status', 'fluentd', '-o', 'w'])).values).toEqual(['wide']);
    expect((await complete('rollout', ['history', 'fluentd', '--output=j'])).values).toEqual(['--output=json', '--output=jsonpath=']);
    // jsonpath= waits for its template: no space after it.
    expect(await complete('rollout', ['history', 'fluentd', '-o', 'jsonp'])).toMatchObject({values: ['jsonpath='], directive: ':6'});
    expect((await complete('rollout', ['step', 'fluentd', '--dry-run='])).values).toEqual(['--dry-run=none', '--dry-run=client', '--dry-run=server']);
    expect((await complete('rollout', ['step', '--f'])).values).toEqual(['--force']);
  });

  test('DaemonSet names of the namespace, live', async () => {
    const result = await complete('rollout', ['status', '-n', 'kube-system', '']);
    expect(result.values).toEqual(names('daemonsets', 'kube-system'));
    expect(result.values).toContain('fluentd');
    expect((await complete('rollout', ['undo', '--namespace=kube-system', 'fl'])).values).toEqual(['fluentd']);
  });

  test('namespaces and contexts', async () => {
    expect((await complete('rollout', ['status', '-n', ''])).values).toEqual(names('namespaces'));
    expect((await complete('rollout', ['status', '--context', ''])).values).toEqual(['ds-rollout-sim']);
  });

  test("a value in the flag's own word (--flag=VALUE): the candidates keep the flag", async () => {
    expect((await complete('rollout', ['status', '--context=ds'])).values).toEqual(['--context=ds-rollout-sim']);
    expect((await complete('rollout', ['status', '--namespace=kube-'])).values).toEqual(
      names('namespaces')
        .filter((name) => name.startsWith('kube-'))
        .map((name) => `--namespace=${name}`),
    );
    expect((await complete('rollout', ['undo', 'fluentd', '-n', 'kube-system', '--to-revision='])).values).toEqual(
      fluentdRevisions().map((revision) => `--to-revision=${revision}`),
    );
  });

  test("--cluster and --user: the kubeconfig's names, never their credentials; from the --kubeconfig typed", async () => {
    expect((await complete('rollout', ['status', '--cluster', ''])).values).toEqual(['ds-rollout-sim']);
    expect((await complete('rollout', ['status', '--user', ''])).values).toEqual(['ds-rollout-sim']);
    const dir = await mkdtemp(join(tmpdir(), 'ds-rollout-complete-'));
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- {name: prod, cluster: {server: "https://prod:6443"}}',
        '- {name: staging, cluster: {server: "https://staging:6443"}}',
        'users:',
        '- {name: admin, user: {token: SECRET-TOKEN}}',
        '- {name: alice, user: {password: SECRET-PASSWORD, username: alice}}',
        'contexts:',
        '- {name: prod, context: {cluster: prod, user: admin}}',
        'current-context: prod',
      ].join('\n'),
    );
    expect((await complete('rollout', ['step', 'fluentd', '--kubeconfig', kubeconfig, '--cluster', ''])).values).toEqual(['prod', 'staging']);
    expect((await complete('rollout', ['step', 'fluentd', `--kubeconfig=${kubeconfig}`, '--cluster', 'st'])).values).toEqual(['staging']);
    // The whole output: names and the directive, no descriptions, nothing of the entries' credentials.
    const users = await runCli(['status', '--kubeconfig', kubeconfig, '--user', ''], {bin: 'bin/kubectl_complete-ds_rollout'});
    expect(users).toMatchObject({stdout: 'admin\nalice\n:4\n', stderr: '', code: 0});
    await rm(dir, {recursive: true, force: true});
  });

  test('revision numbers of the DaemonSet for --to-revision and --revision, newest first', async () => {
    expect(fluentdRevisions().length).toBeGreaterThanOrEqual(3);
    expect((await complete('rollout', ['undo', 'fluentd', '-n', 'kube-system', '--to-revision', ''])).values).toEqual(fluentdRevisions());
    expect((await complete('rollout', ['history', 'fluentd', '-n', 'kube-system', '--revision', ''])).values).toEqual(fluentdRevisions());
  });

  test('node names for --nodes, one element of the comma-separated list at a time', async () => {
    const nodes = names('nodes');
    expect((await complete('rollout', ['step', 'fluentd', '--nodes', ''])).values).toEqual(nodes);
    expect((await complete('rollout', ['step', 'fluentd', '--nodes', `${nodes[0]},`])).values).toEqual(nodes.map((node) => `${nodes[0]},${node}`));
  });

  test('file flags leave completion to the shell; completion takes a shell name', async () => {
    expect((await complete('rollout', ['status', 'fluentd', '--kubeconfig', ''])).directive).toBe(':0');
    expect((await complete('rollout', ['completion', ''])).values).toEqual(['bash', 'zsh', 'fish']);
  });

  test('an unreachable cluster: no candidates, nothing on stderr, exit 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ds-rollout-complete-'));
    const kubeconfig = join(dir, 'missing');
    const result = await complete('rollout', ['status', ''], {KUBECONFIG: kubeconfig});
    expect(result).toEqual({values: [], directive: ':4', stderr: '', code: 0});
    await rm(dir, {recursive: true, force: true});
  });
});

describe('kubectl_complete-ds_plan', () => {
  test('flags and DaemonSet names', async () => {
    expect((await complete('plan', ['--sn'])).values).toEqual(['--snapshot']);
    expect((await complete('plan', ['-n', 'kube-system', ''])).values).toEqual(names('daemonsets', 'kube-system'));
  });
});

describe('ds-rollout completion SHELL', () => {
  test.each(['bash', 'zsh', 'fish'])('%s registers both binaries and asks them with __complete', async (shell) => {
    const result = await runCli(['completion', shell], {bin: 'bin/kubectl-ds_rollout'});
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('__complete');
    expect(result.stdout).toContain('kubectl-ds_plan');
    expect(result.stdout).toContain('kubectl-ds_rollout');
  });

  test('bash: the script completes through the binary', async () => {
    const script = (await runCli(['completion', 'bash'], {bin: 'bin/kubectl-ds_rollout'})).stdout;
    const dir = await mkdtemp(join(tmpdir(), 'ds-rollout-bash-'));
    await symlink(join(ROOT, 'bin', 'kubectl-ds_rollout'), join(dir, 'kubectl-ds_rollout'));
    const program = `${script}\nCOMP_WORDS=(kubectl-ds_rollout status -n kube-system f); COMP_CWORD=4; __kubectl_ds_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile('bash', ['-c', program], {env: {PATH: `${dir}:${process.env['PATH']}`, KUBECONFIG: t.kubeconfig}}, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
    expect(out.trim()).toBe('fluentd');
    await rm(dir, {recursive: true, force: true});
  });

  test('an unknown shell is a usage error', async () => {
    const result = await runCli(['completion', 'tcsh'], {bin: 'bin/kubectl-ds_rollout'});
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: .*tcsh/);
  });
});

// kubectl runs kubectl_complete-<plugin> from PATH since 1.26; Debian's 1.20 (CI without kubectl) cannot.
describe.skipIf(!kubectlPath || kubectlMinor < 26)('through kubectl __complete', () => {
  async function kubectlComplete(...words: string[]): Promise<string[]> {
    const env = {PATH: `${join(ROOT, 'bin')}:${process.env['PATH']}`, HOME: t.dir, KUBECONFIG: t.kubeconfig};
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(kubectlPath!, ['__complete', ...words], {env}, (error, out) => (error ? reject(error) : resolve(out))),
    );
    return stdout
      .trimEnd()
      .split('\n')
      .slice(0, -1)
      .map((line) => line.split('\t')[0]!);
  }

  test('subcommands, flags, -o values, names, revisions, nodes', async () => {
    expect(await kubectlComplete('ds-rollout', 'pa')).toEqual(['pause']);
    expect(await kubectlComplete('ds-rollout', 'status', '--wa')).toEqual(['--watch']);
    expect(await kubectlComplete('ds-plan', '-o', '')).toEqual(['text', 'json', 'yaml', 'name', 'jsonpath=']);
    expect(await kubectlComplete('ds-plan', '-n', 'kube-system', 'flu')).toEqual(['fluentd']);
    expect(await kubectlComplete('ds-rollout', 'status', '-n', '')).toEqual(names('namespaces'));
    expect(await kubectlComplete('ds-rollout', 'status', '--cluster', '')).toEqual(['ds-rollout-sim']);
    expect(await kubectlComplete('ds-rollout', 'status', '--user', '')).toEqual(['ds-rollout-sim']);
    expect(await kubectlComplete('ds-rollout', 'undo', 'fluentd', '-n', 'kube-system', '--to-revision', '')).toEqual(fluentdRevisions());
    expect(await kubectlComplete('ds-rollout', 'step', 'fluentd', '--nodes', '')).toEqual(names('nodes'));
  });
});
