// `step`'s bookkeeping through the BUILT binary (`npm run build` first) against the simulated cluster: the lease a
// running step holds and renews, a second step refused while it does (exit 2), --force taking over (the first
// stops, exit 2), a lease from elsewhere that lapsed, and the steps that record nothing (dry run, RBAC refusal,
// nothing to do).
import type {ChildProcess} from 'node:child_process';
import {afterEach, expect, test, vi} from 'vitest';
import {STEP_ANNOTATION, STEP_LEASE_ANNOTATION, type StepLease} from '../../src/core/index.js';
import {runCli} from '../helpers/run-cli.js';
import {killAll, NAME, NAMESPACE, type RolloutSim, spawnRollout, startRolloutSim} from '../safety/rollout-sim.js';

vi.setConfig({testTimeout: 60_000});

const BIN = 'bin/kubectl-ds_rollout';
let sim: RolloutSim | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  killAll(children);
  await sim?.stop();
  sim = undefined;
});

function cli(s: RolloutSim, ...args: string[]) {
  return runCli(['step', 'agent', ...args, '--kubeconfig', s.kubeconfig], {bin: BIN});
}

function lease(s: RolloutSim): StepLease | undefined {
  const raw = s.daemonSet().metadata.annotations?.[STEP_LEASE_ANNOTATION];
  return raw === undefined ? undefined : (JSON.parse(raw) as StepLease);
}

function deletions(s: RolloutSim): string[] {
  return s.test.cluster.requestLog
    .filter({verb: 'delete', resource: 'pods'})
    .filter((e) => e.status === 200)
    .map((e) => e.name!);
}

/** Annotations a step may write: none of them after a step that must record nothing. */
function bookkeeping(s: RolloutSim): Record<string, string | undefined> {
  const annotations = s.daemonSet().metadata.annotations ?? {};
  return {
    step: annotations[STEP_ANNOTATION],
    lease: annotations[STEP_LEASE_ANNOTATION],
    changeCause: annotations['kubernetes.io/change-cause'],
    steps: JSON.parse(annotations['ds-rollout.io/paused-strategy']!).steps ?? 0,
  };
}

test('a running step holds and renews the lease; a second step is refused; --force takes over and the first stops', async () => {
  sim = await startRolloutSim({nodes: 4, maxUnavailable: 2});
  // New pods never get ready: each step waits for its wave.
  sim.test.cluster.kubelets!.injectFailure({image: 'agent:v2', mode: 'never-ready'});
  const first = spawnRollout(sim, ['step', 'agent', '--yes', '--nodes', 'node-1', '--timeout', '10m'], children);
  await sim.until(() => / {2}node-1: /.test(first.stdout()) || first.child.exitCode !== null, 20_000, 'the first step waiting');
  const held = lease(sim)!;
  expect(held).toMatchObject({pid: first.child.pid, leaseDurationSeconds: 30});
  expect(held.holderIdentity).toMatch(/^.+@.+$/);
  // Renewed while it runs (every 7.5s of the cluster's clock).
  await sim.until(() => lease(sim!)?.renewTime !== held.renewTime, 10_000, 'a renewal');

  const refused = await cli(sim, '--yes', '--nodes', 'node-2');
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(
    new RegExp(
      `^error: another step of daemonset default/agent is in progress: ${held.holderIdentity.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(pid ${first.child.pid}\\) holds the step lease since ${held.acquireTime}, renewed \\d+s ago \\(it lapses 30s after the last renewal\\); wait for it, or pass --force to take over\\n$`,
    ),
  );
  expect(deletions(sim)).toHaveLength(1);

  const forced = await cli(sim, '--yes', '--force', '--nodes', 'node-2', '--timeout', '2s');
  expect(forced.stdout).toContain(`  --force: took over the step lease of ${held.holderIdentity} (pid ${first.child.pid})`);
  expect(forced.code).toBe(3); // its own wave never becomes available
  expect(deletions(sim)).toHaveLength(2);
  expect(await first.exited).toEqual({code: 2, signal: null});
  expect(first.stderr()).toMatch(
    /^error: .+ \(pid \d+\) took over the step lease of daemonset default\/agent \(--force\): this step stopped; the DaemonSet stays paused\n$/,
  );
  // Each step recorded its own wave; neither wrote a change-cause; the lease is gone.
  expect(bookkeeping(sim)).toEqual({step: expect.stringMatching(/^\{"step":2,"of":/), lease: undefined, changeCause: undefined, steps: 2});
});

test('a lease from another host: refused while fresh, taken once it lapsed (on the cluster clock)', async () => {
  sim = await startRolloutSim({nodes: 3, maxUnavailable: 1});
  const now = sim.test.cluster.clock.now();
  // The cluster's clock runs 20 times faster than ours: the fresh lease holds for an hour of it, whatever the machine's pace.
  const foreign = (renewedMsAgo: number, leaseDurationSeconds: number): StepLease => ({
    holderIdentity: 'bob@jump-host',
    host: 'jump-host',
    pid: 4242,
    acquireTime: new Date(now - 60_000).toISOString(),
    renewTime: new Date(sim!.test.cluster.clock.now() - renewedMsAgo).toISOString(),
    leaseDurationSeconds,
  });
  const annotate = (value: StepLease) =>
    sim!.test.cluster.store.modify('daemonsets', NAMESPACE, NAME, (ds) => ({
      ...ds,
      metadata: {...ds.metadata, annotations: {...ds.metadata.annotations, [STEP_LEASE_ANNOTATION]: JSON.stringify(value)}},
    }));

  annotate(foreign(0, 3600));
  const refused = await cli(sim, '--yes');
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/^error: another step of daemonset default\/agent is in progress: bob@jump-host \(pid 4242\) holds the step lease/);
  expect(deletions(sim)).toEqual([]);

  annotate(foreign(31_000, 30));
  const taken = await cli(sim, '--yes');
  expect({code: taken.code, stderr: taken.stderr}).toEqual({code: 0, stderr: ''});
  expect(deletions(sim)).toHaveLength(1);
  expect(bookkeeping(sim)).toEqual({step: expect.stringMatching(/^\{"step":1,"of":3,/), lease: undefined, changeCause: undefined, steps: 1});
});

test('a dry run, a step RBAC refuses, and a step with nothing to do record nothing', async () => {
  sim = await startRolloutSim({nodes: 2, maxUnavailable: 1});
  const clean = {step: undefined, lease: undefined, changeCause: undefined, steps: 0};

  expect((await cli(sim, '--dry-run')).code).toBe(0);
  expect(bookkeeping(sim)).toEqual(clean);

  const undo = sim.test.cluster.forbid({verb: 'delete', resource: 'pods'});
  const refused = await cli(sim, '--yes');
  undo();
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/^error: forbidden: cannot delete pods in namespace default/);
  expect(deletions(sim)).toEqual([]);
  expect(bookkeeping(sim)).toEqual(clean);

  // The whole rollout, then one more step: it finds nothing to delete and writes nothing.
  expect((await cli(sim, '--yes', '--until-complete')).code).toBe(0);
  const patches = () => sim!.test.cluster.requestLog.filter({verb: 'patch'}).length;
  const before = patches();
  const idle = await cli(sim, '--yes');
  expect({code: idle.code, stderr: idle.stderr}).toEqual({code: 0, stderr: ''});
  expect(patches()).toBe(before);
  expect(bookkeeping(sim)).toEqual({step: expect.stringMatching(/^\{"step":2,"of":2,/), lease: undefined, changeCause: undefined, steps: 2});
});
