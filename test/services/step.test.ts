// step against the simulated cluster (controller, scheduler, kubelets), through the live adapter.
import {afterEach, describe, expect, test, vi} from 'vitest';
import {
  CHANGE_CAUSE_ANNOTATION,
  PAUSED_STRATEGY_ANNOTATION,
  STEP_ANNOTATION,
  STEP_LEASE_ANNOTATION,
  type DaemonSet,
  type StepEvent,
} from '../../src/core/index.js';
import {InputError, RolloutStuckError, UsageError} from '../../src/platform/errors.js';
import {type StepOptions, stepDaemonSet} from '../../src/services/step.js';
import {NAME, NAMESPACE, REF, type RolloutSim, startRolloutSim, Witness} from '../safety/rollout-sim.js';

// The simulated cluster runs in (sped-up) real time.
vi.setConfig({testTimeout: 30_000});

let sim: RolloutSim | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

function step(s: RolloutSim, options: Partial<StepOptions> = {}, events: StepEvent[] = []) {
  return stepDaemonSet({session: s.session, ref: REF, timeoutMs: 15_000, tickMs: 50, onEvent: (e) => events.push(e), ...options});
}

function v2Nodes(s: RolloutSim): string[] {
  return Object.entries(s.images())
    .filter(([, images]) => images.length === 1 && images[0] === 'agent:v2')
    .map(([node]) => node)
    .sort();
}

function deletedPods(s: RolloutSim): string[] {
  return s.test.cluster.requestLog
    .filter({verb: 'delete', resource: 'pods'})
    .filter((e) => e.status === 200)
    .map((e) => e.name!);
}

describe('one wave', () => {
  test('deletes as many old pods as the recorded budget allows, by node name, and waits until they are available', async () => {
    sim = await startRolloutSim({nodes: 6, maxUnavailable: 2});
    const events: StepEvent[] = [];
    const result = await step(sim, {}, events);
    expect(result).toMatchObject({kind: 'DaemonSetStep', outcome: 'stepped', oldLeft: 4, budget: {maxUnavailable: 2, source: 'record', desired: 6}});
    expect(result.waves).toHaveLength(1);
    expect(result.waves[0]!.deleted.map((d) => d.node)).toEqual(['node-1', 'node-2']);
    expect(result.waves[0]!.nodes.map((n) => n.state)).toEqual(['available', 'available']);
    expect(v2Nodes(sim)).toEqual(['node-1', 'node-2']);
    // Still paused, the step counted in its own annotation, no change-cause for the next revision to inherit, the lease given back.
    const ds = sim.daemonSet();
    expect(ds.spec.updateStrategy?.type).toBe('OnDelete');
    expect(JSON.parse(ds.metadata.annotations![PAUSED_STRATEGY_ANNOTATION]!)).toMatchObject({steps: 1});
    expect(JSON.parse(ds.metadata.annotations![STEP_ANNOTATION]!)).toMatchObject({step: 1, of: 3});
    expect(ds.metadata.annotations![CHANGE_CAUSE_ANNOTATION]).toBeUndefined();
    expect(ds.metadata.annotations![STEP_LEASE_ANNOTATION]).toBeUndefined();
    expect(events.map((e) => e.kind)).toEqual(expect.arrayContaining(['wave', 'recorded', 'deleted', 'node', 'landed']));
    // Every delete carried the pod's uid and resourceVersion.
    for (const entry of sim.test.cluster.requestLog.filter({verb: 'delete', resource: 'pods'})) expect(entry.status).toBe(200);
  });

  test('a wide wave decides each deletion on the watched state, not on a new read per pod', async () => {
    sim = await startRolloutSim({nodes: 8, maxUnavailable: 6});
    const log = sim.test.cluster.requestLog;
    const listsBefore = log.filter({verb: 'list', resource: 'pods'}).length;
    const result = await step(sim);
    expect(result.waves[0]!.deleted).toHaveLength(6);
    // One read to plan the wave, one for the watch it follows; the five later decisions come from that watch.
    expect(log.filter({verb: 'list', resource: 'pods'}).length - listsBefore).toBeLessThanOrEqual(3);
  });

  test('the next step continues: numbering and budget', async () => {
    sim = await startRolloutSim({nodes: 5, maxUnavailable: 2});
    await step(sim);
    const second = await step(sim);
    expect(second.waves[0]!.deleted.map((d) => d.node)).toEqual(['node-3', 'node-4']);
    expect(JSON.parse(sim.daemonSet().metadata.annotations![STEP_ANNOTATION]!)).toMatchObject({step: 2, of: 3});
    const third = await step(sim);
    expect(third).toMatchObject({outcome: 'done', oldLeft: 0});
    const fourth = await step(sim);
    expect(fourth).toMatchObject({outcome: 'done', waves: []});
  });

  test('a new template while paused starts counting again: its first wave is step 1', async () => {
    sim = await startRolloutSim({nodes: 3, maxUnavailable: 1});
    for (let i = 0; i < 3; i++) await step(sim);
    expect(JSON.parse(sim.daemonSet().metadata.annotations![STEP_ANNOTATION]!)).toMatchObject({step: 3, of: 3});
    sim.setImage('agent:v3');
    const events: StepEvent[] = [];
    await step(sim, {}, events);
    expect(events.find((e) => e.kind === 'wave')).toMatchObject({number: 1, total: 3});
    expect(JSON.parse(sim.daemonSet().metadata.annotations![STEP_ANNOTATION]!)).toMatchObject({step: 1, of: 3});
  });

  test('--nodes and --selector choose the nodes; --max-unavailable the budget', async () => {
    sim = await startRolloutSim({nodes: 6, maxUnavailable: 1, labels: (i) => (i >= 3 ? {pool: 'canary'} : undefined)});
    const byName = await step(sim, {nodes: ['node-6', 'node-5']});
    expect(byName.waves[0]!.deleted.map((d) => d.node)).toEqual(['node-5']);
    const byLabel = await step(sim, {selector: {matchLabels: {pool: 'canary'}}, maxUnavailable: 2, untilComplete: true});
    expect(byLabel).toMatchObject({outcome: 'done', oldLeft: 0});
    expect(v2Nodes(sim)).toEqual(['node-4', 'node-5', 'node-6']);
    await expect(step(sim, {nodes: ['node-9']})).rejects.toThrow(new InputError('no such node: node-9'));
  });

  test('--dry-run shows the wave and changes nothing', async () => {
    sim = await startRolloutSim({nodes: 4, maxUnavailable: 3});
    const events: StepEvent[] = [];
    const result = await step(sim, {dryRun: true}, events);
    expect(result.outcome).toBe('dry-run');
    expect(result.next?.delete.map((d) => d.node)).toEqual(['node-1', 'node-2', 'node-3']);
    expect(events).toMatchObject([{kind: 'wave', number: 1, total: 2, dryRun: true}]);
    expect(deletedPods(sim)).toEqual([]);
    expect(sim.test.cluster.requestLog.filter({verb: 'patch', status: 200})).toHaveLength(1); // the pause only: no lease, no record
  });

  test('asks before a wave; no stops it', async () => {
    sim = await startRolloutSim({nodes: 3, maxUnavailable: 1});
    const asked: unknown[] = [];
    const result = await step(sim, {confirm: async (request) => (asked.push(request), 'no')});
    expect(asked).toEqual([{number: 1, total: 3, deletions: 1, controller: false}]);
    expect(result.outcome).toBe('declined');
    expect(deletedPods(sim)).toEqual([]);
  });
});

describe('refusals', () => {
  test('a running DaemonSet: pause it first', async () => {
    sim = await startRolloutSim({nodes: 2, unpaused: true});
    await expect(step(sim)).rejects.toThrow(
      new InputError("daemonset default/agent is not paused (updateStrategy RollingUpdate): run 'kubectl ds-rollout pause agent -n default' first"),
    );
  });

  test('an OnDelete DaemonSet it did not pause needs --max-unavailable', async () => {
    sim = await startRolloutSim({nodes: 2, unpaused: true});
    sim.test.cluster.store.modify('daemonsets', NAMESPACE, NAME, (ds) => {
      const d = ds as DaemonSet;
      return {
        ...d,
        spec: {
          ...d.spec,
          updateStrategy: {type: 'OnDelete'},
          template: {...d.spec.template, spec: {...d.spec.template.spec, containers: [{name: 'main', image: 'agent:v2'}]}},
        },
      };
    });
    await expect(step(sim)).rejects.toThrow(/was not paused by ds-rollout, so there is no recorded budget: pass --max-unavailable N/);
    const result = await step(sim, {maxUnavailable: 1});
    expect(result.waves[0]!.deleted.map((d) => d.node)).toEqual(['node-1']);
    expect(JSON.parse(sim.daemonSet().metadata.annotations![STEP_ANNOTATION]!)).toMatchObject({step: 1, of: 2});
  });

  test('a surging record needs --controller or --max-unavailable', async () => {
    sim = await startRolloutSim({nodes: 2, maxSurge: 1});
    await expect(step(sim)).rejects.toThrow(/surges \(maxSurge 1, maxUnavailable 0\) and a paused DaemonSet cannot surge: pass --controller/);
  });

  test('an impossible budget is a usage error', async () => {
    sim = await startRolloutSim({nodes: 2});
    const error = await step(sim, {maxUnavailable: '150%'}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
  });
});

describe('waiting and stopping', () => {
  test('a wave that does not become available stops with exit 3 and says why', async () => {
    sim = await startRolloutSim({nodes: 4, maxUnavailable: 1});
    sim.test.cluster.kubelets!.injectFailure({image: 'agent:v2', node: 'node-1', mode: 'crash'});
    const error = await step(sim, {timeoutMs: 1_500}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RolloutStuckError);
    expect((error as RolloutStuckError).exitCode).toBe(3);
    expect((error as Error).message).toMatch(
      /^wave 1 did not become available within 2s: node-1: new pod agent-\w+ is not ready \(CrashLoopBackOff\); the DaemonSet stays paused \(3 old pods left\)$/,
    );
    // And the next step refuses at once (no wave, no wait): the crashing pod holds the whole budget and will not
    // get better. The refusal, not a timeout, is what the message says.
    const again = await step(sim).catch((e: unknown) => e);
    expect((again as Error).message).toMatch(
      /^no wave can start: maxUnavailable 1 of daemonset default\/agent is in use by 1 unavailable node: node-1 \(new pod agent-\w+ is not ready \(CrashLoopBackOff\)\)/,
    );
  });

  test('waits while the budget is held by pods that are getting ready, then goes on', async () => {
    sim = await startRolloutSim({nodes: 3, maxUnavailable: 1, minReadySeconds: 20});
    // Someone deleted node-3's pod: the controller replaces it (v2), which holds the budget for ~20s of sim time.
    const victim = sim.pods().find((p) => p.spec.nodeName === 'node-3')!;
    sim.test.cluster.store.delete('pods', NAMESPACE, victim.metadata.name, {});
    const events: StepEvent[] = [];
    const result = await step(sim, {}, events);
    const waiting = events.find((e) => e.kind === 'waiting-for-budget');
    expect(waiting).toBeDefined();
    expect(result.waves[0]!.deleted.map((d) => d.node)).toEqual(['node-1']);
  });

  test('a template applied during the step stops it', async () => {
    sim = await startRolloutSim({nodes: 4, maxUnavailable: 2, minReadySeconds: 20});
    const events: StepEvent[] = [];
    const running = step(sim, {untilComplete: true}, events);
    await sim.until(() => events.some((e) => e.kind === 'deleted'), 10_000, 'a deletion');
    sim.setImage('agent:v3');
    const error = await running.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RolloutStuckError);
    expect((error as Error).message).toMatch(/^the template of daemonset default\/agent changed during the step \(template generation 2 -> 3\): stopped/);
    expect(sim.daemonSet().spec.updateStrategy?.type).toBe('OnDelete');
  });

  test('a DaemonSet resumed during the step stops it', async () => {
    sim = await startRolloutSim({nodes: 4, maxUnavailable: 1, minReadySeconds: 20});
    const witness = new Witness(sim);
    const events: StepEvent[] = [];
    const running = step(sim, {untilComplete: true}, events);
    await sim.until(() => events.some((e) => e.kind === 'deleted'), 10_000, 'a deletion');
    sim.test.cluster.store.modify('daemonsets', NAMESPACE, NAME, (ds) => ({
      ...(ds as DaemonSet),
      spec: {...(ds as DaemonSet).spec, updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: 0}}},
    }));
    await expect(running).rejects.toThrow(/was resumed during the step \(updateStrategy RollingUpdate\): stopped; the controller carries on/);
    witness.stop();
    expect(witness.max.count).toBeLessThanOrEqual(1);
  });
});
