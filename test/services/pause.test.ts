// pause and resume against the simulated cluster, through the live adapter: one patch each, with the
// resourceVersion as precondition; the template (so every pod) is untouched.
import {afterEach, describe, expect, test, vi} from 'vitest';
import {PAUSED_STRATEGY_ANNOTATION, type DaemonSet} from '../../src/core/index.js';
import {InputError} from '../../src/platform/errors.js';
import {pauseDaemonSet} from '../../src/services/pause.js';
import {liveClock} from '../../src/cluster/session.js';
import {resumeDaemonSet} from '../../src/services/resume.js';
import {NAME, NAMESPACE, REF, type RolloutSim, startRolloutSim} from '../safety/rollout-sim.js';

// The simulated cluster runs in (sped-up) real time.
vi.setConfig({testTimeout: 30_000});

let sim: RolloutSim | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

function patches(s: RolloutSim) {
  return s.test.cluster.requestLog.filter({verb: 'patch', resource: 'daemonsets'});
}

describe('pause', () => {
  test('records the strategy and switches to OnDelete in one patch; no pod restarts', async () => {
    sim = await startRolloutSim({unpaused: true, maxUnavailable: '50%', logBodies: true});
    const before = sim.daemonSet();
    const podsBefore = sim
      .pods()
      .map((p) => p.metadata.uid)
      .sort();
    const result = await pauseDaemonSet({writer: sim.live.writer, clock: liveClock(sim.live)}, {ref: REF});
    expect(result).toMatchObject({
      outcome: 'paused',
      replacedStale: false,
      dryRun: false,
      strategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: '50%', maxSurge: 0}, steps: 0},
    });

    // One patch applied (the controller's status writes may cost a 409 and a fresh read first).
    const sent = patches(sim).filter((e) => e.status === 200);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.contentType).toBe('application/merge-patch+json');
    expect(JSON.parse(sent[0]!.body!)).toEqual({
      metadata: {resourceVersion: expect.any(String), annotations: {[PAUSED_STRATEGY_ANNOTATION]: expect.stringContaining('"maxUnavailable":"50%"')}},
      spec: {updateStrategy: {type: 'OnDelete', rollingUpdate: null}},
    });
    const after = sim.daemonSet();
    expect(after.spec.updateStrategy).toEqual({type: 'OnDelete'});
    expect(JSON.parse(after.metadata.annotations![PAUSED_STRATEGY_ANNOTATION]!)).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: {maxUnavailable: '50%', maxSurge: 0},
      pausedAt: result.strategy.pausedAt,
    });
    // The template did not change: same template generation, same pods.
    expect(after.metadata.annotations!['deprecated.daemonset.template.generation']).toBe(
      before.metadata.annotations!['deprecated.daemonset.template.generation'],
    );
    // pausedAt is the server's clock (the sim runs 20x faster than this machine's).
    expect(Math.abs(Date.parse(result.strategy.pausedAt) - sim.test.cluster.clock.now())).toBeLessThan(5_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(
      sim
        .pods()
        .map((p) => p.metadata.uid)
        .sort(),
    ).toEqual(podsBefore);
  });

  test('is idempotent: pausing a paused DaemonSet sends nothing', async () => {
    sim = await startRolloutSim();
    const before = patches(sim).length;
    const result = await pauseDaemonSet({writer: sim.live.writer, clock: liveClock(sim.live)}, {ref: REF});
    expect(result.outcome).toBe('already-paused');
    expect(patches(sim)).toHaveLength(before);
  });

  test('--dry-run sends nothing', async () => {
    sim = await startRolloutSim({unpaused: true});
    const result = await pauseDaemonSet({writer: sim.live.writer, clock: liveClock(sim.live)}, {ref: REF, dryRun: 'client'});
    expect(result).toMatchObject({outcome: 'paused', dryRun: true});
    expect(patches(sim)).toHaveLength(0);
    expect(sim.daemonSet().spec.updateStrategy?.type).toBe('RollingUpdate');
  });

  test('refuses an OnDelete DaemonSet it did not pause', async () => {
    sim = await startRolloutSim({unpaused: true});
    sim.test.cluster.store.modify('daemonsets', NAMESPACE, NAME, (ds) => ({
      ...(ds as DaemonSet),
      spec: {...(ds as DaemonSet).spec, updateStrategy: {type: 'OnDelete'}},
    }));
    const error = await pauseDaemonSet({writer: sim.live.writer, clock: liveClock(sim.live)}, {ref: REF}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toBe(
      'daemonset default/agent already uses updateStrategy OnDelete and was not paused by ds-rollout: the controller replaces pods only when they are deleted, so there is nothing to pause (step it with --max-unavailable)',
    );
  });

  test('a concurrent change makes it read and decide again (409), keeping the other change', async () => {
    sim = await startRolloutSim({unpaused: true});
    const store = sim.test.cluster.store;
    const undo = sim.test.cluster.delay({verb: 'patch', resource: 'daemonsets', ms: 150});
    const pausing = pauseDaemonSet({writer: sim.live.writer, clock: liveClock(sim.live)}, {ref: REF});
    await sim.until(() => patches(sim!).length === 1, 5_000, 'the patch in flight');
    store.modify('daemonsets', NAMESPACE, NAME, (ds) => ({...ds, metadata: {...ds.metadata, annotations: {...ds.metadata.annotations, team: 'logging'}}}));
    undo();
    await pausing;
    const statuses = patches(sim).map((e) => e.status);
    expect(statuses[0]).toBe(409);
    expect(statuses.at(-1)).toBe(200);
    expect(sim.daemonSet().metadata.annotations).toMatchObject({team: 'logging', [PAUSED_STRATEGY_ANNOTATION]: expect.any(String)});
    expect(sim.daemonSet().spec.updateStrategy?.type).toBe('OnDelete');
  });
});

describe('resume', () => {
  test('restores the recorded strategy and removes the record in one patch', async () => {
    sim = await startRolloutSim({maxUnavailable: 3, logBodies: true});
    const result = await resumeDaemonSet(sim.live, {ref: REF});
    expect(result).toMatchObject({outcome: 'resumed', restored: {maxUnavailable: 3, maxSurge: 0}, from: 'record', pausedAt: expect.any(String)});
    const last = patches(sim).at(-1)!;
    expect(JSON.parse(last.body!)).toMatchObject({
      metadata: {annotations: {[PAUSED_STRATEGY_ANNOTATION]: null}},
      spec: {updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 3, maxSurge: 0}}},
    });
    const ds = sim.daemonSet();
    expect(ds.spec.updateStrategy).toEqual({type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 3, maxSurge: 0}});
    expect(ds.metadata.annotations?.[PAUSED_STRATEGY_ANNOTATION]).toBeUndefined();
    // The controller takes over: v2 everywhere.
    await sim.until(() => Object.values(sim!.images()).every((images) => images.length === 1 && images[0] === 'agent:v2'), 20_000, 'v2 everywhere');
  });

  test('a running DaemonSet is not paused', async () => {
    sim = await startRolloutSim({unpaused: true});
    await expect(resumeDaemonSet(sim.live, {ref: REF})).rejects.toThrow('daemonsets.apps "agent" is not paused');
  });

  test('refuses an OnDelete DaemonSet it did not pause, unless --force with a strategy', async () => {
    sim = await startRolloutSim({unpaused: true});
    sim.test.cluster.store.modify('daemonsets', NAMESPACE, NAME, (ds) => ({
      ...(ds as DaemonSet),
      spec: {...(ds as DaemonSet).spec, updateStrategy: {type: 'OnDelete'}},
    }));
    await expect(resumeDaemonSet(sim.live, {ref: REF})).rejects.toThrow(
      /was not paused by ds-rollout: to switch it to RollingUpdate, pass --force --max-unavailable N/,
    );
    await expect(resumeDaemonSet(sim.live, {ref: REF, force: {maxUnavailable: 0}})).rejects.toThrow(/cannot be 0 when maxSurge is 0/);
    const result = await resumeDaemonSet(sim.live, {ref: REF, force: {maxUnavailable: 0, maxSurge: 1}});
    expect(result).toMatchObject({outcome: 'resumed', from: 'flags', restored: {maxUnavailable: 0, maxSurge: 1}});
    expect(sim.daemonSet().spec.updateStrategy).toEqual({type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 0, maxSurge: 1}});
  });
});
