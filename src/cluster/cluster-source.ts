// Where the planner's input comes from: a live cluster, a snapshot file or the simulated cluster.
// Kept minimal and async so that every adapter (including the live client-node one) fits behind it.
import type {ClusterState, StoredObjects} from '../core/index.js';

export interface DaemonSetRef {
  readonly namespace: string;
  readonly name: string;
}

/** Every DaemonSet of a scope (a namespace, or all) with the nodes, pods and revisions around them: `status -A`. */
export type ClusterObjects = StoredObjects;

/** A source that reads a whole scope at once: one list per resource, however many DaemonSets (undefined: all namespaces). */
export interface ClusterObjectsSource {
  readObjects(namespace: string | undefined): Promise<ClusterObjects>;
}

export interface ClusterSource {
  /** The DaemonSet, every node, and the pods and ControllerRevisions of the DaemonSet's namespace. */
  readState(ref: DaemonSetRef): Promise<ClusterState>;
  /** The same without a DaemonSet: what a DaemonSet created in `namespace` would find (ds-plan -f for a new one). */
  readSurroundings(namespace: string): Promise<Omit<ClusterState, 'daemonSet'>>;
  /** The server's Kubernetes version as `/version` reports it (`gitVersion`, e.g. v1.20.2); only a live cluster has one. */
  readServerVersion?(): Promise<string>;
}
