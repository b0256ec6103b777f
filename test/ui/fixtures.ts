// Cluster states and snapshots for the dashboard tests: the simulator's demo scenario (loaded into a bare store,
// no server), hand-made states from the core builders, and a fake feed and action handler.
import {type ClusterState, type ControllerRevision, type DaemonSet, type Node, type Pod, planRollout, type RolloutPlan} from '../../src/core/index.js';
import {ManualClock} from '../../src/sim/clock.js';
import {loadScenario, type ScenarioName} from '../../src/sim/scenarios.js';
import {Store} from '../../src/sim/store.js';
import type {ActionHandler, ActionOutcome, DashboardSnapshot, PlanFeed, SnapshotListener, UndoRequest} from '../../src/ui/dashboard/feed.js';
import {toRevisionEntries} from '../../src/ui/dashboard/revision-entries.js';
import type {DashboardContext} from '../../src/ui/dashboard/view-model.js';
import {NOW} from '../helpers/builders.js';

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
  return {plan: planRollout(state, {now}), revisions: toRevisionEntries(state.daemonSet, state.revisions), connection: 'live', ...extra};
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
    readonly outcomes: Partial<Record<'step' | 'pause' | 'resume' | 'undo' | 'undo-preview', ActionOutcome>> = {},
    readonly failures: Partial<Record<'step' | 'pause' | 'resume' | 'undo', string>> = {},
  ) {}

  private answer(kind: 'step' | 'pause' | 'resume' | 'undo', key: keyof FakeActions['outcomes'] = kind): Promise<ActionOutcome> {
    const failure = this.failures[kind];
    if (failure) return Promise.reject(new Error(failure));
    return Promise.resolve(this.outcomes[key] ?? {message: `${kind} done`});
  }

  step(): Promise<ActionOutcome> {
    this.calls.push({action: 'step'});
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
}
