// The central assertion of the real-cluster suite: during whole rollouts on the real Kubernetes 1.20.2 DaemonSet
// controller, after every sync the controller makes, ds-plan's nextSync (the built CLI, -o json, live against the
// real API server, modelling 1.20 from /version) for the state the controller saw equals what it did next.
//
// The state holds still between syncs: the kubelet agent's pod transitions are held, kube-controller-manager is
// stopped (SIGSTOP) while the test releases one transition and runs ds-plan, then continued until quiet. What
// the controller did is read from the API server's audit log (a deletion of a pod that is already terminating
// changes no object, so only the request shows it) and from the pods that appeared.
import {CoreV1Api, KubeConfig, type V1Pod} from '@kubernetes/client-node';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {eventually, startControlPlane, type ControlPlane} from './control-plane.js';
import type {PendingTransition} from '../../src/sim/kubelet-agent.js';

const NODES = 20;
let cp: ControlPlane;
let core: CoreV1Api;

interface PlanPod {
  name: string;
  updated: boolean;
  available: boolean;
  terminating: boolean;
}
interface Plan {
  controllerVersion: string;
  nextSync: {create: {node: string}[]; delete: {pod: string; node: string}[]};
  nodes: {name: string; pods: PlanPod[]}[];
}

const manifest = (name: string, maxUnavailable: number) => `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ${name}, namespace: default}
spec:
  selector: {matchLabels: {app: ${name}}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: ${maxUnavailable}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      terminationGracePeriodSeconds: 30
      containers: [{name: main, image: "registry.example/${name}:1.0"}]
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function podsOf(app: string): Promise<V1Pod[]> {
  return (await core.listNamespacedPod({namespace: 'default', labelSelector: `app=${app}`})).items;
}

/** Node a daemon pod targets: its binding, else the node affinity the 1.20 controller pins it with. */
function targetNode(pod: V1Pod): string {
  return (
    pod.spec?.nodeName ??
    pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0]?.matchFields?.[0]?.values?.[0] ??
    ''
  );
}

const fingerprint = (pods: V1Pod[]) =>
  pods
    .map((p) => `${p.metadata?.name}/${p.metadata?.resourceVersion}/${p.spec?.nodeName ?? '-'}`)
    .sort()
    .join(',');

/** Waits until the pods stop changing for `quietMs` and every pod is bound (the scheduler has caught up). */
async function quiet(app: string, quietMs = 800): Promise<V1Pod[]> {
  let last = '';
  let since = Date.now();
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(150)) {
    const pods = await podsOf(app);
    const now = fingerprint(pods);
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs && pods.every((p) => p.spec?.nodeName)) return pods;
  }
  throw new Error('the cluster did not settle');
}

/** What the DaemonSet controller asked the API server to do for `app` since the audit log had `seen` entries. */
function controllerActions(seen: number, pods: Map<string, V1Pod>): {creates: number; deleted: string[]} {
  const events = cp
    .podAudit()
    .slice(seen)
    .filter((e) => e.userAgent?.endsWith('/daemon-set-controller') && (e.responseStatus?.code ?? 0) < 300);
  return {
    creates: events.filter((e) => e.verb === 'create').length,
    deleted: events.filter((e) => e.verb === 'delete' && pods.has(e.objectRef?.name ?? '')).map((e) => e.objectRef!.name!),
  };
}

interface StepRecord {
  step: number;
  released: string;
  planned: {create: string[]; delete: string[]};
  done: {create: string[]; delete: string[]};
}

/**
 * One whole rollout of `app` (already running v1 everywhere) to v2, one controller sync at a time. Returns the
 * record of every step, and the number of deletions of pods that were already terminating.
 */
async function rolloutStepByStep(app: string): Promise<{steps: StepRecord[]; deletedAgain: number; plannedAgain: number}> {
  const steps: StepRecord[] = [];
  let deletedAgain = 0;
  let plannedAgain = 0;
  // Pods the controller deleted while they were already terminating: its expectations wait for them to be gone.
  const awaitingGone = new Set<string>();
  cp.agent.hold();
  await quiet(app);
  cp.freezeController(true);
  try {
    let release: (() => Promise<string>) | undefined = async () => {
      const set = await cp.kubectl(['set', 'image', `daemonset/${app}`, `main=registry.example/${app}:2.0`]);
      expect(set.code, set.stderr).toBe(0);
      return 'kubectl set image';
    };
    for (let step = 1; release && step <= 200; step++) {
      const released = await release();
      // The state the controller will see: plan it (the controller is stopped).
      const before = new Map((await podsOf(app)).map((p) => [p.metadata!.name!, p]));
      const seen = cp.podAudit().length;
      const r = await cp.kubectl(['ds-plan', app, '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      const plan = JSON.parse(r.stdout) as Plan;
      expect(plan.controllerVersion).toBe('1.20');

      cp.freezeController(false);
      const after = await quiet(app);
      cp.freezeController(true);

      const actions = controllerActions(seen, before);
      const createdNodes = after.filter((p) => !before.has(p.metadata!.name!)).map(targetNode);
      const record: StepRecord = {
        step,
        released,
        planned: {create: plan.nextSync.create.map((c) => c.node).sort(), delete: plan.nextSync.delete.map((d) => d.pod).sort()},
        done: {create: createdNodes.sort(), delete: [...actions.deleted].sort()},
      };
      steps.push(record);
      expect(actions.creates, JSON.stringify(record)).toBe(createdNodes.length);
      // Counts always; created nodes always (manage's choice is fixed).
      expect({step, released, create: record.done.create}).toEqual({step, released, create: record.planned.create});
      expect({step, released, deletions: record.done.delete.length}).toEqual({step, released, deletions: record.planned.delete.length});
      // Deleted pods by name where upstream's choice is deterministic: every old available pod is taken, or none.
      const planPods = plan.nodes.flatMap((n) => n.pods);
      const candidates = planPods.filter((p) => !p.updated && p.available).map((p) => p.name);
      const plannedAvailable = record.planned.delete.filter((name) => candidates.includes(name));
      if (plannedAvailable.length === 0 || plannedAvailable.length === candidates.length) {
        expect({step, deleted: record.done.delete}).toEqual({step, deleted: record.planned.delete});
      } else {
        // Otherwise every pod the controller took is one the 1.20 model counts as a candidate (terminating ones
        // included, which the newest controller never takes).
        for (const name of record.done.delete) expect({step, name, candidate: candidates.includes(name)}).toEqual({step, name, candidate: true});
      }
      if (record.planned.delete.some((name) => planPods.find((p) => p.name === name)?.terminating)) plannedAgain++;
      for (const name of actions.deleted) {
        if (before.get(name)?.metadata?.deletionTimestamp) {
          deletedAgain++;
          awaitingGone.add(name);
        }
      }

      // The next transition: a pending deletion the controller waits for first (its expectations), else a pod
      // turning Ready before any deletion finishes (old pods stay terminating but Ready, as 1.20 sees them).
      const due = await cp.agent.due();
      const mine = due.filter((t) => before.has(t.name) || after.some((p) => p.metadata?.name === t.name));
      for (const name of awaitingGone) if (!after.some((p) => p.metadata?.name === name)) awaitingGone.delete(name);
      const byNode = (a: PendingTransition, b: PendingTransition) => a.node.localeCompare(b.node);
      const next =
        mine.filter((t) => t.kind === 'finish-deletion' && awaitingGone.has(t.name)).sort(byNode)[0] ??
        mine.filter((t) => t.kind === 'start').sort(byNode)[0] ??
        mine.filter((t) => t.kind === 'finish-deletion').sort(byNode)[0];
      release = next
        ? async () => {
            const done = await cp.agent.release((t) => t.uid === next.uid && t.kind === next.kind);
            expect(done).toHaveLength(1);
            return `${next.kind} ${next.name} on ${next.node}`;
          }
        : undefined;
    }
  } finally {
    cp.freezeController(false);
    cp.agent.unhold();
  }
  const pods = await podsOf(app);
  expect(pods).toHaveLength(NODES);
  for (const pod of pods) expect(pod.spec?.containers[0]?.image).toBe(`registry.example/${app}:2.0`);
  return {steps, deletedAgain, plannedAgain};
}

beforeAll(async () => {
  cp = await startControlPlane({nodes: NODES, startDelayMs: 300, stopDelayMs: 300});
  const kc = new KubeConfig();
  kc.loadFromFile(cp.kubeconfig);
  core = kc.makeApiClient(CoreV1Api);
});

afterAll(() => cp?.stop());

describe(`ds-plan's next sync is what the real 1.20 controller does, sync after sync (${NODES} nodes)`, () => {
  // About 60 controller syncs each (a delete, a finished deletion and a Ready pod per node), ~3-4 minutes.
  it.each([1, 3])('maxUnavailable %i', {timeout: 10 * 60_000}, async (maxUnavailable) => {
    const app = `plan-${maxUnavailable}`;
    const applied = await cp.kubectl(['apply', '-f', '-'], manifest(app, maxUnavailable));
    expect(applied.code, applied.stderr).toBe(0);
    await eventually('the DaemonSet to run on every node', async () => {
      const pods = await podsOf(app);
      return pods.length === NODES && pods.every((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) ? pods : undefined;
    });
    const {steps, deletedAgain, plannedAgain} = await rolloutStepByStep(app);
    const deletions = steps.map((s) => s.done.delete.length).filter((n) => n > 0);
    // The first sync takes the whole budget; after it, the 1.20 controller spends budget on terminating pods.
    expect(deletions[0]).toBe(maxUnavailable);
    // ... and ds-plan, modelling 1.20, predicted those deletions of terminating pods (the newest never plans one).
    if (maxUnavailable > 1) {
      expect(deletedAgain).toBeGreaterThan(0);
      expect(plannedAgain).toBeGreaterThan(0);
    }
    await cp.kubectl(['delete', 'daemonset', app, '--wait=false']);
  });
});
