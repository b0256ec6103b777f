// `step ... --detach` through the BUILT `kubectl ds-rollout` (run `npm run build` first) on the simulated cluster:
// the manifests printed for GitOps, the Job and its roles created once (a second --detach finds it), the Job's
// command line run as the image's entrypoint would run it (in-cluster credentials from a token file, no kubeconfig)
// completing the rollout within the Role's verbs, and the rollout's story as Events on the DaemonSet.
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises';
import {createServer, type Server} from 'node:http';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {load, loadAll} from 'js-yaml';
import {afterEach, expect, test, vi} from 'vitest';
import {
  DETACH_NODE_READER,
  DETACH_NODE_READER_RULES,
  DETACHED_JOB_ANNOTATION,
  GATED_ROLLOUT_ANNOTATION,
  RELEASE_IMAGE_REPOSITORY,
  type PolicyRule,
  detachProxyRoleName,
  detachRoleRules,
  detachedCommandArgs,
  rulesAllow,
} from '../../src/core/index.js';
import {runCli} from '../helpers/run-cli.js';
import {type RolloutSim, startRolloutSim, Witness} from '../safety/rollout-sim.js';

vi.setConfig({testTimeout: 60_000});

const BIN = 'bin/kubectl-ds_rollout';
let sim: RolloutSim | undefined;
let dir: string | undefined;
let prometheus: Server | undefined;

afterEach(async () => {
  await sim?.stop();
  sim = undefined;
  await new Promise((resolve) => (prometheus ? prometheus.close(resolve) : resolve(undefined)));
  prometheus = undefined;
  if (dir) await rm(dir, {recursive: true, force: true});
  dir = undefined;
});

function cli(s: RolloutSim, args: string[]) {
  return runCli([...args, '--kubeconfig', s.kubeconfig], {bin: BIN});
}

interface Container {
  image: string;
  args: string[];
  env: {name: string; value: string}[];
}

interface JobManifest {
  metadata: {name: string; uid: string};
  spec: {backoffLimit: number; template: {spec: {serviceAccountName: string; restartPolicy: string; containers: Container[]}}};
}

const stored = (
  s: RolloutSim,
  resource: 'jobs' | 'serviceaccounts' | 'roles' | 'rolebindings' | 'clusterroles' | 'clusterrolebindings' | 'events' | 'configmaps',
) => s.test.cluster.store.list(resource).items as unknown as Record<string, unknown>[];

function eventReasons(s: RolloutSim): string[] {
  const uid = s.daemonSet().metadata.uid;
  return stored(s, 'events')
    .filter((e) => (e['involvedObject'] as {uid?: string; kind?: string}).uid === uid && (e['source'] as {component?: string}).component === 'ds-rollout')
    .map((e) => e['reason'] as string);
}

test('--dry-run=client -o yaml prints the ServiceAccount, roles and Job of this one rollout, and sends nothing', async () => {
  sim = await startRolloutSim({nodes: 3});
  const {stdout, stderr, code} = await cli(sim, ['step', 'agent', '--canary', '1', '--canary-bake', '30s', '--detach', '--dry-run=client', '-o', 'yaml']);
  expect({code, stderr}).toEqual({code: 0, stderr: ''});
  const docs = loadAll(stdout) as {kind: string; metadata: {name: string; namespace?: string}; rules?: unknown; subjects?: unknown; roleRef?: unknown}[];
  expect(docs.map((d) => d.kind)).toEqual(['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding', 'Job']);
  const job = docs.at(-1) as unknown as JobManifest;
  const name = job.metadata.name;
  expect(name).toMatch(/^ds-rollout-agent-[0-9a-f]{10}$/);
  // One ServiceAccount, Role and RoleBinding per rollout, named after its Job; the DaemonSet and the Job by name.
  expect(docs.slice(0, 3).map((d) => d.metadata.name)).toEqual([name, name, name]);
  expect(docs[1]!.rules).toEqual(detachRoleRules('agent', name));
  expect(docs[1]!.rules).toContainEqual({apiGroups: ['apps'], resources: ['daemonsets'], resourceNames: ['agent'], verbs: ['get', 'list', 'watch', 'patch']});
  expect(docs[1]!.rules).toContainEqual({apiGroups: ['batch'], resources: ['jobs'], resourceNames: [name], verbs: ['get', 'patch']});
  // Nodes: the shared read-only ClusterRole, bound to this rollout's ServiceAccount alone.
  expect(docs[3]).toMatchObject({metadata: {name: DETACH_NODE_READER}, rules: DETACH_NODE_READER_RULES});
  expect(docs[4]).toMatchObject({
    metadata: {name: `ds-rollout:default:${name}`},
    roleRef: {kind: 'ClusterRole', name: DETACH_NODE_READER},
    subjects: [{kind: 'ServiceAccount', name, namespace: 'default'}],
  });
  const pod = job.spec.template.spec;
  expect(pod).toMatchObject({serviceAccountName: name, restartPolicy: 'Never'});
  expect(pod.containers[0]!.image).toMatch(new RegExp(`^${RELEASE_IMAGE_REPOSITORY}:v\\d+\\.\\d+\\.\\d+`));
  // The same command, minus this machine's kubeconfig and output flags, plus the namespace and --yes.
  expect(pod.containers[0]!.args).toEqual(['step', 'agent', '--canary', '1', '--canary-bake', '30s', '--namespace', 'default', '--yes']);
  expect(stored(sim, 'jobs')).toEqual([]);
  expect(stored(sim, 'serviceaccounts')).toEqual([]);
});

test('the Job runs the same command: strategy file mounted, credentials and output flags dropped, --image kept out', () => {
  expect(
    detachedCommandArgs(
      'step',
      ['fluentd', '-nkube-system', '--token', 's3cret', '--strategy=s.yaml', '--dry-run', '--until-complete', '-o', 'yaml', '--image=x', '--detach', '-y'],
      {namespace: 'kube-system', strategy: true, yes: true},
    ),
  ).toEqual(['step', 'fluentd', '--until-complete', '--namespace', 'kube-system', '--strategy', '/etc/ds-rollout/strategy.yaml', '--yes']);
});

test('--detach creates the Job once, names it on the DaemonSet and in an Event; a second --detach finds it', async () => {
  sim = await startRolloutSim({nodes: 3});
  dir = await mkdtemp(join(tmpdir(), 'ds-rollout-detach-'));
  const strategy = join(dir, 'strategy.yaml');
  await writeFile(strategy, 'canary: 1\ncanaryBake: 10s\n');
  const args = ['step', 'agent', '--strategy', strategy, '--detach', '--image', 'registry.local/ds-rollout:test', '--yes'];
  const first = await cli(sim, args);
  expect({code: first.code, stderr: first.stderr}).toEqual({code: 0, stderr: ''});
  const [job] = stored(sim, 'jobs') as unknown as JobManifest[];
  expect(first.stdout.split('\n')[0]).toBe(`Job default/${job!.metadata.name} created: it runs the gated rollout of daemonset default/agent in the cluster.`);
  expect(job!.spec.template.spec.containers[0]).toMatchObject({
    image: 'registry.local/ds-rollout:test',
    args: ['step', 'agent', '--namespace', 'default', '--strategy', '/etc/ds-rollout/strategy.yaml', '--yes'],
  });
  expect((stored(sim, 'configmaps')[0]!['data'] as Record<string, string>)['strategy.yaml']).toBe('canary: 1\ncanaryBake: 10s\n');
  expect(stored(sim, 'roles')[0]!['rules']).toEqual(detachRoleRules('agent', job!.metadata.name));
  // Owned by the Job (deleting it deletes them); the cluster-scoped node binding cannot be, and is labelled with it.
  for (const kind of ['serviceaccounts', 'roles', 'rolebindings', 'configmaps'] as const) {
    const [object] = stored(sim, kind) as {metadata: {ownerReferences?: unknown}}[];
    expect({kind, owners: object!.metadata.ownerReferences}).toEqual({
      kind,
      owners: [{apiVersion: 'batch/v1', kind: 'Job', name: job!.metadata.name, uid: job!.metadata.uid}],
    });
  }
  expect(stored(sim, 'clusterrolebindings')[0]).toMatchObject({
    metadata: {name: `ds-rollout:default:${job!.metadata.name}`, labels: {'ds-rollout.io/job': job!.metadata.name}},
  });
  expect(sim.daemonSet().metadata.annotations?.[DETACHED_JOB_ANNOTATION]).toBe(job!.metadata.name);
  expect(eventReasons(sim)).toEqual(['Detached']);
  // Nothing ran the rollout here: the Job does.
  expect(sim.daemonSet().metadata.annotations?.[GATED_ROLLOUT_ANNOTATION]).toBeUndefined();

  const second = await cli(sim, args);
  expect({code: second.code, stderr: second.stderr}).toEqual({code: 0, stderr: ''});
  expect(second.stdout.split('\n')[0]).toBe(
    `Job default/${job!.metadata.name} already drives the gated rollout of daemonset default/agent: nothing new was created.`,
  );
  expect(stored(sim, 'jobs')).toHaveLength(1);
});

test("deleting a rollout's Job deletes its ServiceAccount, Role and RoleBinding; the next --detach deletes its node binding", async () => {
  sim = await startRolloutSim({nodes: 3});
  const first = await detachedJob(sim, ['step', 'agent', '--canary', '1']);
  const name = first.env.find((e) => e.name === 'DS_ROLLOUT_DETACHED_JOB')!.value;
  sim.test.cluster.store.delete('jobs', 'default', name, {propagationPolicy: 'Background'});
  await sim.until(() => stored(sim!, 'serviceaccounts').length + stored(sim!, 'roles').length + stored(sim!, 'rolebindings').length === 0, 20_000, 'the GC');
  // Its node binding cannot be owned by it: it names a ServiceAccount that no longer exists, so it grants nothing.
  expect(stored(sim, 'clusterrolebindings').map((b) => (b['metadata'] as {name: string}).name)).toEqual([`ds-rollout:default:${name}`]);
  sim.setImage('agent:v3');
  const next = (await detachedJob(sim, ['step', 'agent', '--canary', '1'])).env.find((e) => e.name === 'DS_ROLLOUT_DETACHED_JOB')!.value;
  expect(next).not.toBe(name);
  expect(stored(sim, 'clusterrolebindings').map((b) => (b['metadata'] as {name: string}).name)).toEqual([`ds-rollout:default:${next}`]);
  expect(stored(sim, 'clusterroles').map((r) => (r['metadata'] as {name: string}).name)).toEqual([DETACH_NODE_READER]);
});

test('bad input: one stderr line, exit 1, nothing created', async () => {
  sim = await startRolloutSim({nodes: 3, unpaused: true});
  const cases: [string[], string][] = [
    [['step', 'agent', '--until-complete', '--detach', '--yes'], '--detach runs a gated rollout in the cluster'],
    [['step', 'agent', '--canary', '1', '--detach'], 'pass --yes'],
    [['step', 'agent', '--canary', '1', '--detach', '--yes'], 'is not paused'],
    [['step', 'agent', '--canary', 'x', '--detach', '--yes'], 'invalid --canary "x"'],
    [['promote', 'agent', '--detach', '--yes'], 'has no gated rollout waiting for approval'],
  ];
  for (const [args, message] of cases) {
    const {stdout, stderr, code} = await cli(sim, args);
    expect({args, code, stdout}).toEqual({args, code: 1, stdout: ''});
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toContain(message);
  }
  expect(stored(sim, 'jobs')).toEqual([]);
  expect(stored(sim, 'serviceaccounts')).toEqual([]);
});

/** Runs a Job's container command line as the image's entrypoint would: in-cluster credentials, no kubeconfig. */
async function runAsPod(s: RolloutSim, container: Container) {
  // What the kubelet gives the pod: the service account's token, the CA and the namespace, and the service's address.
  dir ??= await mkdtemp(join(tmpdir(), 'ds-rollout-pod-'));
  const account = join(dir, 'serviceaccount');
  await mkdir(account, {recursive: true});
  const {cluster} = s.test;
  const serviceAccount = container.env.find((e) => e.name === 'DS_ROLLOUT_DETACHED_JOB')!.value;
  await writeFile(join(account, 'token'), cluster.issueToken(`system:serviceaccount:default:${serviceAccount}`, ['system:masters']));
  await writeFile(join(account, 'ca.crt'), cluster.caCert!);
  await writeFile(join(account, 'namespace'), 'default');
  const url = new URL(cluster.url);
  cluster.requestLog.clear();
  const witness = new Witness(s);
  const run = await runCli(container.args, {
    bin: BIN,
    // No kubeconfig anywhere: HOME is empty and KUBECONFIG unset, as in the image.
    env: {
      ...Object.fromEntries(container.env.map((e) => [e.name, e.value])),
      HOME: dir,
      KUBERNETES_SERVICE_HOST: url.hostname,
      KUBERNETES_SERVICE_PORT: url.port,
      DS_ROLLOUT_SERVICEACCOUNT_DIR: account,
    },
  });
  witness.stop();
  return {...run, budget: witness.max.count};
}

/**
 * Every request the driver sent is one its Role (or, for nodes, the node reader) allows, names included: as RBAC, a
 * list or watch names the object its fieldSelector metadata.name=NAME pins.
 */
function expectWithinRoles(s: RolloutSim, container: Container): Set<string> {
  const job = container.env.find((e) => e.name === 'DS_ROLLOUT_DETACHED_JOB')!.value;
  const role = detachRoleRules('agent', job);
  const groupOf: Record<string, string> = {daemonsets: 'apps', controllerrevisions: 'apps', pods: '', events: '', nodes: '', jobs: 'batch'};
  const sent = new Set<string>();
  for (const e of s.test.cluster.requestLog.entries) {
    if (e.resource === undefined) continue;
    const request = `${e.verb} ${e.resource}${e.subresource ? `/${e.subresource}` : ''}`;
    sent.add(request);
    const name = e.name ?? /^metadata\.name=([^,]+)$/.exec(e.query['fieldSelector'] ?? '')?.[1];
    const rules = e.resource === 'nodes' ? DETACH_NODE_READER_RULES : role;
    const allowed = groupOf[e.resource] !== undefined && e.subresource === undefined && rulesAllow(rules, groupOf[e.resource]!, e.resource, e.verb!, name);
    expect({request, name, allowed}).toEqual({request, name, allowed: true});
  }
  return sent;
}

/**
 * Every request the driver sent through the service proxy (`/api/v1/namespaces/NS/services/NAME:PORT/proxy/...`, which
 * the simulated cluster does not parse as a resource) is one RBAC allows, as the API server's RequestInfo names it:
 * `get` on `services/proxy` named `NAME:PORT`, by a Role of that namespace bound to the Job's ServiceAccount.
 */
function expectProxyWithinRoles(s: RolloutSim, job: string): number {
  const proxied = s.test.cluster.requestLog.entries.filter((e) => e.path.includes('/proxy/'));
  for (const e of proxied) {
    const [, namespace, name] = /^\/api\/v1\/namespaces\/([^/]+)\/services\/([^/]+)\/proxy\//.exec(e.path) ?? [];
    const bound = stored(s, 'rolebindings').filter((b) => {
      const meta = b['metadata'] as {namespace: string};
      return meta.namespace === namespace && (b['subjects'] as {name: string; namespace: string}[]).some((x) => x.name === job && x.namespace === 'default');
    });
    const roles = bound.map((b) => (b['roleRef'] as {name: string}).name);
    const rules = stored(s, 'roles')
      .filter((r) => (r['metadata'] as {namespace: string}).namespace === namespace && roles.includes((r['metadata'] as {name: string}).name))
      .flatMap((r) => r['rules'] as PolicyRule[]);
    const allowed = e.method === 'GET' && rulesAllow(rules, '', 'services/proxy', 'get', name);
    expect({path: e.path, allowed}).toEqual({path: e.path, allowed: true});
  }
  return proxied.length;
}

/** A stand-in for Prometheus: every instant query answers 0 (a healthy release). */
async function startPrometheus(): Promise<string> {
  prometheus = createServer((req, res) => {
    res.writeHead(req.url?.startsWith('/api/v1/query?') ? 200 : 404, {'content-type': 'application/json'});
    res.end(JSON.stringify({status: 'success', data: {resultType: 'vector', result: [{metric: {}, value: [0, '0']}]}}));
  });
  await new Promise<void>((resolve) => prometheus!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(prometheus.address() as {port: number}).port}`;
}

/** Detaches `args` and returns the container of the Job it created. */
async function detachedJob(s: RolloutSim, args: string[]): Promise<Container> {
  const before = new Set(stored(s, 'jobs').map((j) => (j as unknown as JobManifest).metadata.name));
  const created = await cli(s, [...args, '--detach', '--yes']);
  expect({code: created.code, stderr: created.stderr}).toEqual({code: 0, stderr: ''});
  const job = (stored(s, 'jobs') as unknown as JobManifest[]).find((j) => !before.has(j.metadata.name));
  return job!.spec.template.spec.containers[0]!;
}

test("the Job's command line, run as the image's entrypoint with in-cluster credentials, completes the rollout within its roles and tells it in Events", async () => {
  sim = await startRolloutSim({nodes: 4, maxUnavailable: 1});
  const job = await detachedJob(sim, ['step', 'agent', '--canary', '1', '--canary-bake', '10s', '--bake', '5s']);
  const run = await runAsPod(sim, job);
  expect({code: run.code, stderr: run.stderr}).toEqual({code: 0, stderr: ''});
  expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(/^Gated rollout complete: every stage passed/);
  expect(run.budget).toBeLessThanOrEqual(1);
  expect(Object.values(sim.images()).every((images) => images.length === 1 && images[0] === 'agent:v2')).toBe(true);
  expect(expectWithinRoles(sim, job)).toContain('create events');
  expect(eventReasons(sim)).toEqual(['Detached', 'RolloutStarted', 'CanaryStarted', 'CanaryPassed', 'StageStarted', 'StagePassed', 'RolloutComplete']);
  const started = stored(sim, 'events').find((e) => e['reason'] === 'CanaryStarted')!;
  expect(started).toMatchObject({type: 'Normal', message: 'Stage 1/2 canary started on node-1', involvedObject: {kind: 'DaemonSet', name: 'agent'}});
});

test('a crash-looping canary run by the Job fails its gate, rolls back within its roles, and says so in Warning events', async () => {
  sim = await startRolloutSim({nodes: 4, maxUnavailable: 1});
  sim.test.cluster.kubelets!.injectFailure({image: 'agent:v2', mode: 'crash'});
  const job = await detachedJob(sim, ['step', 'agent', '--canary', '1', '--canary-bake', '1m', '--on-failure', 'undo']);
  const run = await runAsPod(sim, job);
  expect(run.code).toBe(3);
  expect(run.stderr).toMatch(/gate failed at stage canary: .*CrashLoopBackOff.*; rolled back to revision 3 on node-1/);
  await sim.until(() => Object.values(sim!.images()).every((images) => images.length === 1 && images[0] === 'agent:v1'), 20_000, 'v1 everywhere');
  expect(run.budget).toBeLessThanOrEqual(1);
  const sent = expectWithinRoles(sim, job);
  expect(sent).toContain('patch controllerrevisions');
  // The rollout failed: the driver set its Job's backoffLimit to 0, so the Job controller fails the Job on this exit.
  expect(sent).toContain('patch jobs');
  expect((stored(sim, 'jobs')[0] as unknown as JobManifest).spec.backoffLimit).toBe(0);
  // The rollback ends the rollout: its closing event, once.
  expect(eventReasons(sim)).toEqual(['Detached', 'RolloutStarted', 'CanaryStarted', 'GateFailed', 'RollingBack', 'Aborted']);
  // A restart of the Job's pod after the rollback finds the template it was made for gone: it drives nothing, and fails.
  sim.test.cluster.requestLog.clear();
  const restart = await runAsPod(sim, job);
  expect({code: restart.code, stdout: restart.stdout}).toEqual({code: 3, stdout: ''});
  const name = stored(sim, 'jobs')[0]!['metadata'] as {name: string};
  expect(restart.stderr).toBe(
    `error: the template of daemonset default/agent is no longer the one this Job rolls out (gated rollout aborted); Job ${name.name} fails\n`,
  );
  expect(sim.test.cluster.requestLog.entries.filter((e) => e.verb !== undefined && !['get', 'list', 'watch'].includes(e.verb))).toEqual([]);
  expect(stored(sim, 'events').find((e) => e['reason'] === 'GateFailed')).toMatchObject({type: 'Warning', message: expect.stringMatching(/CrashLoopBackOff/)});
});

test('--approve: the Job stops for approval, status names it, promote --detach gets a Job of its own that finishes; a restart then does nothing', async () => {
  sim = await startRolloutSim({nodes: 3, maxUnavailable: 1});
  const stepJob = await detachedJob(sim, ['step', 'agent', '--canary', '1', '--canary-bake', '5s', '--approve']);
  const first = await runAsPod(sim, stepJob);
  expect({code: first.code, stderr: first.stderr}).toEqual({code: 0, stderr: ''});
  const name = sim.daemonSet().metadata.annotations![DETACHED_JOB_ANNOTATION]!;
  const status = await cli(sim, ['status', 'agent']);
  expect(status.stdout).toContain(`gated rollout: stage 1/2 canary, awaiting approval (kubectl ds-rollout promote, or abort), driven by Job ${name}`);
  const plan = await runCli(['agent', '--kubeconfig', sim.kubeconfig], {bin: 'bin/kubectl-ds_plan'});
  expect(plan.stdout).toContain(`Gated rollout: stage 1/2 canary, awaiting approval (kubectl ds-rollout promote, or abort), driven by Job ${name}`);
  const json = JSON.parse((await cli(sim, ['status', 'agent', '-o', 'json'])).stdout) as {gated?: {job?: string}};
  expect(json.gated?.job).toBe(name);

  // No terminal and no --yes: refused as step --detach is, with nothing created.
  const unconfirmed = await cli(sim, ['promote', 'agent', '--detach']);
  expect({code: unconfirmed.code, stdout: unconfirmed.stdout}).toEqual({code: 1, stdout: ''});
  expect(unconfirmed.stderr).toMatch(/^[^\n]*refusing to promote without confirmation: there is no terminal to ask on; pass --yes[^\n]*\n$/);
  expect(stored(sim, 'jobs')).toHaveLength(1);
  const promoteJob = await detachedJob(sim, ['promote', 'agent']);
  expect(stored(sim, 'jobs')).toHaveLength(2);
  expect(promoteJob.args.slice(0, 2)).toEqual(['promote', 'agent']);
  const promoted = await runAsPod(sim, promoteJob);
  expect({code: promoted.code, stderr: promoted.stderr}).toEqual({code: 0, stderr: ''});
  expect(promoted.stdout.trimEnd().split('\n').at(-1)).toMatch(/^Gated rollout complete/);
  expect(eventReasons(sim)).toEqual([
    'Detached',
    'RolloutStarted',
    'CanaryStarted',
    'CanaryPassed',
    'AwaitingApproval',
    'Detached',
    'Promoted',
    'StageStarted',
    'StagePassed',
    'RolloutComplete',
  ]);
  // Kubernetes may run a finished Job's pod again (a node lost): it finds the rollout complete.
  const again = await runAsPod(sim, promoteJob);
  expect({code: again.code, stdout: again.stdout}).toEqual({code: 0, stdout: 'The gated rollout of daemonset default/agent is complete: nothing to do.\n'});
}, 180_000);

test('abort from a terminal names the Job that drove the rollout; a restart of that Job then drives nothing and fails', async () => {
  sim = await startRolloutSim({nodes: 3, maxUnavailable: 1});
  const job = await detachedJob(sim, ['step', 'agent', '--canary', '1', '--canary-bake', '2s', '--approve']);
  expect((await runAsPod(sim, job)).code).toBe(0);
  const name = sim.daemonSet().metadata.annotations![DETACHED_JOB_ANNOTATION]!;
  const aborted = await cli(sim, ['abort', 'agent', '--yes']);
  expect({code: aborted.code, stderr: aborted.stderr}).toEqual({code: 0, stderr: ''});
  expect(aborted.stdout.split('\n')[0]).toBe(`Job ${name} drove this gated rollout until its approval point; a restart of it finds the rollout over.`);
  const restart = await runAsPod(sim, job);
  expect({code: restart.code, stdout: restart.stdout}).toEqual({code: 3, stdout: ''});
  expect(restart.stderr).toMatch(/the template of daemonset default\/agent is no longer the one this Job rolls out \(gated rollout aborted\); Job \S+ fails/);
  expect(eventReasons(sim).at(-1)).toBe('Aborted');
});

test('--dry-run=server sends the objects with dryRun=All: the server checks them, nothing is stored', async () => {
  sim = await startRolloutSim({nodes: 2});
  const {stdout, stderr, code} = await cli(sim, ['step', 'agent', '--canary', '1', '--detach', '--dry-run=server']);
  expect({code, stderr}).toEqual({code: 0, stderr: ''});
  expect(stdout).toMatch(/^The API server accepted 6 objects for Job default\/ds-rollout-agent-\w+ \(server dry run: nothing was created\)\.\n$/);
  expect(stored(sim, 'jobs')).toEqual([]);
  expect(stored(sim, 'serviceaccounts')).toEqual([]);
  expect(sim.daemonSet().metadata.annotations?.[DETACHED_JOB_ANNOTATION]).toBeUndefined();
});

test('-o json prints the manifests as a List', async () => {
  sim = await startRolloutSim({nodes: 2});
  const {stdout, code} = await cli(sim, ['step', 'agent', '--canary', '1', '--detach', '--dry-run', '-o', 'json']);
  expect(code).toBe(0);
  const list = load(stdout) as {kind: string; items: {kind: string}[]};
  expect(list.kind).toBe('List');
  expect(list.items.map((i) => i.kind)).toContain('Job');
});

test("a metric gate through the service proxy: the Job may get that Service's proxy, in a Role of its namespace, deleted once the Job is gone", async () => {
  sim = await startRolloutSim({nodes: 3, maxUnavailable: 1});
  sim.test.cluster.exposeService('monitoring/prometheus:9090', await startPrometheus());
  const gate = ['--metric-query', 'up', '--metric-max', '1', '--metric-interval', '1s', '--prometheus-service', 'service/monitoring/prometheus:9090'];
  // The grant goes where the Service is: a namespace that is not there is said as such.
  const missing = await cli(sim, ['step', 'agent', '--canary', '1', ...gate, '--detach', '--yes']);
  expect({code: missing.code, stderr: missing.stderr}).toEqual({
    code: 1,
    stderr: expect.stringMatching(/^error: namespace "monitoring" not found: cannot create Role ds-rollout:default:ds-rollout-agent-\w+ in it\n$/),
  });
  // Nothing was made: the grant in the Service's namespace is the first object created.
  for (const kind of ['jobs', 'serviceaccounts', 'roles', 'rolebindings', 'clusterrolebindings'] as const)
    expect({kind, stored: stored(sim, kind)}).toEqual({kind, stored: []});
  sim.test.cluster.store.create({apiVersion: 'v1', kind: 'Namespace', metadata: {name: 'monitoring'}});
  const job = await detachedJob(sim, ['step', 'agent', '--canary', '1', '--canary-bake', '5s', '--bake', '2s', ...gate]);
  const name = job.env.find((e) => e.name === 'DS_ROLLOUT_DETACHED_JOB')!.value;
  const grant = detachProxyRoleName('default', name);
  const rule = {apiGroups: [''], resources: ['services/proxy'], resourceNames: ['prometheus:9090'], verbs: ['get']};
  const labels = {'ds-rollout.io/job-namespace': 'default', 'ds-rollout.io/job': name};
  // The Job's own Role is as without the gate; the grant is in the Service's namespace, labelled as the node binding.
  const roles = stored(sim, 'roles').map((r) => ({metadata: r['metadata'] as {name: string; namespace: string; ownerReferences?: unknown}, rules: r['rules']}));
  expect(roles.find((r) => r.metadata.namespace === 'default')!.rules).toEqual(detachRoleRules('agent', name));
  const there = roles.find((r) => r.metadata.namespace === 'monitoring')!;
  expect(there).toMatchObject({metadata: {name: grant, labels}, rules: [rule]});
  // Its Job, in another namespace, cannot own it.
  expect(there.metadata.ownerReferences).toBeUndefined();
  expect(stored(sim, 'rolebindings').find((b) => (b['metadata'] as {namespace: string}).namespace === 'monitoring')).toMatchObject({
    metadata: {name: grant, labels},
    roleRef: {kind: 'Role', name: grant},
    subjects: [{kind: 'ServiceAccount', name, namespace: 'default'}],
  });

  // The driver queries Prometheus through the proxy, each query within the grant, and completes the rollout.
  const run = await runAsPod(sim, job);
  expect({code: run.code, stderr: run.stderr}).toEqual({code: 0, stderr: ''});
  expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(/^Gated rollout complete/);
  expect(expectProxyWithinRoles(sim, name)).toBeGreaterThan(0);
  expectWithinRoles(sim, job);

  // The Job deleted: the next --detach deletes its grant in monitoring with its node binding.
  sim.test.cluster.store.delete('jobs', 'default', name, {propagationPolicy: 'Background'});
  await sim.until(() => stored(sim!, 'roles').filter((r) => (r['metadata'] as {namespace: string}).namespace === 'default').length === 0, 20_000, 'the GC');
  sim.setImage('agent:v3');
  const next = (await detachedJob(sim, ['step', 'agent', '--canary', '1'])).env.find((e) => e.name === 'DS_ROLLOUT_DETACHED_JOB')!.value;
  const left = (kind: 'roles' | 'rolebindings') =>
    stored(sim!, kind).map((r) => `${(r['metadata'] as {namespace: string}).namespace}/${(r['metadata'] as {name: string}).name}`);
  expect(left('roles')).toEqual([`default/${next}`]);
  expect(left('rolebindings')).toEqual([`default/${next}`]);
}, 120_000);

test('--dry-run=client: a Service in the DaemonSet namespace is one more rule in the Job Role, and no other object', async () => {
  sim = await startRolloutSim({nodes: 2});
  const gate = ['--metric-query', 'up', '--metric-max', '1', '--prometheus-service', 'service/default/prometheus:web'];
  const {stdout, stderr, code} = await cli(sim, ['step', 'agent', '--canary', '1', '--detach', '--dry-run=client', '-o', 'yaml', ...gate]);
  expect({code, stderr}).toEqual({code: 0, stderr: ''});
  const docs = loadAll(stdout) as {kind: string; metadata: {name: string}; rules?: unknown}[];
  expect(docs.map((d) => d.kind)).toEqual(['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding', 'Job']);
  expect(docs[1]!.rules).toEqual([
    ...detachRoleRules('agent', docs[1]!.metadata.name),
    {apiGroups: [''], resources: ['services/proxy'], resourceNames: ['prometheus:web'], verbs: ['get']},
  ]);
});

test('a release rolled out again after an undo gets a Job of its own: the completed Job of the earlier rollout drives nothing', async () => {
  sim = await startRolloutSim({nodes: 4, maxUnavailable: 1});
  const args = ['step', 'agent', '--canary', '1', '--canary-bake', '10s', '--bake', '5s'];
  const container = await detachedJob(sim, args);
  const name = container.env.find((e) => e.name === 'DS_ROLLOUT_DETACHED_JOB')!.value;
  const run = await runAsPod(sim, container);
  expect({code: run.code, stderr: run.stderr}).toEqual({code: 0, stderr: ''});
  // Its pod ran here, not under the simulated Job controller: the Job's status says it ended, as Kubernetes would.
  sim.test.cluster.store.patchStatus('jobs', 'default', name, () => ({succeeded: 1, conditions: [{type: 'Complete', status: 'True'}]}) as never);

  const undone = await cli(sim, ['undo', 'agent', '--yes']);
  expect({code: undone.code, stderr: undone.stderr}).toEqual({code: 0, stderr: ''});
  expect(sim.daemonSet().spec.template.spec.containers[0]!.image).toBe('agent:v1');
  // Still paused: the gated rollout keeps the DaemonSet paused once it completes.
  expect(sim.daemonSet().spec.updateStrategy?.type).toBe('OnDelete');
  // The same release again: the same template, so the same Job name; the one there ran the rollout undone.
  sim.setImage('agent:v2');
  const again = await cli(sim, [...args, '--detach', '--yes']);
  expect({code: again.code, stderr: again.stderr}).toEqual({code: 0, stderr: ''});
  expect(again.stdout.split('\n')[0]).toBe(`Job default/${name}-retry-2 created: it runs the gated rollout of daemonset default/agent in the cluster.`);
  expect((stored(sim, 'jobs') as unknown as JobManifest[]).map((job) => job.metadata.name).sort()).toEqual([name, `${name}-retry-2`]);
});
