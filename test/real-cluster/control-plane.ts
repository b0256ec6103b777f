// Starts the real control plane (scripts/real-cluster) and the kubelet agent for an e2e suite, and runs
// the built plugin binaries through kubectl against it.
import {execFile, execFileSync} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join, resolve} from 'node:path';
import {KubeConfig} from '@kubernetes/client-node';
import {KubeletAgent, type KubeletAgentOptions} from '../../src/sim/kubelet-agent.js';

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
  stop(): void;
}

export async function startControlPlane(agentOptions: Omit<KubeletAgentOptions, 'nodes'> & {nodes: number}): Promise<ControlPlane> {
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
    agent = new KubeletAgent(kc, {...agentOptions, nodes});
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
    return {kubeconfig, agent, kubectl, stop};
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
