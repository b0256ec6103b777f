// The simulated cluster's HTTP front: a Kubernetes-API-compatible server on 127.0.0.1 that the real kubectl
// and @kubernetes/client-node accept (docs/design/sim-api.md). It routes, negotiates formats and maps store errors to
// Status bodies; the semantics live in store.ts, gc.ts and strategy.ts.
import {goJsonEscape} from './json-escape.js';
import {createServer, type IncomingMessage, request as httpRequest, type Server, type ServerResponse} from 'node:http';
import {createServer as createTlsServer} from 'node:https';
import type {AddressInfo} from 'node:net';
import {load as loadYaml} from 'js-yaml';
import {
  describeDocumentProblem,
  documentProblem,
  jsonText,
  jsonTextDepth,
  type LabelSelector,
  MAX_DOCUMENT_DEPTH,
  parseMinor,
  restoreExactRevisions,
} from '../core/index.js';
import {type Authenticator, authorized, impersonate} from './authentication.js';
import {DISCOVERY_CONTENT_TYPES, SERVER_VERSION, apiGroup, apiResourceList, coreDiscovery, groupsDiscovery} from './discovery.js';
import {checkFieldSelector, parseFieldSelector} from './field-selectors.js';
import {FaultInjector, RequestLog, matchesRequest, type DelayRule, type FaultOptions, type RequestAttributes, type RequestMatcher} from './hooks.js';
import {negotiateDiscovery, negotiateObjectFormat} from './media.js';
import {OPENAPI_V2_PROTOBUF, openApiDocuments} from './openapi.js';
import {JsonPatchError, PATCH_CONTENT_TYPES, PatchError} from './patch/index.js';
import {decodeForWrite} from './strategy.js';
import {RESOURCES, apiVersionOf, isResourceName, type ResourceInfo, type ResourceName} from './resources.js';
import {
  StatusError,
  badRequest,
  conflict,
  deletedStatus,
  forbidden,
  internalError,
  methodNotAllowed,
  notFound,
  pathNotFound,
  requestTooLarge,
  serviceUnavailable,
  tooManyRequests,
  unknownServerError,
  unauthorized,
  invalid,
  unprocessable,
  unsupportedMediaType,
} from './status-errors.js';
import {type DeleteOptions, type PropagationPolicy, type Store, labelSelectorParam} from './store.js';
import {parseIncludeObject, tableContentType, tableJson} from './tables.js';
import {WatchRegistry, serveWatch} from './watch.js';

export interface SimServerOptions {
  readonly store: Store;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0: a free port. */
  readonly port?: number;
  /** Keep request bodies in the request log (debugging). */
  readonly logBodies?: boolean;
  /** Interval of BOOKMARK events on watches that allow them (real ms, default 30,000). */
  readonly bookmarkIntervalMs?: number;
  /** Largest accepted request body (default 3 MiB, the API server's MaxRequestBodyBytes); larger ones are answered 413. */
  readonly maxBodyBytes?: number;
  /** Who may ask: without it, every request is taken as the admin's (for tests of the bare API). */
  readonly authenticator?: Authenticator;
  /** Serve HTTPS with this certificate and ask clients for certificates signed by `ca`. */
  readonly tls?: {readonly cert: string; readonly key: string; readonly ca: string};
  /** Where the detail of a 500 goes (default: stderr); the client only reads "internal error". */
  readonly logInternalError?: (error: unknown) => void;
  /** The gitVersion /version answers (default SERVER_VERSION's): a rehearsal serves its dump's. */
  readonly version?: string;
  /** Where a pod's output is (pods/NAME/log), while its process may still be writing it; undefined: it has none. */
  readonly podLog?: (namespace: string, name: string) => {readonly path: string; readonly running: () => boolean} | undefined;
  /** `/metrics` in Prometheus's text format (sim/metrics.ts); undefined: 404. */
  readonly metrics?: () => string;
  /**
   * Where the service proxy (`/api/v1/namespaces/NS/services/NAME:PORT/proxy/...`) forwards a GET: a plain http
   * URL for `NS/NAME:PORT`, or undefined (404). The simulated cluster has no Services: a test names what is behind one.
   */
  readonly serviceProxy?: (service: string) => string | undefined;
}

/** /version's answer for a gitVersion such as v1.20.2 (the build fields stay the simulator's). */
function versionInfo(gitVersion: string | undefined): object {
  if (gitVersion === undefined) return SERVER_VERSION;
  const minor = parseMinor(gitVersion);
  return {...SERVER_VERSION, minor: minor === undefined ? SERVER_VERSION.minor : String(minor), gitVersion};
}

/** Deepest JSON or YAML nesting a body may have: the one document limit. */
export const MAX_BODY_DEPTH = MAX_DOCUMENT_DEPTH;

/** Body media types for create and update, as the API server lists them (protobuf is not decoded here). */
const BODY_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

interface ResourcePath {
  readonly info: ResourceInfo;
  /** '' for cluster-scoped resources and all-namespace collections. */
  readonly namespace: string;
  readonly name?: string;
  readonly subresource?: string;
}

type Json = Record<string, unknown>;

/** The request target: the raw path (decoded segment by segment elsewhere) and the query. */
interface RequestUrl {
  readonly pathname: string;
  readonly searchParams: URLSearchParams;
}

const NO_CACHE = 'no-cache, private';

function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function send(res: ServerResponse, code: number, text: string, contentType = 'application/json', extra: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = goJsonEscape(text);
  res.writeHead(code, {'Content-Type': contentType, 'Cache-Control': NO_CACHE, 'Content-Length': Buffer.byteLength(body), ...extra});
  res.end(body);
}

/** The service proxy's GET to what stands behind a Service: its status and body passed back (503 when it does not answer). */
function proxyGet(res: ServerResponse, target: string): Promise<void> {
  return new Promise((resolve) => {
    const req = httpRequest(target, {method: 'GET'}, (answer) => {
      res.writeHead(answer.statusCode ?? 502, {'Content-Type': answer.headers['content-type'] ?? 'application/octet-stream', 'Cache-Control': NO_CACHE});
      answer.pipe(res);
      answer.on('end', resolve);
      answer.on('error', () => resolve());
    });
    req.on('error', (error) => {
      send(res, 503, JSON.stringify(new StatusError(503, 'ServiceUnavailable', `error trying to reach service: ${error.message}`).toStatus()));
      resolve();
    });
    req.end();
  });
}

function sendError(res: ServerResponse, err: StatusError): void {
  const extra: Record<string, string> = {};
  if (err.details?.retryAfterSeconds !== undefined) extra['Retry-After'] = String(err.details.retryAfterSeconds);
  send(res, err.code, JSON.stringify(err.toStatus()), 'application/json', extra);
}

function oneLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 300);
}

function queryRecord(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of params) out[k] = v;
  return out;
}

function parseBool(v: string | null): boolean {
  return v === 'true' || v === '1';
}

/** Splits an API path into its resource parts; undefined when it names nothing we serve. */
function parseResourcePath(segments: readonly string[]): ResourcePath | undefined {
  let group: string;
  let rest: readonly string[];
  if (segments[0] === 'api' && segments[1] === 'v1') {
    group = '';
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 3) {
    group = segments[1]!;
    if (segments[2] !== 'v1') return undefined;
    rest = segments.slice(3);
  } else {
    return undefined;
  }
  const resolve = (resource: string | undefined): ResourceInfo | undefined => {
    if (resource === undefined || !isResourceName(resource)) return undefined;
    const info = RESOURCES[resource];
    return info.group === group ? info : undefined;
  };
  if (rest[0] === 'namespaces' && rest.length >= 3 && group === '' && rest[2] !== 'status' && rest[2] !== 'finalize') {
    // /api/v1/namespaces/{ns}/{resource}[/{name}[/{sub}]]
    const info = resolve(rest[2]);
    if (info === undefined || !info.namespaced || rest.length > 5) return undefined;
    return {info, namespace: rest[1]!, name: rest[3], subresource: rest[4]};
  }
  if (rest[0] === 'namespaces' && rest.length >= 3 && group !== '') {
    const info = resolve(rest[2]);
    if (info === undefined || !info.namespaced || rest.length > 5) return undefined;
    return {info, namespace: rest[1]!, name: rest[3], subresource: rest[4]};
  }
  const info = resolve(rest[0]);
  if (info === undefined || rest.length > 3) return undefined;
  // A namespaced resource without a namespace is only a collection across all namespaces.
  if (info.namespaced && rest.length > 1) return undefined;
  return {info, namespace: '', name: rest[1], subresource: rest[2]};
}

function verbOf(method: string, path: ResourcePath, query: URLSearchParams): string {
  switch (method) {
    case 'GET':
    case 'HEAD':
      return path.name !== undefined ? 'get' : parseBool(query.get('watch')) ? 'watch' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return path.name !== undefined ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

function injectedFailure(code: number): StatusError {
  switch (code) {
    case 429:
      return tooManyRequests(1);
    case 500:
      return internalError('injected fault');
    case 503:
      return serviceUnavailable();
    case 504:
      return new StatusError(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', {});
    default:
      return new StatusError(code, '', `injected fault (HTTP ${code})`, {});
  }
}

/**
 * The path's segments, each percent-decoded exactly once. The raw path is split before decoding, so `%2F` stays
 * inside its segment, and dot segments (`..`, `%2e%2e`) are refused rather than resolved: a URL parser would fold
 * `/namespaces/%2e%2e/pods` into `/pods`, every namespace.
 */
export function decodePath(rawPath: string): string[] {
  if (!rawPath.startsWith('/')) throw badRequest(`invalid request path: ${JSON.stringify(rawPath.slice(0, 100))}`);
  const segments: string[] = [];
  for (const raw of rawPath.split('/')) {
    if (raw === '') continue;
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      throw badRequest(`invalid URL escape in the request path: ${JSON.stringify(raw.slice(0, 100))}`);
    }
    if (segment === '.' || segment === '..' || segment.includes('/')) throw badRequest(`invalid path segment: ${JSON.stringify(segment.slice(0, 100))}`);
    segments.push(segment);
  }
  return segments;
}

function tooDeep(): StatusError {
  return badRequest(`the request body is nested deeper than ${MAX_BODY_DEPTH} levels`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

export class SimServer {
  readonly store: Store;
  readonly requestLog = new RequestLog();
  private readonly server: Server;
  private readonly watches = new WatchRegistry();
  private forbidRules: RequestMatcher[] = [];
  private delayRules: DelayRule[] = [];
  private faults: FaultInjector | undefined;
  private address = '';
  /** Host names it answers (its own address's, whatever the port); undefined when bound to every interface. */
  private hosts: Set<string> | undefined;
  private readonly logBodies: boolean;
  private readonly bookmarkIntervalMs: number;
  private readonly maxBodyBytes: number;

  constructor(private readonly options: SimServerOptions) {
    this.store = options.store;
    this.logBodies = options.logBodies === true;
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? 30_000;
    this.maxBodyBytes = options.maxBodyBytes ?? 3 * 1024 * 1024;
    const logInternalError =
      options.logInternalError ?? ((error: unknown) => process.stderr.write(`sim: internal error: ${String((error as Error)?.stack ?? error)}\n`));
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      this.handle(req, res).catch((err: unknown) => {
        if (err instanceof StatusError) return sendError(res, err);
        // The detail (a stack, file paths) is for the operator of the simulated cluster, not for its clients.
        logInternalError(err);
        sendError(res, internalError('internal error (the simulated cluster logged the detail)'));
      });
    };
    this.server = options.tls
      ? createTlsServer({cert: options.tls.cert, key: options.tls.key, ca: options.tls.ca, requestCert: true, rejectUnauthorized: false}, handler)
      : createServer(handler);
    this.server.keepAliveTimeout = 5_000;
  }

  /** Starts listening; resolves to the base URL (`http://127.0.0.1:PORT`, or https with TLS). */
  listen(): Promise<string> {
    const host = this.options.host ?? '127.0.0.1';
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port ?? 0, host, () => {
        const addr = this.server.address() as AddressInfo;
        this.address = `${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
        const loopback = host === '127.0.0.1' || host === '::1' || host === 'localhost';
        // Names, not ports: a rebinding page uses another name, while a local proxy or port-forward keeps this one.
        const name = host.includes(':') ? `[${host}]` : host;
        this.hosts = host === '0.0.0.0' || host === '::' ? undefined : new Set([name, ...(loopback ? ['localhost'] : [])]);
        resolve(this.url);
      });
    });
  }

  get url(): string {
    return `${this.options.tls ? 'https' : 'http'}://${this.address}`;
  }

  /** Open watch streams. */
  get openWatches(): number {
    return this.watches.size;
  }

  /** Answers matching resource requests with 403 Forbidden (real Status shape). Returns the undo function. */
  forbid(rule: RequestMatcher): () => void {
    this.forbidRules.push(rule);
    return () => {
      this.forbidRules = this.forbidRules.filter((r) => r !== rule);
    };
  }

  clearForbids(): void {
    this.forbidRules = [];
  }

  /** Seeded random failures of resource requests (and watch drops). Replaces any earlier injection; returns the undo function. */
  injectFaults(options: FaultOptions): () => void {
    const injector = new FaultInjector(options);
    this.faults = injector;
    return () => {
      if (this.faults === injector) this.faults = undefined;
    };
  }

  clearFaults(): void {
    this.faults = undefined;
  }

  /** Holds matching requests (any path; `resource` rules only match resource requests) for `ms` real milliseconds. */
  delay(rule: DelayRule): () => void {
    this.delayRules.push(rule);
    return () => {
      this.delayRules = this.delayRules.filter((r) => r !== rule);
    };
  }

  clearDelays(): void {
    this.delayRules = [];
  }

  /** Ends every watch and closes every connection. */
  async close(): Promise<void> {
    this.watches.closeAll();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  // ------------------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A page in a browser on this machine can reach 127.0.0.1 under another name (DNS rebinding): answer only
    // requests addressed to this server.
    const host = (req.headers.host ?? '').toLowerCase();
    if (this.hosts !== undefined && !this.hosts.has(hostName(host)))
      throw badRequest(`the Host header ${JSON.stringify(host.slice(0, 100))} is not this server's address`);
    const rawUrl = req.url ?? '/';
    const queryAt = rawUrl.indexOf('?');
    const rawPath = queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt);
    const url = {pathname: rawPath, searchParams: new URLSearchParams(queryAt < 0 ? '' : rawUrl.slice(queryAt + 1))};
    const segments = decodePath(rawPath);
    const method = (req.method ?? 'GET').toUpperCase();
    const path = parseResourcePath(segments);
    const verb = path === undefined ? undefined : verbOf(method, path, url.searchParams);
    const authentication = this.options.authenticator?.authenticate(req);
    // No body is read for a request that will be refused anyway.
    const body = method === 'GET' || method === 'HEAD' || (authentication !== undefined && 'failed' in authentication) ? '' : await this.readBody(req);
    const entry = this.requestLog.add({
      method,
      path: url.pathname,
      query: queryRecord(url.searchParams),
      status: 0,
      verb,
      resource: path?.info.resource,
      subresource: path?.subresource,
      namespace: path?.namespace || undefined,
      name: path?.name,
      accept: req.headers.accept,
      contentType: req.headers['content-type'],
      userAgent: req.headers['user-agent'],
      ...(this.logBodies && body !== '' ? {body} : {}),
    });
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    (res as {writeHead: unknown}).writeHead = (...args: unknown[]): ServerResponse => {
      (entry as {status: number}).status = args[0] as number;
      // The server's clock is the simulated one (clients judge minReadySeconds by it), not this machine's.
      if (!res.headersSent) res.setHeader('Date', new Date(this.store.clock.now()).toUTCString());
      return writeHead(...args);
    };

    const attrs: RequestAttributes | undefined =
      path === undefined || verb === undefined
        ? undefined
        : {verb, resource: path.info.resource, subresource: path.subresource, namespace: path.namespace || undefined, name: path.name};
    for (const rule of this.delayRules) {
      const applies =
        attrs === undefined
          ? rule.resource === undefined && rule.verb === undefined && rule.namespace === undefined && rule.name === undefined
          : matchesRequest(rule, attrs);
      if (applies) await sleep(rule.ms);
    }

    try {
      // The node agents' metrics, as their own endpoints would serve them to a Prometheus: no credentials asked.
      if (path === undefined && (method === 'GET' || method === 'HEAD') && rawPath === '/metrics' && this.options.metrics) {
        const text = this.options.metrics();
        res.writeHead(200, {'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Cache-Control': NO_CACHE, 'Content-Length': Buffer.byteLength(text)});
        res.end(method === 'HEAD' ? undefined : text);
        return;
      }
      if (authentication !== undefined) {
        if ('failed' in authentication) throw unauthorized();
        const acting = impersonate(authentication.user, req.headers);
        if ('refused' in acting) {
          if (acting.refused === 'bad-request') throw badRequest('requested impersonation of groups without impersonating a user');
          throw forbidden({user: authentication.user.name, verb: 'impersonate', group: '', resource: 'users', name: acting.target});
        }
        if (!authorized(acting.user, path !== undefined)) {
          throw forbidden({
            user: acting.user.name,
            verb: verb ?? method.toLowerCase(),
            group: path?.info.group ?? '',
            resource: path?.info.resource ?? '',
            subresource: path?.subresource,
            namespace: path?.namespace || undefined,
            name: path?.name,
          });
        }
      }
      const proxied = path === undefined && method === 'GET' ? /^\/api\/v1\/namespaces\/([^/]+)\/services\/([^/]+)\/proxy(\/.*)?$/.exec(rawPath) : null;
      if (proxied) {
        const target = this.options.serviceProxy?.(`${decodeURIComponent(proxied[1]!)}/${decodeURIComponent(proxied[2]!)}`);
        if (target === undefined) throw pathNotFound();
        await proxyGet(res, `${target.replace(/\/$/, '')}${proxied[3] ?? '/'}${queryAt < 0 ? '' : rawUrl.slice(queryAt)}`);
        return;
      }
      if (path !== undefined && attrs !== undefined) {
        await this.resourceRequest(req, res, url, path, attrs, body);
      } else {
        this.nonResourceRequest(req, res, method, url, segments);
      }
    } catch (err) {
      if (err instanceof StatusError) sendError(res, err);
      else throw err;
    }
  }

  private readBody(req: IncomingMessage): Promise<string> {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > this.maxBodyBytes) {
      // Answered before the body is read; the connection closes after the answer rather than drain it.
      req.resume();
      return Promise.reject(requestTooLarge(this.maxBodyBytes));
    }
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        // Past the limit the rest is read and dropped, so that the client reads a 413 rather than a reset.
        if (size <= this.maxBodyBytes) chunks.push(chunk);
      });
      req.on('end', () => (size > this.maxBodyBytes ? reject(requestTooLarge(this.maxBodyBytes)) : resolve(Buffer.concat(chunks).toString('utf8'))));
      req.on('error', reject);
    });
  }

  private nonResourceRequest(req: IncomingMessage, res: ServerResponse, method: string, url: RequestUrl, segments: readonly string[]): void {
    if (method !== 'GET' && method !== 'HEAD') throw pathNotFound();
    const p = url.pathname.replace(/\/+$/, '') || '/';
    if (p === '/version') return send(res, 200, JSON.stringify(versionInfo(this.options.version), null, 2));
    if (p === '/healthz' || p === '/livez' || p === '/readyz') return send(res, 200, 'ok', 'text/plain; charset=utf-8');
    if (p === '/api' || p === '/apis') {
      const format = negotiateDiscovery(req.headers.accept);
      const doc = p === '/api' ? coreDiscovery(format, this.address) : groupsDiscovery(format);
      return send(res, 200, JSON.stringify(doc), format === 'legacy' ? 'application/json' : DISCOVERY_CONTENT_TYPES[format]);
    }
    if (segments[0] === 'api' && segments.length === 2) {
      const list = apiResourceList('', segments[1]!);
      if (list !== undefined) return send(res, 200, JSON.stringify(list));
    }
    if (segments[0] === 'apis' && segments.length === 2) {
      const group = apiGroup(segments[1]!);
      if (group !== undefined) return send(res, 200, JSON.stringify(group));
    }
    if (segments[0] === 'apis' && segments.length === 3) {
      const list = apiResourceList(segments[1]!, segments[2]!);
      if (list !== undefined) return send(res, 200, JSON.stringify(list));
    }
    if (p === '/openapi/v3') return send(res, 200, openApiDocuments().root);
    if (p === '/openapi/v2' || p === '/swagger-2.0.0.pb-v1') {
      // Binary: not through send(), whose JSON escaping would corrupt it. Go's mime parser rejects the
      // '@' of the real media type name, so the bytes go out as octet-stream, which kubectl accepts.
      res.writeHead(200, {'Content-Type': 'application/octet-stream', 'Cache-Control': NO_CACHE, 'Content-Length': OPENAPI_V2_PROTOBUF.length});
      res.end(OPENAPI_V2_PROTOBUF);
      return;
    }
    if (p.startsWith('/openapi/v3/')) {
      const doc = openApiDocuments().documents.get(p.slice('/openapi/v3/'.length));
      if (doc !== undefined) return send(res, 200, doc);
    }
    throw pathNotFound();
  }

  private async resourceRequest(
    req: IncomingMessage,
    res: ServerResponse,
    url: RequestUrl,
    path: ResourcePath,
    attrs: RequestAttributes,
    body: string,
  ): Promise<void> {
    const {info} = path;
    const q = url.searchParams;
    for (const rule of this.forbidRules) {
      if (matchesRequest(rule, attrs)) {
        throw forbidden({
          verb: attrs.verb,
          group: info.group,
          resource: info.resource,
          subresource: path.subresource,
          namespace: attrs.namespace,
          name: path.name,
        });
      }
    }
    const code = this.faults?.failure(attrs);
    if (code !== undefined) throw injectedFailure(code);
    if (info.resource === 'pods' && path.subresource === 'log' && attrs.verb === 'get' && path.name !== undefined) {
      return this.podLog(req, res, path.namespace, path.name, q);
    }
    if (
      path.subresource !== undefined &&
      !(path.subresource === 'status' && info.hasStatus) &&
      !(path.subresource === 'finalize' && info.resource === 'namespaces')
    ) {
      throw pathNotFound();
    }
    const dryRun = this.dryRun(q);
    this.checkFieldValidation(q);

    switch (attrs.verb) {
      case 'get':
        return this.getObject(req, res, path);
      case 'list':
        return this.listObjects(req, res, path, q);
      case 'watch':
        return this.watch(req, res, path, q);
      case 'create':
        if (path.name !== undefined || (info.namespaced && path.namespace === '')) throw methodNotAllowed();
        return this.createObject(req, res, path, body, dryRun);
      case 'update':
        if (path.name === undefined) throw methodNotAllowed();
        return this.updateObject(req, res, path, body, dryRun);
      case 'patch':
        if (path.name === undefined) throw methodNotAllowed();
        return this.patchObject(req, res, path, body, dryRun);
      case 'delete':
        return this.deleteObject(res, path, q, body, dryRun);
      case 'deletecollection':
        return this.deleteCollection(res, path, q, body, dryRun);
      default:
        throw methodNotAllowed();
    }
  }

  /**
   * pods/NAME/log, which a real API server proxies to the pod's kubelet: served here, from the output of the process
   * the simulated kubelets ran for it (a pod without one has an empty log). follow=true streams until it exits.
   */
  private async podLog(req: IncomingMessage, res: ServerResponse, namespace: string, name: string, q: URLSearchParams): Promise<void> {
    if (this.store.get('pods', namespace, name) === undefined) throw notFound(RESOURCES.pods, name);
    const log = this.options.podLog?.(namespace, name);
    const read = async (from: number): Promise<Buffer> => {
      if (log === undefined) return Buffer.alloc(0);
      const {readFile} = await import('node:fs/promises');
      const all = await readFile(log.path).catch(() => Buffer.alloc(0));
      return all.subarray(from);
    };
    if (q.get('follow') !== 'true' || log === undefined || !log.running()) {
      const text = await read(0);
      res.writeHead(200, {'Content-Type': 'text/plain', 'Cache-Control': NO_CACHE, 'Content-Length': text.length});
      res.end(text);
      return;
    }
    res.writeHead(200, {'Content-Type': 'text/plain', 'Cache-Control': NO_CACHE, 'Transfer-Encoding': 'chunked'});
    let sent = 0;
    let closed = false;
    req.on('close', () => (closed = true));
    for (;;) {
      const running = log.running();
      const more = await read(sent);
      if (more.length > 0) res.write(more);
      sent += more.length;
      if (!running || closed) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    res.end();
  }

  private dryRun(q: URLSearchParams): boolean {
    const values = q.getAll('dryRun');
    for (const v of values) if (v !== 'All') throw badRequest(`Invalid dry run value: ${v}; supported values: All`);
    return values.length > 0;
  }

  private checkFieldValidation(q: URLSearchParams): void {
    const v = q.get('fieldValidation');
    // Strict is served as Ignore: the simulator cannot tell unknown fields from known ones (kubectl cannot tell the difference).
    if (v !== null && v !== '' && v !== 'Strict' && v !== 'Warn' && v !== 'Ignore') {
      throw badRequest(`fieldValidation parameter unsupported: ${v}; must be one of Ignore, Warn, or Strict`);
    }
  }

  private parseBody(req: IncomingMessage, body: string): unknown {
    const type = (req.headers['content-type'] ?? 'application/json').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json' && type !== 'application/yaml') {
      throw unsupportedMediaType(
        type === 'application/vnd.kubernetes.protobuf'
          ? 'the simulated cluster does not decode protobuf bodies: send application/json'
          : `the body of the request was in an unknown format - accepted media types include: ${BODY_MEDIA_TYPES.join(', ')}`,
      );
    }
    let parsed: unknown;
    try {
      // A YAML body's aliases are shared by js-yaml, so parsing a bomb is cheap; its expansion is measured below.
      if (type === 'application/yaml') parsed = loadYaml(body);
      else {
        if (jsonTextDepth(body, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) throw tooDeep();
        parsed = body.trim() === '' ? undefined : JSON.parse(body);
      }
    } catch (err) {
      if (err instanceof StatusError) throw err;
      throw badRequest(`couldn't get version/kind; json parse error: ${oneLine((err as Error).message)}`);
    }
    // A revision past 2^53 is stored as written, as the API server's int64 holds it.
    restoreExactRevisions([parsed], body);
    const problem = documentProblem(parsed, body.length);
    if (problem?.kind === 'depth') throw tooDeep();
    // The API server answers excessive aliasing as a decode error (400, at once: go-yaml stops counting), in
    // go-yaml's words; the expansion measured here follows.
    // upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go transformDecodeError
    if (problem?.kind === 'aliases' || problem?.kind === 'alias-bytes')
      throw badRequest(`yaml: document contains excessive aliasing (the request body's ${describeDocumentProblem(problem)})`);
    if (problem !== undefined) throw badRequest(`the request body's ${describeDocumentProblem(problem)}`);
    return parsed;
  }

  private objectBody(req: IncomingMessage, body: string, info: ResourceInfo): Json {
    const obj = this.parseBody(req, body);
    if (!isRecord(obj)) throw badRequest("Object 'Kind' is missing in the request body");
    const apiVersion = apiVersionOf(info);
    if (obj['kind'] !== undefined && obj['kind'] !== info.kind) {
      throw badRequest(
        `${String(obj['kind'])} in version "${String(obj['apiVersion'] ?? '')}" cannot be handled as a ${info.kind}: the object kind does not match the resource`,
      );
    }
    if (obj['apiVersion'] !== undefined && obj['apiVersion'] !== apiVersion) {
      throw badRequest(`the API version in the data (${String(obj['apiVersion'])}) does not match the expected API version (${apiVersion})`);
    }
    return {...obj, kind: info.kind, apiVersion};
  }

  private withPathIdentity(obj: Json, path: ResourcePath): Json {
    const meta = isRecord(obj['metadata']) ? obj['metadata'] : {};
    if (path.name !== undefined && meta['name'] !== undefined && meta['name'] !== path.name) {
      throw badRequest(`the name of the object (${String(meta['name'])}) does not match the name on the URL (${path.name})`);
    }
    if (path.info.namespaced && meta['namespace'] !== undefined && meta['namespace'] !== '' && meta['namespace'] !== path.namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    const next: Json = {...meta};
    if (path.name !== undefined) next['name'] = path.name;
    if (path.info.namespaced) next['namespace'] = path.namespace;
    return {...obj, metadata: next};
  }

  private sendObject(res: ServerResponse, code: number, obj: object): void {
    send(res, code, jsonText(obj));
  }

  private getObject(req: IncomingMessage, res: ServerResponse, path: ResourcePath): void {
    const stored = this.store.getStored(path.info.resource, path.namespace, path.name!);
    if (stored === undefined) throw notFound(path.info, path.name!);
    const format = negotiateObjectFormat(req.headers.accept);
    if (format.kind === 'table') {
      const q = new URL(req.url ?? '/', 'http://sim').searchParams;
      const table = tableJson([stored], {
        resource: path.info.resource,
        now: this.store.clock.now(),
        version: format.version,
        includeObject: parseIncludeObject(q.get('includeObject')),
        resourceVersion: stored.object.metadata.resourceVersion,
      });
      return send(res, 200, table, tableContentType(format.version));
    }
    if (format.kind === 'partial') {
      return send(res, 200, JSON.stringify({kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${format.version}`, metadata: stored.object.metadata}));
    }
    send(res, 200, stored.json);
  }

  private selectors(path: ResourcePath, q: URLSearchParams): {labelSelector?: LabelSelector; fieldSelector: ReturnType<typeof parseFieldSelector>} {
    const fieldSelector = parseFieldSelector(q.get('fieldSelector') ?? '');
    checkFieldSelector(path.info.resource, fieldSelector);
    const labelSelector = labelSelectorParam(q.get('labelSelector') ?? '');
    return {labelSelector, fieldSelector};
  }

  private listObjects(req: IncomingMessage, res: ServerResponse, path: ResourcePath, q: URLSearchParams): void {
    const {labelSelector, fieldSelector} = this.selectors(path, q);
    const limitText = q.get('limit');
    const limit = limitText === null ? 0 : Number(limitText);
    if (!Number.isInteger(limit) || limit < 0) throw badRequest(`invalid limit: ${limitText}`);
    const page = this.store.listStored(path.info.resource, {
      namespace: path.namespace,
      labelSelector,
      fieldSelector,
      limit,
      continue: q.get('continue') ?? undefined,
    });
    const format = negotiateObjectFormat(req.headers.accept);
    if (format.kind === 'table') {
      const table = tableJson(page.items, {
        resource: path.info.resource,
        now: this.store.clock.now(),
        version: format.version,
        includeObject: parseIncludeObject(q.get('includeObject')),
        resourceVersion: page.resourceVersion,
        continue: page.continue,
        remainingItemCount: page.remainingItemCount,
      });
      return send(res, 200, table, tableContentType(format.version));
    }
    const meta: Json = {resourceVersion: page.resourceVersion};
    if (page.continue !== undefined) meta['continue'] = page.continue;
    if (page.remainingItemCount !== undefined) meta['remainingItemCount'] = page.remainingItemCount;
    if (format.kind === 'partial') {
      const apiVersion = `meta.k8s.io/${format.version}`;
      const items = page.items.map((s) => JSON.stringify({kind: 'PartialObjectMetadata', apiVersion, metadata: s.object.metadata}));
      return send(
        res,
        200,
        `{"kind":"PartialObjectMetadataList","apiVersion":"${apiVersion}","metadata":${JSON.stringify(meta)},"items":[${items.join(',')}]}`,
      );
    }
    const items = page.items.map((s) => s.json).join(',');
    send(res, 200, `{"kind":"${path.info.kind}List","apiVersion":"${apiVersionOf(path.info)}","metadata":${JSON.stringify(meta)},"items":[${items}]}`);
  }

  private watch(req: IncomingMessage, res: ServerResponse, path: ResourcePath, q: URLSearchParams): void {
    const {labelSelector, fieldSelector} = this.selectors(path, q);
    const format = negotiateObjectFormat(req.headers.accept);
    const timeoutText = q.get('timeoutSeconds');
    const timeoutSeconds = timeoutText === null ? undefined : Number(timeoutText);
    if (timeoutSeconds !== undefined && (!Number.isFinite(timeoutSeconds) || timeoutSeconds < 0)) throw badRequest(`invalid timeoutSeconds: ${timeoutText}`);
    const rv = q.get('resourceVersion') ?? undefined;
    if (rv !== undefined && rv !== '' && !/^\d+$/.test(rv)) throw badRequest(`invalid resource version: ${rv}`);
    const faults = this.faults;
    serveWatch(
      this.store,
      {
        resource: path.info.resource,
        namespace: path.namespace,
        labelSelector,
        fieldSelector,
        resourceVersion: rv,
        timeoutSeconds,
        allowBookmarks: parseBool(q.get('allowWatchBookmarks')),
        sendInitialEvents: parseBool(q.get('sendInitialEvents')),
        table: format.kind === 'table' ? {version: format.version, includeObject: parseIncludeObject(q.get('includeObject'))} : undefined,
      },
      res,
      {
        bookmarkIntervalMs: this.bookmarkIntervalMs,
        now: () => this.store.clock.now(),
        shouldDrop: faults === undefined ? undefined : () => this.faults === faults && faults.shouldDropWatch(),
      },
      this.watches,
    );
  }

  private createObject(req: IncomingMessage, res: ServerResponse, path: ResourcePath, body: string, dryRun: boolean): void {
    const obj = this.withPathIdentity(this.objectBody(req, body, path.info), path);
    const created = this.store.create(obj, {resetStatus: true, dryRun, namespace: path.namespace || undefined});
    this.sendObject(res, 201, created);
  }

  private updateObject(req: IncomingMessage, res: ServerResponse, path: ResourcePath, body: string, dryRun: boolean): void {
    const obj = this.withPathIdentity(this.objectBody(req, body, path.info), path);
    if (path.subresource === 'finalize') {
      const finalizers = isRecord(obj['spec']) ? obj['spec']['finalizers'] : undefined;
      const meta = obj['metadata'] as Json;
      const updated = this.store.modify(
        'namespaces',
        undefined,
        path.name!,
        (ns) => {
          if (meta['resourceVersion'] !== undefined && meta['resourceVersion'] !== ns.metadata.resourceVersion) throw conflict(path.info, path.name!);
          return {...ns, spec: {...(ns.spec ?? {}), finalizers: Array.isArray(finalizers) ? finalizers : []}};
        },
        {dryRun},
      );
      return this.sendObject(res, 200, updated);
    }
    const updated = this.store.update(obj, {subresource: path.subresource === 'status' ? 'status' : undefined, dryRun});
    this.sendObject(res, 200, updated);
  }

  private patchObject(req: IncomingMessage, res: ServerResponse, path: ResourcePath, body: string, dryRun: boolean): void {
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const engine = PATCH_CONTENT_TYPES[contentType];
    if (engine === undefined) {
      throw unsupportedMediaType(
        `the body of the request was in an unknown format - accepted media types include: ${Object.keys(PATCH_CONTENT_TYPES).join(', ')}`,
      );
    }
    if (jsonTextDepth(body, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) throw tooDeep();
    let patch: unknown;
    try {
      patch = JSON.parse(body === '' ? 'null' : body);
      restoreExactRevisions([patch], body);
    } catch (err) {
      throw badRequest(`error decoding patch: ${(err as Error).message}`);
    }
    const current = this.store.getStored(path.info.resource, path.namespace, path.name!);
    if (current === undefined) throw notFound(path.info, path.name!);
    let patched: Json;
    try {
      patched = engine(current.object, patch, path.info.kind) as Json;
    } catch (err) {
      if (err instanceof JsonPatchError) throw err.code === 400 ? badRequest(err.message) : unprocessable(err.message);
      if (err instanceof PatchError)
        throw err.code === 400 ? badRequest(err.message) : err.code === 422 ? unprocessable(err.message) : unknownServerError(err.message);
      throw err;
    }
    if (!isRecord(patched)) throw badRequest('the patch did not produce an object');
    // A patch that removes the metadata leaves an object without a name: invalid, as a create without one is.
    if (!isRecord(patched['metadata']) || typeof patched['metadata']['name'] !== 'string' || patched['metadata']['name'] === '') {
      const message = 'Required value: name or generateName is required';
      throw invalid(
        path.info.kind,
        path.info.group,
        path.name!,
        `${path.info.kind}${path.info.group ? `.${path.info.group}` : ''} "${path.name!}" is invalid: metadata.name: ${message}`,
        [{reason: 'FieldValueRequired', message, field: 'metadata.name'}],
      );
    }
    const meta = patched['metadata'];
    const currentRv = current.object.metadata.resourceVersion;
    if (meta['resourceVersion'] !== undefined && meta['resourceVersion'] !== '' && meta['resourceVersion'] !== currentRv) {
      throw conflict(path.info, path.name!);
    }
    const obj = this.withPathIdentity({...patched, kind: path.info.kind, apiVersion: apiVersionOf(path.info)}, path);
    // A patched object the decoder refuses is the patch's fault: the API server's patcher answers 422 there
    // (applyPatchToObject), where a create or update body of the wrong type is a 400.
    const undecodable = decodeForWrite(path.info, obj);
    if (undecodable !== undefined) {
      const message = `Invalid value: the patched object: ${undecodable.message}`;
      throw invalid('', '', '', `"" is invalid: patch: ${message}`, [{reason: 'FieldValueInvalid', message, field: 'patch'}]);
    }
    const updated = this.store.update(obj, {expectedResourceVersion: currentRv, subresource: path.subresource === 'status' ? 'status' : undefined, dryRun});
    this.sendObject(res, 200, updated);
  }

  private deleteOptions(q: URLSearchParams, body: string): DeleteOptions & {orphanDependents?: boolean} {
    let fromBody: Json = {};
    if (body.trim() !== '') {
      try {
        const parsed: unknown = JSON.parse(body);
        if (isRecord(parsed)) fromBody = parsed;
      } catch (err) {
        throw badRequest(`couldn't decode DeleteOptions: ${(err as Error).message}`);
      }
    }
    const graceText = q.get('gracePeriodSeconds');
    const grace = typeof fromBody['gracePeriodSeconds'] === 'number' ? fromBody['gracePeriodSeconds'] : graceText !== null ? Number(graceText) : undefined;
    // An int64: a value beyond it, or beyond what a double holds exactly, does not decode.
    if (grace !== undefined && !Number.isSafeInteger(grace)) throw badRequest(`invalid gracePeriodSeconds: ${String(grace).slice(0, 40)}`);
    const orphanText = q.get('orphanDependents');
    const orphan = typeof fromBody['orphanDependents'] === 'boolean' ? fromBody['orphanDependents'] : orphanText !== null ? parseBool(orphanText) : undefined;
    let policy = (fromBody['propagationPolicy'] as PropagationPolicy | undefined) ?? (q.get('propagationPolicy') as PropagationPolicy | null) ?? undefined;
    if (policy !== undefined && orphan !== undefined) throw badRequest('orphanDependents and deletionPropagation cannot be both set');
    if (policy === undefined && orphan !== undefined) policy = orphan ? 'Orphan' : 'Background';
    const pre = isRecord(fromBody['preconditions']) ? fromBody['preconditions'] : {};
    return {
      gracePeriodSeconds: grace,
      propagationPolicy: policy,
      preconditions: {
        uid: typeof pre['uid'] === 'string' ? pre['uid'] : undefined,
        resourceVersion: typeof pre['resourceVersion'] === 'string' ? pre['resourceVersion'] : undefined,
      },
      orphanDependents: orphan,
    };
  }

  private deleteObject(res: ServerResponse, path: ResourcePath, q: URLSearchParams, body: string, dryRun: boolean): void {
    const options = this.deleteOptions(q, body);
    const result = this.store.delete(path.info.resource, path.namespace, path.name!, {...options, dryRun});
    if (!result.deleted) {
      // upstream: handlers/delete.go answers 202 only for a pending delete with orphanDependents=false.
      return send(res, options.orphanDependents === false ? 202 : 200, jsonText(result.object));
    }
    // Pods and namespaces return the deleted object (ReturnDeletedObject); everything else a Success Status.
    if (path.info.resource === 'pods' || path.info.resource === 'namespaces') return send(res, 200, jsonText(result.object));
    send(res, 200, JSON.stringify(deletedStatus(path.info, path.name!, result.object.metadata.uid)));
  }

  private deleteCollection(res: ServerResponse, path: ResourcePath, q: URLSearchParams, body: string, dryRun: boolean): void {
    if (path.info.namespaced && path.namespace === '') throw methodNotAllowed();
    const {labelSelector, fieldSelector} = this.selectors(path, q);
    const options = this.deleteOptions(q, body);
    const page = this.store.listStored(path.info.resource, {namespace: path.namespace, labelSelector, fieldSelector});
    const out: string[] = [];
    for (const s of page.items) {
      try {
        const r = this.store.delete(path.info.resource, path.namespace, s.name, {...options, dryRun});
        out.push(jsonText(r.object));
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
    }
    send(
      res,
      200,
      `{"kind":"${path.info.kind}List","apiVersion":"${apiVersionOf(path.info)}","metadata":{"resourceVersion":"${this.store.resourceVersion}"},"items":[${out.join(',')}]}`,
    );
  }
}

export type {ResourceName};

/** The name part of a Host header: `127.0.0.1:6443` and `[::1]:6443` give `127.0.0.1` and `[::1]`. */
function hostName(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.indexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}
