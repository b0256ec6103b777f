// The paths that name no resource: /version, /healthz /livez /readyz, discovery (legacy and aggregated, as the
// Accept header negotiates), OpenAPI v3 (and the v2 bytes), /metrics, and the service proxy.
import type {IncomingMessage, ServerResponse} from 'node:http';
import {parseMinor} from '../core/index.js';
import {DISCOVERY_CONTENT_TYPES, SERVER_VERSION, apiGroup, apiResourceList, coreDiscovery, groupsDiscovery} from './discovery.js';
import {negotiateDiscovery} from './media.js';
import {OPENAPI_V2_PROTOBUF, openApiDocuments} from './openapi.js';
import {NO_CACHE, proxyGet, send} from './server-http.js';
import {serviceProxyTarget, type RequestUrl} from './server-paths.js';
import {pathNotFound} from './status-errors.js';

/** What the non-resource paths answer from. */
export interface NonResourceContext {
  /** The gitVersion /version answers; undefined: SERVER_VERSION's. */
  readonly version?: string;
  /** The server's host:port, which /api names as its address. */
  readonly address: string;
}

/** /version's answer for a gitVersion such as v1.20.2 (the build fields stay the simulator's). */
function versionInfo(gitVersion: string | undefined): object {
  if (gitVersion === undefined) return SERVER_VERSION;
  const minor = parseMinor(gitVersion);
  return {...SERVER_VERSION, minor: minor === undefined ? SERVER_VERSION.minor : String(minor), gitVersion};
}

/** The node agents' metrics, as their own endpoints would serve them to a Prometheus (no credentials asked). */
export function serveMetrics(res: ServerResponse, method: string, text: string): void {
  res.writeHead(200, {'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Cache-Control': NO_CACHE, 'Content-Length': Buffer.byteLength(text)});
  res.end(method === 'HEAD' ? undefined : text);
}

/**
 * A GET through the service proxy, when `url` is one: passed to what `serviceProxy` names for the service (404
 * when nothing). Resolves to false when `url` is no service proxy path.
 */
export async function serveServiceProxy(
  res: ServerResponse,
  url: RequestUrl,
  serviceProxy: ((service: string) => string | undefined) | undefined,
): Promise<boolean> {
  const proxied = serviceProxyTarget(url.pathname);
  if (proxied === undefined) return false;
  const target = serviceProxy?.(proxied.service);
  if (target === undefined) throw pathNotFound();
  await proxyGet(res, `${target.replace(/\/$/, '')}${proxied.path}${url.rawQuery}`);
  return true;
}

/** /api/v1, /apis/GROUP and /apis/GROUP/v1: undefined for groups and versions not served. */
function groupVersionDocument(segments: readonly string[]): object | undefined {
  if (segments[0] === 'api' && segments.length === 2) return apiResourceList('', segments[1]!);
  if (segments[0] === 'apis' && segments.length === 2) return apiGroup(segments[1]!);
  if (segments[0] === 'apis' && segments.length === 3) return apiResourceList(segments[1]!, segments[2]!);
  return undefined;
}

export function serveNonResource(
  ctx: NonResourceContext,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  url: RequestUrl,
  segments: readonly string[],
): void {
  if (method !== 'GET' && method !== 'HEAD') throw pathNotFound();
  const p = url.pathname.replace(/\/+$/, '') || '/';
  if (p === '/version') return send(res, 200, JSON.stringify(versionInfo(ctx.version), null, 2));
  if (p === '/healthz' || p === '/livez' || p === '/readyz') return send(res, 200, 'ok', 'text/plain; charset=utf-8');
  if (p === '/api' || p === '/apis') {
    const format = negotiateDiscovery(req.headers.accept);
    const doc = p === '/api' ? coreDiscovery(format, ctx.address) : groupsDiscovery(format);
    return send(res, 200, JSON.stringify(doc), format === 'legacy' ? 'application/json' : DISCOVERY_CONTENT_TYPES[format]);
  }
  const groupVersion = groupVersionDocument(segments);
  if (groupVersion !== undefined) return send(res, 200, JSON.stringify(groupVersion));
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
