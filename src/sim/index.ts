// The simulated cluster: store + garbage collector + HTTP API server, started together. This is the entry
// point for tests, the `sim` command and the (later) DaemonSet controller and kubelets.
import {RealClock, type SimClock} from './clock.js';
import {DaemonSetController} from './controller.js';
import {GarbageCollector} from './gc.js';
import {SimulatedKubelets, type KubeletOptions} from './kubelet.js';
import {loadScenario, type Scenario, type ScenarioName, type ScenarioOptions} from './scenarios.js';
import {loadSnapshot} from './snapshot.js';
import type {SnapshotObjects} from '../cluster/snapshot/parse-snapshot.js';
import type {DelayRule, FaultOptions, RequestLog, RequestMatcher} from './hooks.js';
import {kubeconfigYaml, writeKubeconfig, type KubeconfigOptions} from './kubeconfig.js';
import {seed, type SeedOptions, type SeedResult} from './seed.js';
import {SimServer} from './server.js';
import {Store} from './store.js';

export interface SimulatedClusterOptions {
  /** Default 0: a free port. */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default: real time. */
  readonly clock?: SimClock;
  /** Watch history length (default 10,000 events). */
  readonly historySize?: number;
  /** PRNG seed for uids and generated names (default 1). */
  readonly seed?: number;
  /** Without a kubelet, a gracefully deleted pod goes after min(grace, this) simulated ms (default 500). */
  readonly podTerminationDelayMs?: number;
  /** Keep request bodies in the request log. */
  readonly logBodies?: boolean;
  /** BOOKMARK interval on watches that allow them, real ms (default 30,000). */
  readonly bookmarkIntervalMs?: number;
  /** Namespaces to create at start (default: default, kube-system, kube-public, kube-node-lease). */
  readonly namespaces?: readonly string[];
  /**
   * Run the cluster's own agents: the DaemonSet controller (the core's syncDaemonSet), the scheduler and
   * kubelets, and the node lifecycle taints. Default false: a bare API server, as the API tests want.
   */
  readonly agents?: boolean;
  readonly kubelet?: KubeletOptions;
  /** Load a ready-made cluster (demo, empty, large) before the agents start. */
  readonly scenario?: ScenarioName;
  readonly scenarioOptions?: ScenarioOptions;
  /** Load a parsed dump of a real cluster instead of a scenario (see snapshot.ts: ages kept relative to the dump). */
  readonly snapshot?: SnapshotObjects;
}

export const INITIAL_NAMESPACES: readonly string[] = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export class SimulatedCluster {
  readonly store: Store;
  readonly clock: SimClock;
  readonly server: SimServer;
  readonly gc: GarbageCollector;
  readonly controller: DaemonSetController | undefined;
  readonly kubelets: SimulatedKubelets | undefined;
  readonly scenario: Scenario | undefined;
  private stopped = false;

  /** Use startSimulatedCluster(). */
  constructor(options: SimulatedClusterOptions = {}) {
    this.clock = options.clock ?? new RealClock();
    this.store = new Store({
      clock: this.clock,
      historySize: options.historySize,
      seed: options.seed,
      podTerminationDelayMs: options.podTerminationDelayMs,
    });
    this.gc = new GarbageCollector(this.store);
    for (const name of options.namespaces ?? INITIAL_NAMESPACES) {
      this.store.create({kind: 'Namespace', apiVersion: 'v1', metadata: {name}});
    }
    const snapshot = options.snapshot ? loadSnapshot(this.store, options.snapshot, this.clock.now()) : undefined;
    this.scenario = snapshot ?? (options.scenario ? loadScenario(this.store, options.scenario, this.clock.now(), options.scenarioOptions) : undefined);
    if (options.agents) {
      this.controller = new DaemonSetController(this.store, this.clock);
      this.kubelets = new SimulatedKubelets(this.store, this.clock, {
        ...options.kubelet,
        failures: [...(this.scenario?.failures ?? []), ...(options.kubelet?.failures ?? [])],
      });
      this.kubelets.start();
      this.controller.start();
    } else {
      this.controller = undefined;
      this.kubelets = undefined;
    }
    // With kubelets, theirs finish these; without, the store's default timer does.
    for (const pod of snapshot?.terminating ?? []) this.store.resumePodTermination(pod.namespace, pod.name);
    this.server = new SimServer({
      store: this.store,
      host: options.host,
      port: options.port,
      logBodies: options.logBodies,
      bookmarkIntervalMs: options.bookmarkIntervalMs,
    });
  }

  /** `http://127.0.0.1:PORT` */
  get url(): string {
    return this.server.url;
  }

  get requestLog(): RequestLog {
    return this.server.requestLog;
  }

  kubeconfigYaml(options: KubeconfigOptions = {}): string {
    return kubeconfigYaml(this.url, options);
  }

  writeKubeconfig(path: string, options: KubeconfigOptions = {}): Promise<void> {
    return writeKubeconfig(path, this.url, options);
  }

  /** Bulk-loads nodes and objects (see seed.ts). */
  seed(options: SeedOptions): SeedResult {
    return seed(this.store, options);
  }

  /** 403 Forbidden for matching requests, e.g. `{verb: 'delete', resource: 'pods', namespace: 'kube-system'}`. Returns the undo function. */
  forbid(rule: RequestMatcher): () => void {
    return this.server.forbid(rule);
  }

  /** Seeded random 500/429 answers (and watch drops). Returns the undo function. */
  injectFaults(options: FaultOptions): () => void {
    return this.server.injectFaults(options);
  }

  /** Delays matching requests by `ms` real milliseconds. Returns the undo function. */
  delay(rule: DelayRule): () => void {
    return this.server.delay(rule);
  }

  /** Removes every forbid rule, fault injection and delay. */
  clearHooks(): void {
    this.server.clearForbids();
    this.server.clearFaults();
    this.server.clearDelays();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.controller?.stop();
    this.kubelets?.stop();
    this.gc.stop();
    this.store.close();
    await this.server.close();
  }
}

export async function startSimulatedCluster(options: SimulatedClusterOptions = {}): Promise<SimulatedCluster> {
  const cluster = new SimulatedCluster(options);
  await cluster.server.listen();
  return cluster;
}

export {ManualClock, RealClock, formatTimestamp, type SimClock, type CancelTimer} from './clock.js';
export {FaultInjector, RequestLog, type DelayRule, type FaultOptions, type RequestLogEntry, type RequestMatcher} from './hooks.js';
export {DEFAULT_CONTEXT, type KubeconfigOptions} from './kubeconfig.js';
export {RESOURCES, type ResourceInfo, type ResourceName} from './resources.js';
export {makeNode, makeNodes, type NodeOptions, type NodesOptions, type SeedOptions, type SeedResult} from './seed.js';
export {SimServer, type SimServerOptions} from './server.js';
export * from './status-errors.js';
export {
  Store,
  StoreEvent,
  StoredObject,
  mergeJson,
  type CreateOptions,
  type DeleteOptions,
  type DeleteResult,
  type ListOptions,
  type ListResult,
  type PodDeletingHook,
  type PropagationPolicy,
  type StoreListener,
  type StoreOptions,
  type SubscribeOptions,
  type UpdateOptions,
  type WatchEventType,
} from './store.js';
export type {KubeEvent, KubeObject, Namespace, ObjectOf, ObjectReference, ResourceTypes} from './types.js';
export {GarbageCollector} from './gc.js';
export {DaemonSetController} from './controller.js';
export {SimulatedKubelets, type FailureMode, type FailureRule, type KubeletOptions} from './kubelet.js';
export {loadSnapshot, snapshotTime, type LoadedSnapshot} from './snapshot.js';
export {SCENARIOS, loadScenario, type Scenario, type ScenarioName, type ScenarioOptions} from './scenarios.js';
