// A detached gated rollout on a real Kubernetes 1.20.2 control plane: the real Job controller runs the driver (the
// kubelet agent plays its container as a local process with a service account token, --exec-image), the driver is
// killed during the canary's bake, the Job controller starts another pod, and the rollout resumes and completes
// within the budget, with RBAC limited to the Role the plugin made, and its story in `kubectl describe ds`. The
// metric gate's grant through the service proxy is checked by the real RBAC authorizer (SubjectAccessReviews).
import type {V1Pod} from '@kubernetes/client-node';
import {join, resolve} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {detachManifests, type ServiceRef} from '../../src/core/index.js';
import {agentDaemonSet, applyAgent, budgetWitness, eventually, kubectlJson, type List, startControlPlane, type ControlPlane} from './control-plane.js';

const NODES = 20;
const IMAGE = 'ds-rollout:e2e';
const BIN = join(resolve(import.meta.dirname, '../..'), 'bin/kubectl-ds_rollout');
let cp: ControlPlane;

interface Job {
  metadata: {name: string};
  status?: {succeeded?: number; failed?: number; active?: number; conditions?: {type: string; status: string; reason?: string}[]};
}

const json = <T>(args: string[]) => kubectlJson<T>(cp, args);
const daemonSet = () => agentDaemonSet(cp);

async function record(): Promise<{phase: string; stage: number} | undefined> {
  const text = (await daemonSet()).metadata?.annotations?.['ds-rollout.io/gated-rollout'];
  return text === undefined ? undefined : (JSON.parse(text) as {phase: string; stage: number});
}

async function nodesOn(suffix: string): Promise<string[]> {
  return (await json<List<V1Pod>>(['get', 'pods', '-l', 'app=agent'])).items
    .filter((p) => !p.metadata?.deletionTimestamp && p.spec?.containers[0]?.image?.endsWith(suffix))
    .map((p) => p.spec!.nodeName!)
    .sort();
}

beforeAll(async () => {
  cp = await startControlPlane({
    nodes: NODES,
    startDelayMs: 300,
    stopDelayMs: 300,
    failures: [{image: 'agent:broken', mode: 'crash'}],
    // The Job's container: this checkout's plugin, run by this machine's node.
    execImages: [{image: IMAGE, command: [process.execPath, BIN]}],
  });
  await applyAgent(cp, NODES, 'registry.example/agent:1.0', 2);
});

afterAll(() => cp?.stop());

/** Would the real RBAC authorizer let the detached Job's ServiceAccount `verb` `services/proxy` named `name` in `namespace`? */
async function jobMay(job: string, namespace: string, name: string, verb = 'get'): Promise<boolean> {
  const review = {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: {user: `system:serviceaccount:default:${job}`, resourceAttributes: {namespace, verb, resource: 'services', subresource: 'proxy', name}},
  };
  const answer = await cp.kubectl(['create', '-f', '-', '-o', 'json'], JSON.stringify(review));
  expect({code: answer.code, stderr: answer.stderr}).toEqual({code: 0, stderr: ''});
  return (JSON.parse(answer.stdout) as {status?: {allowed?: boolean}}).status?.allowed === true;
}

/** The Roles and RoleBindings of a detached rollout whose metric gate reaches `service` through the proxy, created. */
async function createGrants(job: string, service: ServiceRef): Promise<string> {
  const manifests = detachManifests({namespace: 'default', daemonSet: 'agent', template: 'e2e', job, image: IMAGE, args: [], prometheusService: service});
  const list = JSON.stringify({apiVersion: 'v1', kind: 'List', items: manifests.filter((m) => m.kind === 'Role' || m.kind === 'RoleBinding')});
  const created = await cp.kubectl(['create', '-f', '-'], list);
  expect({code: created.code, stderr: created.stderr}).toEqual({code: 0, stderr: ''});
  return list;
}

describe('a detached gated rollout on a real 1.20.2 control plane', () => {
  it('survives the kill of its driver during the bake: the Job controller starts another, which completes the rollout within the budget', async () => {
    expect((await cp.kubectl(['ds-rollout', 'pause', 'agent'])).code).toBe(0);
    expect((await cp.kubectl(['set', 'image', 'daemonset/agent', 'agent=registry.example/agent:2.0'])).code).toBe(0);
    const budget = budgetWitness(cp, NODES);
    try {
      const detached = await cp.kubectl([
        'ds-rollout',
        'step',
        'agent',
        '--until-complete',
        '--canary',
        '2',
        '--canary-bake',
        '40s',
        '--detach',
        '--image',
        IMAGE,
        '--yes',
      ]);
      expect({code: detached.code, stderr: detached.stderr}).toEqual({code: 0, stderr: ''});
      const job = /^Job default\/(\S+) created/.exec(detached.stdout)![1]!;

      // The driver bakes the canary: kill its process (as a node losing it would).
      await eventually('the canary bake', async () => ((await record())?.phase === 'baking' ? true : undefined), 180_000);
      const [first] = cp.agent.processes();
      expect(first?.pod.name).toMatch(new RegExp(`^${job}-`));
      const status = await cp.kubectl(['ds-rollout', 'status', 'agent']);
      expect(status.stdout).toContain(`driven by Job ${job}`);
      first!.child.kill('SIGKILL');

      // The real Job controller sees the pod fail (exit 137) and starts another; it resumes the same bake.
      const second = await eventually('a second driver pod', async () => cp.agent.processes().find((p) => p.pod.uid !== first!.pod.uid), 180_000);
      expect(second.pod.name).toMatch(new RegExp(`^${job}-`));
      const done = await eventually(
        'the Job to succeed',
        async () => {
          const current = await json<Job>(['get', 'job', job]);
          return current.status?.succeeded === 1 ? current : undefined;
        },
        480_000,
      );
      expect(done.status?.failed).toBeGreaterThanOrEqual(1);
    } finally {
      expect(await budget.stop()).toBeLessThanOrEqual(2);
    }
    expect(await nodesOn(':2.0')).toHaveLength(NODES);
    expect(await record()).toMatchObject({phase: 'complete'});

    // The rollout's story on the DaemonSet, as an operator reads it.
    const described = await cp.kubectl(['describe', 'daemonset', 'agent']);
    for (const reason of ['Detached', 'RolloutStarted', 'CanaryStarted', 'RolloutResumed', 'CanaryPassed', 'StageStarted', 'RolloutComplete']) {
      expect(described.stdout).toMatch(new RegExp(`Normal\\s+${reason}\\s+\\S+\\s+ds-rollout`));
    }
  }, 900_000);

  it('a crash-looping canary run by a Job with --on-failure undo ends with every node on the old revision; abort then changes nothing', async () => {
    expect((await cp.kubectl(['set', 'image', 'daemonset/agent', 'agent=registry.example/agent:broken'])).code).toBe(0);
    const budget = budgetWitness(cp, NODES);
    let job: string;
    try {
      const detached = await cp.kubectl([
        'ds-rollout',
        'step',
        'agent',
        '--canary',
        '1',
        '--canary-bake',
        '20s',
        '--on-failure',
        'undo',
        '--detach',
        '--image',
        IMAGE,
        '--yes',
      ]);
      expect({code: detached.code, stderr: detached.stderr}).toEqual({code: 0, stderr: ''});
      job = /^Job default\/(\S+) created/.exec(detached.stdout)![1]!;
      // The driver fails its gate and rolls back, sets its Job's backoffLimit to 0 and exits 3: the Job controller
      // fails the Job on that one pod failure, with no retries (its alerts fire; nothing runs the rollout again).
      const ended = await eventually(
        'the Job to fail',
        async () => {
          const current = await json<Job>(['get', 'job', job]);
          return current.status?.conditions?.some((c) => c.status === 'True') ? current : undefined;
        },
        480_000,
      );
      expect(ended.status).toMatchObject({failed: 1, conditions: [{type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded'}]});
      expect(ended.status?.succeeded ?? 0).toBe(0);
    } finally {
      expect(await budget.stop()).toBeLessThanOrEqual(2);
    }
    await eventually('every node back on the old release', async () => ((await nodesOn(':2.0')).length === NODES ? true : undefined), 120_000);
    expect((await daemonSet()).spec?.template.spec?.containers[0]?.image).toBe('registry.example/agent:2.0');
    const described = await cp.kubectl(['describe', 'daemonset', 'agent']);
    expect(described.stdout).toMatch(/Warning\s+GateFailed\s+\S+\s+ds-rollout\s+Gate failed at stage canary: .*CrashLoopBackOff/);
    expect(described.stdout).toMatch(/Warning\s+RollingBack\s+\S+\s+ds-rollout/);

    const before = await daemonSet();
    for (let i = 0; i < 2; i++) await cp.kubectl(['ds-rollout', 'abort', 'agent', '--yes']);
    const after = await daemonSet();
    expect(after.spec?.template).toEqual(before.spec?.template);
    expect(await nodesOn(':2.0')).toHaveLength(NODES);
  }, 900_000);

  it("lets the Job get its metric gate's Service through the proxy, as NAME:PORT, and nothing else", async () => {
    expect((await cp.kubectl(['create', 'namespace', 'monitoring'])).code).toBe(0);
    // Another namespace: a Role and RoleBinding there.
    const elsewhere = 'ds-rollout-agent-e2e-proxy';
    const created = await createGrants(elsewhere, {namespace: 'monitoring', name: 'prometheus', port: '9090'});
    try {
      expect(await jobMay(elsewhere, 'monitoring', 'prometheus:9090')).toBe(true);
      // The API server names a proxy request NAME:PORT: the bare name, another port, another verb, another namespace are not granted.
      expect(await jobMay(elsewhere, 'monitoring', 'prometheus')).toBe(false);
      expect(await jobMay(elsewhere, 'monitoring', 'prometheus:9091')).toBe(false);
      expect(await jobMay(elsewhere, 'monitoring', 'prometheus:9090', 'create')).toBe(false);
      expect(await jobMay(elsewhere, 'default', 'prometheus:9090')).toBe(false);
    } finally {
      await cp.kubectl(['delete', '-f', '-'], created);
    }
    // The DaemonSet's namespace: a rule in the Job's own Role.
    const here = 'ds-rollout-agent-e2e-proxy-here';
    const own = await createGrants(here, {namespace: 'default', name: 'prometheus', port: 'web'});
    try {
      expect(await jobMay(here, 'default', 'prometheus:web')).toBe(true);
      expect(await jobMay(here, 'monitoring', 'prometheus:web')).toBe(false);
    } finally {
      await cp.kubectl(['delete', '-f', '-'], own);
    }
  });
});
