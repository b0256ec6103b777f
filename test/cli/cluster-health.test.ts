// Every wait is bounded by the cluster's health: the BUILT binary (`npm run build` first), `step --until-complete`
// and `status -w`, while the simulated cluster is killed (stopped) or frozen (a proxy that keeps connections open
// and answers nothing, as SIGSTOP does). Each must say so in one line naming the server and exit 2 well within its
// own --timeout: request timeout x the retry policy's tries, plus the backoff and the probe interval. A frozen
// cluster is one probe after silent watch streams: half the request timeout of silence and one request timeout.
import type {ChildProcess} from 'node:child_process';
import {join} from 'node:path';
import {afterEach, expect, test, vi} from 'vitest';
import {RETRY_ATTEMPTS} from '../../src/cluster/live/retry.js';
import {PAUSED_STRATEGY_ANNOTATION} from '../../src/core/index.js';
import {type FreezableProxy, startFreezableProxy} from '../helpers/freezable-proxy.js';
import {type CliRun, killAll, type RolloutSim, spawnRollout, startRolloutSim} from '../safety/rollout-sim.js';

vi.setConfig({testTimeout: 60_000});

const REQUEST_TIMEOUT_S = 1;
/** Generous: every try of a request, the waits between them, a probe interval, and the same again for a slow machine. */
const BOUND_MS = 2 * (RETRY_ATTEMPTS * REQUEST_TIMEOUT_S * 1000 + 2_000 + 5_000);
/** What the commands are told to wait for at most: far longer than BOUND_MS, so only the cluster's health can end them in time. */
const COMMAND_TIMEOUT = '10m';

let sim: RolloutSim | undefined;
let proxy: FreezableProxy | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  killAll(children);
  await proxy?.close();
  proxy = undefined;
  await sim?.stop();
  sim = undefined;
});

/** A paused rollout whose new pods never get ready, so a step waits for its first wave (up to --timeout). */
async function slowRollout(): Promise<RolloutSim> {
  const s = await startRolloutSim({nodes: 4, maxUnavailable: 1});
  s.test.cluster.kubelets!.injectFailure({image: 'agent:v2', mode: 'never-ready'});
  return s;
}

function step(s: RolloutSim, kubeconfig?: string): CliRun {
  const args = ['step', 'agent', '--yes', '--until-complete', '--timeout', COMMAND_TIMEOUT, '--request-timeout', `${REQUEST_TIMEOUT_S}s`];
  return spawnRollout(s, args, children, kubeconfig);
}

function statusWatch(s: RolloutSim, kubeconfig?: string): CliRun {
  const args = ['status', 'agent', '-w', '--timeout', COMMAND_TIMEOUT, '--stuck-after', COMMAND_TIMEOUT, '--request-timeout', `${REQUEST_TIMEOUT_S}s`];
  return spawnRollout(s, args, children, kubeconfig);
}

/** The exit, or a failure if it does not come within BOUND_MS of `since`. */
async function exitWithinBound(run: CliRun): Promise<{code: number | null; signal: NodeJS.Signals | null}> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still running ${BOUND_MS}ms after the cluster went away; stderr: ${run.stderr()}`)), BOUND_MS);
  });
  try {
    return await Promise.race([run.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

function waitingForWave(run: CliRun): () => boolean {
  return () => / {2}node-1: /.test(run.stdout()) || run.child.exitCode !== null;
}

test('step --until-complete: the cluster is killed during the wait: exit 2, one line naming the server', async () => {
  sim = await slowRollout();
  const url = sim.test.cluster.url;
  const run = step(sim);
  await sim.until(waitingForWave(run), 20_000, 'the first wave waiting');
  expect(run.child.exitCode).toBe(null);
  await sim.test.cluster.stop();
  expect(await exitWithinBound(run)).toEqual({code: 2, signal: null});
  expect(run.stderr()).toBe(`error: cannot reach the cluster at ${url}: connection refused; gave up following the rollout after ${RETRY_ATTEMPTS} tries\n`);
});

test('step --until-complete: the cluster freezes during the wait: exit 2 after the request timeout and the tries', async () => {
  sim = await slowRollout();
  proxy = await startFreezableProxy(sim.test.cluster.url);
  const kubeconfig = await proxy.kubeconfigFor(sim.kubeconfig, join(sim.test.dir, 'proxied'));
  const run = step(sim, kubeconfig);
  await sim.until(waitingForWave(run), 20_000, 'the first wave waiting');
  expect(run.child.exitCode).toBe(null);
  proxy.freeze();
  expect(await exitWithinBound(run)).toEqual({code: 2, signal: null});
  expect(run.stderr()).toBe(
    `error: cannot reach the cluster at ${proxy.url}: no answer within ${REQUEST_TIMEOUT_S}s (--request-timeout); the watch streams were silent too\n`,
  );
  // Still paused: the step changed nothing it should not have.
  expect(sim.daemonSet().metadata.annotations?.[PAUSED_STRATEGY_ANNOTATION]).toBeDefined();
});

test('status -w: the cluster is killed while it follows: exit 2, one line naming the server', async () => {
  sim = await slowRollout();
  const url = sim.test.cluster.url;
  const run = statusWatch(sim);
  await sim.until(() => run.stdout().length > 0 || run.child.exitCode !== null, 20_000, 'the first report');
  expect(run.child.exitCode).toBe(null);
  await sim.test.cluster.stop();
  expect(await exitWithinBound(run)).toEqual({code: 2, signal: null});
  expect(run.stderr()).toBe(`error: cannot reach the cluster at ${url}: connection refused; gave up following the rollout after ${RETRY_ATTEMPTS} tries\n`);
});

test('status -w: the cluster freezes while it follows: exit 2 after the request timeout and the tries', async () => {
  sim = await slowRollout();
  proxy = await startFreezableProxy(sim.test.cluster.url);
  const kubeconfig = await proxy.kubeconfigFor(sim.kubeconfig, join(sim.test.dir, 'proxied'));
  const run = statusWatch(sim, kubeconfig);
  await sim.until(() => run.stdout().length > 0 || run.child.exitCode !== null, 20_000, 'the first report');
  expect(run.child.exitCode).toBe(null);
  proxy.freeze();
  expect(await exitWithinBound(run)).toEqual({code: 2, signal: null});
  expect(run.stderr()).toBe(
    `error: cannot reach the cluster at ${proxy.url}: no answer within ${REQUEST_TIMEOUT_S}s (--request-timeout); the watch streams were silent too\n`,
  );
});
