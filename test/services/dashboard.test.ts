// The dashboard service: the plan feed over a fake follow (dedupe, connection, errors, time-driven re-plans, no idle
// timers), the choice between Ink and plain output, and the undo action and plain status against the simulated cluster.
import {join} from 'node:path';
import {PassThrough} from 'node:stream';
import {afterAll, afterEach, beforeAll, describe, expect, test, vi} from 'vitest';
import {clockFrom, fixedClock} from '../../src/platform/clock.js';
import {liveClock, liveSession} from '../../src/cluster/session.js';
import {connectLiveCluster} from '../../src/cluster/live/index.js';
import type {ClusterState, DaemonSet, Pod} from '../../src/core/index.js';
import {InputError, NotFoundError} from '../../src/platform/errors.js';
import {dashboardService, shouldStartInk} from '../../src/cli/dashboard-app.js';
import {clusterActions, createPlanFeed, type FollowHandlers} from '../../src/services/dashboard.js';
import type {DashboardSnapshot} from '../../src/services/dashboard/feed.js';
import {NOW, readyCondition} from '../helpers/builders.js';
import {startFreezableProxy} from '../helpers/freezable-proxy.js';
import {afterClusterHeader} from '../helpers/run-cli.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';
import {handMadeState} from '../ui/fixtures.js';

/** A follow() the test drives by hand. */
function fakeFollow() {
  let handlers: FollowHandlers | undefined;
  let stops = 0;
  return {
    follow: (h: FollowHandlers) => {
      handlers = h;
      return {stop: () => void stops++};
    },
    get handlers(): FollowHandlers {
      return handlers!;
    },
    get stops() {
      return stops;
    },
  };
}

function collect(feed: {subscribe(l: (s: DashboardSnapshot) => void): () => void}): DashboardSnapshot[] {
  const seen: DashboardSnapshot[] = [];
  feed.subscribe((s) => seen.push(s));
  return seen;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('createPlanFeed', () => {
  test('plans each state: plan, verdict, revisions; ready() resolves with the first', async () => {
    const f = fakeFollow();
    const feed = createPlanFeed({follow: f.follow, clock: clockFrom(() => NOW)});
    f.handlers.onState(handMadeState());
    const first = await feed.ready();
    expect(first.plan.daemonSet).toEqual({namespace: 'kube-system', name: 'fluentd'});
    expect(first.verdict?.verdict).toBe('stuck');
    expect(first.revisions?.map((r) => r.revision)).toEqual([1, 2]);
    expect(first.connection).toBe('live');
    feed.stop();
    expect(f.stops).toBe(1);
  });

  test('an equal state emits nothing; a different one emits; a late subscriber gets the latest', () => {
    const f = fakeFollow();
    const feed = createPlanFeed({follow: f.follow, clock: clockFrom(() => NOW)});
    const seen = collect(feed);
    f.handlers.onState(handMadeState());
    f.handlers.onState(handMadeState());
    expect(seen).toHaveLength(1);
    f.handlers.onState(handMadeState({healthy: true}));
    expect(seen).toHaveLength(2);
    expect(seen[1]!.verdict?.verdict).toBe('progressing');
    expect(collect(feed)).toEqual([seen[1]]);
  });

  test('the connection state is passed on', () => {
    const f = fakeFollow();
    const feed = createPlanFeed({follow: f.follow, clock: clockFrom(() => NOW)});
    const seen = collect(feed);
    f.handlers.onState(handMadeState());
    f.handlers.onConnection!('reconnecting');
    f.handlers.onConnection!('reconnecting');
    f.handlers.onConnection!('live');
    expect(seen.map((s) => s.connection)).toEqual(['live', 'reconnecting', 'live']);
  });

  test('a failure before the first state rejects ready() and stops following', async () => {
    const f = fakeFollow();
    const feed = createPlanFeed({follow: f.follow, clock: clockFrom(() => NOW)});
    f.handlers.onError(new NotFoundError('daemonset "fluentd" not found in namespace "kube-system"'));
    await expect(feed.ready()).rejects.toThrow('daemonset "fluentd" not found');
    expect(f.stops).toBe(1);
  });

  test('a failure while following from a synchronous follow() still stops it', async () => {
    let stops = 0;
    const feed = createPlanFeed({
      follow: (h) => {
        h.onError(new Error('forbidden'));
        return {stop: () => void stops++};
      },
      clock: clockFrom(() => NOW),
    });
    await expect(feed.ready()).rejects.toThrow('forbidden');
    expect(stops).toBe(1);
  });

  test('a failure later keeps the last plan on screen and says the watch stopped', () => {
    const f = fakeFollow();
    const feed = createPlanFeed({follow: f.follow, clock: clockFrom(() => NOW)});
    const seen = collect(feed);
    f.handlers.onState(handMadeState());
    f.handlers.onError(new Error('pods is forbidden: User "x" cannot watch resource "pods"\nmore'));
    expect(seen).toHaveLength(2);
    expect(seen[1]!.error).toBe('watch stopped: pods is forbidden: User "x" cannot watch resource "pods" (press q)');
    expect(seen[1]!.plan).toBe(seen[0]!.plan);
  });

  test('an invalid DaemonSet: refused at the start, shown as an error later', async () => {
    const state = handMadeState();
    const invalid: ClusterState = {
      ...state,
      daemonSet: {...state.daemonSet, spec: {...state.daemonSet.spec, updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: -1}}}},
    };
    const f = fakeFollow();
    const feed = createPlanFeed({follow: f.follow, clock: clockFrom(() => NOW)});
    f.handlers.onState(invalid);
    await expect(feed.ready()).rejects.toBeInstanceOf(InputError);

    const g = fakeFollow();
    const later = createPlanFeed({follow: g.follow, clock: clockFrom(() => NOW)});
    const seen = collect(later);
    g.handlers.onState(state);
    g.handlers.onState(invalid);
    expect(seen[1]!.error).toMatch(/^daemonset "kube-system\/fluentd" is invalid/i);
  });

  test('the pause record is shown through pausedOf', () => {
    const f = fakeFollow();
    const pausedOf = vi.fn((_ds: DaemonSet, desired: number) => ({by: 'ds-rollout' as const, maxUnavailable: desired, maxSurge: 0}));
    const feed = createPlanFeed({follow: f.follow, clock: clockFrom(() => NOW), pausedOf});
    const seen = collect(feed);
    f.handlers.onState(handMadeState());
    expect(seen[0]!.paused).toEqual({by: 'ds-rollout', maxUnavailable: 4, maxSurge: 0});
  });

  test('no timer while nothing waits on time: an idle dashboard costs nothing', () => {
    vi.useFakeTimers();
    const f = fakeFollow();
    const feed = createPlanFeed({follow: f.follow, clock: clockFrom(() => NOW)});
    f.handlers.onState(handMadeState());
    expect(vi.getTimerCount()).toBe(0);
    feed.stop();
  });

  test('a pod waiting out minReadySeconds: re-planned on a tick until it is available, then the timer stops', () => {
    vi.useFakeTimers();
    let now = NOW;
    const base = handMadeState({healthy: true});
    const ds: DaemonSet = {...base.daemonSet, spec: {...base.daemonSet.spec, minReadySeconds: 3}};
    // node-a's pod became ready one second ago: available in two.
    const pods: Pod[] = base.pods.map((pod) =>
      pod.spec.nodeName === 'node-a'
        ? {...pod, status: {...pod.status, conditions: [readyCondition(new Date(NOW - 1000).toISOString().replace('.000', ''))]}}
        : pod,
    );
    const f = fakeFollow();
    const feed = createPlanFeed({follow: f.follow, clock: clockFrom(() => now), tickMs: 1000});
    const seen = collect(feed);
    f.handlers.onState({...base, daemonSet: ds, pods});
    const nodeA = (s: DashboardSnapshot) => s.plan.nodes.find((n) => n.name === 'node-a')!.state;
    expect(nodeA(seen[0]!)).toBe('updating');
    expect(vi.getTimerCount()).toBe(1);
    now += 1000;
    vi.advanceTimersByTime(1000);
    expect(nodeA(seen[seen.length - 1]!)).toBe('updating');
    now += 1000;
    vi.advanceTimersByTime(1000);
    expect(nodeA(seen[seen.length - 1]!)).toBe('updated');
    expect(vi.getTimerCount()).toBe(0);
    feed.stop();
  });

  test("a tick asks the server's clock again: a pod available by the server's time is shown so", async () => {
    vi.useFakeTimers();
    // The server's clock runs ahead of the estimate between answers (a faster simulated cluster); refresh() asks it.
    let server = NOW;
    let estimate = NOW;
    const clock = {now: () => estimate, refresh: async () => void (estimate = server)};
    const base = handMadeState({healthy: true});
    const ds: DaemonSet = {...base.daemonSet, spec: {...base.daemonSet.spec, minReadySeconds: 3}};
    const pods: Pod[] = base.pods.map((pod) =>
      pod.spec.nodeName === 'node-a' ? {...pod, status: {...pod.status, conditions: [readyCondition(new Date(NOW).toISOString().replace('.000', ''))]}} : pod,
    );
    const f = fakeFollow();
    const feed = createPlanFeed({follow: f.follow, clock, tickMs: 1000});
    const seen = collect(feed);
    f.handlers.onState({...base, daemonSet: ds, pods});
    const nodeA = (s: DashboardSnapshot) => s.plan.nodes.find((n) => n.name === 'node-a')!.state;
    expect(nodeA(seen.at(-1)!)).toBe('updating');
    server += 10_000;
    await vi.advanceTimersByTimeAsync(1000);
    expect(nodeA(seen.at(-1)!)).toBe('updated');
    feed.stop();
  });
});

describe('shouldStartInk', () => {
  const tty = {isTTY: true} as NodeJS.WriteStream & NodeJS.ReadStream;
  const pipe = {isTTY: false} as NodeJS.WriteStream & NodeJS.ReadStream;
  test.each([
    {name: 'a terminal', output: 'text' as const, stdout: tty, stdin: tty, env: {}, want: true},
    {name: 'stdout piped', output: 'text' as const, stdout: pipe, stdin: tty, env: {}, want: false},
    {name: 'stdin not a terminal', output: 'text' as const, stdout: tty, stdin: pipe, env: {}, want: false},
    {name: 'CI set', output: 'text' as const, stdout: tty, stdin: tty, env: {CI: 'true'}, want: false},
    {name: 'CI=false', output: 'text' as const, stdout: tty, stdin: tty, env: {CI: 'false'}, want: true},
    {name: '-o json', output: 'json' as const, stdout: tty, stdin: tty, env: {}, want: false},
    {name: '-o yaml', output: 'yaml' as const, stdout: tty, stdin: tty, env: {}, want: false},
  ])('$name -> $want', ({want, ...options}) => {
    expect(shouldStartInk(options)).toBe(want);
  });
});

describe('against the simulated demo cluster', () => {
  let t: TestCluster;
  const ref = {namespace: 'kube-system', name: 'fluentd'};

  beforeAll(async () => {
    t = await startTestCluster({scenario: 'demo', namespace: 'kube-system'});
  });

  afterAll(async () => {
    await t.stop();
  });

  function output(): {stream: NodeJS.WriteStream; text(): string} {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream;
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    return {stream, text: () => text};
  }

  test("without a terminal: status's output once (the cluster named first), with status exit codes", async () => {
    const out = output();
    const code = await dashboardService({
      name: 'fluentd',
      namespace: 'kube-system',
      kubeconfig: t.kubeconfig,
      readonly: false,
      watch: false,
      output: 'text',
      stdout: out.stream,
      stdin: new PassThrough() as unknown as NodeJS.ReadStream,
      env: {},
    });
    expect(code).toBe(4);
    expect(afterClusterHeader(out.text(), t.cluster.url)).toMatch(
      /^Waiting for daemon set "fluentd" rollout to finish: 6 out of 18 new pods have been updated\.\.\.\nRollout in progress/,
    );
  });

  test('-o json: the status report', async () => {
    const out = output();
    await dashboardService({
      name: 'fluentd',
      namespace: 'kube-system',
      kubeconfig: t.kubeconfig,
      readonly: false,
      watch: false,
      output: 'json',
      stdout: out.stream,
      stdin: new PassThrough() as unknown as NodeJS.ReadStream,
      env: {},
    });
    expect(JSON.parse(out.text())).toMatchObject({kind: 'DaemonSetRolloutStatus', verdict: 'progressing'});
  });

  test('pause records the strategy and the feed shows it; resume restores it', async () => {
    const live = connectLiveCluster({kubeconfig: t.kubeconfig});
    const actions = clusterActions({source: live.source, writer: live.writer, ref, clock: clockFrom(() => t.clock!.now())});
    expect((await actions.pause()).message).toBe('paused: no more old pods are replaced; maxUnavailable 2, maxSurge 0 recorded for resume');
    const ds = t.cluster.store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet;
    expect(ds.spec.updateStrategy?.type).toBe('OnDelete');
    const feed = createPlanFeed({follow: (handlers) => live.watch(ref, handlers), clock: clockFrom(() => t.clock!.now())});
    const paused = await feed.ready();
    feed.stop();
    expect(paused.paused).toEqual({by: 'ds-rollout', maxUnavailable: 2, maxSurge: 0, pausedAt: '2026-11-21T12:00:00Z', steps: 0});
    expect((await actions.pause()).message).toBe('already paused (since 2026-11-21T12:00:00Z)');
    expect((await actions.resume()).message).toBe('resumed: RollingUpdate with maxUnavailable 2, maxSurge 0; the controller carries on');
    await expect(actions.resume()).rejects.toThrow(/not paused/);
    expect((t.cluster.store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet).spec.updateStrategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: {maxUnavailable: 2, maxSurge: 0},
    });
  });

  test('step needs the live cluster parts', async () => {
    const live = connectLiveCluster({kubeconfig: t.kubeconfig});
    const actions = clusterActions({source: live.source, writer: live.writer, ref, clock: clockFrom(() => t.clock!.now())});
    await expect(actions.step()).rejects.toThrow('step needs a live cluster');
  });

  test('undo: the preview (diff, restarts, renumbering), then the rollback', async () => {
    const live = connectLiveCluster({kubeconfig: t.kubeconfig});
    const actions = clusterActions({
      source: live.source,
      writer: live.writer,
      ref,
      clock: clockFrom(() => t.clock!.now()),
      follow: (handlers) => live.watch(ref, handlers),
    });
    const preview = await actions.undo({preview: true});
    expect(preview.message).toBe('6 nodes restart their daemon pods; the controller renumbers it 3.');
    expect(preview.diff).toEqual([
      'images:',
      '-  fluentd: fluent/fluentd:v1.17.0',
      '+  fluentd: fluent/fluentd:v1.16.2',
      'template:',
      '  (unchanged apart from images)',
    ]);
    // The controller moves once the rollback is in (a sync racing the patch would make it a conflict retried).
    const generation = t.cluster.store.get('daemonsets', 'kube-system', 'fluentd')!.metadata.generation;
    const patched = () => t.cluster.store.get('daemonsets', 'kube-system', 'fluentd')!.metadata.generation !== generation;
    const done = await t.driveUntil(actions.undo({preview: false}), {when: patched});
    expect(done.message).toBe('rolled back to revision 1; the controller renumbers it 3');
    const ds = t.cluster.store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet;
    expect(ds.spec.template.spec.containers[0]!.image).toBe('fluent/fluentd:v1.16.2');
    await expect(actions.undo({preview: true, toRevision: 4})).rejects.toThrow('unable to find specified revision 4 in history');
  });
});

describe('step against a simulated cluster that runs on its own (20x)', () => {
  let t: TestCluster;
  const ref = {namespace: 'kube-system', name: 'fluentd'};

  beforeAll(async () => {
    t = await startTestCluster({scenario: 'demo', namespace: 'kube-system', speed: 20});
  });

  afterAll(async () => {
    await t.stop();
  });

  test('pause, then s replaces one wave and reports its progress, then resume', async () => {
    const live = connectLiveCluster({kubeconfig: t.kubeconfig});
    const actions = clusterActions({
      source: live.source,
      writer: live.writer,
      ref,
      clock: liveClock(live),
      session: liveSession(live),
      // A guard for a wave that never lands, not a speed check: at 20x the wave lands in a few seconds.
      stepTimeoutMs: 60_000,
    });
    await actions.pause();
    const progress: string[] = [];
    const outcome = await actions.step((line) => progress.push(line));
    // One or two pods, as much of maxUnavailable 2 as the pods still starting leave.
    expect(outcome.message).toMatch(/^wave 1 landed in \d+s: replaced [12] pods? \(worker-\d+(, worker-\d+)?\); \d+ nodes still run old pods$/);
    // It may first wait for budget ("No old pod can go yet: ..."), then says what the wave deletes.
    expect(progress).toContainEqual(expect.stringMatching(/^Wave 1\/~\d+: delete [12] old pods? of daemonset kube-system\/fluentd/));
    expect(progress).toContainEqual(expect.stringMatching(/^deleted pod fluentd-\w+ on worker-\d+$/));
    expect(progress[progress.length - 1]).toMatch(/^Wave 1 landed in/);
    expect((await actions.resume()).message).toMatch(/^resumed/);
  });
});

describe('the live feed over the watches', () => {
  // The simulated cluster answers in this process, which a busy shared machine may stall for a while: a request
  // timeout of a few hundred ms would be missed by requests that must succeed (the first lists, the re-lists after
  // the thaw), and the cluster would then look frozen when it is only slow. 2 s tells a frozen cluster from a slow
  // one here; the feed notices a freeze within about 1.5 times that (a probe after half of it, then its timeout).
  const REQUEST_TIMEOUT_MS = 2_000;
  /** Guards for a test that hangs, not speed checks: each wait ends as soon as its event is seen. */
  const EVENT_BOUND_MS = 60_000;
  let t: TestCluster;
  const ref = {namespace: 'kube-system', name: 'fluentd'};

  beforeAll(async () => {
    t = await startTestCluster({scenario: 'demo', namespace: 'kube-system'});
  });

  afterAll(async () => {
    await t.stop();
  });

  test('a dropped watch that cannot resume shows "reconnecting", then "live" once it follows again', async () => {
    const live = connectLiveCluster({kubeconfig: t.kubeconfig});
    const feed = createPlanFeed({follow: (handlers) => live.watch(ref, handlers), clock: clockFrom(() => t.clock!.now())});
    await feed.ready();
    const connections: string[] = [];
    feed.subscribe((s) => connections.push(s.connection));
    // Every pod request now fails; then every open stream ends (the server's registry, reached from the test only).
    const undo = t.cluster.injectFaults({rate: 1, codes: [500], match: {resource: 'pods'}});
    (t.cluster.server as unknown as {watches: {closeAll(): void}}).watches.closeAll();
    await vi.waitFor(() => expect(connections).toContain('reconnecting'), {timeout: EVENT_BOUND_MS});
    undo();
    await vi.waitFor(() => expect(connections[connections.length - 1]).toBe('live'), {timeout: EVENT_BOUND_MS});
    feed.stop();
  });
  test('a cluster that freezes: the feed says so in one line and keeps trying; thawed, the line goes and changes flow again', async () => {
    const proxy = await startFreezableProxy(t.cluster.url);
    const live = connectLiveCluster({kubeconfig: await proxy.kubeconfigFor(t.kubeconfig, join(t.dir, 'proxied')), timeoutMs: REQUEST_TIMEOUT_MS});
    const feed = createPlanFeed({follow: (handlers) => live.watch(ref, handlers), clock: clockFrom(() => t.clock!.now())});
    try {
      await feed.ready();
      const seen = collect(feed);
      proxy.freeze();
      await vi.waitFor(() => expect(seen.at(-1)?.error).toBeDefined(), {timeout: EVENT_BOUND_MS});
      expect(seen.at(-1)).toMatchObject({
        connection: 'reconnecting',
        error: `cannot reach the cluster at ${proxy.url}: no answer within ${REQUEST_TIMEOUT_MS / 1000}s (--request-timeout); the watch streams were silent too; still trying`,
      });
      proxy.thaw();
      await vi.waitFor(() => expect(seen.at(-1)).toMatchObject({connection: 'live'}), {timeout: EVENT_BOUND_MS});
      expect(seen.at(-1)?.error).toBeUndefined();
      // Still following: a change made now shows up.
      t.cluster.store.modify('daemonsets', 'kube-system', 'fluentd', (ds) => {
        const spec = (ds as DaemonSet).spec;
        return {...ds, spec: {...spec, updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 7, maxSurge: 0}}}};
      });
      await vi.waitFor(() => expect(seen.at(-1)?.plan.strategy.maxUnavailable).toBe(7), {timeout: EVENT_BOUND_MS});
    } finally {
      feed.stop();
      await proxy.close();
    }
  });
});

describe('one verdict for one state and one clock, whichever face shows it', () => {
  test('status and the dashboard count the same waves: one plan, timed by the pods the cluster shows', async () => {
    const {statusService} = await import('../../src/services/status.js');
    const {scenarioState} = await import('../ui/fixtures.js');
    // The demo's rollout takes 24 syncs: the pod it deletes on the NotReady worker stays terminating and holds the budget.
    const state = scenarioState('demo');
    const source = {readState: async () => state, readSurroundings: async () => ({nodes: [], pods: [], revisions: []})} as never;
    const report = await statusService({source, clock: fixedClock(NOW)}, {ref: {namespace: 'kube-system', name: 'fluentd'}});
    const g = fakeFollow();
    const feed = createPlanFeed({follow: g.follow, clock: fixedClock(NOW)});
    g.handlers.onState(state);
    const snapshot = await feed.ready();
    feed.stop();
    const syncs = snapshot.plan.waves.length;
    expect(syncs).toBe(24);
    expect(report.inFlight.find((item) => item.kind === 'next-sync')?.message).toContain(`(${syncs} syncs planned)`);
    const waveOf = new Map(snapshot.plan.nodes.map((node) => [node.name, node.wave]));
    for (const node of report.nodes) expect({node: node.name, wave: node.wave}).toEqual({node: node.name, wave: waveOf.get(node.name)});
  });

  test.each([
    {name: 'stuck', state: () => handMadeState()},
    {name: 'healthy', state: () => handMadeState({healthy: true})},
  ])('$name: status, status --watch, the dashboard feed and the TTY view model agree', async ({state}) => {
    const {runStatus} = await import('../../src/services/status.js');
    const {toDashboardViewModel} = await import('../../src/ui/dashboard/view-model.js');
    const {initialDashboardState} = await import('../../src/ui/dashboard/dashboard-state.js');
    const source = {readState: async () => state(), readSurroundings: async () => ({nodes: [], pods: [], revisions: []})} as never;
    const ref = {namespace: 'kube-system', name: 'fluentd'};
    const once = await runStatus({source, clock: fixedClock(NOW), follow: () => fakeFollow().follow}, {ref});
    const f = fakeFollow();
    const watched = runStatus({source, clock: fixedClock(NOW), follow: () => f.follow}, {ref, watch: true, stuckAfterMs: 0, timeoutMs: 50});
    f.handlers.onState(state());
    const watch = await watched;
    const g = fakeFollow();
    const feed = createPlanFeed({follow: g.follow, clock: clockFrom(() => NOW)});
    g.handlers.onState(state());
    const snapshot = await feed.ready();
    feed.stop();
    const vm = toDashboardViewModel(
      {...snapshot, context: {name: 'fluentd', namespace: 'kube-system', kubeContext: 'test'}},
      initialDashboardState(),
      {columns: 160, rows: 48},
      NOW,
    );
    expect(watch.report.verdict).toBe(once.report.verdict);
    expect(snapshot.verdict?.verdict).toBe(once.report.verdict);
    const shown = vm.header.lines
      .flat()
      .map((segment) => segment.text)
      .join('');
    expect(shown).toContain(
      once.report.verdict === 'stuck' ? 'rollout stuck' : once.report.verdict === 'complete' ? 'rollout complete' : 'rollout in progress',
    );
  });
});
