// The simulated cluster's HTTP front: a Kubernetes-API-compatible server on 127.0.0.1 that the real kubectl
// and @kubernetes/client-node accept (docs/design/sim-api.md). It routes, negotiates formats and maps store errors to
// Status bodies; the semantics live in store.ts, gc.ts and strategy.ts.
//
// This file is the request's way in (Host check, request log, test hooks, authentication, dispatch); the parts
// live beside it by what they serve: server-paths.ts (URLs and query parameters), server-bodies.ts (request
// bodies), server-objects.ts (the resource verbs), server-nonresource.ts (/version, discovery, OpenAPI, /metrics,
// the service proxy), server-http.ts (answers and Status errors), and watch.ts (watch streams).
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';
import {createServer as createTlsServer} from 'node:https';
import type {AddressInfo} from 'node:net';
import {type Authenticator, type SimUser, authorized, impersonate} from './authentication.js';
import {FaultInjector, RequestLog, matchesRequest, type DelayRule, type FaultOptions, type RequestAttributes, type RequestMatcher} from './hooks.js';
import type {ResourceName} from './resources.js';
import {readBody} from './server-bodies.js';
import {injectedFailure, recordAnswer, sendError, sleep} from './server-http.js';
import {serveMetrics, serveNonResource, serveServiceProxy} from './server-nonresource.js';
import {
  createObject,
  deleteCollection,
  deleteObject,
  getObject,
  listObjects,
  patchObject,
  podLog,
  updateObject,
  watchObjects,
  type ObjectContext,
} from './server-objects.js';
import {
  checkFieldValidation,
  decodePath,
  dryRunParam,
  hostName,
  hostNamesFor,
  parseResourcePath,
  queryRecord,
  splitUrl,
  verbOf,
  type RequestUrl,
  type ResourcePath,
} from './server-paths.js';
import {StatusError, badRequest, forbidden, internalError, methodNotAllowed, pathNotFound, unauthorized} from './status-errors.js';
import type {Store} from './store.js';
import {WatchRegistry} from './watch.js';

export {MAX_BODY_DEPTH} from './server-bodies.js';
export {decodePath} from './server-paths.js';

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

/** A request as routing sees it, before authentication. */
interface Routed {
  readonly method: string;
  readonly url: RequestUrl;
  readonly segments: readonly string[];
  /** undefined: a non-resource path. */
  readonly path: ResourcePath | undefined;
  readonly verb: string | undefined;
  /** What hooks match against (resource requests only). */
  readonly attrs: RequestAttributes | undefined;
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
  private readonly maxBodyBytes: number;
  private readonly objects: ObjectContext;

  constructor(private readonly options: SimServerOptions) {
    this.store = options.store;
    this.logBodies = options.logBodies === true;
    this.maxBodyBytes = options.maxBodyBytes ?? 3 * 1024 * 1024;
    this.objects = {
      store: this.store,
      watches: this.watches,
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 30_000,
      faults: () => this.faults,
      podLog: options.podLog,
    };
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
        this.hosts = hostNamesFor(host);
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
    const routed = this.route(req);
    const {method, path} = routed;
    const authentication = this.options.authenticator?.authenticate(req);
    // No body is read for a request that will be refused anyway.
    const body =
      method === 'GET' || method === 'HEAD' || (authentication !== undefined && 'failed' in authentication) ? '' : await readBody(req, this.maxBodyBytes);
    this.logRequest(req, res, routed, body);
    await this.applyDelays(routed.attrs);
    try {
      if (path === undefined && (method === 'GET' || method === 'HEAD') && routed.url.pathname === '/metrics' && this.options.metrics) {
        return serveMetrics(res, method, this.options.metrics());
      }
      if (authentication !== undefined) {
        if ('failed' in authentication) throw unauthorized();
        this.authorize(req, authentication.user, routed);
      }
      if (path === undefined && method === 'GET' && (await serveServiceProxy(res, routed.url, this.options.serviceProxy))) return;
      if (path !== undefined && routed.attrs !== undefined) {
        await this.resourceRequest(req, res, routed.url, path, routed.attrs, body);
      } else {
        serveNonResource({version: this.options.version, address: this.address}, req, res, method, routed.url, routed.segments);
      }
    } catch (err) {
      if (err instanceof StatusError) sendError(res, err);
      else throw err;
    }
  }

  /** The request's target, checked: a page in a browser on this machine can reach 127.0.0.1 under another name (DNS rebinding). */
  private route(req: IncomingMessage): Routed {
    const host = (req.headers.host ?? '').toLowerCase();
    if (this.hosts !== undefined && !this.hosts.has(hostName(host)))
      throw badRequest(`the Host header ${JSON.stringify(host.slice(0, 100))} is not this server's address`);
    const url = splitUrl(req.url ?? '/');
    const segments = decodePath(url.pathname);
    const method = (req.method ?? 'GET').toUpperCase();
    const path = parseResourcePath(segments);
    const verb = path === undefined ? undefined : verbOf(method, path, url.searchParams);
    const attrs: RequestAttributes | undefined =
      path === undefined || verb === undefined
        ? undefined
        : {verb, resource: path.info.resource, subresource: path.subresource, namespace: path.namespace || undefined, name: path.name};
    return {method, url, segments, path, verb, attrs};
  }

  private logRequest(req: IncomingMessage, res: ServerResponse, routed: Routed, body: string): void {
    const {path} = routed;
    const entry = this.requestLog.add({
      method: routed.method,
      path: routed.url.pathname,
      query: queryRecord(routed.url.searchParams),
      status: 0,
      verb: routed.verb,
      resource: path?.info.resource,
      subresource: path?.subresource,
      namespace: path?.namespace || undefined,
      name: path?.name,
      accept: req.headers.accept,
      contentType: req.headers['content-type'],
      userAgent: req.headers['user-agent'],
      ...(this.logBodies && body !== '' ? {body} : {}),
    });
    recordAnswer(res, entry as {status: number}, () => this.store.clock.now());
  }

  private async applyDelays(attrs: RequestAttributes | undefined): Promise<void> {
    for (const rule of this.delayRules) {
      const applies =
        attrs === undefined
          ? rule.resource === undefined && rule.verb === undefined && rule.namespace === undefined && rule.name === undefined
          : matchesRequest(rule, attrs);
      if (applies) await sleep(rule.ms);
    }
  }

  /** Impersonation (400 / 403) and whether the acting user may make a request of this kind (403). */
  private authorize(req: IncomingMessage, user: SimUser, routed: Routed): void {
    const {path, verb} = routed;
    const acting = impersonate(user, req.headers);
    if ('refused' in acting) {
      if (acting.refused === 'bad-request') throw badRequest('requested impersonation of groups without impersonating a user');
      throw forbidden({user: user.name, verb: 'impersonate', group: '', resource: 'users', name: acting.target});
    }
    if (!authorized(acting.user, path !== undefined)) {
      throw forbidden({
        user: acting.user.name,
        verb: verb ?? routed.method.toLowerCase(),
        group: path?.info.group ?? '',
        resource: path?.info.resource ?? '',
        subresource: path?.subresource,
        namespace: path?.namespace || undefined,
        name: path?.name,
      });
    }
  }

  /** forbid() rules, then injected faults: 403 or the injected failure, before anything is read or written. */
  private checkHooks(path: ResourcePath, attrs: RequestAttributes): void {
    for (const rule of this.forbidRules) {
      if (matchesRequest(rule, attrs)) {
        throw forbidden({
          verb: attrs.verb,
          group: path.info.group,
          resource: path.info.resource,
          subresource: path.subresource,
          namespace: attrs.namespace,
          name: path.name,
        });
      }
    }
    const code = this.faults?.failure(attrs);
    if (code !== undefined) throw injectedFailure(code);
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
    this.checkHooks(path, attrs);
    if (info.resource === 'pods' && path.subresource === 'log' && attrs.verb === 'get' && path.name !== undefined) {
      return podLog(this.objects, req, res, path, q);
    }
    if (
      path.subresource !== undefined &&
      !(path.subresource === 'status' && info.hasStatus) &&
      !(path.subresource === 'finalize' && info.resource === 'namespaces')
    ) {
      throw pathNotFound();
    }
    const dryRun = dryRunParam(q);
    checkFieldValidation(q);
    const ctx = this.objects;
    switch (attrs.verb) {
      case 'get':
        return getObject(ctx, req, res, path);
      case 'list':
        return listObjects(ctx, req, res, path, q);
      case 'watch':
        return watchObjects(ctx, req, res, path, q);
      case 'create':
        if (path.name !== undefined || (info.namespaced && path.namespace === '')) throw methodNotAllowed();
        return createObject(ctx, req, res, path, body, dryRun);
      case 'update':
        if (path.name === undefined) throw methodNotAllowed();
        return updateObject(ctx, req, res, path, body, dryRun);
      case 'patch':
        if (path.name === undefined) throw methodNotAllowed();
        return patchObject(ctx, req, res, path, body, dryRun);
      case 'delete':
        return deleteObject(ctx, res, path, q, body, dryRun);
      case 'deletecollection':
        return deleteCollection(ctx, res, path, q, body, dryRun);
      default:
        throw methodNotAllowed();
    }
  }
}

export type {ResourceName};
