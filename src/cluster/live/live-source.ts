// The ClusterSource of a real cluster: the DaemonSet, every node, every pod and ControllerRevision of its
// namespace (the controller's claim rules need orphans and released objects too, docs/design/reconcile.md §3 and §16),
// read in parallel with large pages: four requests for a 5,000-node cluster.
import type {ClusterState, ControllerRevision, DaemonSet, Node, Pod} from '../../core/index.js';
import type {ClusterObjects, ClusterObjectsSource, ClusterSource, DaemonSetRef} from '../cluster-source.js';
import type {KubeClient} from './client.js';
import {daemonSetsPath, describe, nodesPath, podsPath, revisionsPath} from './paths.js';
import {projectDaemonSet, projectNode, projectPod, projectRevision} from './project.js';

/**
 * Items per list page: one request each for nodes and pods up to this size, and no single answer larger than
 * this many objects (at ~5 KB per pod, 50 MB: far below Node's 512 MiB string limit).
 */
export const DEFAULT_PAGE_SIZE = 10_000;

export interface LiveSourceOptions {
  readonly pageSize?: number;
}

export class LiveClusterSource implements ClusterSource, ClusterObjectsSource {
  private readonly pageSize: number;

  constructor(
    readonly client: KubeClient,
    options: LiveSourceOptions = {},
  ) {
    this.pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  }

  async readState(ref: DaemonSetRef): Promise<ClusterState> {
    const results = await Promise.allSettled([
      this.readDaemonSet(ref),
      this.listNodes(),
      this.listPods(ref.namespace),
      this.listRevisions(ref.namespace),
    ] as const);
    // Report the first failure in a fixed order (the DaemonSet's own first), whichever request failed first.
    for (const result of results) if (result.status === 'rejected') throw result.reason;
    const [daemonSet, nodes, pods, revisions] = results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as [
      DaemonSet,
      Node[],
      Pod[],
      ControllerRevision[],
    ];
    return {daemonSet, nodes, pods, revisions};
  }

  async readSurroundings(namespace: string): Promise<Omit<ClusterState, 'daemonSet'>> {
    const [nodes, pods, revisions] = await Promise.all([this.listNodes(), this.listPods(namespace), this.listRevisions(namespace)]);
    return {nodes, pods, revisions};
  }

  async readServerVersion(): Promise<string> {
    const version = await this.client.get<{gitVersion?: string; major?: string; minor?: string}>('/version', describe('get', 'version'));
    return version.gitVersion ?? `v${version.major ?? ''}.${version.minor ?? ''}`;
  }

  async readObjects(namespace: string | undefined): Promise<ClusterObjects> {
    const [daemonSets, nodes, pods, revisions] = await Promise.all([
      this.client.list(daemonSetsPath(namespace), describe('list', 'daemonsets', namespace), projectDaemonSet, {pageSize: this.pageSize}),
      this.listNodes(),
      this.listPods(namespace),
      this.listRevisions(namespace),
    ]);
    return {daemonSets: daemonSets.items, nodes, pods, revisions};
  }

  async readDaemonSet(ref: DaemonSetRef): Promise<DaemonSet> {
    const raw = await this.client.get(daemonSetsPath(ref.namespace, ref.name), describe('get', 'daemonsets', ref.namespace, ref.name));
    return projectDaemonSet(raw);
  }

  async listNodes(): Promise<Node[]> {
    return (await this.client.list(nodesPath(), describe('list', 'nodes'), projectNode, {pageSize: this.pageSize})).items;
  }

  async listPods(namespace: string | undefined): Promise<Pod[]> {
    return (await this.client.list(podsPath(namespace), describe('list', 'pods', namespace), projectPod, {pageSize: this.pageSize})).items;
  }

  async listRevisions(namespace: string | undefined): Promise<ControllerRevision[]> {
    return (await this.client.list(revisionsPath(namespace), describe('list', 'controllerrevisions', namespace), projectRevision, {pageSize: this.pageSize}))
      .items;
  }
}
