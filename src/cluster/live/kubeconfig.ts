// Which cluster, user and namespace a live command talks to, resolved the way kubectl resolves them (client-go's
// DeferredLoadingClientConfig): --kubeconfig, else $KUBECONFIG (a list of files, merged the first-wins way), else
// ~/.kube/config, else in-cluster, else http://localhost:8080; --context, else the current context; --cluster and
// --user replace the context's; -n, else the context's namespace, else "default"; then the flags that override the
// cluster entry (--server, --certificate-authority, --insecure-skip-tls-verify, --tls-server-name) and the user
// (--token, --as, --as-group). The result is plain data; credentials.ts turns it into a transport.
import {existsSync} from 'node:fs';
import {homedir} from 'node:os';
import {join} from 'node:path';
import {InputError, withoutUrlUserinfo} from '../../platform/errors.js';
import {MAX_CREDENTIAL_BYTES, readBoundedFileSync} from '../bounded-input.js';
import {describeOrigin, type KubeconfigData, kubeconfigFiles, loadKubeconfigFile, loadKubeconfigList, type Origin, type RawMap} from './kubeconfig-merge.js';

export interface KubeconfigOptions {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly cluster?: string;
  readonly user?: string;
  readonly namespace?: string;
  readonly server?: string;
  readonly token?: string;
  readonly as?: string;
  readonly asGroups?: readonly string[];
  readonly certificateAuthority?: string;
  readonly insecureSkipTlsVerify?: boolean;
  readonly tlsServerName?: string;
  /** --request-timeout in ms: also how long a kubeconfig that is a pipe or FIFO may take to end. */
  readonly timeoutMs?: number;
}

/** The cluster entry in use, after the flags that override it. */
export interface ClusterInfo {
  /** The API server URL, without a trailing slash. */
  readonly server: string;
  readonly certificateAuthority?: string;
  /** Where certificateAuthority was named (`--certificate-authority`, or the kubeconfig file and key), for messages. */
  readonly certificateAuthorityFrom?: string;
  /** PEM bytes (the kubeconfig's base64 decoded). */
  readonly certificateAuthorityData?: Buffer;
  readonly insecureSkipTlsVerify: boolean;
  readonly tlsServerName?: string;
  readonly proxyUrl?: string;
  readonly origin?: Origin;
}

export interface ExecConfig {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: readonly {readonly name: string; readonly value: string}[];
  readonly apiVersion: string;
  readonly installHint?: string;
  readonly provideClusterInfo: boolean;
}

/** The user entry in use, after --token, --as and --as-group. */
export interface AuthInfo {
  readonly name: string;
  readonly clientCertificate?: string;
  readonly clientCertificateData?: Buffer;
  readonly clientKey?: string;
  readonly clientKeyData?: Buffer;
  readonly token?: string;
  readonly tokenFile?: string;
  readonly username?: string;
  readonly password?: string;
  readonly impersonate?: string;
  readonly impersonateUid?: string;
  readonly impersonateGroups: readonly string[];
  readonly impersonateExtra: Readonly<Record<string, readonly string[]>>;
  readonly exec?: ExecConfig;
  /** client-node's name for a legacy auth-provider (oidc, gcp, azure), with its config. */
  readonly authProvider?: {readonly name: string; readonly config: Readonly<Record<string, string>>};
  readonly origin?: Origin;
}

export interface ResolvedKubeconfig {
  /** The API server URL, for messages. */
  readonly server: string;
  readonly context: string;
  readonly namespace: string;
  readonly cluster: ClusterInfo;
  readonly user: AuthInfo;
}

const isMap = (value: unknown): value is RawMap => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads a field of a kubeconfig entry, checking its type; a wrong type names the file and key. */
class Fields {
  constructor(
    private readonly value: RawMap,
    private readonly origin: Origin | undefined,
  ) {}

  private fail(key: string, want: string): never {
    const where = this.origin ? `${describeOrigin(this.origin)}.${key}` : key;
    throw new InputError(`${where}: want ${want}`);
  }

  where(key: string): string {
    return this.origin ? `${describeOrigin(this.origin)}.${key}` : key;
  }

  string(key: string): string | undefined {
    const v = this.value[key];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') this.fail(key, 'a string');
    return v;
  }

  bool(key: string): boolean {
    const v = this.value[key];
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') this.fail(key, 'true or false');
    return v;
  }

  strings(key: string): string[] {
    const v = this.value[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((item) => typeof item !== 'string')) this.fail(key, 'a list of strings');
    return v as string[];
  }

  base64(key: string): Buffer | undefined {
    const text = this.string(key);
    if (text === undefined) return undefined;
    if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(text)) this.fail(key, 'base64 data');
    return Buffer.from(text, 'base64');
  }

  map(key: string): RawMap | undefined {
    const v = this.value[key];
    if (v === undefined || v === null) return undefined;
    if (!isMap(v)) this.fail(key, 'a map');
    return v;
  }
}

function loadData(options: KubeconfigOptions): KubeconfigData | undefined {
  if (options.kubeconfig !== undefined) return loadKubeconfigFile(options.kubeconfig, options.timeoutMs);
  if (process.env['KUBECONFIG']) {
    // kubectl skips files of the list that do not exist; none at all is an empty kubeconfig (not ~/.kube/config).
    return loadKubeconfigList(kubeconfigFiles(process.env['KUBECONFIG']), options.timeoutMs);
  }
  const home = join(homedir(), '.kube', 'config');
  return existsSync(home) ? loadKubeconfigFile(home, options.timeoutMs) : undefined;
}

/**
 * Where a pod finds its service account's token, CA and namespace (rest.InClusterConfig's path).
 * DS_ROLLOUT_SERVICEACCOUNT_DIR moves it for tests that play a pod on this machine; it is read only when
 * KUBERNETES_SERVICE_HOST and _PORT are set and no kubeconfig is found, so it grants nothing a kubeconfig would not.
 */
export function serviceAccountDir(): string {
  return process.env['DS_ROLLOUT_SERVICEACCOUNT_DIR'] || '/var/run/secrets/kubernetes.io/serviceaccount';
}

/** What kubectl does without any kubeconfig: the pod's service account inside a cluster, else localhost:8080. */
function defaultData(): KubeconfigData {
  const host = process.env['KUBERNETES_SERVICE_HOST'];
  const port = process.env['KUBERNETES_SERVICE_PORT'];
  const account = serviceAccountDir();
  const entry = (name: string, value: RawMap) => ({name, value, origin: {file: '(in-cluster)', key: name}});
  if (host && port && existsSync(`${account}/token`)) {
    const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
    const namespace = existsSync(`${account}/namespace`)
      ? readBoundedFileSync(`${account}/namespace`, {what: `${account}/namespace`, maxBytes: MAX_CREDENTIAL_BYTES})
          .toString('utf8')
          .trim()
      : undefined;
    return {
      files: [],
      currentContext: 'in-cluster',
      clusters: new Map([['in-cluster', entry('in-cluster', {server, 'certificate-authority': `${account}/ca.crt`})]]),
      users: new Map([['in-cluster', entry('in-cluster', {tokenFile: `${account}/token`})]]),
      contexts: new Map([['in-cluster', entry('in-cluster', {cluster: 'in-cluster', user: 'in-cluster', ...(namespace ? {namespace} : {})})]]),
    };
  }
  return {
    files: [],
    currentContext: 'default',
    clusters: new Map([['default', entry('default', {server: 'http://localhost:8080'})]]),
    users: new Map(),
    contexts: new Map([['default', entry('default', {cluster: 'default'})]]),
  };
}

/**
 * KUBECONFIG naming only files that do not exist (a typo, or a file not written yet, as right after a cluster starts):
 * kubectl silently talks to localhost:8080 instead; saying which files are missing is what the user needs.
 */
function missingKubeconfigCheck(): undefined {
  const files = kubeconfigFiles(process.env['KUBECONFIG'] ?? '');
  if (files.length === 0) return undefined;
  const shown = files.slice(0, 3).join(', ') + (files.length > 3 ? `, and ${files.length - 3} more` : '');
  throw new InputError(`KUBECONFIG names no file that exists (${shown}): set it to a kubeconfig file, or unset it`);
}

/** The kubeconfig's named lists that completion offers names from. */
export type KubeconfigList = 'contexts' | 'clusters' | 'users';

/** The names (only: never an entry's fields) in one list of the kubeconfig kubectl would load, for completion. */
export function kubeconfigNames(options: Pick<KubeconfigOptions, 'kubeconfig'>, list: KubeconfigList): string[] {
  return [...(loadData(options) ?? defaultData())[list].keys()];
}

/** The kubeconfig kubectl would load for these flags (read once: a fleet resolves each of its contexts from it). */
export function loadKubeconfig(options: KubeconfigOptions): KubeconfigData {
  return loadData(options) ?? (options.server === undefined ? missingKubeconfigCheck() : undefined) ?? defaultData();
}

/** The cluster, user and namespace of `options.context` (else the current one); `data`: a kubeconfig already loaded. */
export function resolveKubeconfig(options: KubeconfigOptions, data: KubeconfigData = loadKubeconfig(options)): ResolvedKubeconfig {
  const contextName = options.context ?? data.currentContext ?? '';
  const contextEntry = contextName === '' ? undefined : data.contexts.get(contextName);
  if (options.context !== undefined && contextEntry === undefined) throw new InputError(`context "${options.context}" does not exist in the kubeconfig`);
  if (contextEntry === undefined && options.cluster === undefined && options.server === undefined) {
    throw new InputError(
      contextName === '' ? 'the kubeconfig has no current context: pass --context' : `the current context "${contextName}" does not exist in the kubeconfig`,
    );
  }
  const context = new Fields(contextEntry?.value ?? {}, contextEntry?.origin);
  const clusterName = options.cluster ?? context.string('cluster') ?? '';
  const userName = options.user ?? context.string('user') ?? '';
  const clusterEntry = clusterName === '' ? undefined : data.clusters.get(clusterName);
  if (options.cluster !== undefined && clusterEntry === undefined) throw new InputError(`cluster "${options.cluster}" does not exist in the kubeconfig`);
  if (options.user !== undefined && data.users.get(userName) === undefined) throw new InputError(`user "${options.user}" does not exist in the kubeconfig`);
  if (clusterEntry === undefined && options.server === undefined) {
    throw new InputError(
      clusterName === ''
        ? `${context.where('cluster')}: context "${contextName}" names no cluster`
        : `context "${contextName}" names cluster "${clusterName}", which does not exist in the kubeconfig`,
    );
  }
  const cluster = resolveCluster(clusterEntry?.value ?? {}, clusterEntry?.origin, options);
  const userEntry = data.users.get(userName);
  const user = resolveUser(userName, userEntry?.value ?? {}, userEntry?.origin, options);
  const namespace = options.namespace ?? context.string('namespace') ?? 'default';
  return {server: cluster.server, context: contextName, namespace: namespace === '' ? 'default' : namespace, cluster, user};
}

function resolveCluster(value: RawMap, origin: Origin | undefined, options: KubeconfigOptions): ClusterInfo {
  const fields = new Fields(value, origin);
  let certificateAuthority = fields.string('certificate-authority');
  let certificateAuthorityData = fields.base64('certificate-authority-data');
  let tlsServerName = fields.string('tls-server-name');
  const insecure = options.insecureSkipTlsVerify || fields.bool('insecure-skip-tls-verify');
  if (options.certificateAuthority !== undefined) {
    certificateAuthority = options.certificateAuthority;
    certificateAuthorityData = undefined;
  } else if (options.insecureSkipTlsVerify) {
    // client-go: --insecure-skip-tls-verify without a CA flag drops the kubeconfig's CA.
    certificateAuthority = undefined;
    certificateAuthorityData = undefined;
  }
  // client-go: with --server, the kubeconfig's tls-server-name is dropped unless --tls-server-name is given.
  if (options.server !== undefined) tlsServerName = undefined;
  if (options.tlsServerName !== undefined) tlsServerName = options.tlsServerName;
  if (insecure && (certificateAuthority !== undefined || certificateAuthorityData !== undefined)) {
    throw new InputError(
      `${options.insecureSkipTlsVerify ? '--insecure-skip-tls-verify' : fields.where('insecure-skip-tls-verify')}: a certificate authority cannot be used with insecure-skip-tls-verify (kubectl refuses the same)`,
    );
  }
  const rawServer = options.server ?? fields.string('server');
  const serverKey = options.server !== undefined ? '--server' : fields.where('server');
  if (rawServer === undefined) throw new InputError(`${serverKey}: no server given`);
  const server = parseServer(rawServer, serverKey);
  const proxyUrl = fields.string('proxy-url');
  if (proxyUrl !== undefined && !/^(?:https?|socks5h?):\/\/[^\s/]+/.test(proxyUrl)) {
    throw new InputError(`${fields.where('proxy-url')}: "${withoutUrlUserinfo(proxyUrl)}" is not a proxy URL (want http://, https:// or socks5://HOST:PORT)`);
  }
  return {
    server,
    ...(certificateAuthority !== undefined
      ? {
          certificateAuthority,
          certificateAuthorityFrom: options.certificateAuthority !== undefined ? '--certificate-authority' : fields.where('certificate-authority'),
        }
      : {}),
    ...(certificateAuthorityData !== undefined ? {certificateAuthorityData} : {}),
    insecureSkipTlsVerify: insecure,
    ...(tlsServerName !== undefined ? {tlsServerName} : {}),
    ...(proxyUrl !== undefined ? {proxyUrl} : {}),
    ...(origin ? {origin} : {}),
  };
}

/**
 * A server without a scheme is http: client-go's DefaultServerURL would take https for a TLS config, but kubectl
 * decides whether to read the TLS settings from the bare server (IsConfigTransportTLS), which says http (observed).
 */
function parseServer(text: string, key: string): string {
  const withScheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new InputError(`${key}: "${withoutUrlUserinfo(text)}" is not a URL (want https://HOST[:PORT])`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname === '' || /\s/.test(text)) {
    throw new InputError(`${key}: "${withoutUrlUserinfo(text)}" is not a URL (want https://HOST[:PORT])`);
  }
  if (url.username !== '' || url.password !== '') throw new InputError(`${key}: the server URL must not carry a user or password`);
  return `${url.protocol}//${url.host}${url.pathname}`.replace(/\/+$/, '');
}

function resolveUser(name: string, value: RawMap, origin: Origin | undefined, options: KubeconfigOptions): AuthInfo {
  const fields = new Fields(value, origin);
  const extra = fields.map('as-user-extra') ?? {};
  const impersonateExtra: Record<string, string[]> = {};
  for (const key of Object.keys(extra)) impersonateExtra[key] = new Fields(extra, origin).strings(key);
  const execMap = fields.map('exec');
  const provider = fields.map('auth-provider');
  const token = options.token ?? fields.string('token');
  return {
    name,
    ...optional('clientCertificate', fields.string('client-certificate')),
    ...optional('clientCertificateData', fields.base64('client-certificate-data')),
    ...optional('clientKey', fields.string('client-key')),
    ...optional('clientKeyData', fields.base64('client-key-data')),
    ...optional('token', token),
    // --token replaces the kubeconfig's token and its tokenFile alike.
    ...optional('tokenFile', options.token !== undefined ? undefined : fields.string('tokenFile')),
    ...optional('username', fields.string('username')),
    ...optional('password', fields.string('password')),
    ...optional('impersonate', options.as ?? fields.string('as')),
    ...optional('impersonateUid', fields.string('as-uid')),
    impersonateGroups: options.asGroups !== undefined && options.asGroups.length > 0 ? [...options.asGroups] : fields.strings('as-groups'),
    impersonateExtra,
    ...(execMap ? {exec: resolveExec(execMap, origin)} : {}),
    ...(provider ? {authProvider: resolveAuthProvider(provider, origin)} : {}),
    ...(origin ? {origin} : {}),
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): {[P in K]?: V} {
  return (value === undefined ? {} : {[key]: value}) as {[P in K]?: V};
}

const EXEC_API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];

function resolveExec(value: RawMap, userOrigin: Origin | undefined): ExecConfig {
  const origin = userOrigin ? {file: userOrigin.file, key: `${userOrigin.key}.exec`} : undefined;
  const fields = new Fields(value, origin);
  const command = fields.string('command');
  if (command === undefined) throw new InputError(`${fields.where('command')}: the exec credential plugin names no command`);
  const apiVersion = fields.string('apiVersion');
  if (apiVersion === undefined || !EXEC_API_VERSIONS.includes(apiVersion)) {
    throw new InputError(`${fields.where('apiVersion')}: want ${EXEC_API_VERSIONS.join(' or ')}${apiVersion === undefined ? '' : `, not "${apiVersion}"`}`);
  }
  const rawEnv = value['env'] ?? [];
  if (!Array.isArray(rawEnv)) throw new InputError(`${fields.where('env')}: want a list of {name, value}`);
  const env = rawEnv.map((item: unknown, index) => {
    if (!isMap(item) || typeof item['name'] !== 'string' || typeof (item['value'] ?? '') !== 'string') {
      throw new InputError(`${fields.where(`env[${index}]`)}: want {name, value} strings`);
    }
    return {name: item['name'], value: (item['value'] as string | undefined) ?? ''};
  });
  return {
    command,
    args: fields.strings('args'),
    env,
    apiVersion,
    ...optional('installHint', fields.string('installHint')),
    provideClusterInfo: fields.bool('provideClusterInfo'),
  };
}

function resolveAuthProvider(value: RawMap, userOrigin: Origin | undefined): {name: string; config: Record<string, string>} {
  const origin = userOrigin ? {file: userOrigin.file, key: `${userOrigin.key}.auth-provider`} : undefined;
  const fields = new Fields(value, origin);
  const name = fields.string('name');
  if (name === undefined) throw new InputError(`${fields.where('name')}: the auth-provider names no provider`);
  const config = fields.map('config') ?? {};
  return {name, config: Object.fromEntries(Object.entries(config).map(([k, v]) => [k, String(v)]))};
}
