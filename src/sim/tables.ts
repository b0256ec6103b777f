// Server-side Table printing (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`), column for column
// as the real apiserver's printers, so `kubectl get` output looks like it does against a real cluster.
// Cells are computed at response time (Age, Status).
import {formatLabelSelector, jsonText} from '../core/index.js';
import type {LabelSelector} from '../core/index.js';
import type {ResourceName} from './resources.js';
import type {StoredObject} from './store.js';
import type {KubeObject} from './types.js';

export interface ColumnDefinition {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

type Cell = string | number;

export type IncludeObject = 'None' | 'Metadata' | 'Object';

const NAME_DOC =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const AGE_DOC =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

function col(name: string, type: string, description: string, priority = 0, format = ''): ColumnDefinition {
  return {name, type, format, description, priority};
}

const NAME = col('Name', 'string', NAME_DOC, 0, 'name');
const AGE = col('Age', 'string', AGE_DOC);

// upstream: pkg/printers/internalversion/printers.go AddHandlers
const COLUMNS: Readonly<Record<ResourceName, readonly ColumnDefinition[]>> = {
  pods: [
    NAME,
    col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    col('Status', 'string', 'The aggregate status of the containers in this pod.'),
    col('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    AGE,
    col('IP', 'string', 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', 1),
    col('Node', 'string', 'NodeName indicates in which node this pod is scheduled.', 1),
    col('Nominated Node', 'string', 'nominatedNodeName is set only when this pod preempts other pods on the node.', 1),
    col('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness.', 1),
  ],
  nodes: [
    NAME,
    col('Status', 'string', 'The status of the node'),
    col('Roles', 'string', 'The roles of the node'),
    AGE,
    col('Version', 'string', 'Kubelet Version reported by the node.'),
    col('Internal-IP', 'string', 'List of addresses reachable to the node.', 1),
    col('External-IP', 'string', 'List of addresses reachable to the node.', 1),
    col('OS-Image', 'string', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', 1),
    col('Kernel-Version', 'string', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
    col('Container-Runtime', 'string', 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', 1),
  ],
  daemonsets: [
    NAME,
    col('Desired', 'integer', 'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod).'),
    col('Current', 'integer', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.'),
    col(
      'Ready',
      'integer',
      'numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.',
    ),
    col('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
    col(
      'Available',
      'integer',
      'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)',
    ),
    col(
      'Node Selector',
      'string',
      "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node.",
    ),
    AGE,
    col('Containers', 'string', 'Names of each container in the template.', 1),
    col('Images', 'string', 'Images referenced by each container in the template.', 1),
    col('Selector', 'string', 'A label query over pods that are managed by the daemon set.', 1),
  ],
  controllerrevisions: [
    NAME,
    col('Controller', 'string', 'Controller of the object'),
    col('Revision', 'string', 'Revision indicates the revision of the state represented by Data.'),
    AGE,
  ],
  namespaces: [NAME, col('Status', 'string', 'The status of the namespace'), AGE],
  serviceaccounts: [NAME, AGE],
  configmaps: [NAME, AGE],
  jobs: [NAME, AGE],
  roles: [NAME, AGE],
  rolebindings: [NAME, AGE],
  clusterroles: [NAME, AGE],
  clusterrolebindings: [NAME, AGE],
  events: [
    col('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
    col('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
    col('Reason', 'string', "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
    col('Object', 'string', 'The object that this event is about.'),
    col(
      'Subobject',
      'string',
      'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].',
      1,
    ),
    col('Source', 'string', 'The component reporting this event. Should be a short machine understandable string.', 1),
    col('Message', 'string', 'A human-readable description of the status of this operation.'),
    col('First Seen', 'string', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', 1),
    col('Count', 'string', 'The number of times this event has occurred.', 1),
    col('Name', 'string', NAME_DOC, 1, 'name'),
  ],
};

export function tableColumns(resource: ResourceName): readonly ColumnDefinition[] {
  return COLUMNS[resource];
}

// upstream: staging/src/k8s.io/apimachinery/pkg/util/duration/duration.go HumanDuration
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 8 * 24) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.floor(hours / 24) % 365;
    return dy === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${dy}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

/** translateTimestampSince: `<unknown>` for an absent timestamp. */
export function age(timestamp: unknown, now: number): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

type Json = Record<string, unknown>;

function rec(v: unknown): Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {};
}

function arr(v: unknown): Json[] {
  return Array.isArray(v) ? v.map(rec) : [];
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

// upstream: printers.go printPod
function podCells(obj: KubeObject, now: number): Cell[] {
  const spec = rec(obj['spec']);
  const status = rec(obj['status']);
  const containers = arr(spec['containers']);
  let restarts = 0;
  let readyContainers = 0;
  let lastRestart = 0;
  let reason = str(status['phase']);
  if (str(status['reason']) !== '') reason = str(status['reason']);

  // Init containers: a pod still initialising shows Init:N/M or the init container's problem.
  const initStatuses = arr(status['initContainerStatuses']);
  const initContainers = arr(spec['initContainers']);
  let initializing = false;
  initStatuses.forEach((c, i) => {
    restarts += num(c['restartCount']);
    const last = rec(rec(c['lastState'])['terminated']);
    if (str(last['finishedAt']) !== '') lastRestart = Math.max(lastRestart, Date.parse(str(last['finishedAt'])));
    const state = rec(c['state']);
    const terminated = rec(state['terminated']);
    const waiting = rec(state['waiting']);
    const restartable = str(initContainers[i]?.['restartPolicy']) === 'Always';
    if (state['terminated'] !== undefined && num(terminated['exitCode']) === 0) return;
    if (restartable && c['started'] === true) return;
    if (initializing) return;
    initializing = true;
    if (state['terminated'] !== undefined) {
      reason =
        str(terminated['reason']) !== ''
          ? `Init:${str(terminated['reason'])}`
          : num(terminated['signal']) !== 0
            ? `Init:Signal:${num(terminated['signal'])}`
            : `Init:ExitCode:${num(terminated['exitCode'])}`;
    } else if (str(waiting['reason']) !== '' && str(waiting['reason']) !== 'PodInitializing') {
      reason = `Init:${str(waiting['reason'])}`;
    } else {
      reason = `Init:${i}/${initContainers.length}`;
    }
  });

  if (!initializing) {
    restarts = 0;
    let hasRunning = false;
    const statuses = arr(status['containerStatuses']);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i]!;
      restarts += num(c['restartCount']);
      const last = rec(rec(c['lastState'])['terminated']);
      if (str(last['finishedAt']) !== '') lastRestart = Math.max(lastRestart, Date.parse(str(last['finishedAt'])));
      const state = rec(c['state']);
      const waiting = rec(state['waiting']);
      const terminated = rec(state['terminated']);
      if (str(waiting['reason']) !== '') reason = str(waiting['reason']);
      else if (str(terminated['reason']) !== '') reason = str(terminated['reason']);
      else if (state['terminated'] !== undefined) {
        reason = num(terminated['signal']) !== 0 ? `Signal:${num(terminated['signal'])}` : `ExitCode:${num(terminated['exitCode'])}`;
      } else if (c['ready'] === true && state['running'] !== undefined) {
        hasRunning = true;
        readyContainers++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      const ready = arr(status['conditions']).some((c) => c['type'] === 'Ready' && c['status'] === 'True');
      reason = ready ? 'Running' : 'NotReady';
    }
  }
  if (obj.metadata.deletionTimestamp !== undefined) reason = str(status['reason']) === 'NodeLost' ? 'Unknown' : 'Terminating';
  if (reason === '') reason = 'Unknown';

  let restartsText = String(restarts);
  if (restarts !== 0 && lastRestart > 0) restartsText = `${restarts} (${humanDuration(now - lastRestart)} ago)`;

  const gates = arr(spec['readinessGates']);
  let gatesText = '<none>';
  if (gates.length > 0) {
    const conditions = arr(status['conditions']);
    const trueGates = gates.filter((g) => conditions.some((c) => c['type'] === g['conditionType'] && c['status'] === 'True')).length;
    gatesText = `${trueGates}/${gates.length}`;
  }
  return [
    obj.metadata.name,
    `${readyContainers}/${containers.length}`,
    reason,
    restartsText,
    age(obj.metadata.creationTimestamp, now),
    str(status['podIP']) || '<none>',
    str(spec['nodeName']) || '<none>',
    str(status['nominatedNodeName']) || '<none>',
    gatesText,
  ];
}

// upstream: printers.go printNode, findNodeRoles, getNodeInternalIP/getNodeExternalIP
function nodeCells(obj: KubeObject, now: number): Cell[] {
  const spec = rec(obj['spec']);
  const status = rec(obj['status']);
  const ready = arr(status['conditions']).find((c) => c['type'] === 'Ready');
  const states: string[] = [ready === undefined ? 'Unknown' : ready['status'] === 'True' ? 'Ready' : 'NotReady'];
  if (spec['unschedulable'] === true) states.push('SchedulingDisabled');
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(obj.metadata.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role !== '') roles.add(role);
    } else if (k === 'kubernetes.io/role' && v !== '') {
      roles.add(v);
    }
  }
  const info = rec(status['nodeInfo']);
  const addresses = arr(status['addresses']);
  const address = (type: string): string => str(addresses.find((a) => a['type'] === type)?.['address']) || '<none>';
  return [
    obj.metadata.name,
    states.join(','),
    roles.size > 0 ? [...roles].sort().join(',') : '<none>',
    age(obj.metadata.creationTimestamp, now),
    str(info['kubeletVersion']),
    address('InternalIP'),
    address('ExternalIP'),
    str(info['osImage']) || '<unknown>',
    str(info['kernelVersion']) || '<unknown>',
    str(info['containerRuntimeVersion']) || '<unknown>',
  ];
}

function formatLabels(labels: Json): string {
  const keys = Object.keys(labels).sort();
  return keys.length === 0 ? '<none>' : keys.map((k) => `${k}=${str(labels[k])}`).join(',');
}

function selectorText(selector: unknown): string {
  try {
    const text = formatLabelSelector(selector as LabelSelector | undefined);
    return text === '' ? '<none>' : text;
  } catch {
    return '<error>';
  }
}

// upstream: printers.go printDaemonSet
function daemonSetCells(obj: KubeObject, now: number): Cell[] {
  const spec = rec(obj['spec']);
  const status = rec(obj['status']);
  const podSpec = rec(rec(spec['template'])['spec']);
  const containers = arr(podSpec['containers']);
  return [
    obj.metadata.name,
    num(status['desiredNumberScheduled']),
    num(status['currentNumberScheduled']),
    num(status['numberReady']),
    num(status['updatedNumberScheduled']),
    num(status['numberAvailable']),
    formatLabels(rec(podSpec['nodeSelector'])),
    age(obj.metadata.creationTimestamp, now),
    containers.map((c) => str(c['name'])).join(','),
    containers.map((c) => str(c['image'])).join(','),
    selectorText(spec['selector']),
  ];
}

// upstream: printers.go printControllerRevision
function controllerRevisionCells(obj: KubeObject, now: number): Cell[] {
  const owner = (obj.metadata.ownerReferences ?? []).find((r) => r.controller === true);
  let controller = '<none>';
  if (owner !== undefined) {
    const slash = owner.apiVersion.indexOf('/');
    const group = slash >= 0 ? owner.apiVersion.slice(0, slash) : '';
    controller = `${(group === '' ? owner.kind : `${owner.kind}.${group}`).toLowerCase()}/${owner.name}`;
  }
  return [obj.metadata.name, controller, num(obj['revision']), age(obj.metadata.creationTimestamp, now)];
}

function namespaceCells(obj: KubeObject, now: number): Cell[] {
  return [obj.metadata.name, str(rec(obj['status'])['phase']), age(obj.metadata.creationTimestamp, now)];
}

// upstream: printers.go printEvent
function eventCells(obj: KubeObject, now: number): Cell[] {
  const involved = rec(obj['involvedObject']);
  const source = rec(obj['source']);
  const first = str(obj['firstTimestamp']) || str(obj['eventTime']) || str(obj.metadata.creationTimestamp);
  const last = str(obj['lastTimestamp']) || first;
  const count = num(obj['count']) || 1;
  const firstText = age(first, now);
  const lastText = age(last, now);
  const interval = count > 1 ? `${lastText} (x${count} over ${firstText})` : lastText;
  const component = str(source['component']) || str(obj['reportingComponent']);
  const host = str(source['host']) || str(obj['reportingInstance']);
  return [
    interval,
    str(obj['type']),
    str(obj['reason']),
    `${str(involved['kind']).toLowerCase()}/${str(involved['name'])}`,
    str(involved['fieldPath']),
    host === '' ? component : `${component}, ${host}`,
    str(obj['message']).trim(),
    firstText,
    count,
    obj.metadata.name,
  ];
}

const CELLS: Readonly<Record<ResourceName, (obj: KubeObject, now: number) => Cell[]>> = {
  pods: podCells,
  nodes: nodeCells,
  daemonsets: daemonSetCells,
  controllerrevisions: controllerRevisionCells,
  namespaces: namespaceCells,
  events: eventCells,
  serviceaccounts: nameAgeCells,
  configmaps: nameAgeCells,
  jobs: nameAgeCells,
  roles: nameAgeCells,
  rolebindings: nameAgeCells,
  clusterroles: nameAgeCells,
  clusterrolebindings: nameAgeCells,
};

/** The objects the sim only stores (a detached rollout's Job and roles): the default printer's columns. */
function nameAgeCells(obj: KubeObject, now: number): Cell[] {
  return [obj.metadata.name, age(obj.metadata.creationTimestamp, now)];
}

export function tableCells(resource: ResourceName, obj: KubeObject, now: number): Cell[] {
  return CELLS[resource](obj, now);
}

function rowJson(stored: StoredObject, now: number, include: IncludeObject, metaApiVersion: string): string {
  const cells = jsonText(tableCells(stored.resource, stored.object, now));
  if (include === 'None') return `{"cells":${cells}}`;
  if (include === 'Object') return `{"cells":${cells},"object":${stored.json}}`;
  const partial = `{"kind":"PartialObjectMetadata","apiVersion":"${metaApiVersion}","metadata":${JSON.stringify(stored.object.metadata)}}`;
  return `{"cells":${cells},"object":${partial}}`;
}

export interface TableOptions {
  readonly resource: ResourceName;
  readonly now: number;
  /** meta.k8s.io version the client asked for. */
  readonly version: 'v1' | 'v1beta1';
  readonly includeObject: IncludeObject;
  readonly resourceVersion?: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
  /** Watch events after the first omit the column definitions, as the real server does. */
  readonly omitColumns?: boolean;
}

/** The Table JSON for some stored objects. */
export function tableJson(items: readonly StoredObject[], options: TableOptions): string {
  const apiVersion = `meta.k8s.io/${options.version}`;
  const meta: Json = {};
  if (options.resourceVersion !== undefined) meta['resourceVersion'] = options.resourceVersion;
  if (options.continue !== undefined) meta['continue'] = options.continue;
  if (options.remainingItemCount !== undefined) meta['remainingItemCount'] = options.remainingItemCount;
  const columns = options.omitColumns ? '' : `,"columnDefinitions":${JSON.stringify(COLUMNS[options.resource])}`;
  const rows = items.map((s) => rowJson(s, options.now, options.includeObject, apiVersion)).join(',');
  return `{"kind":"Table","apiVersion":"${apiVersion}","metadata":${JSON.stringify(meta)}${columns},"rows":[${rows}]}`;
}

export function tableContentType(version: 'v1' | 'v1beta1'): string {
  return `application/json;as=Table;v=${version};g=meta.k8s.io`;
}

export function parseIncludeObject(value: string | null): IncludeObject {
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}
