// Synthetic clusters for benchmarks: N nodes in the middle of a rolling update, with old, new and
// unavailable pods and a few tainted nodes. Deterministic (no randomness): the mix follows the node index.
import type {ClusterState, ControllerRevision, DaemonSet, Node, Pod} from '../src/core/types.js';

const T0 = '2026-11-21T11:00:00Z';
export const BENCH_NOW = Date.parse('2026-11-21T12:00:00Z');

export function syntheticDaemonSet(strategy: {maxUnavailable: number | string; maxSurge: number | string}, image = 'fluentd:2'): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {name: 'fluentd', namespace: 'kube-system', uid: 'ds-uid', generation: 2, annotations: {'deprecated.daemonset.template.generation': '2'}},
    spec: {
      selector: {matchLabels: {app: 'fluentd'}},
      template: {metadata: {labels: {app: 'fluentd'}}, spec: {containers: [{name: 'fluentd', image}]}},
      updateStrategy: {type: 'RollingUpdate', rollingUpdate: strategy},
      revisionHistoryLimit: 10,
    },
  };
}

function revision(ds: DaemonSet, hash: string, n: number, image: string): ControllerRevision {
  const template = {...ds.spec.template, spec: {...ds.spec.template.spec, containers: [{name: 'fluentd', image}]}};
  return {
    metadata: {
      name: `fluentd-${hash}`,
      namespace: 'kube-system',
      labels: {app: 'fluentd', 'controller-revision-hash': hash},
      ownerReferences: [{apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'fluentd', uid: 'ds-uid', controller: true}],
    },
    data: {spec: {template: {...template, $patch: 'replace'}}},
    revision: n,
  };
}

/** Every 7th node updated, every 97th old pod not ready, every 50th node tainted NoSchedule. */
export function syntheticCluster(
  nodeCount: number,
  strategy: {maxUnavailable: number | string; maxSurge: number | string} = {maxUnavailable: 1, maxSurge: 0},
): ClusterState {
  const ds = syntheticDaemonSet(strategy);
  const width = String(nodeCount).length;
  const nodes: Node[] = [];
  const pods: Pod[] = [];
  for (let i = 0; i < nodeCount; i++) {
    const name = `node-${String(i).padStart(width, '0')}`;
    nodes.push({
      metadata: {name, labels: {'kubernetes.io/hostname': name}},
      spec: i % 50 === 49 ? {taints: [{key: 'dedicated', value: 'batch', effect: 'NoSchedule'}]} : {},
      status: {conditions: [{type: 'Ready', status: 'True'}]},
    });
    if (i % 50 === 49) continue;
    const fresh = i % 7 === 0;
    // Unready pods are old ones: the rollout replaces them, so it can converge.
    const ready = fresh || i % 97 !== 5;
    pods.push({
      metadata: {
        name: `fluentd-${i.toString(36)}`,
        namespace: 'kube-system',
        uid: `pod-${i}`,
        resourceVersion: String(1000 + i),
        creationTimestamp: T0,
        labels: {app: 'fluentd', 'controller-revision-hash': fresh ? 'new' : 'old'},
        ownerReferences: [{apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'fluentd', uid: 'ds-uid', controller: true}],
      },
      spec: {nodeName: name, containers: [{name: 'fluentd', image: fresh ? 'fluentd:2' : 'fluentd:1'}]},
      status: {phase: 'Running', conditions: [{type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: T0}]},
    });
  }
  return {daemonSet: ds, nodes, pods, revisions: [revision(ds, 'old', 1, 'fluentd:1'), revision(ds, 'new', 2, 'fluentd:2')]};
}
