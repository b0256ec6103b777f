// The plugins against a real Kubernetes 1.20.2 control plane (apiserver, DaemonSet controller, scheduler),
// with the kubelet agent playing the nodes.
import {spawn} from 'node:child_process';
import {mkdtempSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import type {V1DaemonSet, V1Lease, V1Node, V1Pod} from '@kubernetes/client-node';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {
  agentDaemonSet,
  agentManifest,
  applyAgent,
  budgetWitness,
  daemonPodNode,
  eventually,
  kubectlJson,
  type List,
  startControlPlane,
  type ControlPlane,
} from './control-plane.js';

const NODES = 6;
let cp: ControlPlane;

/** A snapshot item: any kind, read and edited as plain JSON. */
type SnapshotItem = V1DaemonSet & {kind: string; metadata: {name: string; annotations: Record<string, string>}};

const json = <T>(args: string[]) => kubectlJson<T>(cp, args);
const daemonSet = () => agentDaemonSet(cp);

beforeAll(async () => {
  // Pods of an image containing `agent:broken` crash-loop (the gated rollout's failing release).
  cp = await startControlPlane({nodes: NODES, startDelayMs: 300, stopDelayMs: 300, failures: [{image: 'agent:broken', mode: 'crash'}]});
  await applyAgent(cp, NODES, 'registry.example/agent:1.0', 2);
});

afterAll(() => cp?.stop());

describe('on a real 1.20.2 control plane', () => {
  it('the kubelet agent registered Ready nodes that the node lifecycle controller leaves untainted', async () => {
    const nodes = await json<List<V1Node>>(['get', 'nodes']);
    expect(nodes.items).toHaveLength(NODES);
    for (const node of nodes.items) {
      expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
      expect((node.spec?.taints ?? []).map((t) => t.key)).not.toContain('node.kubernetes.io/unreachable');
    }
    const leases = await json<List<V1Lease>>(['get', 'leases', '-n', 'kube-node-lease']);
    expect(leases.items.map((l) => l.metadata?.name).sort()).toEqual(nodes.items.map((n) => n.metadata?.name).sort());
  });

  it('ds-plan (live, json) reports the status counters the controller wrote', async () => {
    const r = await cp.kubectl(['ds-plan', 'agent', '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as {status: Record<string, number>; nextSync: unknown};
    const ds = await daemonSet();
    for (const key of ['desiredNumberScheduled', 'currentNumberScheduled', 'numberMisscheduled', 'numberReady', 'updatedNumberScheduled', 'numberAvailable']) {
      expect({key, value: plan.status[key]}).toEqual({key, value: (ds.status as Record<string, number> | undefined)?.[key] ?? 0});
    }
    expect(plan.nextSync).toEqual({create: [], delete: []});
    const text = await cp.kubectl(['ds-plan', 'agent']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('agent');
  });

  it('RBAC: a read-only user may plan but not pause; a user with no rights may not even read (exit 2, nothing changed)', async () => {
    const before = await daemonSet();
    const viewerPlan = await cp.kubectl(['ds-plan', 'agent', '--context', 'viewer', '-o', 'json']);
    expect(viewerPlan.code).toBe(0);
    const viewerPause = await cp.kubectl(['ds-rollout', 'pause', 'agent', '--context', 'viewer']);
    expect(viewerPause.code).toBe(2);
    expect(viewerPause.stderr.trim().split('\n')).toHaveLength(1);
    const nobodyPlan = await cp.kubectl(['ds-plan', 'agent', '--context', 'nobody']);
    expect(nobodyPlan.code).toBe(2);
    expect(nobodyPlan.stderr).toMatch(/forbidden|refused/i);
    const after = await daemonSet();
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
  });

  it('the first sync of a rollout is the one ds-plan predicted for the state the controller saw', async () => {
    // Hold the kubelets: once the controller has made its first sync, nothing moves until the test says so.
    cp.agent.hold();
    try {
      const paused = await cp.kubectl(['ds-rollout', 'pause', 'agent']);
      expect(paused.code, paused.stderr).toBe(0);
      const set = await cp.kubectl(['set', 'image', 'daemonset/agent', 'agent=registry.example/agent:2.0']);
      expect(set.code, set.stderr).toBe(0);
      // Paused: the controller makes a revision but changes no pod.
      const pods = await json<List<V1Pod>>(['get', 'pods', '-l', 'app=agent']);
      expect(pods.items.filter((p) => p.metadata?.deletionTimestamp)).toHaveLength(0);
      // The plan for the unpaused state, from a snapshot of the cluster as it is now (paused flipped off).
      const snapshot = await json<List<SnapshotItem>>(['get', 'nodes,pods,daemonsets,controllerrevisions', '-A']);
      // (Pause made the strategy OnDelete and recorded the rolling update in an annotation; resume restores it.)
      for (const item of snapshot.items) {
        if (item.kind !== 'DaemonSet' || item.metadata.name !== 'agent') continue;
        expect(item.spec?.updateStrategy?.type).toBe('OnDelete');
        delete item.metadata.annotations['ds-rollout.io/paused-strategy'];
        item.spec!.updateStrategy = {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 2}};
      }
      const planned = await cp.kubectl(['ds-plan', 'agent', '--snapshot', '-', '-o', 'json'], JSON.stringify(snapshot));
      expect(planned.code, planned.stderr).toBe(0);
      const plan = JSON.parse(planned.stdout) as {nextSync: {create: unknown[]; delete: unknown[]}};
      expect(plan.nextSync.delete).toHaveLength(2);
      const resumed = await cp.kubectl(['ds-rollout', 'resume', 'agent']);
      expect(resumed.code, resumed.stderr).toBe(0);
      const deleting = await eventually('the controller to delete old pods', async () => {
        const list = await json<List<V1Pod>>(['get', 'pods', '-l', 'app=agent']);
        const gone = list.items.filter((p) => p.metadata?.deletionTimestamp);
        return gone.length >= plan.nextSync.delete.length ? gone : undefined;
      });
      // Quiet a moment longer: the controller deletes nothing more in this sync.
      await new Promise((r) => setTimeout(r, 2000));
      const settled = (await json<List<V1Pod>>(['get', 'pods', '-l', 'app=agent'])).items.filter((p) => p.metadata?.deletionTimestamp);
      expect(settled.length).toBe(plan.nextSync.delete.length);
      expect(deleting.length).toBe(plan.nextSync.delete.length);
      expect(plan.nextSync.create).toHaveLength(0);
    } finally {
      cp.agent.unhold();
    }
    await eventually(
      'the rollout to complete',
      async () => {
        const ds = await daemonSet();
        return ds.status?.updatedNumberScheduled === NODES && ds.status?.numberAvailable === NODES ? ds : undefined;
      },
      180_000,
    );
  });

  it('-f is checked by the 1.20 server: maxSurge it drops is a warning; maxUnavailable 0 it refuses (exit 1)', async () => {
    const before = await daemonSet();
    const dir = mkdtempSync(join(tmpdir(), 'ds-rollout-e2e-f-'));
    const withBudget = (file: string, rollingUpdate: string) => {
      const path = join(dir, file);
      writeFileSync(path, agentManifest('registry.example/agent:9.0', 1).replace('{maxUnavailable: 1}', rollingUpdate));
      return path;
    };
    const dropped = await cp.kubectl(['ds-plan', '-f', withBudget('surge.yaml', '{maxUnavailable: 1, maxSurge: 2}'), '-o', 'json']);
    expect(dropped.code, dropped.stderr).toBe(0);
    const plan = JSON.parse(dropped.stdout) as {controllerVersion: string; strategy: {maxSurge: number}; update: {warnings: {kind: string; message: string}[]}};
    expect(plan.controllerVersion).toBe('1.20');
    expect(plan.strategy.maxSurge).toBe(0);
    expect(plan.update.warnings[0]).toMatchObject({kind: 'dropped-field', message: expect.stringContaining('spec.updateStrategy.rollingUpdate.maxSurge')});
    const refused = await cp.kubectl(['ds-plan', '-f', withBudget('zero.yaml', '{maxUnavailable: 0, maxSurge: 2}')]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/^error: the server refused to update daemonset agent in namespace default: .*maxUnavailable/);
    // A dry run stores nothing.
    expect((await daemonSet()).metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
  });

  it("history shows each revision its own change-cause after undo and a later kubectl set image (ours and kubectl's)", async () => {
    const undo = await cp.kubectl(['ds-rollout', 'undo', 'agent', '--yes']);
    expect(undo.code, undo.stderr).toBe(0);
    const set = await cp.kubectl(['set', 'image', 'daemonset/agent', 'agent=registry.example/agent:3.0']);
    expect(set.code, set.stderr).toBe(0);
    type History = {revisions: {revision: number; images: string[]; changeCause?: string}[]};
    const history = await eventually('the controller to make the revision of 3.0', async () => {
      const r = await cp.kubectl(['ds-rollout', 'history', 'agent', '-o', 'json']);
      const parsed = JSON.parse(r.stdout) as History;
      return parsed.revisions.some((rev) => rev.images[0] === 'registry.example/agent:3.0') ? parsed : undefined;
    });
    const byImage = new Map(history.revisions.map((rev) => [rev.images[0], rev]));
    expect(byImage.get('registry.example/agent:1.0')?.changeCause).toBe('ds-rollout undo to revision 1');
    expect(byImage.get('registry.example/agent:3.0')?.changeCause).toBeUndefined();
    expect(byImage.get('registry.example/agent:2.0')?.changeCause).toBeUndefined();
    const kubectlHistory = await cp.kubectl(['rollout', 'history', 'daemonset/agent']);
    const rows = kubectlHistory.stdout.trim().split('\n').slice(2);
    const undone = byImage.get('registry.example/agent:1.0')!.revision;
    for (const row of rows) {
      const [revision, ...cause] = row.trim().split(/\s+/);
      expect({revision, cause: cause.join(' ')}).toEqual({revision, cause: Number(revision) === undone ? 'ds-rollout undo to revision 1' : '<none>'});
    }
  });
  it('pause, kubectl set image (no pod changes), step --nodes, step --until-complete within the budget, resume, status', async () => {
    const complete = () =>
      eventually(
        'the rollout to complete',
        async () => {
          const ds = await daemonSet();
          return ds.status?.updatedNumberScheduled === NODES && ds.status?.numberAvailable === NODES && ds.status?.numberUnavailable === undefined
            ? ds
            : undefined;
        },
        180_000,
      );
    await complete();
    const images = async () => {
      const pods = (await json<List<V1Pod>>(['get', 'pods', '-l', 'app=agent'])).items.filter((p) => !p.metadata?.deletionTimestamp);
      return new Map(pods.map((p) => [p.spec?.nodeName ?? '', p.spec?.containers[0]?.image ?? '']));
    };
    const paused = await cp.kubectl(['ds-rollout', 'pause', 'agent']);
    expect(paused.code, paused.stderr).toBe(0);
    const set = await cp.kubectl(['set', 'image', 'daemonset/agent', 'agent=registry.example/agent:4.0']);
    expect(set.code, set.stderr).toBe(0);
    await new Promise((r) => setTimeout(r, 3000));
    // Paused: the real controller makes the new revision and replaces no pod.
    expect([...(await images()).values()].filter((image) => image.endsWith(':4.0'))).toEqual([]);

    // A watcher samples the pods all along: never more nodes without an available pod than maxUnavailable (2).
    const budget = budgetWitness(cp, NODES, 'registry.example/agent:4.0');
    try {
      const first = [...(await images()).keys()].sort()[0]!;
      const canary = await cp.kubectl(['ds-rollout', 'step', 'agent', '--nodes', first, '--yes']);
      expect(canary.code, canary.stderr).toBe(0);
      const afterCanary = await images();
      expect([...afterCanary].filter(([, image]) => image.endsWith(':4.0')).map(([node]) => node)).toEqual([first]);
      const rest = await cp.kubectl(['ds-rollout', 'step', 'agent', '--until-complete', '--yes']);
      expect(rest.code, rest.stderr).toBe(0);
      expect([...(await images()).values()].every((image) => image.endsWith(':4.0'))).toBe(true);
    } finally {
      expect(await budget.stop()).toBeLessThanOrEqual(2);
    }
    const resumed = await cp.kubectl(['ds-rollout', 'resume', 'agent']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await daemonSet()).spec?.updateStrategy).toMatchObject({type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 2}});
    await complete();
    // status follows the rollout by default, as kubectl rollout status: complete is exit 0.
    const status = await cp.kubectl(['ds-rollout', 'status', 'agent', '--timeout', '60s']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/successfully rolled out/);
  });
  it('kill -9 during step --until-complete, then a rerun: it continues within the budget and completes', async () => {
    const images = async () =>
      (await json<List<V1Pod>>(['get', 'pods', '-l', 'app=agent'])).items
        .filter((p) => !p.metadata?.deletionTimestamp)
        .map((p) => p.spec?.containers[0]?.image ?? '');
    expect((await cp.kubectl(['ds-rollout', 'pause', 'agent'])).code).toBe(0);
    expect((await cp.kubectl(['set', 'image', 'daemonset/agent', 'agent=registry.example/agent:5.0'])).code).toBe(0);
    const budget = budgetWitness(cp, NODES, 'registry.example/agent:5.0');
    try {
      // The plugin is kubectl's child (exec'd in its place): SIGKILL it once its first wave has begun.
      const env = {...process.env, PATH: `${join(import.meta.dirname, '../../bin')}:${process.env.PATH ?? ''}`, KUBECONFIG: cp.kubeconfig, NO_COLOR: '1'};
      const child = spawn('kubectl', ['ds-rollout', 'step', 'agent', '--until-complete', '--yes'], {env, stdio: 'ignore'});
      const exited = new Promise<NodeJS.Signals | null>((done) => child.on('exit', (_code, signal) => done(signal)));
      await eventually('the first wave to begin', async () => (budget.begun() ? true : undefined), 60_000);
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      expect((await images()).some((image) => !image.endsWith(':5.0'))).toBe(true);
      const rerun = await cp.kubectl(['ds-rollout', 'step', 'agent', '--until-complete', '--yes']);
      expect(rerun.code, rerun.stderr).toBe(0);
      expect((await images()).every((image) => image.endsWith(':5.0'))).toBe(true);
    } finally {
      expect(await budget.stop()).toBeLessThanOrEqual(2);
    }
    expect((await cp.kubectl(['ds-rollout', 'resume', 'agent'])).code).toBe(0);
  });
  it('a gated rollout: a crash-looping canary fails its gate and --on-failure undo steps back only the canary; a healthy one completes', async () => {
    const nodesOn = async (suffix: string) =>
      (await json<List<V1Pod>>(['get', 'pods', '-l', 'app=agent'])).items
        .filter((p) => !p.metadata?.deletionTimestamp && p.spec?.containers[0]?.image?.endsWith(suffix))
        .map(daemonPodNode)
        .sort();
    expect((await cp.kubectl(['ds-rollout', 'pause', 'agent'])).code).toBe(0);
    expect((await cp.kubectl(['set', 'image', 'daemonset/agent', 'agent=registry.example/agent:broken'])).code).toBe(0);
    const everOnBroken = new Set<string>();
    const budget = budgetWitness(cp, NODES, 'registry.example/agent:broken');
    let sampling = true;
    const sampler = (async () => {
      while (sampling) for (const node of await nodesOn(':broken')) everOnBroken.add(node!);
    })();
    try {
      const failed = await cp.kubectl([
        'ds-rollout',
        'step',
        'agent',
        '--until-complete',
        '--canary',
        '1',
        '--canary-bake',
        '20s',
        '--on-failure',
        'undo',
        '--yes',
      ]);
      expect(failed.code, failed.stdout + failed.stderr).toBe(3);
      expect(failed.stderr).toMatch(
        /^error: gate failed at stage canary: pod agent-\w+ on node node-01: CrashLoopBackOff.*rolled back to revision \d+ on node-01/,
      );
      await eventually('the canary back on the old release', async () => ((await nodesOn(':broken')).length === 0 ? true : undefined), 60_000);
    } finally {
      sampling = false;
      await sampler;
      expect(await budget.stop()).toBeLessThanOrEqual(2);
    }
    // Only the canary ever ran the failing release.
    expect([...everOnBroken]).toEqual(['node-01']);
    expect((await daemonSet()).spec?.template.spec?.containers[0]?.image).toBe('registry.example/agent:5.0');

    expect((await cp.kubectl(['set', 'image', 'daemonset/agent', 'agent=registry.example/agent:6.0'])).code).toBe(0);
    const healthy = await cp.kubectl(['ds-rollout', 'step', 'agent', '--until-complete', '--canary', '1', '--canary-bake', '3s', '--bake', '1s', '--yes']);
    expect(healthy.code, healthy.stdout + healthy.stderr).toBe(0);
    expect(await nodesOn(':6.0')).toHaveLength(NODES);
    expect((await cp.kubectl(['ds-rollout', 'resume', 'agent'])).code).toBe(0);
  });
});
