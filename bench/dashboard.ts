// Benchmark of the dashboard at 5,000 nodes, 200x60: building the view model, building the frame (the screen
// rendered to a string), the time from a pushed plan and from a changed cluster state to the frame written to the
// terminal, and the CPU used while nothing happens. Targets (issue 6): a frame within 50 ms, idle CPU near zero.
import {EventEmitter} from 'node:events';
import {clockFrom} from '../src/platform/clock.js';
import {planRollout, rolloutReport, type ClusterState, type Pod} from '../src/core/index.js';
import {createPlanFeed, type FollowHandlers} from '../src/services/dashboard.js';
import {initialDashboardState} from '../src/ui/dashboard/dashboard-state.js';
import type {DashboardSnapshot, PlanFeed, SnapshotListener} from '../src/services/dashboard/feed.js';
import {toRevisionEntries} from '../src/services/dashboard/revision-entries.js';
import {diffRevisionTemplates} from '../src/ui/dashboard/revision-diff.js';
import {DEFAULT_THEME} from '../src/ui/dashboard/theme.js';
import {toDashboardViewModel} from '../src/ui/dashboard/view-model.js';
import {median, report} from './report.js';
import {BENCH_NOW, syntheticCluster} from './synthetic-cluster.js';

const NODES = 5000;
const SIZE = {columns: 200, rows: 60};
const CONTEXT = {name: 'fluentd', namespace: 'kube-system', kubeContext: 'bench'};

/** A terminal Ink can draw on: records what it writes and when. */
class FakeTerminal extends EventEmitter {
  readonly isTTY = true;
  readonly columns = SIZE.columns;
  readonly rows = SIZE.rows;
  writes = 0;
  lastWriteAt = 0;
  onWrite: (() => void) | undefined;
  write(_chunk: string): boolean {
    this.writes++;
    this.lastWriteAt = performance.now();
    this.onWrite?.();
    return true;
  }
}

class FakeKeyboard extends EventEmitter {
  readonly isTTY = true;
  setRawMode(): this {
    return this;
  }
  setEncoding(): this {
    return this;
  }
  resume(): this {
    return this;
  }
  pause(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  read(): null {
    return null;
  }
}

class PushFeed implements PlanFeed {
  private listener: SnapshotListener | undefined;
  constructor(private latest: DashboardSnapshot) {}
  push(snapshot: DashboardSnapshot): void {
    this.latest = snapshot;
    this.listener?.(snapshot);
  }
  subscribe(listener: SnapshotListener): () => void {
    this.listener = listener;
    listener(this.latest);
    return () => {
      this.listener = undefined;
    };
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The same cluster a few pods further on: the next `step` old pods now carry the new hash. */
function advanced(state: ClusterState, step: number): ClusterState {
  let left = step;
  const pods: Pod[] = state.pods.map((pod) => {
    if (left === 0 || pod.metadata.labels?.['controller-revision-hash'] !== 'old') return pod;
    left--;
    return {...pod, metadata: {...pod.metadata, labels: {...pod.metadata.labels, 'controller-revision-hash': 'new'}}};
  });
  return {...state, pods};
}

function snapshotOf(state: ClusterState): DashboardSnapshot {
  const plan = planRollout(state, {now: BENCH_NOW});
  const {verdict, detail} = rolloutReport(state, BENCH_NOW, plan);
  return {plan, verdict: {verdict, detail}, revisions: toRevisionEntries(state.daemonSet, state.revisions), connection: 'live'};
}

export async function benchDashboard(): Promise<Record<string, number>> {
  // React picks its build when first imported; the CLI runs the production one.
  process.env.NODE_ENV ??= 'production';
  const [{render, renderToString}, {default: React}, {Dashboard}, {DashboardScreen}] = await Promise.all([
    import('ink'),
    import('react'),
    import('../src/ui/dashboard/Dashboard.js'),
    import('../src/ui/dashboard/DashboardScreen.js'),
  ]);
  const figures: Record<string, number> = {};
  const states = [syntheticCluster(NODES), advanced(syntheticCluster(NODES), 50)];
  const snapshots = states.map(snapshotOf);

  // 1. View model and frame, for a given plan; the cursor moves each time so nothing is cached.
  const vmTimes: number[] = [];
  const frameTimes: number[] = [];
  for (let i = 0; i < 25; i++) {
    const ui = {...initialDashboardState(), cursor: 1000 + i * 97, showDiff: i % 2 === 0};
    const t0 = performance.now();
    const vm = toDashboardViewModel({...snapshots[i % 2]!, context: CONTEXT, diff: diffRevisionTemplates, pace: 12}, ui, SIZE, BENCH_NOW);
    const t1 = performance.now();
    renderToString(React.createElement(DashboardScreen, {vm, theme: DEFAULT_THEME}), {columns: SIZE.columns});
    const t2 = performance.now();
    if (i >= 5) {
      vmTimes.push(t1 - t0);
      frameTimes.push(t2 - t1);
    }
  }
  figures['view model'] = median(vmTimes);
  figures['frame'] = median(frameTimes);
  report(
    `dash  view model, ${NODES} nodes at ${SIZE.columns}x${SIZE.rows}: ${median(vmTimes).toFixed(1).padStart(6)} ms   frame (renderToString): ${median(frameTimes).toFixed(1)} ms   together ${(median(vmTimes) + median(frameTimes)).toFixed(1)} ms (target <= 50 ms)`,
  );

  // 2. The real container drawing on a terminal: from a pushed plan, and from a changed cluster state, to the write.
  const terminal = new FakeTerminal();
  const keyboard = new FakeKeyboard();
  const feed = new PushFeed(snapshots[0]!);
  let follow: FollowHandlers | undefined;
  const stateFeed = createPlanFeed({follow: (handlers) => ((follow = handlers), {stop() {}}), clock: clockFrom(() => BENCH_NOW)});
  const app = render(React.createElement(Dashboard, {feed, actions: undefined as never, context: CONTEXT, size: SIZE, redrawIntervalMs: 0}), {
    stdout: terminal as unknown as NodeJS.WriteStream,
    stdin: keyboard as unknown as NodeJS.ReadStream,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  await sleep(300);

  const toFrame = async (trigger: () => void): Promise<number> => {
    const written = new Promise<void>((resolve) => (terminal.onWrite = resolve));
    const t0 = performance.now();
    trigger();
    await written;
    terminal.onWrite = undefined;
    const elapsed = performance.now() - t0;
    await sleep(150); // past Ink's own frame throttle, so each push starts from an idle screen
    return elapsed;
  };
  const pushTimes: number[] = [];
  for (let i = 1; i <= 12; i++) pushTimes.push(await toFrame(() => feed.push(snapshots[i % 2]!)));
  figures['plan to frame'] = median(pushTimes.slice(2));

  // The state path: the feed plans (planRollout + status verdict), the container redraws.
  feed.push(snapshots[0]!);
  await sleep(150);
  stateFeed.subscribe((snapshot) => feed.push(snapshot));
  const stateTimes: number[] = [];
  for (let i = 1; i <= 8; i++) stateTimes.push(await toFrame(() => follow!.onState(states[i % 2]!)));
  figures['state to frame'] = median(stateTimes.slice(2));
  report(
    `dash  pushed plan -> frame on the terminal: ${figures['plan to frame']!.toFixed(1).padStart(6)} ms   changed cluster state -> frame (plan + status + redraw): ${figures['state to frame']!.toFixed(1)} ms`,
  );

  // 3. Idle: nothing changes for three seconds.
  await sleep(300);
  const writesBefore = terminal.writes;
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  await sleep(3000);
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - wall0;
  const cpuMs = (cpu.user + cpu.system) / 1000;
  figures['idle cpu %'] = (cpuMs / wall) * 100;
  report(
    `dash  idle for ${(wall / 1000).toFixed(1)} s: ${cpuMs.toFixed(1)} ms CPU (${figures['idle cpu %']!.toFixed(2)}% of one core), ${terminal.writes - writesBefore} writes to the terminal (target: near zero)`,
  );

  stateFeed.stop();
  app.unmount();
  await app.waitUntilExit();
  return figures;
}
