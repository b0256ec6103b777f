// Exec credential plugins (client.authentication.k8s.io v1 and v1beta1, as EKS, GKE and AKS kubeconfigs use them).
// client-node runs them without a time limit and puts their raw output into its errors (a plugin that prints a bare
// token shows the token in "…is not valid JSON"): here a plugin gets the request timeout, its failures name it and
// quote the first line of its stderr only, and nothing it printed on stdout ever appears in a message.
import {spawn} from 'node:child_process';
import {ClusterForbiddenError, InputError} from '../../platform/errors.js';
import {parseRfc3339Time} from '../../core/index.js';
import {formatBytes, formatMs, MAX_CREDENTIAL_BYTES} from '../bounded-input.js';
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

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.trim().slice(0, 200);
}

/** Runs the plugin once and reads its ExecCredential. */
export async function runExecPlugin(exec: ExecConfig, options: ExecOptions): Promise<ExecCredential> {
  const plugin = `exec credential plugin "${exec.command}"`;
  const env: NodeJS.ProcessEnv = {...process.env, KUBERNETES_EXEC_INFO: execInfo(exec, options.cluster)};
  for (const {name, value} of exec.env) env[name] = value;
  const stdout = await runCredentialCommand(exec.command, exec.args, {
    what: plugin,
    expected: 'an ExecCredential',
    env,
    ...(exec.installHint ? {installHint: exec.installHint} : {}),
    ...(options.timeoutMs ? {timeoutMs: options.timeoutMs} : {}),
  });
  return parseExecCredential(stdout, exec.apiVersion, plugin);
}

export interface CredentialCommandOptions {
  /** How messages name the command: `exec credential plugin "x"`. */
  readonly what: string;
  /** What its stdout should be, for the message when it prints too much: `an ExecCredential`. */
  readonly expected: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Run `command` by the shell, as one command line (a legacy auth-provider's cmd-path and cmd-args). */
  readonly shell?: boolean;
  readonly installHint?: string;
  /** Kill the command after this many ms; 0 or undefined: no limit. */
  readonly timeoutMs?: number;
}

/**
 * The stdout of a command that prints a credential (an exec plugin, an auth-provider's cmd-path), within the
 * request timeout and MAX_CREDENTIAL_BYTES: past either it is killed with what it started. Failures name the
 * command and quote the first line of its stderr only; nothing it printed on stdout ever appears in a message.
 */
export function runCredentialCommand(command: string, args: readonly string[], options: CredentialCommandOptions): Promise<string> {
  const {what} = options;
  return new Promise((resolve, reject) => {
    // Its own process group, so that a timeout ends the command and whatever it started.
    const child = spawn(command, [...args], {
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      ...(options.shell ? {shell: true} : {}),
    });
    const stdout: Buffer[] = [];
    let stderr = '';
    let settled = false;
    const finish = (error: Error | undefined, output?: string) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      if (error) reject(error);
      else resolve(output!);
    };
    const timer = options.timeoutMs
      ? setTimeout(() => {
          kill(child.pid);
          finish(new ClusterForbiddenError(`${what} gave no credential within ${formatMs(options.timeoutMs!)} (--request-timeout)`));
        }, options.timeoutMs)
      : undefined;
    let stdoutBytes = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes <= MAX_CREDENTIAL_BYTES) return void stdout.push(chunk);
      // A credential is a few kilobytes: a command that writes on is stopped rather than read into memory.
      kill(child.pid);
      finish(new ClusterForbiddenError(`${what} printed more than ${formatBytes(MAX_CREDENTIAL_BYTES)} on stdout: not ${options.expected}`));
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 64 * 1024) stderr += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      const hint = options.installHint ? `: ${firstLine(options.installHint)}` : '';
      const why =
        error.code === 'ENOENT' ? `not found${hint}` : error.code === 'EACCES' ? 'is not executable' : `cannot be started (${error.code ?? error.message})`;
      finish(new InputError(`${what} ${why}`));
    });
    child.on('close', (code, signal) => {
      if (code !== 0) {
        const said = firstLine(stderr);
        return finish(new ClusterForbiddenError(`${what} failed (${signal ? `killed by ${signal}` : `exit status ${code}`})${said ? `: ${said}` : ''}`));
      }
      finish(undefined, Buffer.concat(stdout).toString('utf8'));
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
