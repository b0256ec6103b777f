// The dashboard's composition root: opens the session, wires the plan feed and the key actions (services/dashboard.ts)
// to Ink in a terminal, or, anywhere else, runs `status`'s service and prints its output (once, or streamed with
// --watch). Ink, React and the UI load only when a terminal will show them.
import type {ReactElement} from 'react';
import {clusterActions, createPlanFeed, READ_ONLY_ACTIONS} from '../services/dashboard.js';
import type {ActionHandler} from '../services/dashboard/feed.js';
import type {DaemonSetRef} from '../cluster/cluster-source.js';
import type {LiveSession} from '../cluster/session.js';
import type * as LiveObjects from '../cluster/live/objects.js';
import type * as PodWatch from '../cluster/live/pod-watch.js';
import {runStatus} from '../services/status.js';
import {InputError} from '../platform/errors.js';

export interface DashboardOptions {
  readonly name: string;
  readonly namespace?: string;
  readonly context?: string;
  readonly kubeconfig?: string;
  readonly snapshot?: string;
  readonly 'request-timeout'?: number;
  readonly readonly: boolean;
  readonly watch: boolean;
  readonly output: 'text' | 'json' | 'yaml';
  readonly stdout: NodeJS.WriteStream;
  /** Where a watch that ends short of complete says why (as `status` does); default: nowhere. */
  readonly stderr?: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadStream;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Ink only where a person can use it: a terminal on both ends, not CI, text output. */
export function shouldStartInk(options: Pick<DashboardOptions, 'output' | 'stdout' | 'stdin' | 'env'>): boolean {
  const ci = options.env.CI !== undefined && options.env.CI !== '' && options.env.CI !== 'false' && options.env.CI !== '0';
  return options.output === 'text' && options.stdout.isTTY === true && options.stdin.isTTY === true && !ci;
}

/** Runs the dashboard (or its plain fallback) and returns the exit code. */
export async function dashboardService(options: DashboardOptions): Promise<number> {
  if (!shouldStartInk(options)) return plainStatus(options);
  return interactiveDashboard(options);
}

/** `ds-rollout status` as it prints: the same service, the same printer; once, or with --watch every change until it ends. */
async function plainStatus(options: DashboardOptions): Promise<number> {
  if (options.watch && options.snapshot !== undefined) throw new InputError('--watch follows a live cluster; it cannot be used with --snapshot');
  const [{openSession}, {colorEnabled}, {clusterHeader}, {StatusOutput}] = await Promise.all([
    import('../cluster/session.js'),
    import('../output/color.js'),
    import('../output/format.js'),
    import('./status-output.js'),
  ]);
  const session = await openSession(options);
  const ref = {namespace: session.namespace, name: options.name};
  const header = session.label === undefined ? undefined : clusterHeader(session.label);
  const out = new StatusOutput(header, options.output, colorEnabled(options.stdout.isTTY, options.env), {
    stdout: options.stdout,
    ...(options.stderr ? {stderr: options.stderr} : {}),
  });
  const {report, exitCode, failure} = await runStatus(session, {ref, watch: options.watch, onReport: await out.progress()}).finally(() => session.close());
  await out.report(report, {watch: options.watch, allNodes: false});
  await out.finish(report, failure);
  return exitCode;
}

const ENTER_ALTERNATE_SCREEN = '\u001B[?1049h\u001B[H';
const LEAVE_ALTERNATE_SCREEN = '\u001B[?1049l';

/** The live adapter's parts the keys' actions use, loaded once (so a cluster's actions can be made on the spot). */
export interface LiveModules {
  readonly objects: typeof LiveObjects;
  readonly podWatch: typeof PodWatch;
}

export async function loadLiveModules(): Promise<LiveModules> {
  const [objects, podWatch] = await Promise.all([import('../cluster/live/objects.js'), import('../cluster/live/pod-watch.js')]);
  return {objects, podWatch};
}

/** The keys of one live cluster's screen: the same services as the commands, stopped at a safe point by `signal`. */
export function liveClusterActions(session: LiveSession, ref: DaemonSetRef, signal: AbortSignal, modules: LiveModules): ActionHandler {
  const {source, live, clock} = session;
  return clusterActions({
    source,
    writer: live.writer,
    ref,
    clock,
    session: {source, live, writer: live.writer, clock},
    follow: session.follow(ref),
    signal,
    events: modules.objects.liveEventSink(live),
    neighbours: () => modules.podWatch.followAllPods(live.client),
  });
}

/** Draws `element` on the alternate screen until the user quits; `cleanup` runs however it ends. */
export async function runFullScreen(options: Pick<DashboardOptions, 'stdout' | 'stdin'>, element: ReactElement, cleanup: () => void): Promise<void> {
  const {render} = await import('ink');
  options.stdout.write(ENTER_ALTERNATE_SCREEN);
  try {
    const app = render(element, {stdout: options.stdout, stdin: options.stdin, exitOnCtrlC: false, maxFps: 10});
    await app.waitUntilExit();
  } finally {
    cleanup();
    options.stdout.write(LEAVE_ALTERNATE_SCREEN);
  }
}

/** React reads NODE_ENV once, when it is first imported: the development build is several times slower. */
export function preferProductionReact(): void {
  process.env.NODE_ENV ??= 'production';
}

async function interactiveDashboard(options: DashboardOptions): Promise<number> {
  const {openSession} = await import('../cluster/session.js');
  const session = await openSession(options);
  const {namespace, live} = session;
  const ref = {namespace, name: options.name};
  const feed = createPlanFeed({follow: session.follow(ref), clock: session.clock});
  try {
    await feed.ready();
  } catch (error) {
    feed.stop();
    session.close();
    throw error;
  }

  preferProductionReact();
  const [{default: React}, {Dashboard}, {themeFor}] = await Promise.all([
    import('react'),
    import('../ui/dashboard/Dashboard.js'),
    import('../ui/dashboard/theme.js'),
  ]);
  const readonly = options.readonly || live === undefined;
  const closing = new AbortController();
  const actions = readonly ? READ_ONLY_ACTIONS : liveClusterActions(session as LiveSession, ref, closing.signal, await loadLiveModules());
  const context = {name: options.name, namespace, kubeContext: live?.context ?? `snapshot ${options.snapshot}`, ...(live ? {server: live.server} : {})};

  await runFullScreen(
    options,
    React.createElement(Dashboard, {feed, actions, context, readonly, theme: themeFor(options.env), clusterNow: () => session.clock.now()}),
    () => {
      // A step still running stops at its next safe point; the DaemonSet stays paused.
      closing.abort();
      feed.stop();
      session.close();
    },
  );
  return 0;
}
