// The transport of a resolved kubeconfig: the agent (CA, client certificate, TLS server name, proxy) and the headers
// (bearer token, token file, exec plugin, basic auth, impersonation) every request carries, built once per process
// (again when an exec credential expires). As kubectl, nothing that identifies the user is sent to an http server.
// client-node serves what it does well, as library helpers whose product is this transport's agent or headers: proxy
// agents (proxy-url, HTTPS_PROXY) and legacy auth-providers. It sends no request of the plugin's (client.ts does).
import {Agent as HttpAgent, type Agent} from 'node:http';
import {Agent as HttpsAgent} from 'node:https';
import {BlockList, isIP} from 'node:net';
import {createPrivateKey, X509Certificate} from 'node:crypto';
import {createSecureContext, type SecureContext} from 'node:tls';
import {ClusterForbiddenError, DsRolloutError, InputError} from '../../platform/errors.js';
import {MAX_CREDENTIAL_BYTES, readBoundedFileSync} from '../bounded-input.js';
import {type ExecCredential, runCredentialCommand, runExecPlugin} from './exec-credential.js';
import {describeOrigin} from './kubeconfig-merge.js';
import type {AuthInfo, ClusterInfo, ResolvedKubeconfig} from './kubeconfig.js';

export interface Transport {
  readonly agent: Agent;
  readonly headers: Readonly<Record<string, string | string[]>>;
  /** Another agent like `agent` (same TLS material and proxy), with sockets of its own: a watch stream's. */
  readonly newAgent: () => Promise<Agent>;
}

export interface CredentialOptions {
  /** Bounds an exec plugin's run; 0 or undefined: no limit. */
  readonly timeoutMs?: number;
}

/**
 * A CA, certificate, key or token file, within MAX_CREDENTIAL_BYTES (a device or an endless pipe is refused), and
 * a pipe or FIFO within `stallMs` (--request-timeout).
 */
function readFile(path: string, key: string, stallMs: number | undefined): Buffer {
  try {
    return readBoundedFileSync(path, {what: `${key}: "${path}"`, maxBytes: MAX_CREDENTIAL_BYTES, ...(stallMs ? {stallMs} : {})});
  } catch (error) {
    if (error instanceof DsRolloutError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : (code ?? 'unreadable');
    throw new InputError(`${key}: cannot read "${path}": ${why}`, {cause: error});
  }
}

function keyOf(origin: AuthInfo['origin'], field: string): string {
  return origin ? `${describeOrigin(origin)}.${field}` : field;
}

/** The cluster's CA, from the file or the data. */
function certificateAuthority(cluster: ClusterInfo, stallMs: number | undefined): Buffer | undefined {
  if (cluster.certificateAuthority !== undefined) {
    return readFile(cluster.certificateAuthority, cluster.certificateAuthorityFrom ?? 'certificate-authority', stallMs);
  }
  return cluster.certificateAuthorityData;
}

/** The user's client certificate and key, from files or data. */
function clientCertificate(user: AuthInfo, stallMs: number | undefined): {cert: Buffer; key: Buffer} | undefined {
  const cert =
    user.clientCertificate !== undefined ? readFile(user.clientCertificate, keyOf(user.origin, 'client-certificate'), stallMs) : user.clientCertificateData;
  const key = user.clientKey !== undefined ? readFile(user.clientKey, keyOf(user.origin, 'client-key'), stallMs) : user.clientKeyData;
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined) throw new InputError(`${keyOf(user.origin, 'client-key')}: a client key without client-certificate`);
  if (key === undefined) throw new InputError(`${keyOf(user.origin, 'client-certificate')}: a client certificate without client-key`);
  return {cert, key};
}

/** HTTPS_PROXY / HTTP_PROXY / NO_PROXY as Go's http.ProxyFromEnvironment reads them; loopback is never proxied. */
export function proxyFromEnvironment(server: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = new URL(server);
  const https = url.protocol === 'https:';
  const proxy = https ? (env['HTTPS_PROXY'] ?? env['https_proxy']) : (env['HTTP_PROXY'] ?? env['http_proxy']);
  if (!proxy) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (https ? '443' : '80');
  if (host === 'localhost' || isLoopback(host)) return undefined;
  const noProxy = (env['NO_PROXY'] ?? env['no_proxy'] ?? '').trim();
  if (noProxy === '*') return undefined;
  for (const raw of noProxy.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry.includes('/')) {
      const [net, bits] = entry.split('/');
      const family = isIP(net!);
      if (family !== 0 && isIP(host) === family) {
        const list = new BlockList();
        try {
          list.addSubnet(net!, Number(bits), family === 6 ? 'ipv6' : 'ipv4');
        } catch {
          continue;
        }
        if (list.check(host, family === 6 ? 'ipv6' : 'ipv4')) return undefined;
      }
      continue;
    }
    const portMatch = /^(.*?)(?::(\d+))?$/.exec(entry.replace(/^\[(.*)\](?=:|$)/, '$1'))!;
    const entryHost = portMatch[1]!;
    if (portMatch[2] !== undefined && portMatch[2] !== port) continue;
    if (isIP(entryHost)) {
      if (entryHost === host) return undefined;
      continue;
    }
    const domain = entryHost.replace(/^\*?\./, '');
    if (host === domain || host.endsWith(`.${domain}`)) return undefined;
  }
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}

/** --as, --as-group and the kubeconfig's as, as-uid, as-groups, as-user-extra. */
function impersonation(user: AuthInfo): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  if (user.impersonate !== undefined) headers['Impersonate-User'] = user.impersonate;
  if (user.impersonateUid !== undefined) headers['Impersonate-Uid'] = user.impersonateUid;
  if (user.impersonateGroups.length > 0) headers['Impersonate-Group'] = [...user.impersonateGroups];
  for (const [key, values] of Object.entries(user.impersonateExtra)) headers[`Impersonate-Extra-${encodeURIComponent(key)}`] = [...values];
  return headers;
}

function isLoopback(host: string): boolean {
  return (isIP(host) === 4 && host.startsWith('127.')) || host === '::1';
}

/** How long a token read from a file is used before the file is read again (client-go's cached file token source). */
const TOKEN_FILE_REREAD_MS = 60_000;

export class Credentials {
  private current: Promise<Transport> | undefined;
  /** The transport `current` resolved to. */
  private latest: Transport | undefined;
  private expiresAt: number | undefined;
  private readonly fromExec = new WeakSet<Transport>();

  constructor(
    private readonly config: ResolvedKubeconfig,
    private readonly options: CredentialOptions = {},
  ) {}

  /** The proxy requests go through (kubeconfig proxy-url, or HTTPS_PROXY), as messages name it: no user or password. */
  proxyShown(): string | undefined {
    const proxy = this.config.cluster.proxyUrl ?? proxyFromEnvironment(this.config.cluster.server);
    if (proxy === undefined) return undefined;
    try {
      const url = new URL(proxy);
      return `${url.protocol}//${url.host}`;
    } catch {
      return 'the configured proxy';
    }
  }

  /** The agent and headers for the next request. */
  transport(): Promise<Transport> {
    if (this.current === undefined || (this.expiresAt !== undefined && Date.now() >= this.expiresAt)) {
      const building = this.build();
      this.current = building;
      building.then(
        (transport) => {
          if (this.current === building) this.latest = transport;
        },
        // A failure is not kept: the next request tries again (a plugin may succeed then).
        () => {
          if (this.current === building) this.current = undefined;
        },
      );
    }
    return this.current;
  }

  private async build(): Promise<Transport> {
    const {cluster, user} = this.config;
    if (!cluster.server.startsWith('https:')) {
      // kubectl reads no credentials for an http server (client-go's "only try to read the auth information if we
      // are secure"); impersonation it still sends (observed).
      return {agent: await this.agent(undefined, undefined), headers: impersonation(user), newAgent: () => this.agent(undefined, undefined)};
    }
    const ca = certificateAuthority(cluster, this.options.timeoutMs);
    let certificate = clientCertificate(user, this.options.timeoutMs);
    const headers: Record<string, string | string[]> = {};
    let token = user.token;
    let credential: ExecCredential | undefined;
    const fromFile = token === undefined && user.tokenFile !== undefined;
    if (fromFile) {
      token = readFile(user.tokenFile!, keyOf(user.origin, 'tokenFile'), this.options.timeoutMs).toString('utf8').trim();
      // A projected service account token is rotated on disk: read it again after a minute, or after a 401 (client-go).
      this.expiresAt = Date.now() + TOKEN_FILE_REREAD_MS;
    }
    // A static token wins over the plugin, as in client-go (the plugin's round tripper steps aside for an Authorization header).
    if (token === undefined && user.exec !== undefined) {
      credential = await runExecPlugin(user.exec, {cluster, ...(this.options.timeoutMs ? {timeoutMs: this.options.timeoutMs} : {})});
      this.expiresAt = credential.expiresAt;
      token = credential.token;
      if (credential.clientCertificateData !== undefined) {
        certificate = {cert: Buffer.from(credential.clientCertificateData), key: Buffer.from(credential.clientKeyData!)};
      }
    }
    if (token !== undefined) headers['Authorization'] = `Bearer ${token}`;
    else if (user.username !== undefined) headers['Authorization'] = `Basic ${Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64')}`;
    else if (user.authProvider !== undefined) Object.assign(headers, await this.authProviderHeaders());
    const transport = {agent: await this.agent(ca, certificate), headers: {...headers, ...impersonation(user)}, newAgent: () => this.agent(ca, certificate)};
    if (credential !== undefined || fromFile) this.fromExec.add(transport);
    return transport;
  }

  /**
   * After a 401 on a request sent with `used`: true when one more try may succeed, because `used` came from an exec
   * plugin (forgotten now, so the next transport runs the plugin again) or because another request has already
   * replaced it. False for static credentials.
   */
  refreshAfterUnauthorized(used: Transport): boolean {
    if (!this.fromExec.has(used)) return false;
    if (this.latest === used) {
      this.current = undefined;
      this.latest = undefined;
      this.expiresAt = undefined;
    }
    return true;
  }

  private async agent(ca: Buffer | undefined, certificate: {cert: Buffer; key: Buffer} | undefined): Promise<Agent> {
    const {cluster} = this.config;
    const https = cluster.server.startsWith('https:');
    const proxy = cluster.proxyUrl ?? proxyFromEnvironment(cluster.server);
    if (proxy === undefined) {
      if (!https) return new HttpAgent({keepAlive: true});
      return new HttpsAgent({
        keepAlive: true,
        rejectUnauthorized: !cluster.insecureSkipTlsVerify,
        // One TLS context for every connection: parallel lists open several, and each would parse the CA again.
        secureContext: this.secureContext(ca, certificate),
        ...(cluster.tlsServerName ? {servername: cluster.tlsServerName} : {}),
      });
    }
    // Checked here too: client-node would pass OpenSSL's words on.
    this.secureContext(ca, certificate);
    // client-node builds proxy agents (http CONNECT and socks) with the same TLS material.
    const {KubeConfig} = await import('./client-node.js');
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        {
          name: 'cluster',
          server: cluster.server,
          skipTLSVerify: cluster.insecureSkipTlsVerify || !https,
          proxyUrl: proxy,
          ...(ca ? {caData: ca.toString('base64')} : {}),
          ...(cluster.tlsServerName ? {tlsServerName: cluster.tlsServerName} : {}),
        },
      ],
      users: [{name: 'user', ...(certificate ? {certData: certificate.cert.toString('base64'), keyData: certificate.key.toString('base64')} : {})}],
      contexts: [{name: 'context', cluster: 'cluster', user: 'user'}],
      currentContext: 'context',
    });
    const opts: {agent?: Agent} = {};
    await kc.applyToHTTPSOptions(opts);
    return opts.agent!;
  }

  /**
   * The TLS context of the CA and client certificate. Material TLS cannot use is refused naming its kubeconfig key
   * (OpenSSL's "DECODER routines::unsupported" names nothing), and never quoted: a key is a secret.
   */
  private secureContext(ca: Buffer | undefined, certificate: {cert: Buffer; key: Buffer} | undefined): SecureContext {
    try {
      return createSecureContext({...(ca ? {ca} : {}), ...(certificate ?? {})});
    } catch (error) {
      const {cluster, user} = this.config;
      const fromFile = (file: string | undefined, field: string) => keyOf(user.origin, file !== undefined ? field : `${field}-data`);
      let problem = `${fromFile(user.clientCertificate, 'client-certificate')}: not a PEM certificate that TLS can use`;
      if (ca !== undefined && !usable(() => createSecureContext({ca}))) {
        problem = `${cluster.certificateAuthorityFrom ?? keyOf(cluster.origin, 'certificate-authority-data')}: not a PEM certificate that TLS can use`;
      } else if (certificate !== undefined && !usable(() => createPrivateKey(certificate.key))) {
        problem = `${fromFile(user.clientKey, 'client-key')}: not a PEM private key that TLS can use`;
      } else if (certificate !== undefined && usable(() => new X509Certificate(certificate.cert))) {
        problem = `${fromFile(user.clientKey, 'client-key')}: the private key does not match ${fromFile(user.clientCertificate, 'client-certificate')}`;
      }
      throw new InputError(problem, {cause: error});
    }
  }

  /**
   * Legacy auth-providers (oidc, gcp, azure): client-node's authenticators, but a gcp or azure `cmd-path` is run
   * here, within --request-timeout: client-node runs it with execSync, which blocks the process without a limit.
   */
  private async authProviderHeaders(): Promise<Record<string, string>> {
    const {cluster, user} = this.config;
    const fromCommand = await this.authProviderCommandToken();
    if (fromCommand !== undefined) return {Authorization: `Bearer ${fromCommand}`};
    const {KubeConfig} = await import('./client-node.js');
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{name: 'cluster', server: cluster.server, skipTLSVerify: cluster.insecureSkipTlsVerify}],
      users: [{name: 'user', authProvider: user.authProvider}],
      contexts: [{name: 'context', cluster: 'cluster', user: 'user'}],
      currentContext: 'context',
    });
    const opts: {headers?: Record<string, string>} = {};
    try {
      await kc.applyToHTTPSOptions(opts);
    } catch (error) {
      throw new InputError(
        `${keyOf(user.origin, 'auth-provider')}: the ${user.authProvider!.name} auth-provider failed: ${firstLine(String((error as Error)?.message ?? error))}`,
      );
    }
    const authorization = opts.headers?.['Authorization'];
    return authorization ? {Authorization: authorization} : {};
  }

  /**
   * The token a gcp or azure auth-provider's `cmd-path` prints, when the kubeconfig's access-token is missing or
   * expired (client-node's test): run as client-node runs it (`"cmd-path" cmd-args` by the shell), read at
   * `token-key` (default `{.access_token}`, as client-go's gcp provider). Undefined: the command is not needed.
   */
  private async authProviderCommandToken(): Promise<string | undefined> {
    const {user} = this.config;
    const {name, config} = user.authProvider!;
    const command = config['cmd-path'];
    if ((name !== 'gcp' && name !== 'azure') || !command || !providerTokenExpired(config, Date.now())) return undefined;
    const key = keyOf(user.origin, 'auth-provider');
    const what = `${key}: the ${name} auth-provider's cmd-path "${command}"`;
    const args = config['cmd-args'];
    const output = await runCredentialCommand(`"${command}"${args ? ` ${args}` : ''}`, [], {
      what,
      expected: 'a token',
      shell: true,
      ...(this.options.timeoutMs ? {timeoutMs: this.options.timeoutMs} : {}),
    });
    let document: unknown;
    try {
      document = JSON.parse(output);
    } catch {
      throw new ClusterForbiddenError(`${what} printed no JSON (${Buffer.byteLength(output)} bytes on stdout, not shown: they may be a secret)`);
    }
    const tokenKey = config['token-key'] || '{.access_token}';
    const token = atJsonPath(document, tokenKey);
    if (typeof token !== 'string' || token === '') throw new ClusterForbiddenError(`${what} printed no token at ${tokenKey}`);
    return token;
  }
}

/** client-node's test of a legacy provider's token: missing, or past `expiry` (RFC 3339) or `expires-on` (epoch seconds). */
function providerTokenExpired(config: Readonly<Record<string, string>>, now: number): boolean {
  if (!config['access-token']) return true;
  const expiry = config['expiry'] ? Date.parse(config['expiry']) : config['expires-on'] ? Number.parseInt(config['expires-on'], 10) * 1000 : undefined;
  return expiry !== undefined && expiry < now;
}

/** The value at a kubectl JSONPath such as `{.credential.access_token}` or `{.items[0].token}`; undefined if absent. */
function atJsonPath(document: unknown, path: string): unknown {
  const inner = /^\{(.*)\}$/.exec(path.trim())?.[1] ?? path.trim();
  let value: unknown = document;
  for (const [, field, index] of inner.matchAll(/\.([^.[\]]+)|\[(\d+)\]/g)) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = field !== undefined ? (value as Record<string, unknown>)[field] : (value as unknown[])[Number(index)];
  }
  return value;
}

function usable(build: () => unknown): boolean {
  try {
    build();
    return true;
  } catch {
    return false;
  }
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim().slice(0, 200);
}
