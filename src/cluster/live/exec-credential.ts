// Exec credential plugins (client.authentication.k8s.io v1 and v1beta1, as EKS, GKE and AKS kubeconfigs use them).
// client-node runs them without a time limit and puts their raw output into its errors (a plugin that prints a bare
// token shows the token in "…is not valid JSON"): here a plugin gets the request timeout, its failures name it and
// quote the first line of its stderr only, and nothing it printed on stdout ever appears in a message.
import {spawn} from 'node:child_process';
import {ClusterForbiddenError, InputError} from '../../errors.js';
import {parseRfc3339Time} from '../../core/index.js';
import {formatBytes, MAX_CREDENTIAL_BYTES} from '../bounded-input.js';
import type {ClusterInfo, ExecConfig} from './kubeconfig.js';

export interface ExecCredential {
  readonly token?: string;
  readonly clientCertificateData?: string;
  readonly clientKeyData?: string;
  /** ms since the epoch; undefined: valid for as long as the process runs. */
  readonly expiresAt?: number;
}

export interface ExecOptions {
  /** Kill the plugin after this many ms; 0 or undefined: no limit. */
  readonly timeoutMs?: number;
  readonly cluster: ClusterInfo;
}

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What client-go passes in KUBERNETES_EXEC_INFO: never interactive here (stdin is not the plugin's). */
function execInfo(exec: ExecConfig, cluster: ClusterInfo): string {
  const clusterInfo = exec.provideClusterInfo
    ? {
        cluster: {
          server: cluster.server,
          ...(cluster.tlsServerName ? {'tls-server-name': cluster.tlsServerName} : {}),
          ...(cluster.insecureSkipTlsVerify ? {'insecure-skip-tls-verify': true} : {}),
          ...(cluster.certificateAuthorityData ? {'certificate-authority-data': cluster.certificateAuthorityData.toString('base64')} : {}),
          ...(cluster.proxyUrl ? {'proxy-url': cluster.proxyUrl} : {}),
        },
      }
    : {};
  return JSON.stringify({apiVersion: exec.apiVersion, kind: 'ExecCredential', spec: {interactive: false, ...clusterInfo}});
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.trim().slice(0, 200);
}

/** Runs the plugin once and reads its ExecCredential. */
export function runExecPlugin(exec: ExecConfig, options: ExecOptions): Promise<ExecCredential> {
  const plugin = `exec credential plugin "${exec.command}"`;
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {...process.env, KUBERNETES_EXEC_INFO: execInfo(exec, options.cluster)};
    for (const {name, value} of exec.env) env[name] = value;
    // Its own process group, so that a timeout ends the plugin and whatever it started.
    const child = spawn(exec.command, [...exec.args], {env, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32'});
    const stdout: Buffer[] = [];
    let stderr = '';
    let settled = false;
    const finish = (error: Error | undefined, credential?: ExecCredential) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      if (error) reject(error);
      else resolve(credential!);
    };
    const timer = options.timeoutMs
      ? setTimeout(() => {
          kill(child.pid);
          finish(new ClusterForbiddenError(`${plugin} gave no credential within ${formatMs(options.timeoutMs!)} (--request-timeout)`));
        }, options.timeoutMs)
      : undefined;
    let stdoutBytes = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes <= MAX_CREDENTIAL_BYTES) return void stdout.push(chunk);
      // A credential is a few kilobytes: a plugin that writes on is stopped rather than read into memory.
      kill(child.pid);
      finish(new ClusterForbiddenError(`${plugin} printed more than ${formatBytes(MAX_CREDENTIAL_BYTES)} on stdout: not an ExecCredential`));
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 64 * 1024) stderr += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      const hint = exec.installHint ? `: ${firstLine(exec.installHint)}` : '';
      const why =
        error.code === 'ENOENT' ? `not found${hint}` : error.code === 'EACCES' ? 'is not executable' : `cannot be started (${error.code ?? error.message})`;
      finish(new InputError(`${plugin} ${why}`));
    });
    child.on('close', (code, signal) => {
      if (code !== 0) {
        const said = firstLine(stderr);
        return finish(new ClusterForbiddenError(`${plugin} failed (${signal ? `killed by ${signal}` : `exit status ${code}`})${said ? `: ${said}` : ''}`));
      }
      try {
        finish(undefined, parseExecCredential(Buffer.concat(stdout).toString('utf8'), exec.apiVersion, plugin));
      } catch (error) {
        finish(error as Error);
      }
    });
  });
}

function kill(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** The credential in a plugin's stdout. Errors describe the output's shape, never its content. */
export function parseExecCredential(output: string, apiVersion: string, plugin: string): ExecCredential {
  let doc: unknown;
  try {
    doc = JSON.parse(output);
  } catch {
    throw new ClusterForbiddenError(`${plugin} printed no ExecCredential JSON (${Buffer.byteLength(output)} bytes on stdout, not shown: they may be a secret)`);
  }
  if (!isMap(doc) || doc['kind'] !== 'ExecCredential') throw new ClusterForbiddenError(`${plugin} printed JSON that is not an ExecCredential`);
  if (doc['apiVersion'] !== apiVersion) {
    const said = typeof doc['apiVersion'] === 'string' ? `"${doc['apiVersion'].slice(0, 80)}"` : 'none';
    throw new ClusterForbiddenError(`${plugin} answered apiVersion ${said}, but the kubeconfig asks for "${apiVersion}"`);
  }
  const status = doc['status'];
  if (!isMap(status)) throw new ClusterForbiddenError(`${plugin} printed an ExecCredential without status`);
  const text = (key: string) => (typeof status[key] === 'string' && status[key] !== '' ? (status[key] as string) : undefined);
  const token = text('token');
  const cert = text('clientCertificateData');
  const key = text('clientKeyData');
  if ((cert === undefined) !== (key === undefined)) {
    throw new ClusterForbiddenError(
      `${plugin} printed ${cert ? 'clientCertificateData without clientKeyData' : 'clientKeyData without clientCertificateData'}`,
    );
  }
  if (token === undefined && cert === undefined)
    throw new ClusterForbiddenError(`${plugin} printed an ExecCredential with neither a token nor a client certificate`);
  // client-go decodes it as a metav1.Time and refuses the credential when it is not an RFC3339 time.
  const expiry = status['expirationTimestamp'];
  let expiresAt: number | undefined;
  if (expiry !== undefined && expiry !== null && expiry !== '') {
    expiresAt = typeof expiry === 'string' ? parseRfc3339Time(expiry) : undefined;
    if (expiresAt === undefined) {
      const shown = typeof expiry === 'string' ? JSON.stringify(expiry.length > 40 ? `${expiry.slice(0, 40)}...` : expiry) : `a ${typeof expiry}`;
      throw new ClusterForbiddenError(`${plugin} printed an invalid expirationTimestamp ${shown}: want an RFC3339 time such as 2026-11-21T12:00:00Z`);
    }
  }
  return {
    ...(token !== undefined ? {token} : {}),
    ...(cert !== undefined ? {clientCertificateData: cert, clientKeyData: key!} : {}),
    ...(expiresAt !== undefined ? {expiresAt} : {}),
  };
}
