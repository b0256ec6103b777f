// `ds-rollout sim start`: a simulated cluster in this process, with its agents and a scenario, and a
// kubeconfig that points kubectl (and this plugin) at it.
import {mkdtemp, readdir, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {readSnapshot} from '../cluster/snapshot/index.js';
import {InputError, UsageError} from '../platform/errors.js';
import {
  type ExecImage,
  parseExecImage,
  RealClock,
  SCENARIOS,
  startSimulatedCluster,
  StatusError,
  type FailureMode,
  type FailureRule,
  type ScenarioName,
  type SimulatedCluster,
} from '../sim/index.js';

export interface SimStartOptions {
  readonly scenario: string;
  /** A dump of a real cluster to load instead of the scenario (`-`: stdin). */
  readonly snapshot?: string;
  readonly nodes?: number;
  readonly port?: number;
  /** Where to write the kubeconfig; default: a file in the temp directory named after the port. One there is merged into. */
  readonly kubeconfig?: string;
  /** The kubeconfig's context (and cluster and user) name; default `ds-rollout-sim`. */
  readonly contextName?: string;
  /** Simulated seconds per real second. */
  readonly speed: number;
  readonly failImage?: string;
  readonly failNode?: string;
  readonly failMode?: string;
  /** HTTPS with the admin token (default); false: plain http that authenticates nobody. */
  readonly tls?: boolean;
  /** `IMAGE=COMMAND` (--exec-image): pods of IMAGE run COMMAND here (a detached rollout's Job, its image this plugin's). */
  readonly execImages?: readonly string[];
  /** This plugin as a pod runs it: pods of its release image run it (so `step --detach` works with no --image). */
  readonly plugin?: ExecImage;
}

export interface RunningSim {
  readonly cluster: SimulatedCluster;
  readonly kubeconfigPath: string;
  readonly description: string;
  readonly focus?: {readonly namespace: string; readonly name: string};
  stop(): Promise<void>;
}

const FAILURE_MODES: readonly FailureMode[] = ['crash', 'image-pull', 'never-ready', 'errors', 'node-not-ready', 'network-unavailable', 'break-neighbours'];

/** The failure rule of --fail-image, --fail-node and --fail-mode (default crash), as `sim start` and `sim kubelets` take them. */
export function failureRules(options: Pick<SimStartOptions, 'failImage' | 'failNode' | 'failMode'>): FailureRule[] {
  const mode = (options.failMode ?? 'crash') as FailureMode;
  if (!FAILURE_MODES.includes(mode)) throw new InputError(`invalid --fail-mode "${options.failMode}" (have: ${FAILURE_MODES.join(', ')})`);
  return options.failImage !== undefined || options.failNode !== undefined
    ? [{...(options.failImage !== undefined ? {image: options.failImage} : {}), ...(options.failNode !== undefined ? {node: options.failNode} : {}), mode}]
    : [];
}

export async function startSim(options: SimStartOptions): Promise<RunningSim> {
  if (!(SCENARIOS as readonly string[]).includes(options.scenario)) {
    throw new InputError(`unknown scenario "${options.scenario}" (have: ${SCENARIOS.join(', ')})`);
  }
  if (!(options.speed > 0) || !Number.isFinite(options.speed)) throw new InputError(`invalid --speed ${options.speed}: want a positive number`);
  if (options.nodes !== undefined && (!Number.isInteger(options.nodes) || options.nodes < 1 || options.nodes > 50_000)) {
    throw new InputError(`invalid --nodes ${options.nodes}: want 1 to 50000`);
  }
  if (options.snapshot !== undefined && options.nodes !== undefined)
    throw new UsageError('--nodes and --snapshot cannot be combined: the snapshot has its own nodes');
  const failures = failureRules(options);
  if (options.contextName !== undefined) checkContextName(options.contextName);

  let images: ExecImage[];
  try {
    images = [...(options.execImages ?? []).map(parseExecImage), ...(options.plugin ? [options.plugin] : [])];
  } catch (error) {
    throw new InputError((error as Error).message);
  }
  const snapshot = options.snapshot !== undefined ? (await readSnapshot(options.snapshot)).objects : undefined;
  // One directory per exec pod (its token files and output), gone with the cluster.
  const execDir = images.length > 0 ? await mkdtemp(join(tmpdir(), 'ds-rollout-exec-')) : undefined;

  let cluster: SimulatedCluster;
  try {
    cluster = await startSimulatedCluster({
      ...(options.port !== undefined ? {port: options.port} : {}),
      clock: new RealClock({speed: options.speed}),
      agents: true,
      tls: options.tls ?? true,
      kubelet: {failures},
      ...(execDir !== undefined ? {exec: {images, dir: execDir}} : {}),
      ...(snapshot ? {snapshot} : {scenario: options.scenario as ScenarioName}),
      ...(options.nodes !== undefined ? {scenarioOptions: {nodes: options.nodes}} : {}),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES')
      throw new InputError(`cannot listen on port ${options.port}: ${code === 'EADDRINUSE' ? 'already in use' : 'permission denied'}`);
    // An object of the snapshot the simulated API server does not admit: its answer, as the API server words it.
    if (options.snapshot !== undefined && error instanceof StatusError)
      throw new InputError(`snapshot ${options.snapshot === '-' ? '<stdin>' : `"${options.snapshot}"`}: ${error.message}`, {cause: error});
    throw error;
  }
  const port = new URL(cluster.url).port;
  const kubeconfigPath = options.kubeconfig ?? join(tmpdir(), `ds-rollout-sim-${port}.kubeconfig`);
  const entries = {namespace: cluster.scenario?.focus?.namespace ?? 'default', ...(options.contextName !== undefined ? {context: options.contextName} : {})};
  try {
    // A kubeconfig the user named is merged into (several clusters, one file: a fleet); ours is written afresh.
    if (options.kubeconfig === undefined) await cluster.writeKubeconfig(kubeconfigPath, entries);
    else await cluster.mergeKubeconfig(kubeconfigPath, entries);
  } catch (error) {
    await cluster.stop();
    if (execDir !== undefined) await rm(execDir, {recursive: true, force: true});
    throw new InputError(`cannot write the kubeconfig ${kubeconfigPath}: ${(error as Error).message}`, {cause: error});
  }
  return {
    cluster,
    kubeconfigPath,
    description: cluster.scenario?.description ?? '',
    ...(cluster.scenario?.focus ? {focus: cluster.scenario.focus} : {}),
    async stop() {
      await cluster.stop();
      if (execDir !== undefined) await rm(execDir, {recursive: true, force: true});
      // A kubeconfig we chose points at a port that is now closed; one the user named is theirs to keep.
      if (options.kubeconfig === undefined) await rm(kubeconfigPath, {force: true});
    },
  };
}

/**
 * A simulated cluster started with `sim start --detach`, recorded beside its kubeconfig so that `sim stop` finds it
 * again by name or port from any shell.
 */
export interface DetachedSim {
  readonly name: string;
  readonly pid: number;
  readonly port: number;
  readonly url: string;
  readonly kubeconfig: string;
}

const RECORD_FILE = /^ds-rollout-sim-\d+\.json$/;

/** Where a detached cluster on `port` is recorded (the temp directory, as the default kubeconfig). */
export function detachedRecordPath(port: number): string {
  return join(tmpdir(), `ds-rollout-sim-${port}.json`);
}

/** Where a detached cluster named `name` writes its output (what it would print in the foreground, and its errors). */
export function detachedLogPath(name: string): string {
  return join(tmpdir(), `ds-rollout-sim-${name}.log`);
}

/** A kubeconfig name of the context, cluster and user (--context-name): what `--context NAME` and `--contexts` can say. */
export function checkContextName(name: string): string {
  if (!/^[A-Za-z0-9]([-A-Za-z0-9_.@]{0,62}[A-Za-z0-9])?$/.test(name)) {
    throw new InputError(`invalid --context-name "${name.slice(0, 64)}": want letters, digits, "-", "_", "." or "@" (at most 64), as in prod-eu`);
  }
  return name;
}

/** Names a detached cluster may take: they become file names and arguments of `sim stop`. */
export function checkSimName(name: string): string {
  if (!/^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/.test(name) || /^\d+$/.test(name)) {
    throw new InputError(`invalid --name "${name.slice(0, 40)}": want lowercase letters, digits and "-", not only digits (a port)`);
  }
  return name;
}

export async function writeDetachedRecord(sim: DetachedSim): Promise<void> {
  await writeFile(detachedRecordPath(sim.port), `${JSON.stringify(sim)}\n`, {mode: 0o600});
}

export async function removeDetachedRecord(port: number): Promise<void> {
  await rm(detachedRecordPath(port), {force: true});
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The detached clusters still running; the records of ones that died (kill -9, a reboot) are removed. */
export async function detachedSims(): Promise<DetachedSim[]> {
  const found: DetachedSim[] = [];
  for (const file of (await readdir(tmpdir())).filter((name) => RECORD_FILE.test(name))) {
    let sim: DetachedSim;
    try {
      sim = JSON.parse(await readFile(join(tmpdir(), file), 'utf8')) as DetachedSim;
    } catch {
      continue;
    }
    if (Number.isInteger(sim.pid) && sim.pid > 0 && alive(sim.pid)) found.push(sim);
    else await rm(join(tmpdir(), file), {force: true});
  }
  return found.sort((x, y) => x.port - y.port);
}

/** The one detached cluster `which` names (its name or port); without `which`, the only one running. */
export async function findDetachedSim(which: string | undefined): Promise<DetachedSim> {
  const running = await detachedSims();
  const list = running.map((sim) => `${sim.name} (port ${sim.port})`).join(', ');
  if (which === undefined) {
    if (running.length === 1) return running[0]!;
    throw new InputError(
      running.length === 0 ? 'no simulated cluster started with --detach is running' : `several simulated clusters are running: name one (${list})`,
    );
  }
  const match = running.filter((sim) => sim.name === which || String(sim.port) === which);
  if (match.length === 1) return match[0]!;
  if (match.length === 0) {
    throw new InputError(`no simulated cluster "${which.slice(0, 40)}" is running${running.length > 0 ? ` (running: ${list})` : ''}`);
  }
  throw new InputError(`several simulated clusters are named "${which}": name one by its port (${list})`);
}

/** Stops a detached cluster (SIGTERM: it stops as on Ctrl-C, removing its record) and waits until it has exited. */
export async function stopDetachedSim(sim: DetachedSim, pollMs = 100): Promise<void> {
  process.kill(sim.pid, 'SIGTERM');
  // A guard against a cluster that never exits, not a deadline for one that does: stopping takes well under a second.
  for (let waited = 0; alive(sim.pid); waited += pollMs) {
    if (waited > 60_000) throw new InputError(`simulated cluster "${sim.name}" (pid ${sim.pid}) did not stop within a minute`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  await removeDetachedRecord(sim.port);
}
