// Ready-made clusters for the simulator: `demo` (a rollout in progress with the usual troubles),
// `empty`, and `large` (benchmarks). Objects are built with the core's own pod-template and revision
// functions, so they look exactly like what the controller itself would have made.
import {CONTROLLER_REVISION_HASH_LABEL, computeTemplateHash, newDaemonPod, revisionData} from '../core/index.js';
import type {ControllerRevision, DaemonSet, Node, Pod, PodTemplateSpec, Taint} from '../core/index.js';
import {formatTimestamp} from './clock.js';
import type {FailureRule} from './kubelet.js';
import {DEFAULT_START_DELAY_MS, NOT_READY_TAINTS} from './kubelet.js';
import {makeNode} from './seed.js';
import type {Store} from './store.js';

export const SCENARIOS = ['demo', 'empty', 'large'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export interface ScenarioOptions {
  /** Node count (demo: 20, empty: 3, large: 5,000). */
  readonly nodes?: number;
}

export interface Scenario {
  readonly description: string;
  readonly failures: readonly FailureRule[];
  /** The DaemonSet a user would look at first. */
  readonly focus?: {readonly namespace: string; readonly name: string};
}

interface SimNodeOptions {
  readonly taints?: readonly Taint[];
  readonly notReady?: boolean;
  readonly labels?: Record<string, string>;
}

/** A registered node (seed.ts makeNode); a NotReady one already carries the node lifecycle controller's taints. */
function simNode(name: string, index: number, now: number, options: SimNodeOptions = {}): Node {
  const taints = [...(options.taints ?? []), ...(options.notReady ? NOT_READY_TAINTS : [])];
  return makeNode(name, {
    index,
    timestamp: formatTimestamp(now - 3 * 86_400_000),
    ...(taints.length > 0 ? {taints} : {}),
    ...(options.notReady ? {ready: false} : {}),
    ...(options.labels ? {labels: options.labels} : {}),
  });
}

function hashCode(text: string): number {
  let h = 0;
  for (const ch of text) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return h;
}

const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** A deterministic stand-in for the API server's random generateName suffix. */
function podSuffix(seed: string): string {
  let h = hashCode(seed);
  let out = '';
  for (let i = 0; i < 5; i++) {
    out += SUFFIX_ALPHABET[h % SUFFIX_ALPHABET.length];
    h = Math.floor(h / SUFFIX_ALPHABET.length) + hashCode(`${seed}${i}`);
  }
  return out;
}

function withImage(template: PodTemplateSpec, image: string): PodTemplateSpec {
  return {...template, spec: {...template.spec, containers: template.spec.containers.map((c, i) => (i === 0 ? {...c, image} : c))}};
}

function revisionFor(ds: DaemonSet, template: PodTemplateSpec, revision: number): ControllerRevision {
  const hash = computeTemplateHash(template);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `${ds.metadata.name}-${hash}`,
      namespace: ds.metadata.namespace ?? 'default',
      labels: {...(template.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH_LABEL]: hash},
      ...(ds.metadata.annotations ? {annotations: ds.metadata.annotations} : {}),
      ownerReferences: [
        {apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.metadata.name, uid: ds.metadata.uid ?? '', controller: true, blockOwnerDeletion: true},
      ],
    },
    data: revisionData(template),
    revision,
  };
}

interface PodState {
  readonly node: string;
  /** Which of the DaemonSet's templates (by index) the pod runs. */
  readonly version: number;
  /** Seconds since the pod became ready; undefined: not ready. */
  readonly readyFor?: number;
}

/**
 * Creates a DaemonSet through its template history (each template a new generation, with its
 * ControllerRevision) and pods in the given states, bound and started as the kubelet would have done.
 */
function loadDaemonSet(store: Store, now: number, base: DaemonSet, templates: readonly PodTemplateSpec[], pods: readonly PodState[]): void {
  let ds = store.create({...base, spec: {...base.spec, template: templates[0]!}}, {namespace: base.metadata.namespace ?? 'default'}) as DaemonSet;
  // Revisions record the template as the API server stored it (defaulted), or the controller would not find them current.
  const stored = [ds.spec.template];
  for (const template of templates.slice(1)) {
    ds = store.update({...ds, spec: {...ds.spec, template}}) as DaemonSet;
    stored.push(ds.spec.template);
  }
  const hashes = stored.map((t, i) => {
    const rev = revisionFor(ds, t, i + 1);
    store.create(rev);
    return rev.metadata.labels![CONTROLLER_REVISION_HASH_LABEL]!;
  });
  const current = store.get('daemonsets', ds.metadata.namespace, ds.metadata.name) as DaemonSet;
  for (const p of pods) {
    const template = stored[p.version]!;
    const versioned: DaemonSet = {
      ...current,
      spec: {...current.spec, template},
      metadata: {...current.metadata, annotations: {...current.metadata.annotations, 'deprecated.daemonset.template.generation': String(p.version + 1)}},
    };
    const pod = newDaemonPod(versioned, p.node, hashes[p.version]!);
    const ready = p.readyFor !== undefined;
    const since = formatTimestamp(now - (p.readyFor ?? 60) * 1000);
    const created: Pod = {
      ...pod,
      metadata: {
        ...pod.metadata,
        name: `${ds.metadata.name}-${podSuffix(`${ds.metadata.name}/${p.node}/${p.version}`)}`,
        // Created as long before it started as the kubelets take, so its age and start time are what they would be.
        creationTimestamp: formatTimestamp(now - (p.readyFor ?? 60) * 1000 - DEFAULT_START_DELAY_MS),
      },
      spec: {...pod.spec, nodeName: p.node},
      status: {
        phase: 'Running',
        hostIP: '10.0.0.1',
        podIP: `10.244.${hashCode(p.node) % 250}.${(hashCode(`${ds.metadata.name}/${p.version}`) % 250) + 2}`,
        startTime: since,
        conditions: [
          {type: 'PodScheduled', status: 'True', lastTransitionTime: since},
          {type: 'Initialized', status: 'True', lastTransitionTime: since},
          {type: 'ContainersReady', status: ready ? 'True' : 'False', lastTransitionTime: since},
          {type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: since, ...(ready ? {} : {reason: 'NodeNotReady'})},
        ],
        containerStatuses: template.spec.containers.map((c) => ({
          name: c.name,
          image: c.image ?? '',
          imageID: '',
          ready,
          restartCount: 0,
          started: true,
          state: {running: {startedAt: since}},
        })),
      },
    };
    store.create(created, {restore: true});
  }
}

const FLUENTD: DaemonSet = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: {name: 'fluentd', namespace: 'kube-system', labels: {'k8s-app': 'fluentd-logging'}},
  spec: {
    selector: {matchLabels: {name: 'fluentd'}},
    template: {
      metadata: {labels: {name: 'fluentd'}},
      spec: {
        tolerations: [{key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule'}],
        containers: [
          {
            name: 'fluentd',
            image: 'fluent/fluentd:v1.16.2',
            resources: {limits: {memory: '200Mi'}, requests: {cpu: '100m', memory: '200Mi'}},
            volumeMounts: [{name: 'varlog', mountPath: '/var/log'}],
          },
        ],
        volumes: [{name: 'varlog', hostPath: {path: '/var/log'}}],
        terminationGracePeriodSeconds: 30,
      },
    },
    updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 2, maxSurge: 0}},
    minReadySeconds: 10,
  },
};

const NODE_EXPORTER: DaemonSet = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: {name: 'node-exporter', namespace: 'monitoring'},
  spec: {
    selector: {matchLabels: {app: 'node-exporter'}},
    template: {
      metadata: {labels: {app: 'node-exporter'}},
      spec: {
        hostNetwork: true,
        containers: [{name: 'node-exporter', image: 'quay.io/prometheus/node-exporter:v1.8.2', ports: [{containerPort: 9100, hostPort: 9100}]}],
      },
    },
    updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: 0}},
  },
};

/** Loads a scenario into an empty store (namespaces default, kube-system, kube-public exist). */
export function loadScenario(store: Store, name: ScenarioName, now: number, options: ScenarioOptions = {}): Scenario {
  switch (name) {
    case 'empty': {
      const count = options.nodes ?? 3;
      for (let i = 1; i <= count; i++) store.create(simNode(`node-${i}`, i - 1, now));
      return {description: `${count} nodes, no DaemonSets`, failures: []};
    }
    case 'large': {
      const count = options.nodes ?? 5000;
      const width = String(count).length;
      const names = Array.from({length: count}, (_, i) => `node-${String(i + 1).padStart(width, '0')}`);
      names.forEach((n, i) => store.create(simNode(n, i, now)));
      loadDaemonSet(
        store,
        now,
        FLUENTD,
        [FLUENTD.spec.template],
        names.map((node) => ({node, version: 0, readyFor: 3600})),
      );
      return {
        description: `${count} nodes, DaemonSet kube-system/fluentd complete on all of them`,
        failures: [],
        focus: {namespace: 'kube-system', name: 'fluentd'},
      };
    }
    case 'demo': {
      const count = options.nodes ?? 20;
      const names = Array.from({length: count}, (_, i) => `worker-${String(i + 1).padStart(2, '0')}`);
      const tainted = names[6]!;
      const notReady = names[12]!;
      const failing = names[16]!;
      names.forEach((n, i) => {
        store.create(
          simNode(n, i, now, {
            ...(n === tainted ? {taints: [{key: 'dedicated', value: 'gpu', effect: 'NoSchedule'}], labels: {'nvidia.com/gpu.present': 'true'}} : {}),
            ...(n === notReady ? {notReady: true} : {}),
          }),
        );
      });
      store.create({apiVersion: 'v1', kind: 'Namespace', metadata: {name: 'monitoring'}});
      const v2 = withImage(FLUENTD.spec.template, 'fluent/fluentd:v1.17.0');
      const pods: PodState[] = names
        .filter((n) => n !== tainted)
        .map((node, i) => {
          if (i < 6) return {node, version: 1, readyFor: 600 - i * 60};
          if (node === notReady) return {node, version: 0};
          return {node, version: 0, readyFor: 86_400};
        });
      loadDaemonSet(store, now, FLUENTD, [FLUENTD.spec.template, v2], pods);
      loadDaemonSet(
        store,
        now,
        NODE_EXPORTER,
        [NODE_EXPORTER.spec.template],
        names
          .map((node) => ({node, version: 0, readyFor: node === notReady ? undefined : 86_400}))
          .map((p) => (p.readyFor === undefined ? {node: p.node, version: 0} : p)),
      );
      return {
        description: `${count} nodes; kube-system/fluentd rolling out v1.17.0 (maxUnavailable 2): ${tainted} tainted dedicated=gpu:NoSchedule, ${notReady} NotReady, new fluentd pods crash on ${failing}`,
        failures: [{node: failing, image: 'fluentd:v1.17', mode: 'crash'}],
        focus: {namespace: 'kube-system', name: 'fluentd'},
      };
    }
  }
}
