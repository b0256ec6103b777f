// Safety property 4: with the API server failing a share of requests (500 / 429) and dropping watch streams, a
// step either finishes or stops with one clear line, and the budget holds throughout; the DaemonSet stays paused,
// and a step without faults finishes the job from whatever was left.
import {afterEach, expect, test} from 'vitest';
import {PAUSED_STRATEGY_ANNOTATION, type StepEvent} from '../../src/core/index.js';
import {DsRolloutError} from '../../src/platform/errors.js';
import {stepDaemonSet} from '../../src/services/step.js';
import {REF, type RolloutSim, startRolloutSim, Witness} from './rollout-sim.js';

let sim: RolloutSim | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

test.each([
  {seed: 7, rate: 0.15},
  {seed: 11, rate: 0.25},
  {seed: 23, rate: 0.35},
])(
  'injected faults (seed $seed, rate $rate): finishes or stops clearly, and the budget holds',
  async ({seed, rate}) => {
    sim = await startRolloutSim({nodes: 6, maxUnavailable: 2});
    const witness = new Witness(sim);
    const undo = sim.test.cluster.injectFaults({rate, codes: [500, 429], dropWatches: true, seed});
    const events: StepEvent[] = [];
    const outcome = await stepDaemonSet({
      session: sim.session,
      ref: REF,
      untilComplete: true,
      timeoutMs: 10_000,
      tickMs: 50,
      onEvent: (e) => events.push(e),
    }).then(
      (result) => result,
      (error: unknown) => error,
    );
    undo();
    if (process.env.DEBUG_FAULTS)
      console.log(
        outcome instanceof Error ? `${outcome.constructor.name}: ${outcome.message}` : 'finished',
        events.filter((e) => e.kind === 'retry').length,
        events
          .filter((e) => e.kind === 'retry')
          .slice(0, 40)
          .map((e) => JSON.stringify(e))
          .join('\n'),
      );
    const faults = sim.test.cluster.requestLog.entries.filter((e) => e.status === 500 || e.status === 429).length;
    expect(faults).toBeGreaterThan(0);

    if (outcome instanceof Error) {
      // A clear stop: one line, a cluster (2) or rollout (3) exit code, never a bug.
      expect(outcome).toBeInstanceOf(DsRolloutError);
      expect((outcome as DsRolloutError).exitCode === 2 || (outcome as DsRolloutError).exitCode === 3).toBe(true);
      expect(outcome.message).not.toContain('\n');
    } else {
      expect(outcome).toMatchObject({outcome: 'done', oldLeft: 0});
    }
    const ds = sim.daemonSet();
    expect(ds.spec.updateStrategy?.type).toBe('OnDelete');
    expect(ds.metadata.annotations?.[PAUSED_STRATEGY_ANNOTATION]).toBeDefined();

    // Without faults, a step finishes from what is there.
    const rest = await stepDaemonSet({session: sim.session, ref: REF, untilComplete: true, timeoutMs: 10_000, tickMs: 50});
    witness.stop();
    expect(rest).toMatchObject({outcome: 'done', oldLeft: 0});
    expect(Object.values(sim.images()).every((images) => images.length === 1 && images[0] === 'agent:v2')).toBe(true);
    expect(witness.max.count).toBeLessThanOrEqual(2);
    // Each old pod was deleted exactly once.
    expect(new Set(witness.deleted).size).toBe(witness.deleted.length);
    expect(witness.deleted).toHaveLength(6);
  },
  60_000,
);
