// The simulated cluster: store + garbage collector + HTTP API server, started together. This is the entry
// point for tests, the `sim` command and the (later) DaemonSet controller and kubelets.
import {dumpKubeVersion, NEWEST_MODELLED_MINOR, type Node, type Pod} from '../core/index.js';
import {RealClock, type SimClock} from './clock.js';
import {DaemonSetController} from './controller.js';
import {GarbageCollector} from './gc.js';
import type {ExecImage} from './exec-image.js';
import {JobController} from './job-controller.js';
import {SimulatedKubelets, type KubeletOptions} from './kubelet.js';
import {loadScenario, type Scenario, type ScenarioName, type ScenarioOptions} from './scenarios.js';
import {loadSnapshot} from './snapshot.js';
import {renderSimMetrics} from './metrics.js';
import type {SnapshotObjects} from '../cluster/snapshot/parse-snapshot.js';
import type {DelayRule, FaultOptions, RequestLog, RequestMatcher} from './hooks.js';
import {ADMIN_USER, Authenticator} from './authentication.js';
import {CertificateAuthority, type IssuedCertificate} from './certificates.js';
import {kubeconfigYaml, mergeKubeconfig, writeKubeconfig, type KubeconfigOptions, type KubeconfigTarget} from './kubeconfig.js';
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
  /**
   * Serve HTTPS with a CA of its own (written into the kubeconfig) and accept client certificates. Default true:
   * kubectl sends no credentials at all to an http server, so a cluster that demands them must speak TLS.
   */
  readonly tls?: boolean;
  /** Demand credentials (a bearer token, or a client certificate). Default: what `tls` says. */
  readonly authentication?: boolean;
  /** Where the detail of a 500 goes (default: stderr). */
  readonly logInternalError?: (error: unknown) => void;
  /** Load a parsed dump of a real cluster instead of a scenario (see snapshot.ts: ages kept relative to the dump). */
  readonly snapshot?: SnapshotObjects;
  /** The Kubernetes gitVersion /version answers; default: a snapshot's (dumpKubeVersion, else the newest modelled), else the simulator's. */
  readonly serverVersion?: string;
  /**
   * With agents: pods whose image is one of these run its command as a local process (exec-image.ts), with a token of
   * their ServiceAccount and the API's address, their output served as pods/NAME/log. `dir` holds one directory per pod.
   */
  readonly exec?: {readonly images: readonly ExecImage[]; readonly dir: string};
}

export const INITIAL_NAMESPACES: readonly string[] = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export class SimulatedCluster {
  readonly store: Store;
  readonly clock: SimClock;
  readonly server: SimServer;
  readonly gc: GarbageCollector;
  readonly controller: DaemonSetController | undefined;
  readonly kubelets: SimulatedKubelets | undefined;
  readonly jobs: JobController | undefined;
  readonly scenario: Scenario | undefined;
  /** The bearer token of the admin (system:masters), which the kubeconfig carries by default. */
  readonly token: string;
  /** The CA of an https cluster. */
  readonly ca: CertificateAuthority | undefined;
  private readonly authenticator: Authenticator | undefined;
  /** Service proxy targets by `namespace/name:port` (exposeService). */
  private readonly services = new Map<string, string>();
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
      const exec = options.exec;
      this.kubelets = new SimulatedKubelets(this.store, this.clock, {
        ...options.kubelet,
        failures: [...(this.scenario?.failures ?? []), ...(options.kubelet?.failures ?? [])],
        ...(exec ? {exec: {...exec, cluster: () => this.execCluster()}} : {}),
      });
      this.jobs = new JobController(this.store, this.clock);
      this.kubelets.start();
      this.controller.start();
      this.jobs.start();
    } else {
      this.controller = undefined;
      this.kubelets = undefined;
      this.jobs = undefined;
    }
    // With kubelets, theirs finish these; without, the store's default timer does.
    for (const pod of snapshot?.terminating ?? []) this.store.resumePodTermination(pod.namespace, pod.name);
    // A rehearsal answers as the cluster it was dumped from, the version ds-plan --snapshot plans that dump with.
    const version = options.serverVersion ?? (options.snapshot ? (dumpKubeVersion(options.snapshot.nodes) ?? `v1.${NEWEST_MODELLED_MINOR}.0`) : undefined);
    const host = options.host ?? '127.0.0.1';
    const tls = options.tls ?? true;
    this.ca = tls ? new CertificateAuthority() /* real time: TLS clients check validity on their own clocks */ : undefined;
    this.authenticator = (options.authentication ?? tls) ? new Authenticator() : undefined;
    this.token = this.authenticator?.issueToken(ADMIN_USER) ?? '';
    this.server = new SimServer({
      store: this.store,
      host,
      port: options.port,
      logBodies: options.logBodies,
      bookmarkIntervalMs: options.bookmarkIntervalMs,
      ...(this.authenticator ? {authenticator: this.authenticator} : {}),
      ...(this.ca ? {tls: {...this.ca.serving([...new Set([host, '127.0.0.1', 'localhost'])]), ca: this.ca.cert}} : {}),
      ...(options.logInternalError ? {logInternalError: options.logInternalError} : {}),
      ...(version ? {version} : {}),
      podLog: (namespace, name) => this.kubelets?.podLog(namespace, name),
      serviceProxy: (service) => this.services.get(service),
      metrics: () =>
        renderSimMetrics(this.store.list('nodes').items as Node[], this.store.list('pods').items as Pod[], this.clock.now(), (pod) =>
          this.kubelets?.failureOf(pod),
        ),
    });
  }

  /**
   * The API as a pod sees it: the server's address and CA, and a token for the pod's ServiceAccount. The simulated API
   * server authorizes no one but system:masters (it has no RBAC), so the token carries that group too; what a
   * detached rollout's Role allows is checked against the request log by test/cli/detach.test.ts instead.
   */
  private execCluster() {
    const url = new URL(this.url);
    return {
      host: url.hostname,
      port: url.port,
      caCert: this.caCert ?? '',
      requestToken: async (namespace: string, serviceAccount: string) =>
        this.authenticator?.issueToken({
          name: `system:serviceaccount:${namespace}:${serviceAccount}`,
          groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated', 'system:masters'],
        }) ?? '',
    };
  }

  /** `http://127.0.0.1:PORT`, or `https://` with TLS. */
  get url(): string {
    return this.server.url;
  }

  /** PEM of the CA that signed the serving certificate (TLS clusters). */
  get caCert(): string | undefined {
    return this.ca?.cert;
  }

  /** The headers that authenticate as the admin, for raw HTTP clients. */
  /** What the service proxy reaches for `namespace/name:port`: a plain http URL (a test's Prometheus). */
  exposeService(service: string, url: string): void {
    this.services.set(service, url);
  }

  authHeaders(): Record<string, string> {
    return this.token === '' ? {} : {authorization: `Bearer ${this.token}`};
  }

  /** A bearer token for another user. Without `system:masters` among its groups the user may read discovery only: every resource request is 403. */
  issueToken(user: string, groups: readonly string[] = []): string {
    if (this.authenticator === undefined) throw new Error('this simulated cluster authenticates nobody (authentication: false)');
    return this.authenticator.issueToken({name: user, groups: [...groups, 'system:authenticated']});
  }

  /** A client certificate signed by the cluster's CA: CN is the user, each group an O (TLS clusters only). */
  issueClientCertificate(user: string, groups: readonly string[] = []): IssuedCertificate {
    if (this.ca === undefined) throw new Error('client certificates need a TLS cluster (tls: true)');
    return this.ca.client(user, groups);
  }

  private kubeconfigTarget(): KubeconfigTarget {
    return {server: this.url, ...(this.ca ? {ca: this.ca.cert} : {}), credential: this.token === '' ? {none: true} : {token: this.token}};
  }

  get requestLog(): RequestLog {
    return this.server.requestLog;
  }

  kubeconfigYaml(options: KubeconfigOptions = {}): string {
    return kubeconfigYaml(this.kubeconfigTarget(), options);
  }

  writeKubeconfig(path: string, options: KubeconfigOptions = {}): Promise<void> {
    return writeKubeconfig(path, this.kubeconfigTarget(), options);
  }

  /** Merges this cluster's entries into the kubeconfig at `path` (kubeconfig.ts mergedKubeconfigYaml), or writes it. */
  mergeKubeconfig(path: string, options: KubeconfigOptions = {}): Promise<void> {
    return mergeKubeconfig(path, this.kubeconfigTarget(), options);
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
    this.jobs?.stop();
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
export {DEFAULT_CONTEXT, type KubeconfigOptions, type SimCredential} from './kubeconfig.js';
export {ADMIN_USER, type SimUser} from './authentication.js';
export {CertificateAuthority, type IssuedCertificate} from './certificates.js';
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
export {JobController} from './job-controller.js';
export {type ExecImage, parseExecImage} from './exec-image.js';
export {SimulatedKubelets, type FailureMode, type FailureRule, type KubeletOptions} from './kubelet.js';
export {loadSnapshot, snapshotTime, type LoadedSnapshot} from './snapshot.js';
export {StatusError} from './status-errors.js';
export {SCENARIOS, loadScenario, type Scenario, type ScenarioName, type ScenarioOptions} from './scenarios.js';
