// A paused rollout on the simulated cluster, for the step/pause/resume tests: N nodes running v1 of an agent
// DaemonSet, paused by the pause service, then a v2 template applied (the controller replaces nothing: OnDelete).
// Plus an independent witness that samples unavailability from the store after every change.
import {type ChildProcess, spawn} from 'node:child_process';
import {join} from 'node:path';
import {connectLiveCluster, type LiveCluster} from '../../src/cluster/live/index.js';
import type {DaemonSet, IntOrString, Node, Pod} from '../../src/core/index.js';
import {nodeShouldRunDaemonPod} from '../../src/core/index.js';
import {pauseDaemonSet} from '../../src/services/pause.js';
import {liveClock} from '../../src/cluster/session.js';
import {liveSession, type LiveSession} from '../../src/cluster/session.js';
import {makeNode} from '../../src/sim/index.js';
import {ROOT} from '../helpers/run-cli.js';
import {startTestCluster, type TestCluster, type TestClusterOptions} from '../helpers/sim-cluster.js';

export const NAMESPACE = 'default';
export const NAME = 'agent';
export const REF = {namespace: NAMESPACE, name: NAME};

export interface RolloutSimOptions {
  readonly nodes?: number;
  readonly maxUnavailable?: IntOrString;
  readonly maxSurge?: IntOrString;
  readonly minReadySeconds?: number;
  /** Simulated ms per real ms (default 20). */
  readonly speed?: number;
  /** Simulated ms from binding to Ready (default 1,000). */
  readonly startDelayMs?: number;
  /** Leave the DaemonSet running (RollingUpdate) with v1 everywhere: no pause, no v2. */
  readonly unpaused?: boolean;
  readonly logBodies?: boolean;
  /** Node labels by node index. */
  readonly labels?: (index: number) => Record<string, string> | undefined;
  /** Pods of these images run as local processes (a detached rollout's Job). */
  readonly exec?: TestClusterOptions['exec'];
}

export interface RolloutSim {
  readonly test: TestCluster;
  readonly live: LiveCluster;
  readonly session: LiveSession;
  readonly nodes: readonly string[];
  readonly kubeconfig: string;
  daemonSet(): DaemonSet;
  pods(): Pod[];
  /** Sets the DaemonSet's first container image (a new template). */
  setImage(image: string): void;
  /** Resolves once `check` holds on the store, or rejects after `timeoutMs` real ms. */
  until(check: () => boolean, timeoutMs?: number, what?: string): Promise<void>;
  /** Image of each node's live (non-terminating) daemon pods, by node. */
  images(): Record<string, string[]>;
  stop(): Promise<void>;
}

function manifest(options: RolloutSimOptions): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {name: NAME, namespace: NAMESPACE},
    spec: {
      selector: {matchLabels: {app: NAME}},
      template: {metadata: {labels: {app: NAME}}, spec: {containers: [{name: 'main', image: 'agent:v1'}], terminationGracePeriodSeconds: 5}},
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: {maxUnavailable: options.maxUnavailable ?? (options.maxSurge ? 0 : 2), maxSurge: options.maxSurge ?? 0},
      },
      minReadySeconds: options.minReadySeconds ?? 2,
    },
  };
}

export async function startRolloutSim(options: RolloutSimOptions = {}): Promise<RolloutSim> {
  const test = await startTestCluster({
    speed: options.speed ?? 20,
    kubelet: {startDelayMs: options.startDelayMs ?? 1000, stopDelayMs: 500},
    ...(options.logBodies ? {logBodies: true} : {}),
    ...(options.exec ? {exec: options.exec} : {}),
  });
  const {store} = test.cluster;
  const count = options.nodes ?? 6;
  const nodes = Array.from({length: count}, (_, i) => `node-${i + 1}`);
  nodes.forEach((name, i) => {
    const labels = options.labels?.(i);
    store.create(makeNode(name, {index: i, ...(labels ? {labels} : {})}));
  });
  store.create(manifest(options));
  const live = connectLiveCluster({kubeconfig: test.kubeconfig});
  const sim: RolloutSim = {
    test,
    live,
    session: liveSession(live),
    nodes,
    kubeconfig: test.kubeconfig,
    daemonSet: () => store.get('daemonsets', NAMESPACE, NAME) as DaemonSet,
    pods: () => store.list('pods', {namespace: NAMESPACE}).items as Pod[],
    setImage(image) {
      store.modify('daemonsets', NAMESPACE, NAME, (ds) => {
        const d = ds as DaemonSet;
        return {...d, spec: {...d.spec, template: {...d.spec.template, spec: {...d.spec.template.spec, containers: [{name: 'main', image}]}}}};
      });
    },
    until(check, timeoutMs = 20_000, what = 'condition') {
      return new Promise((resolve, reject) => {
        const started = Date.now();
        const poll = () => {
          if (check()) return resolve();
          if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${what}`));
          setTimeout(poll, 10);
        };
        poll();
      });
    },
    images() {
      const out: Record<string, string[]> = {};
      for (const pod of sim.pods()) {
        // The DaemonSet's pods only (a detached rollout's Job pod runs on a node too).
        if (pod.metadata.deletionTimestamp || !pod.spec.nodeName || pod.metadata.labels?.['app'] !== NAME) continue;
        (out[pod.spec.nodeName] ??= []).push(pod.spec.containers[0]!.image ?? '');
      }
      return out;
    },
    stop: () => test.stop(),
  };
  try {
    const clock = test.cluster.clock;
    await sim.until(
      () => countUnavailable(store.list('nodes').items as Node[], sim.daemonSet(), sim.pods(), clock.now()).count === 0 && sim.pods().length === count,
      20_000,
      'v1 everywhere',
    );
    if (!options.unpaused) {
      await pauseDaemonSet({writer: live.writer, clock: liveClock(live)}, {ref: REF});
      sim.setImage('agent:v2');
      // The controller records the new revision; it replaces nothing (OnDelete).
      await sim.until(() => store.list('controllerrevisions', {namespace: NAMESPACE}).items.length === 2, 5_000, 'revision 2');
    }
  } catch (error) {
    await sim.stop();
    throw error;
  }
  return sim;
}

export interface Unavailability {
  /** Nodes the controller counts as unavailable (two pods side by side included). */
  readonly count: number;
  readonly nodes: readonly string[];
  /** Nodes without any available pod (what a surge must never add to). */
  readonly withoutPod: readonly string[];
}

/**
 * Nodes that should run the daemon (or still have daemon pods) and do not run exactly one available, non-terminating daemon pod: missing,
 * only terminating, not ready or not yet available for minReadySeconds, or two pods side by side. Written apart
 * from the core's tally on purpose: it is the witness the step is judged by.
 */
export function countUnavailable(nodes: readonly Node[], ds: DaemonSet, pods: readonly Pod[], now: number): Unavailability {
  const minReadyMs = (ds.spec.minReadySeconds ?? 0) * 1000;
  const unavailable: string[] = [];
  const withoutPod: string[] = [];
  const isAvailable = (pod: Pod): boolean => {
    const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
    const since = ready?.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : Number.NaN;
    return ready?.status === 'True' && (minReadyMs === 0 || since + minReadyMs <= now);
  };
  for (const node of nodes) {
    const all = pods.filter(
      (pod) => pod.spec.nodeName === node.metadata.name && pod.metadata.ownerReferences?.some((ref) => ref.controller && ref.uid === ds.metadata.uid),
    );
    // The controller counts every node that should run the daemon, and every node that still has daemon pods.
    if (!nodeShouldRunDaemonPod(node, ds).shouldRun && all.length === 0) continue;
    const mine = all.filter((pod) => !pod.metadata.deletionTimestamp);
    if (!(mine.length === 1 && isAvailable(mine[0]!))) unavailable.push(node.metadata.name);
    if (!mine.some(isAvailable)) withoutPod.push(node.metadata.name);
  }
  return {count: unavailable.length, nodes: unavailable, withoutPod};
}

/** Samples unavailability after every change in the store and remembers the worst moment. */
export class Witness {
  max: Unavailability = {count: 0, nodes: [], withoutPod: []};
  /** The worst moment by nodes without any available pod. */
  maxWithoutPod: Unavailability = {count: 0, nodes: [], withoutPod: []};
  /** Pods that got a deletionTimestamp (or vanished without one) while watching, in order. */
  readonly deleted: string[] = [];
  private readonly stopListening: () => void;

  constructor(private readonly sim: RolloutSim) {
    const store = sim.test.cluster.store;
    this.sample();
    this.stopListening = store.subscribe((event) => {
      if (event.resource === 'pods') {
        const before = event.oldObject as unknown as Pod | undefined;
        const after = event.object as unknown as Pod;
        const starts =
          event.type === 'MODIFIED'
            ? !before?.metadata.deletionTimestamp && !!after.metadata.deletionTimestamp
            : event.type === 'DELETED' && !before?.metadata.deletionTimestamp;
        if (starts) this.deleted.push(after.metadata.name);
      }
      this.sample();
    });
  }

  private sample(): void {
    const store = this.sim.test.cluster.store;
    const now = countUnavailable(store.list('nodes').items as Node[], this.sim.daemonSet(), this.sim.pods(), this.sim.test.cluster.clock.now());
    if (now.count > this.max.count) this.max = now;
    if (now.withoutPod.length > this.maxWithoutPod.withoutPod.length) this.maxWithoutPod = now;
  }

  stop(): void {
    this.stopListening();
  }
}

export interface CliRun {
  readonly child: ChildProcess;
  readonly exited: Promise<{code: number | null; signal: NodeJS.Signals | null}>;
  stdout(): string;
  stderr(): string;
}

/** The BUILT `kubectl ds-rollout` in a child process against the sim, so a test can kill it whenever it likes. */
export function spawnRollout(
  s: RolloutSim,
  args: readonly string[],
  children: ChildProcess[],
  kubeconfig = s.kubeconfig,
  env: Readonly<Record<string, string>> = {},
): CliRun {
  const child = spawn(process.execPath, [join(ROOT, 'bin/kubectl-ds_rollout'), ...args, '--kubeconfig', kubeconfig], {
    cwd: ROOT,
    env: {PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env},
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) => child.on('exit', (code, signal) => resolve({code, signal})));
  return {child, exited, stdout: () => out, stderr: () => err};
}

/** Kills what spawnRollout started and is still running. */
export function killAll(children: ChildProcess[]): void {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
