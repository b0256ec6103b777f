// Bulk loading for big scenarios (5,000 nodes, tens of thousands of pods): realistic node objects from a
// count, and a one-pass loader that goes through the store's normal create path.
import type {Node, Taint} from '../core/index.js';
import {formatTimestamp} from './clock.js';
import type {Store} from './store.js';

export interface NodeOptions {
  readonly labels?: Readonly<Record<string, string>>;
  readonly taints?: readonly Taint[];
  readonly unschedulable?: boolean;
  /** False for a NotReady node (default true). */
  readonly ready?: boolean;
  readonly kubeletVersion?: string;
  /** Used for the InternalIP address (default derived from `index`). */
  readonly internalIP?: string;
  readonly index?: number;
  /** RFC3339 time for the conditions' heartbeat and transition times (default: unset). */
  readonly timestamp?: string;
}

/** A node as a kubelet registers it: hostname/os/arch labels, Ready condition, addresses, nodeInfo, capacity. */
export function makeNode(name: string, options: NodeOptions = {}): Node {
  const i = options.index ?? 0;
  // 10.0.0.1, 10.0.0.2, ...: never a network address.
  const n = i + 1;
  const ip = options.internalIP ?? `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  const times = options.timestamp === undefined ? {} : {lastHeartbeatTime: options.timestamp, lastTransitionTime: options.timestamp};
  const ready = options.ready ?? true;
  const spec: Record<string, unknown> = {podCIDR: `10.244.${i & 255}.0/24`};
  if (options.taints !== undefined && options.taints.length > 0) spec['taints'] = options.taints;
  if (options.unschedulable === true) spec['unschedulable'] = true;
  const capacity = {cpu: '4', memory: '16331208Ki', pods: '110', 'ephemeral-storage': '101430960Ki'};
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        ...(options.labels ?? {}),
      },
    },
    spec,
    status: {
      conditions: [
        {type: 'MemoryPressure', status: 'False', ...times, reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available'},
        {type: 'DiskPressure', status: 'False', ...times, reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure'},
        {type: 'PIDPressure', status: 'False', ...times, reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available'},
        ready
          ? {type: 'Ready', status: 'True', ...times, reason: 'KubeletReady', message: 'kubelet is posting ready status'}
          : {type: 'Ready', status: 'Unknown', ...times, reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.'},
      ],
      addresses: [
        {type: 'InternalIP', address: ip},
        {type: 'Hostname', address: name},
      ],
      capacity,
      allocatable: capacity,
      nodeInfo: {
        architecture: 'amd64',
        bootID: '',
        containerRuntimeVersion: 'containerd://1.7.24',
        kernelVersion: '6.8.0-1015-gcp',
        kubeProxyVersion: options.kubeletVersion ?? 'v1.32.5',
        kubeletVersion: options.kubeletVersion ?? 'v1.32.5',
        machineID: '',
        operatingSystem: 'linux',
        osImage: 'Ubuntu 24.04.1 LTS',
        systemUUID: '',
      },
    },
  };
}

export interface NodesOptions extends Omit<NodeOptions, 'index' | 'internalIP'> {
  /** Name prefix (default `node-`); names are zero-padded to the width of the largest index. */
  readonly prefix?: string;
}

export function makeNodes(count: number, options: NodesOptions = {}): Node[] {
  const width = String(Math.max(0, count - 1)).length;
  const prefix = options.prefix ?? 'node-';
  return Array.from({length: count}, (_, i) => makeNode(`${prefix}${String(i).padStart(width, '0')}`, {...options, index: i}));
}

export interface SeedOptions {
  /** A count (generated with makeNodes) or the node objects. */
  readonly nodes?: number | readonly object[];
  /** Options for generated nodes. */
  readonly nodeOptions?: NodesOptions;
  /** Namespaces to create if missing, before anything else. */
  readonly namespaces?: readonly string[];
  /** Any other objects (kind required), created in order: DaemonSets, ControllerRevisions, pods... */
  readonly objects?: readonly object[];
}

export interface SeedResult {
  readonly created: number;
}

/** Creates nodes and objects in one pass (each a normal create: defaulting, events, indexes). */
export function seed(store: Store, options: SeedOptions): SeedResult {
  let created = 0;
  for (const ns of options.namespaces ?? []) {
    if (store.get('namespaces', undefined, ns) === undefined) {
      store.create({kind: 'Namespace', apiVersion: 'v1', metadata: {name: ns}});
      created++;
    }
  }
  const nodes =
    typeof options.nodes === 'number'
      ? makeNodes(options.nodes, {timestamp: formatTimestamp(store.clock.now()), ...options.nodeOptions})
      : (options.nodes ?? []);
  store.load(nodes);
  store.load(options.objects ?? []);
  return {created: created + nodes.length + (options.objects?.length ?? 0)};
}
