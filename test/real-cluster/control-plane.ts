// Starts the real control plane (scripts/real-cluster) and the kubelet agent for an e2e suite, and runs
// the built plugin binaries through kubectl against it.
import {execFile, execFileSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join, resolve} from 'node:path';
import {KubeConfig} from '@kubernetes/client-node';
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
  agentOptions: Omit<KubeletAgentOptions, 'nodes' | 'exec'> & {nodes: number; execImages?: readonly ExecImage[]},
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
    const kubeconfig = execFileSync(join(SCRIPTS, 'up.sh'), [state, bin], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit']})
      .trim()
      .split('\n')
      .at(-1)!;
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const nodes = Array.from({length: agentOptions.nodes}, (_, i) => `node-${String(i + 1).padStart(2, '0')}`);
    const {execImages, ...kubeletOptions} = agentOptions;
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
    agent = new KubeletAgent(kc, {...kubeletOptions, nodes, ...(exec ? {exec} : {})});
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
