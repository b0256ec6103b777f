// Starts the real control plane (scripts/real-cluster) and the kubelet agent for an e2e suite, and runs
// the built plugin binaries through kubectl against it.
import {execFile, execFileSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join, resolve} from 'node:path';
import {CoreV1Api, KubeConfig, Watch, type V1DaemonSet, type V1Pod} from '@kubernetes/client-node';
import {KubeletAgent, type KubeletAgentOptions} from '../../src/sim/kubelet-agent.js';
import type {ExecImage} from '../../src/sim/exec-image.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SCRIPTS = join(ROOT, 'scripts/real-cluster');

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ControlPlane {
  readonly kubeconfig: string;
  readonly agent: KubeletAgent;
  /** kubectl (and so the plugins, found on PATH in bin/) against the control plane. */
  kubectl(args: readonly string[], input?: string): Promise<RunResult>;
  /** Stops (SIGSTOP) or continues (SIGCONT) kube-controller-manager: while stopped, no controller syncs. */
  freezeController(frozen: boolean): void;
  /** The API server's audit log of pod creations and deletions (scripts/real-cluster/up.sh's policy), oldest first. */
  podAudit(): AuditEvent[];
  stop(): void;
}

export interface AuditEvent {
  readonly auditID: string;
  readonly verb: string;
  readonly userAgent?: string;
  readonly objectRef?: {readonly resource?: string; readonly namespace?: string; readonly name?: string};
  readonly responseStatus?: {readonly code?: number};
  readonly stage: string;
}

export async function startControlPlane(
  agentOptions: Omit<KubeletAgentOptions, 'nodes' | 'exec' | 'leaseDurationSeconds'> & {
    nodes: number;
    execImages?: readonly ExecImage[];
    /**
     * kube-controller-manager's --node-monitor-grace-period, and the agent's Lease duration (renewed every quarter
     * of it): how soon the node lifecycle controller takes a node that stopped reporting as Unknown. Default 40.
     */
    nodeGraceSeconds?: number;
  },
): Promise<ControlPlane> {
  const bin = execFileSync(join(SCRIPTS, 'build.sh'), {encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit']})
    .trim()
    .split('\n')
    .at(-1)!;
  const state = mkdtempSync(join(tmpdir(), 'ds-rollout-e2e-'));
  let agent: KubeletAgent | undefined;
  const stop = () => {
    agent?.stop();
    execFileSync(join(SCRIPTS, 'down.sh'), [state], {stdio: 'inherit'});
    rmSync(state, {recursive: true, force: true});
  };
  try {
    const {execImages, nodeGraceSeconds, ...kubeletOptions} = agentOptions;
    const grace = nodeGraceSeconds === undefined ? {} : {NODE_MONITOR_GRACE_PERIOD: `${nodeGraceSeconds}s`};
    const kubeconfig = execFileSync(join(SCRIPTS, 'up.sh'), [state, bin], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {...process.env, ...grace},
    })
      .trim()
      .split('\n')
      .at(-1)!;
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const nodes = Array.from({length: agentOptions.nodes}, (_, i) => `node-${String(i + 1).padStart(2, '0')}`);
    // Pods of these images run as local processes that reach the API server as pods do (sim kubelets --exec-image).
    const server = new URL(kc.getCurrentCluster()!.server);
    const exec = execImages
      ? {
          images: execImages,
          host: server.hostname,
          port: server.port,
          caCert: Buffer.from(kc.getCurrentCluster()!.caData ?? '', 'base64').toString('utf8'),
          dir: join(state, 'exec'),
        }
      : undefined;
    agent = new KubeletAgent(kc, {
      ...kubeletOptions,
      nodes,
      ...(exec ? {exec} : {}),
      ...(nodeGraceSeconds !== undefined ? {leaseDurationSeconds: nodeGraceSeconds} : {}),
    });
    await agent.start();
    const env = {
      ...process.env,
      PATH: `${join(ROOT, 'bin')}:${process.env.PATH ?? ''}`,
      KUBECONFIG: kubeconfig,
      NO_COLOR: '1',
      OCLIF_SKIP_NEW_VERSION_CHECK: '1',
    };
    const kubectl = (args: readonly string[], input?: string) =>
      new Promise<RunResult>((done) => {
        const child = execFile('kubectl', [...args], {env, maxBuffer: 16 << 20}, (error, stdout, stderr) => {
          const code = error ? (typeof (error as {code?: unknown}).code === 'number' ? (error as {code: number}).code : 1) : 0;
          done({code, stdout, stderr});
        });
        if (input !== undefined) child.stdin?.end(input);
      });
    const controllerPid = Number(
      readFileSync(join(state, 'pids'), 'utf8')
        .split('\n')
        .find((line) => line.endsWith(' kube-controller-manager'))!
        .split(' ')[0],
    );
    const freezeController = (frozen: boolean) => process.kill(controllerPid, frozen ? 'SIGSTOP' : 'SIGCONT');
    const podAudit = () =>
      readFileSync(join(state, 'logs/audit.log'), 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as AuditEvent)
        .filter((event) => event.stage === 'ResponseComplete');
    return {kubeconfig, agent, kubectl, freezeController, podAudit, stop};
  } catch (error) {
    stop();
    throw error;
  }
}

/** Polls until check returns a value (not undefined), or fails after timeoutMs. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The e2e suites' DaemonSet `agent` in `default`, rolling with `maxUnavailable`, running `image`. */
export function agentManifest(image: string, maxUnavailable = 1): string {
  return `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default}
spec:
  selector: {matchLabels: {app: agent}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: ${maxUnavailable}}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      terminationGracePeriodSeconds: 30
      containers: [{name: agent, image: "${image}"}]
`;
}

/** The node a daemon pod is for: its binding, or before the scheduler binds it, the DaemonSet controller's node affinity. */
export function daemonPodNode(pod: V1Pod): string | undefined {
  return (
    pod.spec?.nodeName ?? pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]?.matchFields?.[0]?.values?.[0]
  );
}

export interface List<T> {
  items: T[];
}

/** `kubectl ARGS -o json`, parsed; a failing kubectl fails the test with its stderr. */
export async function kubectlJson<T>(cp: ControlPlane, args: readonly string[]): Promise<T> {
  const r = await cp.kubectl([...args, '-o', 'json']);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

export const agentDaemonSet = (cp: ControlPlane) => kubectlJson<V1DaemonSet>(cp, ['get', 'daemonset', 'agent']);

/** Applies the agent DaemonSet and waits until the real controller has it available on every node. */
export async function applyAgent(cp: ControlPlane, nodes: number, image: string, maxUnavailable = 1): Promise<void> {
  const applied = await cp.kubectl(['apply', '-f', '-'], agentManifest(image, maxUnavailable));
  if (applied.code !== 0 || applied.stderr !== '') throw new Error(`kubectl apply: ${applied.stderr}`);
  await eventually('the DaemonSet to run on every node', async () => {
    const ds = await agentDaemonSet(cp);
    return ds.status?.numberAvailable === nodes && ds.status?.updatedNumberScheduled === nodes ? ds : undefined;
  });
}

/** How many of `nodes` nodes have no available pod among `pods` (an available pod: Ready, not being deleted). */
export function nodesWithoutAvailablePod(pods: Iterable<V1Pod>, nodes: number): number {
  const serving = new Set(
    [...pods]
      .filter((p) => !p.metadata?.deletionTimestamp && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
      .map((p) => p.spec?.nodeName),
  );
  return nodes - serving.size;
}

function kubeConfigOf(cp: ControlPlane): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(cp.kubeconfig);
  return kc;
}

/**
 * Follows `path` (a list URL of the control plane, e.g. `/api/v1/namespaces/default/pods`) with a watch from
 * `resourceVersion` (undefined: from now, every existing object first as ADDED), handing every event to `seen`,
 * until the returned stop is called (or the server ends the watch: `ended`).
 */
export async function follow<T>(
  cp: ControlPlane,
  path: string,
  seen: (type: string, object: T) => void,
  resourceVersion?: string,
  ended: (error: unknown) => void = () => undefined,
): Promise<() => void> {
  const request = await new Watch(kubeConfigOf(cp)).watch(
    path,
    resourceVersion === undefined ? {} : {resourceVersion},
    (type, object) => seen(type, object as T),
    ended,
  );
  return () => request.abort();
}

/**
 * The budget's witness by watch: the agent's pods listed, then every change to them followed from that list, and
 * after each one the nodes without an available pod counted; stop() returns the most ever seen at once.
 */
export async function budgetWatch(cp: ControlPlane, nodes: number): Promise<{stop: () => number}> {
  // A watch that ended, or an ERROR event, would leave states unseen: stop() fails rather than answer.
  let broken: string | undefined;
  // Listed by the API (kubectl's list has no resourceVersion to watch from).
  const list = await kubeConfigOf(cp).makeApiClient(CoreV1Api).listNamespacedPod({namespace: 'default', labelSelector: 'app=agent'});
  const pods = new Map(list.items.map((p) => [p.metadata!.uid!, p]));
  let worst = nodesWithoutAvailablePod(pods.values(), nodes);
  const stop = await follow<V1Pod>(
    cp,
    '/api/v1/namespaces/default/pods',
    (type, pod) => {
      if (type === 'ERROR') broken ??= `watch error: ${JSON.stringify(pod)}`;
      if (pod.metadata?.labels?.['app'] !== 'agent') return;
      if (type === 'DELETED') pods.delete(pod.metadata.uid!);
      else pods.set(pod.metadata.uid!, pod);
      worst = Math.max(worst, nodesWithoutAvailablePod(pods.values(), nodes));
    },
    list.metadata!.resourceVersion!,
    (error) => (broken ??= `the pod watch ended before the witness was stopped: ${String(error)}`),
  );
  return {
    stop: () => {
      const was = broken;
      stop();
      if (was !== undefined) throw new Error(was);
      return worst;
    },
  };
}

/**
 * The budget's witness: samples the agent's pods until stopped, and keeps the most nodes ever seen without an
 * available pod (a Ready pod not being deleted), and whether a pod of `image` or one being deleted was seen.
 */
export function budgetWitness(cp: ControlPlane, nodes: number, image?: string): {begun: () => boolean; stop: () => Promise<number>} {
  let worst = 0;
  let begun = false;
  let watching = true;
  const sampling = (async () => {
    while (watching) {
      const pods = (await kubectlJson<List<V1Pod>>(cp, ['get', 'pods', '-l', 'app=agent'])).items;
      begun ||= pods.some((p) => p.metadata?.deletionTimestamp || (image !== undefined && p.spec?.containers[0]?.image === image));
      worst = Math.max(worst, nodesWithoutAvailablePod(pods, nodes));
    }
  })();
  return {
    begun: () => begun,
    stop: async () => {
      watching = false;
      await sampling;
      return worst;
    },
  };
}
