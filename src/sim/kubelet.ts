// Simulated node agents: the scheduler's binding of pods, each node's kubelet (pods go Pending ->
// Running -> Ready after a start delay, graceful deletion, injected failures) and the node lifecycle
// controller's taints (NotReady nodes get not-ready taints, cordoned nodes the unschedulable taint).
import {getTargetNodeName, isNodeReady} from '../core/index.js';
import type {Node, NodeCondition, Pod, PodCondition, Taint} from '../core/index.js';
import {formatTimestamp, type CancelTimer, type SimClock} from './clock.js';
import {isConflict, isNotFound} from './status-errors.js';
import type {Store, StoreEvent} from './store.js';
import {configMapMountsOf, type ExecCluster, type ExecImage, type ExecPod, ExecRunner} from './exec-image.js';

/**
 * How a pod fails to start: `crash` (CrashLoopBackOff), `image-pull` (ImagePullBackOff), `never-ready` (running,
 * readiness probe fails); or `errors`: Ready, but its error counter on /metrics climbs (sim/metrics.ts). Or the
 * pod itself is Ready and breaks its node, as a bad node agent does, until it is deleted: `node-not-ready` (the
 * kubelet stops posting Ready, so the node lifecycle controller taints the node), `network-unavailable`
 * (NetworkUnavailable=True and its taint), `break-neighbours` (the other pods on the node lose Ready and restart).
 */
export type FailureMode = 'crash' | 'image-pull' | 'never-ready' | 'errors' | NodeBreakingMode;

/** The failure modes whose pod is Ready but breaks its node or the pods beside it. */
export type NodeBreakingMode = 'node-not-ready' | 'network-unavailable' | 'break-neighbours';
const NODE_BREAKING: ReadonlySet<string> = new Set<NodeBreakingMode>(['node-not-ready', 'network-unavailable', 'break-neighbours']);

/** How a pod of `failure` breaks its node, when it does (its own pod is then Ready). */
export function nodeBreakingMode(failure: FailureMode | undefined): NodeBreakingMode | undefined {
  return failure !== undefined && NODE_BREAKING.has(failure) ? (failure as NodeBreakingMode) : undefined;
}

/** The failure a pod of `failure` starts with (startedPodStatus): none for `errors` and the node-breaking modes, Ready like a healthy pod. */
export function startFailure(failure: FailureMode | undefined): FailureMode | undefined {
  return failure === 'errors' || nodeBreakingMode(failure) !== undefined ? undefined : failure;
}

/** The condition the network plugin reports on a node, and whether the network is unavailable. */
export function networkCondition(unavailable: boolean): Omit<NodeCondition, 'lastTransitionTime'> {
  return unavailable
    ? {type: 'NetworkUnavailable', status: 'True', reason: 'NoRouteCreated', message: 'the network plugin is not ready'}
    : {type: 'NetworkUnavailable', status: 'False', reason: 'RouteCreated', message: 'the network plugin is ready'};
}

export const NETWORK_UNAVAILABLE_TAINT: Taint = {key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule'};

export interface FailureRule {
  /** Pods with a container whose image contains this text. */
  readonly image?: string;
  /** Pods on this node. */
  readonly node?: string;
  readonly mode: FailureMode;
}

/** Simulated ms from a pod's creation (bound to a Ready node) to Running and Ready. */
export const DEFAULT_START_DELAY_MS = 2000;

export interface KubeletOptions {
  /** Simulated ms from binding to Running and Ready (default 2,000). */
  readonly startDelayMs?: number;
  /** Simulated ms a deleted pod takes to stop (default 500, never more than its grace period). */
  readonly stopDelayMs?: number;
  readonly failures?: readonly FailureRule[];
  /**
   * Pods with these images run a local process (exec-image.ts), as `sim kubelets --exec-image` does for a real
   * control plane: how the simulated cluster runs a detached rollout's Job. `cluster` is asked once the API listens.
   */
  readonly exec?: {readonly images: readonly ExecImage[]; readonly dir: string; readonly cluster: () => ExecCluster};
}

export const NOT_READY_TAINTS: readonly Taint[] = [
  {key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule'},
  {key: 'node.kubernetes.io/not-ready', effect: 'NoExecute'},
];
export const UNSCHEDULABLE_TAINT: Taint = {key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule'};

const HOST_PORT_UNSCHEDULABLE = "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports.";

export class SimulatedKubelets {
  private readonly timers = new Map<string, CancelTimer>();
  private unsubscribe: (() => void) | undefined;
  private failures: FailureRule[];
  private execRunner: ExecRunner | undefined;
  /** Pods breaking their node (by uid): what they did, undone when they are deleted. */
  private readonly breakers = new Map<string, {readonly node: string; readonly mode: NodeBreakingMode}>();
  /** Where each exec pod's output went (namespace/name), for the API's pods/NAME/log. */
  private readonly logs = new Map<string, {readonly uid: string; readonly path: string}>();

  constructor(
    private readonly store: Store,
    private readonly clock: SimClock,
    private readonly options: KubeletOptions = {},
  ) {
    this.failures = [...(options.failures ?? [])];
  }

  start(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.store.subscribe((event) => this.onEvent(event));
    this.store.setPodDeletingHook((pod, grace) => this.onPodDeleting(pod, grace));
    for (const node of this.store.list('nodes').items) this.reconcileNode(node);
    for (const pod of this.store.list('pods').items) this.reconcilePod(pod);
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.store.setPodDeletingHook(undefined);
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
    this.execRunner?.stopAll();
  }

  /** The output of an exec pod's process so far, and whether it still runs; undefined for other pods. */
  podLog(namespace: string, name: string): {readonly path: string; readonly running: () => boolean} | undefined {
    const log = this.logs.get(`${namespace}/${name}`);
    const runner = this.execRunner;
    return log === undefined || runner === undefined ? undefined : {path: log.path, running: () => runner.has(log.uid)};
  }

  private get exec(): ExecRunner | undefined {
    const exec = this.options.exec;
    if (exec === undefined || exec.images.length === 0) return undefined;
    this.execRunner ??= new ExecRunner(exec.cluster(), exec.images, exec.dir, (pod, code, startedAt) => this.processExited(pod, code, startedAt));
    return this.execRunner;
  }

  /** An exec pod's process ended: its container terminated with the exit code (restartPolicy Never). */
  private processExited(pod: ExecPod, exitCode: number, startedAt: string): void {
    const current = this.store.get('pods', pod.namespace, pod.name) as Pod | undefined;
    if (current === undefined || current.metadata.uid !== pod.uid) return;
    const status = exitedPodStatus(current, exitCode, startedAt, formatTimestamp(this.clock.now()));
    this.tryWrite(() => this.store.patchStatus('pods', pod.namespace, pod.name, (s) => ({...((s ?? {}) as object), ...status})));
  }

  /** How `pod` fails by the rules, if it does (/metrics counts errors for `errors`). */
  failureOf(pod: Pod): FailureMode | undefined {
    return failureFor(this.failures, pod);
  }

  /** Adds a failure rule at run time (e.g. from a test or the sim command). */
  injectFailure(rule: FailureRule): void {
    this.failures.push(rule);
  }

  /** What the kubelet would report: Ready=False makes the node lifecycle controller taint it. */
  setNodeReady(name: string, ready: boolean): void {
    this.setNodeCondition(
      name,
      ready
        ? {type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status'}
        : {type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.'},
    );
  }

  private onEvent(event: StoreEvent): void {
    if (event.type === 'DELETED') {
      if (event.resource === 'pods') {
        this.cancel(event.object.metadata.uid ?? '');
        this.repairNode(event.object.metadata.uid ?? '');
      }
      return;
    }
    if (event.resource === 'nodes') this.reconcileNode(event.object as unknown as Node);
    else if (event.resource === 'pods') this.reconcilePod(event.object as unknown as Pod);
  }

  // upstream (behaviour): pkg/controller/nodelifecycle taints NotReady nodes; TaintNodesByCondition adds the unschedulable taint.
  private reconcileNode(node: Node): void {
    const ready = isNodeReady(node);
    const want: Taint[] = [];
    if (!ready) want.push(...NOT_READY_TAINTS);
    if (node.spec?.unschedulable) want.push(UNSCHEDULABLE_TAINT);
    const managed = (t: Taint) => t.key === 'node.kubernetes.io/not-ready' || t.key === UNSCHEDULABLE_TAINT.key;
    const current = node.spec?.taints ?? [];
    const kept = current.filter((t) => !managed(t));
    const next = [
      ...kept,
      ...want.map(
        (t) =>
          current.find((c) => c.key === t.key && c.effect === t.effect) ?? {
            ...t,
            ...(t.effect === 'NoExecute' ? {timeAdded: formatTimestamp(this.clock.now())} : {}),
          },
      ),
    ];
    const same = next.length === current.length && next.every((t, i) => current[i]?.key === t.key && current[i]?.effect === t.effect);
    if (!same) {
      this.tryWrite(() =>
        this.store.modify('nodes', undefined, node.metadata.name, (n) => {
          const {taints: _old, ...spec} = (n as Node).spec ?? {};
          return {...n, spec: next.length > 0 ? {...spec, taints: next} : spec};
        }),
      );
    }
    // A node that stops reporting: the node lifecycle controller marks its pods not ready.
    for (const pod of this.store.podsOnNode(node.metadata.name)) {
      if (!ready && podCondition(pod, 'Ready')?.status === 'True') this.setPodReady(pod, false);
      else if (ready) this.reconcilePod(pod);
    }
  }

  private reconcilePod(pod: Pod): void {
    if (pod.metadata.deletionTimestamp) return;
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return;
    if (!pod.spec.nodeName) {
      this.schedule(pod);
      return;
    }
    if (podCondition(pod, 'Ready')?.status === 'True') return;
    const node = this.store.get('nodes', undefined, pod.spec.nodeName) as Node | undefined;
    if (!node || !isNodeReady(node)) return;
    const uid = pod.metadata.uid ?? '';
    if (this.timers.has(uid) || podProblemState(pod)) return;
    // The pods beside a neighbour-breaking pod stay broken while it runs.
    if (!this.breakers.has(uid) && [...this.breakers.values()].some((b) => b.mode === 'break-neighbours' && b.node === pod.spec.nodeName)) return;
    this.timers.set(
      uid,
      this.clock.setTimer(this.options.startDelayMs ?? DEFAULT_START_DELAY_MS, () => {
        this.timers.delete(uid);
        this.startPod(pod.metadata.namespace ?? 'default', pod.metadata.name, uid);
      }),
    );
  }

  /** The scheduler's part: daemon pods carry a node-affinity pin; others go to the node with the fewest pods. */
  private schedule(pod: Pod): void {
    // A pod the cluster's own scheduler found no place for (a rehearsed dump's): nothing here changes why. Only this
    // scheduler's own verdict (a host port held) is looked at again.
    const scheduled = podCondition(pod, 'PodScheduled');
    if (scheduled?.status === 'False' && scheduled.message !== HOST_PORT_UNSCHEDULABLE) return;
    const target = getTargetNodeName(pod) ?? this.leastLoadedNode();
    if (!target) return;
    const node = this.store.get('nodes', undefined, target) as Node | undefined;
    if (!node) return;
    const ports = hostPorts(pod);
    const others = this.store
      .podsOnNode(target)
      .filter((p) => !p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
    if (ports.length > 0 && others.some((other) => hostPorts(other).some((p) => ports.includes(p)))) {
      // The port is held by the node's other pod (a surge next to the old one): the pod stays Pending.
      this.setCondition(pod, {
        type: 'PodScheduled',
        status: 'False',
        reason: 'Unschedulable',
        message: HOST_PORT_UNSCHEDULABLE,
      });
      return;
    }
    this.tryWrite(() =>
      this.store.modify('pods', pod.metadata.namespace, pod.metadata.name, (p) => {
        const current = p as Pod;
        const conditions = [
          ...(current.status?.conditions ?? []).filter((c) => c.type !== 'PodScheduled'),
          {type: 'PodScheduled', status: 'True', lastTransitionTime: formatTimestamp(this.clock.now())},
        ];
        return {...current, spec: {...current.spec, nodeName: target}, status: {...current.status, phase: current.status?.phase ?? 'Pending', conditions}};
      }),
    );
  }

  private leastLoadedNode(): string | undefined {
    let best: string | undefined;
    let bestCount = Infinity;
    for (const node of this.store.list('nodes').items) {
      if (node.spec?.unschedulable || !isNodeReady(node)) continue;
      const count = this.store.podsOnNode(node.metadata.name).length;
      if (count < bestCount) {
        best = node.metadata.name;
        bestCount = count;
      }
    }
    return best;
  }

  private startPod(namespace: string, name: string, uid: string): void {
    const pod = this.store.get('pods', namespace, name) as Pod | undefined;
    if (!pod || pod.metadata.uid !== uid || pod.metadata.deletionTimestamp) return;
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return;
    const exec = this.exec;
    const image = exec?.imageFor(pod.spec.containers.map((c) => c.image));
    const startedAt = formatTimestamp(this.clock.now());
    const failure = image ? undefined : failureFor(this.failures, pod);
    const breaking = nodeBreakingMode(failure);
    const started = startedPodStatus(pod, startFailure(failure), startedAt);
    this.tryWrite(() => this.store.patchStatus('pods', namespace, name, (status) => ({...((status ?? {}) as object), ...started})));
    if (breaking && pod.spec.nodeName) this.breakNode(pod, pod.spec.nodeName, breaking);
    if (exec === undefined || image === undefined || exec.has(uid)) return;
    // Running first, then the process: its exit (however soon) is the last status written.
    const container = pod.spec.containers[0] as {args?: string[]; env?: {name: string; value?: string}[]};
    const execPod: ExecPod = {
      namespace,
      name,
      uid,
      serviceAccount: typeof pod.spec['serviceAccountName'] === 'string' ? pod.spec['serviceAccountName'] : 'default',
      args: container.args ?? [],
      env: (container.env ?? []).map((e) => ({name: e.name, ...(e.value !== undefined ? {value: e.value} : {})})),
      mounts: configMapMountsOf(pod.spec as unknown as Parameters<typeof configMapMountsOf>[0]).map(({mountPath, configMap}) => ({
        mountPath,
        files: ((this.store.get('configmaps', namespace, configMap) as {data?: Record<string, string>} | undefined)?.data ?? {}) as Record<string, string>,
      })),
    };
    void exec.start(execPod, image, startedAt).then(
      (running) => this.logs.set(`${namespace}/${name}`, {uid, path: running.log}),
      () => this.processExited(execPod, 127, startedAt),
    );
  }

  /** A Ready pod that breaks its node (a bad node agent): the node, or the other pods on it, go bad. */
  private breakNode(pod: Pod, node: string, mode: NodeBreakingMode): void {
    this.breakers.set(pod.metadata.uid ?? '', {node, mode});
    if (mode === 'node-not-ready') this.tryWrite(() => this.setNodeReady(node, false));
    else if (mode === 'network-unavailable') this.tryWrite(() => this.setNetworkUnavailable(node, true));
    else {
      for (const other of this.store.podsOnNode(node)) {
        if (!breaksNeighbour(pod, other)) continue;
        this.tryWrite(() =>
          this.store.patchStatus('pods', other.metadata.namespace, other.metadata.name, (status) =>
            brokenNeighbourStatus(status, formatTimestamp(this.clock.now())),
          ),
        );
      }
    }
  }

  /** The breaking pod is gone: its node recovers (the pods beside it become Ready again on the kubelet's next start). */
  private repairNode(uid: string): void {
    const broken = this.breakers.get(uid);
    if (!broken) return;
    this.breakers.delete(uid);
    if (broken.mode === 'node-not-ready') this.tryWrite(() => this.setNodeReady(broken.node, true));
    else if (broken.mode === 'network-unavailable') this.tryWrite(() => this.setNetworkUnavailable(broken.node, false));
    else {
      for (const other of this.store.podsOnNode(broken.node)) {
        if (
          other.metadata.uid !== uid &&
          !other.metadata.deletionTimestamp &&
          other.status?.phase === 'Running' &&
          podCondition(other, 'Ready')?.status !== 'True'
        ) {
          this.setPodReady(other, true);
        }
      }
    }
  }

  /** Sets one condition of a node's status (the others kept), as of now. */
  private setNodeCondition(name: string, condition: Omit<NodeCondition, 'lastTransitionTime'>): void {
    const now = formatTimestamp(this.clock.now());
    this.store.patchStatus('nodes', undefined, name, (status) => {
      const s = (status ?? {}) as {conditions?: NodeCondition[]};
      const others = (s.conditions ?? []).filter((c) => c.type !== condition.type);
      return {...s, conditions: [...others, {...condition, lastTransitionTime: now}]};
    });
  }

  /** What the network plugin would report: NetworkUnavailable, and the taint that goes with it. */
  setNetworkUnavailable(name: string, unavailable: boolean): void {
    this.setNodeCondition(name, networkCondition(unavailable));
    this.store.modify('nodes', undefined, name, (n) => {
      const node = n as Node;
      const taints = (node.spec?.taints ?? []).filter((t) => t.key !== NETWORK_UNAVAILABLE_TAINT.key);
      return {...node, spec: {...node.spec, taints: unavailable ? [...taints, NETWORK_UNAVAILABLE_TAINT] : taints}};
    });
  }

  private setPodReady(pod: Pod, ready: boolean): void {
    this.setCondition(pod, {type: 'Ready', status: ready ? 'True' : 'False', ...(ready ? {} : {reason: 'NodeNotReady'})});
  }

  private setCondition(pod: Pod, condition: Omit<PodCondition, 'lastTransitionTime'>): void {
    const existing = podCondition(pod, condition.type);
    if (existing?.status === condition.status && existing.reason === condition.reason) return;
    const now = formatTimestamp(this.clock.now());
    this.tryWrite(() =>
      this.store.patchStatus('pods', pod.metadata.namespace, pod.metadata.name, (status) => {
        const s = (status ?? {}) as {conditions?: PodCondition[]};
        return {...s, conditions: [...(s.conditions ?? []).filter((c) => c.type !== condition.type), {...condition, lastTransitionTime: now}]};
      }),
    );
  }

  /** Graceful deletion: a running node stops the pod after a short delay; a NotReady node never confirms (stuck Terminating). */
  private onPodDeleting(pod: Pod, graceSeconds: number): boolean {
    const uid = pod.metadata.uid ?? '';
    const node = pod.spec.nodeName ? (this.store.get('nodes', undefined, pod.spec.nodeName) as Node | undefined) : undefined;
    this.cancel(uid);
    this.execRunner?.stop(uid);
    this.repairNode(uid);
    if (!node) return false;
    // A node this pod had broken is itself again (repairNode): it confirms the deletion.
    const current = pod.spec.nodeName ? (this.store.get('nodes', undefined, pod.spec.nodeName) as Node | undefined) : undefined;
    if (!isNodeReady(current)) return true;
    const delay = Math.min(this.options.stopDelayMs ?? 500, graceSeconds * 1000);
    this.timers.set(
      uid,
      this.clock.setTimer(delay, () => {
        this.timers.delete(uid);
        this.store.finishPodDeletion(pod.metadata.namespace ?? 'default', pod.metadata.name, uid);
      }),
    );
    return true;
  }

  private cancel(uid: string): void {
    this.timers.get(uid)?.();
    this.timers.delete(uid);
  }

  private tryWrite(write: () => void): void {
    try {
      write();
    } catch (error) {
      if (!isNotFound(error) && !isConflict(error)) throw error;
    }
  }
}

/** Whether a neighbour-breaking `pod` breaks `other`: another running pod on its node, not of its own workload. */
export function breaksNeighbour(pod: Pod, other: Pod): boolean {
  if (other.metadata.uid === pod.metadata.uid || other.metadata.deletionTimestamp || other.status?.phase !== 'Running') return false;
  const owner = pod.metadata.ownerReferences?.find((o) => o.controller)?.uid;
  return !(owner !== undefined && other.metadata.ownerReferences?.some((o) => o.uid === owner));
}

/** A broken neighbour's status, merged from its `status`: not Ready, each container restarted once more. */
export function brokenNeighbourStatus(status: unknown, now: string): Record<string, unknown> {
  const s = (status ?? {}) as {conditions?: PodCondition[]; containerStatuses?: {restartCount?: number; ready?: boolean}[]};
  return {
    ...s,
    conditions: [
      ...(s.conditions ?? []).filter((c) => c.type !== 'Ready' && c.type !== 'ContainersReady'),
      {type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady', lastTransitionTime: now},
      {type: 'Ready', status: 'False', reason: 'ContainersNotReady', lastTransitionTime: now},
    ],
    containerStatuses: (s.containerStatuses ?? []).map((c) => ({...c, ready: false, restartCount: (c.restartCount ?? 0) + 1})),
  };
}

/** The first failure rule that matches the pod (node and image both, when given). */
export function failureFor(rules: readonly FailureRule[], pod: Pod): FailureMode | undefined {
  for (const rule of rules) {
    if (rule.node !== undefined && rule.node !== pod.spec.nodeName) continue;
    if (rule.image !== undefined && !pod.spec.containers.some((c) => (c.image ?? '').includes(rule.image!))) continue;
    return rule.mode;
  }
  return undefined;
}

/** The status a kubelet reports once it has started the pod's containers (or failed to): merged over the pod's status. */
export function startedPodStatus(pod: Pod, failure: FailureMode | undefined, now: string): Record<string, unknown> {
  const uid = pod.metadata.uid ?? '';
  const name = pod.metadata.name;
  const statuses = pod.spec.containers.map((c) => {
    const base = {name: c.name, image: c.image ?? '', imageID: '', restartCount: 0, started: false, ready: false};
    if (failure === 'image-pull') return {...base, state: {waiting: {reason: 'ImagePullBackOff', message: `Back-off pulling image "${c.image ?? ''}"`}}};
    if (failure === 'crash')
      return {
        ...base,
        restartCount: 3,
        state: {waiting: {reason: 'CrashLoopBackOff', message: `back-off 40s restarting failed container=${c.name} pod=${name}`}},
        lastState: {terminated: {reason: 'Error', exitCode: 1}},
      };
    return {...base, started: true, ready: failure === undefined, state: {running: {startedAt: now}}, containerID: `containerd://${uid.replace(/-/g, '')}`};
  });
  const ready = failure === undefined;
  const keep = (pod.status?.conditions ?? []).filter((c) => !['Initialized', 'ContainersReady', 'Ready'].includes(c.type));
  return {
    phase: failure === 'image-pull' ? 'Pending' : 'Running',
    hostIP: nodeAddress(pod.spec.nodeName ?? ''),
    podIP: podAddress(uid),
    startTime: now,
    conditions: [
      ...keep,
      {type: 'Initialized', status: 'True', lastTransitionTime: now},
      {type: 'ContainersReady', status: ready ? 'True' : 'False', lastTransitionTime: now},
      {
        type: 'Ready',
        status: ready ? 'True' : 'False',
        lastTransitionTime: now,
        ...(ready ? {} : {reason: 'ContainersNotReady', message: 'containers with unready status'}),
      },
    ],
    containerStatuses: statuses,
  };
}

export function podCondition(pod: Pod, type: string): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === type);
}

export function podProblemState(pod: Pod): boolean {
  return (pod.status?.containerStatuses ?? []).some((c) => c.state?.waiting?.reason && c.state.waiting.reason !== 'ContainerCreating');
}

function hostPorts(pod: Pod): number[] {
  return pod.spec.containers.flatMap((c) => (c.ports ?? []).map((p) => p.hostPort ?? 0)).filter((p) => p > 0);
}

function nodeAddress(node: string): string {
  let h = 0;
  for (const ch of node) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return `10.0.${(h >> 8) & 255}.${h & 255}`;
}

function podAddress(uid: string): string {
  let h = 0;
  for (const ch of uid) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return `10.244.${(h >> 8) & 255}.${h & 255}`;
}

/**
 * A pod whose container process ended (`sim kubelets --exec-image`), for restartPolicy Never: Succeeded on exit 0,
 * else Failed, the container terminated with the exit code (or the signal as 128+n, as the kubelet reports it).
 */
export function exitedPodStatus(pod: Pod, exitCode: number, startedAt: string, now: string): Record<string, unknown> {
  const keep = (pod.status?.conditions ?? []).filter((c) => !['ContainersReady', 'Ready'].includes(c.type));
  const reason = exitCode === 0 ? 'Completed' : 'Error';
  return {
    phase: exitCode === 0 ? 'Succeeded' : 'Failed',
    conditions: [
      ...keep,
      {type: 'ContainersReady', status: 'False', lastTransitionTime: now, reason: 'PodCompleted'},
      {type: 'Ready', status: 'False', lastTransitionTime: now, reason: 'PodCompleted'},
    ],
    containerStatuses: pod.spec.containers.map((c) => ({
      name: c.name,
      image: c.image ?? '',
      imageID: '',
      restartCount: 0,
      started: false,
      ready: false,
      state: {terminated: {exitCode, reason, startedAt, finishedAt: now, containerID: `containerd://${(pod.metadata.uid ?? '').replace(/-/g, '')}`}},
    })),
  };
}
