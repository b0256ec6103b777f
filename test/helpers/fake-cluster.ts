// A tiny in-memory cluster for core tests, shaped like upstream's FakePodControl harness: it applies a
// SyncResult (creates pods named <ds>-<n>, bound to their node; deletes pods), and can mark pods ready.
import {newDaemonPod, syncDaemonSet, type SyncOptions, type SyncResult} from '../../src/core/index.js';
import type {ClusterState, Pod} from '../../src/core/types.js';

export class FakeCluster {
  private counter = 0;
  constructor(public state: ClusterState) {}

  sync(options: SyncOptions): SyncResult {
    const result = syncDaemonSet(this.state, options);
    this.apply(result, options.now);
    return result;
  }

  apply(result: SyncResult, now: number): void {
    const gone = new Set(result.actions.delete.map((d) => d.pod));
    const created = result.actions.create.map((c) => {
      const pod = newDaemonPod(this.state.daemonSet, c.node, result.input!.history.update.hash);
      return {
        ...pod,
        metadata: {
          ...pod.metadata,
          name: `${this.state.daemonSet.metadata.name}-new-${++this.counter}`,
          uid: `uid-new-${this.counter}`,
          creationTimestamp: new Date(now).toISOString(),
        },
        spec: {...pod.spec, nodeName: c.node},
        status: {phase: 'Pending'},
      } satisfies Pod;
    });
    const history = result.input?.history;
    let revisions = this.state.revisions;
    if (history?.create) revisions = [...revisions, history.create];
    if (history?.renumber) {
      const {name, to} = history.renumber;
      revisions = revisions.map((r) => (r.metadata.name === name ? {...r, revision: to} : r));
    }
    this.state = {...this.state, revisions, pods: [...this.state.pods.filter((p) => !gone.has(p.metadata.name)), ...created]};
  }

  /** Marks every pod (or those matching `which`) Running and Ready since `since`. */
  markPodsReady(since: number, which: (pod: Pod) => boolean = () => true): void {
    const at = new Date(since).toISOString();
    this.state = {
      ...this.state,
      pods: this.state.pods.map((pod) =>
        which(pod) && pod.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True'
          ? {...pod, status: {...pod.status, phase: 'Running', conditions: [{type: 'Ready', status: 'True', lastTransitionTime: at}]}}
          : pod,
      ),
    };
  }

  withState(update: (state: ClusterState) => ClusterState): void {
    this.state = update(this.state);
  }
}

export function counts(result: SyncResult): [creates: number, deletes: number] {
  return [result.actions.create.length, result.actions.delete.length];
}
