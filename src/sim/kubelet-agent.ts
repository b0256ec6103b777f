// The simulated kubelets as an agent against any API server over HTTP (a real kube-apiserver has no
// kubelets of its own): registers nodes, renews their leases in kube-node-lease, runs pods the
// scheduler bound to them to Running and Ready after a delay, finishes graceful deletions, and fails
// pods by the same rules as the in-process kubelets (failureFor/startedPodStatus, one model). A pod of a
// node-breaking failure mode is Ready and breaks its node until it is deleted, as in the simulated cluster:
// `node-not-ready` stops the node's lease renewals, so the cluster's node lifecycle controller marks it Unknown
// and taints it unreachable; `network-unavailable` reports NetworkUnavailable=True (the controller adds the
// taint); `break-neighbours` makes the other workloads' pods on the node lose Ready and restart.
// A test can hold pod transitions and release them one step at a time, so that each controller sync
// starts from a state that holds still.
import type {CoordinationV1Api, CoreV1Api, KubeConfig, V1Pod} from '@kubernetes/client-node';
import type {Pod} from '../core/index.js';
import {
  breaksNeighbour,
  brokenNeighbourStatus,
  exitedPodStatus,
  failureFor,
  networkCondition,
  nodeBreakingMode,
  type NodeBreakingMode,
  podCondition,
  podProblemState,
  startedPodStatus,
  startFailure,
  type FailureRule,
} from './kubelet.js';
import {configMapMountsOf, type ExecImage, type ExecPod, ExecRunner, type RunningProcess} from './exec-image.js';

export interface KubeletAgentOptions {
  readonly nodes: readonly string[];
  /** ms from a pod's binding to Running and Ready (default 1,000). */
  readonly startDelayMs?: number;
  /** ms a deleted pod takes to stop, before it is removed with grace 0 (default 500). */
  readonly stopDelayMs?: number;
  /** How often pods are listed (default 250 ms). */
  readonly pollMs?: number;
  readonly failures?: readonly FailureRule[];
  /**
   * The nodes' Lease duration (default 40 s, the kubelet's); they are renewed every quarter of it, as the kubelet
   * does. A control plane whose --node-monitor-grace-period is shorter than 40 s wants it as short.
   */
  readonly leaseDurationSeconds?: number;
  readonly labels?: Readonly<Record<string, string>>;
  /** Called with an error of a background renewal or pod transition (the agent keeps going). */
  readonly onError?: (error: unknown) => void;
  /** Pods with these images run a local process (exec-image.ts): the API server as pods see it, and a work dir. */
  readonly exec?: {
    readonly images: readonly ExecImage[];
    readonly host: string;
    readonly port: string;
    readonly caCert: string;
    readonly dir: string;
  };
}

/** One transition the agent would make: a pod starting, or a deleted pod going away. */
export interface PendingTransition {
  readonly kind: 'start' | 'finish-deletion';
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly node: string;
}

export class KubeletAgent {
  private core!: CoreV1Api;
  private coordination!: CoordinationV1Api;
  private readonly nodeSet: Set<string>;
  /** When each pod's transition first became due (ms, this process's clock: the agent plays real time). */
  private readonly dueSince = new Map<string, number>();
  private held = false;
  private timer: NodeJS.Timeout | undefined;
  private leaseTimer: NodeJS.Timeout | undefined;
  private running = false;
  private pending: PendingTransition[] = [];
  private lastError: unknown;
  private leases = true;
  private exec: ExecRunner | undefined;
  /** Pods breaking their node (by uid): what they broke, undone once they are deleted or gone. */
  private readonly breakers = new Map<string, {readonly node: string; readonly mode: NodeBreakingMode; readonly neighbours: V1Pod[]}>();

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly options: KubeletAgentOptions,
  ) {
    this.nodeSet = new Set(options.nodes);
  }

  async start(): Promise<void> {
    const {CoreV1Api, CoordinationV1Api} = await import('../cluster/live/client-node.js');
    this.core = this.kubeConfig.makeApiClient(CoreV1Api);
    this.coordination = this.kubeConfig.makeApiClient(CoordinationV1Api);
    const exec = this.options.exec;
    if (exec && exec.images.length > 0) {
      this.exec = new ExecRunner(
        {
          host: exec.host,
          port: exec.port,
          caCert: exec.caCert,
          requestToken: async (namespace, name) => {
            const request = await this.core.createNamespacedServiceAccountToken({
              namespace,
              name,
              body: {apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {audiences: [], expirationSeconds: 3600}},
            });
            return request.status?.token ?? '';
          },
        },
        exec.images,
        exec.dir,
        (pod, code, startedAt) => void this.processExited(pod, code, startedAt).catch((e) => this.failed(e)),
      );
    }
    for (const name of this.options.nodes) await this.registerNode(name);
    await this.renewLeases();
    this.leaseTimer = setInterval(() => void this.renewLeases().catch((e) => this.failed(e)), this.leaseDurationSeconds() * 250);
    this.timer = setInterval(() => void this.tick().catch((e) => this.failed(e)), this.options.pollMs ?? 250);
  }

  stop(): void {
    clearInterval(this.timer);
    clearInterval(this.leaseTimer);
    this.exec?.stopAll();
  }

  /** The processes of --exec-image pods now running. */
  processes(): RunningProcess[] {
    return this.exec?.processes() ?? [];
  }

  /** An exec-image pod's process ended: its container terminated with the exit code (restartPolicy Never). */
  private async processExited(pod: ExecPod, exitCode: number, startedAt: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        const current = await this.core.readNamespacedPodStatus({name: pod.name, namespace: pod.namespace});
        if (current.metadata?.uid !== pod.uid) return;
        const status = exitedPodStatus(current as unknown as Pod, exitCode, startedAt, new Date().toISOString().replace(/\.\d+Z$/, 'Z'));
        current.status = {...current.status, ...(withDates(status) as V1Pod['status'])};
        await this.core.replaceNamespacedPodStatus({name: pod.name, namespace: pod.namespace, body: current});
        return;
      } catch (error) {
        const code = (error as {code?: number}).code;
        if (code === 404) return;
        if (code !== 409 || attempt >= 10) throw error;
      }
    }
  }

  /** Stop making pod transitions (nodes keep renewing leases); `release` makes them. */
  hold(): void {
    this.held = true;
  }

  /** Let transitions happen again as they fall due. */
  unhold(): void {
    this.held = false;
  }

  /** What would happen now if released (read fresh from the server). */
  async due(): Promise<PendingTransition[]> {
    return this.transitions(await this.listPods());
  }

  private transitions(pods: readonly V1Pod[]): PendingTransition[] {
    return pods.flatMap((pod) => {
      const t = this.transitionFor(pod);
      return t ? [t] : [];
    });
  }

  /** Makes every transition that is due now (ignoring delays), while held. Returns what it did. */
  async release(filter: (t: PendingTransition) => boolean = () => true): Promise<PendingTransition[]> {
    const todo = (await this.due()).filter(filter);
    for (const t of todo) await this.apply(t);
    return todo;
  }

  private failed(error: unknown): void {
    this.lastError = error;
    this.options.onError?.(error);
  }

  get error(): unknown {
    return this.lastError;
  }

  private leaseDurationSeconds(): number {
    return this.options.leaseDurationSeconds ?? 40;
  }

  /** A node whose kubelet stopped reporting (a `node-not-ready` pod runs there): no lease renewal, no status. */
  private silenced(node: string): boolean {
    return [...this.breakers.values()].some((b) => b.node === node && b.mode === 'node-not-ready');
  }

  private async registerNode(name: string): Promise<void> {
    const body = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {name, labels: {'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', ...this.options.labels}},
      spec: {},
    };
    try {
      await this.core.createNode({body});
    } catch (error) {
      if ((error as {code?: number}).code !== 409) throw error;
    }
    await this.postNodeStatus(name);
  }

  private async postNodeStatus(name: string, network?: boolean): Promise<void> {
    // The node lifecycle controller writes the same object (taints, annotations): retry on conflict.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.replaceNodeStatus(name, network);
        return;
      } catch (error) {
        if ((error as {code?: number}).code !== 409 || attempt >= 10) throw error;
      }
    }
  }

  private async replaceNodeStatus(name: string, network: boolean | undefined): Promise<void> {
    const node = await this.core.readNodeStatus({name});
    const now = new Date();
    node.status = {
      ...node.status,
      capacity: {cpu: '4', memory: '8Gi', pods: '110'},
      allocatable: {cpu: '4', memory: '8Gi', pods: '110'},
      conditions: [
        {type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now},
        // Reported only while a pod breaks it, and once after (its network back).
        ...(network === undefined ? [] : [{...networkCondition(network), lastHeartbeatTime: now, lastTransitionTime: now}]),
      ],
      addresses: [
        {type: 'InternalIP', address: '127.0.0.1'},
        {type: 'Hostname', address: name},
      ],
      nodeInfo: {
        architecture: 'amd64',
        operatingSystem: 'linux',
        kubeletVersion: 'v1.20.2-ds-rollout-sim',
        kubeProxyVersion: '',
        containerRuntimeVersion: 'sim://1',
        kernelVersion: '',
        osImage: 'simulated',
        bootID: '',
        machineID: '',
        systemUUID: '',
      },
    };
    await this.core.replaceNodeStatus({name, body: node});
  }

  private async renewLeases(): Promise<void> {
    for (const name of this.options.nodes) {
      if (!this.leases) return;
      if (!this.silenced(name)) await this.renewLease(name);
    }
  }

  private async renewLease(name: string): Promise<void> {
    const namespace = 'kube-node-lease';
    const spec = {holderIdentity: name, leaseDurationSeconds: this.leaseDurationSeconds(), renewTime: new MicroTime()};
    try {
      const lease = await this.coordination.readNamespacedLease({name, namespace});
      const acquired = lease.spec?.acquireTime;
      lease.spec = {...lease.spec, ...spec, ...(acquired ? {acquireTime: new MicroTime(acquired)} : {})};
      await this.coordination.replaceNamespacedLease({name, namespace, body: lease});
    } catch (error) {
      if ((error as {code?: number}).code !== 404) throw error;
      try {
        await this.coordination.createNamespacedLease({
          namespace,
          body: {apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: {name, namespace}, spec},
        });
      } catch (createError) {
        // A server without the Lease API (the simulated cluster): node status alone says the node is alive.
        if ((createError as {code?: number}).code !== 404) throw createError;
        this.leases = false;
      }
    }
  }

  private async listPods(): Promise<V1Pod[]> {
    const list = await this.core.listPodForAllNamespaces({});
    return list.items.filter((p) => p.spec?.nodeName !== undefined && this.nodeSet.has(p.spec.nodeName));
  }

  private transitionFor(pod: V1Pod): PendingTransition | undefined {
    const base = {
      namespace: pod.metadata?.namespace ?? 'default',
      name: pod.metadata?.name ?? '',
      uid: pod.metadata?.uid ?? '',
      node: pod.spec?.nodeName ?? '',
    };
    if (pod.metadata?.deletionTimestamp) return {kind: 'finish-deletion', ...base};
    const p = pod as unknown as Pod;
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return undefined;
    if (podCondition(p, 'Ready')?.status === 'True' || podProblemState(p)) return undefined;
    if (podCondition(p, 'Ready') !== undefined && pod.status?.containerStatuses?.length) return undefined; // started, never ready
    return {kind: 'start', ...base};
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const now = Date.now();
      const pods = await this.listPods();
      // A breaking pod being deleted, or gone, no longer breaks its node (held or not: it is not a pod transition).
      const live = new Set(pods.filter((p) => !p.metadata?.deletionTimestamp).map((p) => p.metadata?.uid));
      for (const uid of [...this.breakers.keys()]) if (!live.has(uid)) await this.repairNode(uid);
      const due = this.transitions(pods);
      const dueNow = new Set(due.map((t) => `${t.kind}/${t.uid}`));
      for (const key of this.dueSince.keys()) if (!dueNow.has(key)) this.dueSince.delete(key);
      this.pending = due;
      if (this.held) return;
      for (const t of due) {
        const key = `${t.kind}/${t.uid}`;
        const since = this.dueSince.get(key) ?? now;
        this.dueSince.set(key, since);
        const delay = t.kind === 'start' ? (this.options.startDelayMs ?? 1000) : (this.options.stopDelayMs ?? 500);
        if (now - since >= delay) await this.apply(t);
      }
    } finally {
      this.running = false;
    }
  }

  /** A Ready pod that breaks its node (a bad node agent): the node, or the other pods on it, go bad. */
  private async breakNode(pod: V1Pod, node: string, mode: NodeBreakingMode): Promise<void> {
    const neighbours: V1Pod[] = [];
    this.breakers.set(pod.metadata?.uid ?? '', {node, mode, neighbours});
    if (mode === 'network-unavailable') await this.postNodeStatus(node, true);
    if (mode !== 'break-neighbours') return;
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    for (const other of await this.listPods()) {
      if (other.spec?.nodeName !== node || !breaksNeighbour(pod as unknown as Pod, other as unknown as Pod)) continue;
      neighbours.push(other);
      await this.patchPodStatus(other, (status) => brokenNeighbourStatus(status, now));
    }
  }

  /** The breaking pod is gone: its node recovers (status and lease posted at once), the pods it broke are Ready again. */
  private async repairNode(uid: string): Promise<void> {
    const broken = this.breakers.get(uid);
    if (!broken) return;
    this.breakers.delete(uid);
    if (broken.mode === 'node-not-ready' && !this.silenced(broken.node)) {
      await this.postNodeStatus(broken.node);
      if (this.leases) await this.renewLease(broken.node);
    } else if (broken.mode === 'network-unavailable') {
      await this.postNodeStatus(broken.node, false);
    } else {
      const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      for (const other of broken.neighbours) await this.patchPodStatus(other, (status) => readyAgainStatus(status, now));
    }
  }

  /** Replaces a pod's status with `change` of the current one (the same pod by uid; gone: nothing). */
  private async patchPodStatus(pod: V1Pod, change: (status: unknown) => Record<string, unknown>): Promise<void> {
    const name = pod.metadata?.name ?? '';
    const namespace = pod.metadata?.namespace ?? 'default';
    for (let attempt = 1; ; attempt++) {
      try {
        const current = await this.core.readNamespacedPodStatus({name, namespace});
        if (current.metadata?.uid !== pod.metadata?.uid || current.metadata?.deletionTimestamp) return;
        // As JSON (times as the strings client-node sends as they are), changed, sent back whole.
        current.status = change(JSON.parse(JSON.stringify(current.status ?? {}))) as V1Pod['status'];
        await this.core.replaceNamespacedPodStatus({name, namespace, body: current});
        return;
      } catch (error) {
        const code = (error as {code?: number}).code;
        if (code === 404) return;
        if (code !== 409 || attempt >= 10) throw error;
      }
    }
  }

  private async apply(t: PendingTransition): Promise<void> {
    try {
      if (t.kind === 'finish-deletion') {
        this.exec?.stop(t.uid);
        await this.core.deleteNamespacedPod({
          name: t.name,
          namespace: t.namespace,
          gracePeriodSeconds: 0,
          body: {gracePeriodSeconds: 0, preconditions: {uid: t.uid}},
        });
        return;
      }
      const pod = await this.core.readNamespacedPodStatus({name: t.name, namespace: t.namespace});
      if (pod.metadata?.uid !== t.uid || pod.metadata?.deletionTimestamp) return;
      const failure = failureFor(this.options.failures ?? [], pod as unknown as Pod);
      const started = startedPodStatus(pod as unknown as Pod, startFailure(failure), new Date().toISOString().replace(/\.\d+Z$/, 'Z'));
      pod.status = {...pod.status, ...(withDates(started) as V1Pod['status'])};
      await this.core.replaceNamespacedPodStatus({name: t.name, namespace: t.namespace, body: pod});
      const breaking = nodeBreakingMode(failure);
      if (breaking) await this.breakNode(pod, t.node, breaking);
      // Running first, then the process: its exit (however soon) is the last status written.
      const exec = this.exec?.imageFor((pod.spec?.containers ?? []).map((c) => c.image));
      if (exec && !this.exec!.has(t.uid)) {
        const container = pod.spec!.containers[0]!;
        const execPod = {
          namespace: t.namespace,
          name: t.name,
          uid: t.uid,
          serviceAccount: pod.spec?.serviceAccountName ?? 'default',
          args: container.args ?? [],
          env: (container.env ?? []).map((e) => ({name: e.name, ...(e.value !== undefined ? {value: e.value} : {})})),
          mounts: await Promise.all(
            configMapMountsOf(pod.spec as unknown as Parameters<typeof configMapMountsOf>[0]).map(async ({mountPath, configMap}) => ({
              mountPath,
              files: (await this.core.readNamespacedConfigMap({name: configMap, namespace: t.namespace}).catch(() => undefined))?.data ?? {},
            })),
          ),
        };
        const startedAt = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
        await this.exec!.start(execPod, exec, startedAt).catch(async (error: unknown) => {
          this.failed(error);
          await this.processExited(execPod, 127, startedAt);
        });
      }
    } catch (error) {
      const code = (error as {code?: number}).code;
      if (code !== 404 && code !== 409) throw error;
    }
  }
}

/** A neighbour a breaking pod broke, its node whole again: Ready, its containers ready. */
function readyAgainStatus(status: unknown, now: string): Record<string, unknown> {
  const s = (status ?? {}) as {conditions?: {type: string}[]; containerStatuses?: {ready?: boolean}[]};
  return {
    ...s,
    conditions: [
      ...(s.conditions ?? []).filter((c) => c.type !== 'Ready' && c.type !== 'ContainersReady'),
      {type: 'ContainersReady', status: 'True', lastTransitionTime: now},
      {type: 'Ready', status: 'True', lastTransitionTime: now},
    ],
    containerStatuses: (s.containerStatuses ?? []).map((c) => ({...c, ready: true})),
  };
}

const TIME_FIELDS = new Set(['lastTransitionTime', 'startTime', 'startedAt', 'lastProbeTime']);

/** client-node serializes its typed times from Date objects: turn the model's RFC 3339 strings into Dates. */
function withDates(value: unknown, key = ''): unknown {
  if (typeof value === 'string' && TIME_FIELDS.has(key)) return new Date(value);
  if (value instanceof Date) return value;
  if (Array.isArray(value)) return value.map((v) => withDates(v));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withDates(v, k)]));
  return value;
}

/** A Lease's times are MicroTime (six fractional digits; the API refuses three); client-node prints Dates with toISOString. */
class MicroTime extends Date {
  override toISOString(): string {
    return super.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  }
}
