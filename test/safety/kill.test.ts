// Safety property 2: killing the process at any moment (SIGKILL between two deletions, SIGKILL while it waits for
// a wave) leaves the DaemonSet paused and consistent, and running step again continues from the live state within
// the budget. Runs the BUILT binary (`npm run build` first), as a person would.
import type {ChildProcess} from 'node:child_process';
import {afterEach, expect, test, vi} from 'vitest';
import {PAUSED_STRATEGY_ANNOTATION} from '../../src/core/index.js';
import {type CliRun, killAll, type RolloutSim, spawnRollout, startRolloutSim, Witness} from './rollout-sim.js';

vi.setConfig({testTimeout: 60_000});

let sim: RolloutSim | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  killAll(children);
  await sim?.stop();
  sim = undefined;
});

function runStep(s: RolloutSim, ...args: string[]): CliRun {
  return spawnRollout(s, ['step', 'agent', '--yes', '--timeout', '20s', ...args], children);
}

function expectPausedAndConsistent(s: RolloutSim): void {
  const ds = s.daemonSet();
  expect(ds.spec.updateStrategy).toEqual({type: 'OnDelete'});
  expect(JSON.parse(ds.metadata.annotations![PAUSED_STRATEGY_ANNOTATION]!)).toMatchObject({
    type: 'RollingUpdate',
    rollingUpdate: {maxUnavailable: 2, maxSurge: 0},
  });
  expect(ds.metadata.annotations!['deprecated.daemonset.template.generation']).toBe('2');
}

test('SIGKILL between two deletions and during the wait: still paused, and step continues within the budget', async () => {
  sim = await startRolloutSim({nodes: 6, maxUnavailable: 2, minReadySeconds: 4});
  const witness = new Witness(sim);

  // 1. Killed between two deletions: the first pod is gone, the second DELETE is held up in the server.
  const undoDelay = sim.test.cluster.delay({verb: 'delete', resource: 'pods', ms: 500});
  const first = runStep(sim, '--until-complete');
  const inFlight = () => sim!.test.cluster.requestLog.filter({verb: 'delete', resource: 'pods', status: 0}).length;
  await sim.until(() => witness.deleted.length === 1 && inFlight() === 1, 20_000, 'the first deletion, and the second DELETE in flight');
  first.child.kill('SIGKILL');
  expect(await first.exited).toEqual({code: null, signal: 'SIGKILL'});
  expect(first.stdout()).toMatch(/deleted pod agent-\w+ on node-1/);
  expectPausedAndConsistent(sim);
  undoDelay();

  // 2. Killed while it waits for its wave to become available.
  const second = runStep(sim);
  await sim.until(() => / {2}node-\d: (new pod|waiting|old pod)/.test(second.stdout()) || second.child.exitCode !== null, 20_000, 'the wait');
  second.child.kill('SIGKILL');
  await second.exited;
  expectPausedAndConsistent(sim);

  // 3. Step again: it carries on from what it finds, to the end, within the budget.
  const third = runStep(sim, '--until-complete');
  const done = await third.exited;
  witness.stop();
  expect({...done, stderr: third.stderr()}).toEqual({code: 0, signal: null, stderr: ''});
  expect(third.stdout()).toContain('Done: no old pods left.');
  expectPausedAndConsistent(sim);
  expect(Object.values(sim.images()).every((images) => images.length === 1 && images[0] === 'agent:v2')).toBe(true);
  expect(witness.max.count).toBeLessThanOrEqual(2);
  // Every old pod was deleted exactly once, whatever the kills interrupted.
  expect(witness.deleted).toHaveLength(6);
  expect(new Set(witness.deleted).size).toBe(6);
});
