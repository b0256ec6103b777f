// Cluster states and snapshots for the dashboard tests: the simulator's demo scenario (loaded into a bare store,
// no server), hand-made states from the core builders, and a fake feed and action handler.
import {
  type ClusterState,
  type ControllerRevision,
  type DaemonSet,
  type Node,
  type Pod,
  planRollout,
  type RolloutPlan,
  rolloutReport,
} from '../../src/core/index.js';
import {ManualClock} from '../../src/sim/clock.js';
import {loadScenario, type ScenarioName} from '../../src/sim/scenarios.js';
import {Store} from '../../src/sim/store.js';
import type {ActionHandler, ActionOutcome, DashboardSnapshot, PlanFeed, SnapshotListener, UndoRequest} from '../../src/services/dashboard/feed.js';
import {toRevisionEntries} from '../../src/services/dashboard/revision-entries.js';
import type {DashboardContext} from '../../src/ui/dashboard/view-model.js';
import {newDaemonSet, newNode, newPod, newRevision, NOW, withTaints} from '../helpers/builders.js';

export {NOW};

export const CONTEXT: DashboardContext = {name: 'fluentd', namespace: 'kube-system', kubeContext: 'ds-rollout-sim'};

/** A scenario of the simulator as the controller would read it (the focus DaemonSet, every node, its namespace). */
export function scenarioState(name: ScenarioName = 'demo', options: {nodes?: number; ds?: string; namespace?: string} = {}): ClusterState {
  const store = new Store({clock: new ManualClock(NOW)});
  for (const ns of ['default', 'kube-system', 'kube-public']) store.create({kind: 'Namespace', apiVersion: 'v1', metadata: {name: ns}});
  loadScenario(store, name, NOW, options.nodes === undefined ? {} : {nodes: options.nodes});
  const namespace = options.namespace ?? 'kube-system';
  const dsName = options.ds ?? 'fluentd';
  const daemonSet = store.list('daemonsets', {namespace}).items.find((d) => d.metadata.name === dsName) as unknown as DaemonSet;
  const state: ClusterState = {
    daemonSet,
    nodes: store.list('nodes').items as unknown as Node[],
    pods: store.list('pods', {namespace}).items as unknown as Pod[],
    revisions: store.list('controllerrevisions', {namespace}).items as unknown as ControllerRevision[],
  };
  store.close();
  return state;
}

export function snapshotOf(state: ClusterState, extra: Partial<DashboardSnapshot> = {}, now = NOW): DashboardSnapshot {
  const plan = planRollout(state, {now});
  const report = rolloutReport(state, now, plan);
  return {
    plan,
    verdict: {verdict: report.verdict, detail: report.detail},
    revisions: toRevisionEntries(state.daemonSet, state.revisions),
    connection: 'live',
    ...extra,
  };
}

export function planOf(state: ClusterState, now = NOW): RolloutPlan {
  return planRollout(state, {now});
}

/** A feed the test pushes snapshots into; it remembers the latest for late subscribers, as the live feed does. */
export class FakeFeed implements PlanFeed {
  private readonly listeners = new Set<SnapshotListener>();
  private latest: DashboardSnapshot | undefined;

  constructor(initial?: DashboardSnapshot) {
    this.latest = initial;
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  push(snapshot: DashboardSnapshot): void {
    this.latest = snapshot;
    for (const listener of this.listeners) listener(snapshot);
  }

  subscribe(listener: SnapshotListener): () => void {
    this.listeners.add(listener);
    if (this.latest) listener(this.latest);
    return () => {
      this.listeners.delete(listener);
    };
  }
}

/** Records calls; each action answers with `outcomes[kind]` or fails with `failures[kind]`. */
export class FakeActions implements ActionHandler {
  readonly calls: Array<{action: string; request?: UndoRequest}> = [];
  constructor(
    readonly outcomes: Partial<Record<'step' | 'pause' | 'resume' | 'undo' | 'promote' | 'abort' | 'undo-preview', ActionOutcome>> = {},
    readonly failures: Partial<Record<'step' | 'pause' | 'resume' | 'undo' | 'promote' | 'abort', string>> = {},
  ) {}

  private answer(kind: 'step' | 'pause' | 'resume' | 'undo' | 'promote' | 'abort', key: keyof FakeActions['outcomes'] = kind): Promise<ActionOutcome> {
    const failure = this.failures[kind];
    if (failure) return Promise.reject(new Error(failure));
    return Promise.resolve(this.outcomes[key] ?? {message: `${kind} done`});
  }

  /** Lines a step reports while it runs, before it answers. */
  stepProgress: string[] = [];
  /** Held until the test releases it (to look at the screen while a step runs). */
  stepGate: Promise<void> = Promise.resolve();

  async step(progress?: (message: string) => void): Promise<ActionOutcome> {
    this.calls.push({action: 'step'});
    for (const line of this.stepProgress) progress?.(line);
    await this.stepGate;
    return this.answer('step');
  }
  pause(): Promise<ActionOutcome> {
    this.calls.push({action: 'pause'});
    return this.answer('pause');
  }
  resume(): Promise<ActionOutcome> {
    this.calls.push({action: 'resume'});
    return this.answer('resume');
  }
  undo(request: UndoRequest): Promise<ActionOutcome> {
    this.calls.push({action: 'undo', request});
    return this.answer('undo', request.preview ? 'undo-preview' : 'undo');
  }
  promote(): Promise<ActionOutcome> {
    this.calls.push({action: 'promote'});
    return this.answer('promote');
  }
  abort(): Promise<ActionOutcome> {
    this.calls.push({action: 'abort'});
    return this.answer('abort');
  }
}

/**
 * A hand-made rollout of fluentd v1 -> v2 on five nodes: node-a updated, node-b updated but crash-looping
 * (unless `healthy`), node-c and node-d old, node-e tainted (not eligible). With maxUnavailable 1 the crash
 * uses the whole budget and the rollout is stuck; `healthy` lets it run.
 */
export function handMadeState(options: {healthy?: boolean; maxUnavailable?: number; maxSurge?: number} = {}): ClusterState {
  const base = newDaemonSet('fluentd', {maxUnavailable: options.maxUnavailable ?? 1, maxSurge: options.maxSurge ?? 0});
  const ds: DaemonSet = {
    ...base,
    metadata: {...base.metadata, namespace: 'kube-system'},
    // As the controller left it: generation observed (so `status` judges the pods, not a pending spec change).
    status: {observedGeneration: 1},
    spec: {...base.spec, template: {...base.spec.template, spec: {containers: [{name: 'main', image: 'fluentd:v2'}]}}},
  };
  const oldTemplate = {...ds.spec.template, spec: {containers: [{name: 'main', image: 'fluentd:v1'}]}};
  const crashing: Pod = {
    ...newPod('fluentd-b', 'node-b', ds, {hash: 'newhash', ready: false}),
    status: {
      phase: 'Running',
      conditions: [{type: 'Ready', status: 'False'}],
      containerStatuses: [{name: 'main', ready: false, restartCount: 4, state: {waiting: {reason: 'CrashLoopBackOff'}}}],
    },
  };
  return {
    daemonSet: ds,
    nodes: [
      newNode('node-a'),
      newNode('node-b'),
      newNode('node-c'),
      newNode('node-d'),
      withTaints(newNode('node-e'), {key: 'gpu', value: 'true', effect: 'NoSchedule'}),
    ],
    pods: [
      newPod('fluentd-a', 'node-a', ds, {hash: 'newhash'}),
      options.healthy ? newPod('fluentd-b', 'node-b', ds, {hash: 'newhash'}) : crashing,
      newPod('fluentd-c', 'node-c', ds, {hash: 'oldhash'}),
      newPod('fluentd-d', 'node-d', ds, {hash: 'oldhash'}),
    ],
    revisions: [newRevision(ds, 'oldhash', 1, oldTemplate), newRevision(ds, 'newhash', 2)],
  };
}

/** Strips ANSI escapes from a frame (ink-testing-library frames are plain unless colour is forced). */
export function plain(frame: string | undefined): string {
  return (frame ?? '').replace(/\u001B\[[0-9;?]*[A-Za-z]/g, '');
}
