// `ds-rollout sim start`: a simulated cluster in this process, with its agents and a scenario, and a
// kubeconfig that points kubectl (and this plugin) at it.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {readSnapshot} from '../cluster/snapshot/index.js';
import {InputError, UsageError} from '../errors.js';
import {
  type ExecImage,
  parseExecImage,
  RealClock,
  SCENARIOS,
  startSimulatedCluster,
  type FailureMode,
  type ScenarioName,
  type SimulatedCluster,
} from '../sim/index.js';

export interface SimStartOptions {
  readonly scenario: string;
  /** A dump of a real cluster to load instead of the scenario (`-`: stdin). */
  readonly snapshot?: string;
  readonly nodes?: number;
  readonly port?: number;
  /** Where to write the kubeconfig; default: a file in the temp directory named after the port. */
  readonly kubeconfig?: string;
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

const FAILURE_MODES: readonly FailureMode[] = ['crash', 'image-pull', 'never-ready'];

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
  const mode = (options.failMode ?? 'crash') as FailureMode;
  if (!FAILURE_MODES.includes(mode)) throw new InputError(`invalid --fail-mode "${options.failMode}" (have: ${FAILURE_MODES.join(', ')})`);
  const failures =
    options.failImage !== undefined || options.failNode !== undefined
      ? [{...(options.failImage !== undefined ? {image: options.failImage} : {}), ...(options.failNode !== undefined ? {node: options.failNode} : {}), mode}]
      : [];

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
    throw error;
  }
  const port = new URL(cluster.url).port;
  const kubeconfigPath = options.kubeconfig ?? join(tmpdir(), `ds-rollout-sim-${port}.kubeconfig`);
  await cluster.writeKubeconfig(kubeconfigPath, {namespace: cluster.scenario?.focus?.namespace ?? 'default'});
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
