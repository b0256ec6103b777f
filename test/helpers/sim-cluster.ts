// A simulated cluster for live-mode tests: a scenario, the controller and kubelets, and a kubeconfig in a
// fresh temp dir. With a ManualClock (the default) nothing moves until the test advances time, so outputs
// are stable and `--now START` lines up with the cluster's timestamps; with `speed` the cluster runs on
// its own, `speed` times faster than real time.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {
  ManualClock,
  RealClock,
  type KubeletOptions,
  type ScenarioName,
  type SimulatedCluster,
  type SimulatedClusterOptions,
  startSimulatedCluster,
} from '../../src/sim/index.js';

export const START = Date.parse('2026-11-21T12:00:00Z');
export const START_TEXT = '2026-11-21T12:00:00Z';

export interface TestClusterOptions {
  readonly scenario?: ScenarioName;
  readonly nodes?: number;
  /** Real time times `speed`; undefined: a ManualClock at START. */
  readonly speed?: number;
  readonly kubelet?: KubeletOptions;
  /** Run the controller and kubelets (default true). */
  readonly agents?: boolean;
  /** The kubeconfig context's namespace (default "default"). */
  readonly namespace?: string;
  readonly logBodies?: boolean;
  /** Pods of these images run as local processes (a detached rollout's Job). */
  readonly exec?: SimulatedClusterOptions['exec'];
}

export interface TestCluster {
  readonly cluster: SimulatedCluster;
  /** Set when the cluster runs on a ManualClock. */
  readonly clock: ManualClock | undefined;
  readonly dir: string;
  readonly kubeconfig: string;
  /** Moves a ManualClock forward in steps, so the controller and kubelets react between them. */
  advance(ms: number, step?: number): void;
  /**
   * Moves a ManualClock forward until `done` settles, yielding to the event loop between steps (watches deliver);
   * with `when`, only while it holds (e.g. once a write has landed, so that no sync races it).
   */
  driveUntil<T>(done: Promise<T>, options?: {readonly stepMs?: number; readonly when?: () => boolean}): Promise<T>;
  stop(): Promise<void>;
}

export async function startTestCluster(options: TestClusterOptions = {}): Promise<TestCluster> {
  const clock = options.speed === undefined ? new ManualClock(START) : undefined;
  const cluster = await startSimulatedCluster({
    clock: clock ?? new RealClock({speed: options.speed!}),
    agents: options.agents ?? true,
    ...(options.scenario ? {scenario: options.scenario, scenarioOptions: options.nodes === undefined ? {} : {nodes: options.nodes}} : {}),
    ...(options.kubelet ? {kubelet: options.kubelet} : {}),
    ...(options.logBodies ? {logBodies: true} : {}),
    ...(options.exec ? {exec: options.exec} : {}),
    podTerminationDelayMs: 200,
  });
  const dir = await mkdtemp(join(tmpdir(), 'ds-rollout-live-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await cluster.writeKubeconfig(kubeconfig, options.namespace ? {namespace: options.namespace} : {});
  // The controller's first syncs (status, revisions) happen on the clock's first tick.
  clock?.advance(1);
  const advance = (ms: number, step = 100) => {
    if (!clock) throw new Error('advance() needs a ManualClock (no speed option)');
    for (let done = 0; done < ms; done += step) clock.advance(Math.min(step, ms - done));
  };
  return {
    cluster,
    clock,
    dir,
    kubeconfig,
    advance,
    async driveUntil<T>(done: Promise<T>, {stepMs = 250, when = () => true}: {readonly stepMs?: number; readonly when?: () => boolean} = {}): Promise<T> {
      if (!clock) throw new Error('driveUntil() needs a ManualClock (no speed option)');
      let settled = false;
      const result = done.finally(() => {
        settled = true;
      });
      while (!settled) {
        if (when()) advance(stepMs, 250);
        // Let the watches deliver and the waiter judge before the clock moves on; no wall-clock deadline.
        await new Promise((resolve) => setImmediate(resolve));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return result;
    },
    async stop() {
      await cluster.stop();
      await rm(dir, {recursive: true, force: true});
    },
  };
}

/** Stops what `sim start --detach` left running with TMPDIR=`dir` (a test's own), by the records it keeps there. */
export async function stopDetachedSims(dir: string): Promise<void> {
  const {readdir} = await import('node:fs/promises');
  const {runCli} = await import('./run-cli.js');
  for (const file of (await readdir(dir)).filter((name) => /^ds-rollout-sim-\d+\.json$/.test(name))) {
    await runCli(['sim', 'stop', file.replace(/\D/g, '')], {bin: 'bin/kubectl-ds_rollout', env: {TMPDIR: dir}});
  }
}
