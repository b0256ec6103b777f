// The dashboard's promote and abort keys record the gated rollout's Events as the CLI does (one helper,
// services/rollout-events.ts): in-process through the dashboard's actions against the simulated cluster.
import {clockFrom} from '../../src/platform/clock.js';
import {afterEach, expect, test, vi} from 'vitest';
import {liveEventSink} from '../../src/cluster/live/objects.js';
import {clusterActions} from '../../src/services/dashboard.js';
import {runGatedRollout} from '../../src/services/gated-rollout.js';
import {canaryThenApprove} from '../helpers/paused-release.js';
import {REF, type RolloutSim, startRolloutSim} from '../safety/rollout-sim.js';

vi.setConfig({testTimeout: 60_000});

let sim: RolloutSim | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

const reasons = (s: RolloutSim) =>
  (s.test.cluster.store.list('events').items as unknown as {reason: string; source: {component?: string}}[])
    .filter((e) => e.source.component === 'ds-rollout')
    .map((e) => e.reason);

test('abort from the dashboard records RollingBack and Aborted on the DaemonSet', async () => {
  sim = await startRolloutSim({nodes: 3, maxUnavailable: 1});
  const {live} = sim;
  const waiting = await runGatedRollout({
    session: sim.session,
    ref: REF,
    timeoutMs: 60_000,
    strategy: canaryThenApprove(),
  });
  expect(waiting.outcome).toBe('awaiting-approval');
  const actions = clusterActions({
    source: live.source,
    writer: live.writer,
    ref: REF,
    clock: clockFrom(() => live.client.serverNow()),
    session: sim.session,
    events: liveEventSink(live),
  });
  const lines: string[] = [];
  const outcome = await actions.abort!((line) => lines.push(line));
  // Revision 1 as history shows it after the rollback renumbered it.
  expect(outcome.message).toMatch(/^gated rollout aborted: back on revision 3/);
  expect(reasons(sim)).toEqual(['RollingBack', 'Aborted']);
  expect(lines.filter((l) => l.startsWith('warning'))).toEqual([]);
});
