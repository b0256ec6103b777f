// Where a request goes: the Host check's names, the path decoded segment by segment, the resource it names
// (group, version, namespace, name, subresource), the verb, and the query parameters every resource verb shares.
import type {LabelSelector} from '../core/index.js';
import {checkFieldSelector, parseFieldSelector, type FieldSelector} from './field-selectors.js';
import {RESOURCES, isResourceName, type ResourceInfo} from './resources.js';
import {badRequest} from './status-errors.js';
import {labelSelectorParam} from './store-lists.js';

export interface ResourcePath {
  readonly info: ResourceInfo;
  /** '' for cluster-scoped resources and all-namespace collections. */
  readonly namespace: string;
  readonly name?: string;
  readonly subresource?: string;
}

/** The request target: the raw path (decoded segment by segment elsewhere) and the query. */
export interface RequestUrl {
  readonly pathname: string;
  readonly searchParams: URLSearchParams;
  /** The query as sent, with its `?` ('' without one): what the service proxy passes on. */
  readonly rawQuery: string;
}

/** Splits a request target at its `?`; the path stays raw (decodePath decodes it). */
export function splitUrl(rawUrl: string): RequestUrl {
  const queryAt = rawUrl.indexOf('?');
  const pathname = queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt);
  return {pathname, searchParams: new URLSearchParams(queryAt < 0 ? '' : rawUrl.slice(queryAt + 1)), rawQuery: queryAt < 0 ? '' : rawUrl.slice(queryAt)};
}

export function queryRecord(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of params) out[k] = v;
  return out;
}

export function parseBool(v: string | null): boolean {
  return v === 'true' || v === '1';
}

/** The name part of a Host header: `127.0.0.1:6443` and `[::1]:6443` give `127.0.0.1` and `[::1]`. */
export function hostName(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.indexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

/**
 * The host names a server bound to `host` answers, whatever the port; undefined when bound to every interface.
 * Names, not ports: a rebinding page uses another name, while a local proxy or port-forward keeps this one.
 */
export function hostNamesFor(host: string): Set<string> | undefined {
  const loopback = host === '127.0.0.1' || host === '::1' || host === 'localhost';
  const name = host.includes(':') ? `[${host}]` : host;
  return host === '0.0.0.0' || host === '::' ? undefined : new Set([name, ...(loopback ? ['localhost'] : [])]);
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

/** `/api/v1/...` or `/apis/GROUP/v1/...`: the group and the segments after the version; undefined for any other path. */
function groupVersionRest(segments: readonly string[]): {group: string; rest: readonly string[]} | undefined {
  if (segments[0] === 'api' && segments[1] === 'v1') return {group: '', rest: segments.slice(2)};
  if (segments[0] === 'apis' && segments.length >= 3) {
    if (segments[2] !== 'v1') return undefined;
    return {group: segments[1]!, rest: segments.slice(3)};
  }
  return undefined;
}

/** Splits an API path into its resource parts; undefined when it names nothing we serve. */
export function parseResourcePath(segments: readonly string[]): ResourcePath | undefined {
  const gv = groupVersionRest(segments);
  if (gv === undefined) return undefined;
  const {group, rest} = gv;
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

export function verbOf(method: string, path: ResourcePath, query: URLSearchParams): string {
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

/** `/api/v1/namespaces/NS/services/NAME:PORT/proxy/...`: the service (`NS/NAME:PORT`, decoded) and the path behind it. */
export function serviceProxyTarget(rawPath: string): {service: string; path: string} | undefined {
  const proxied = /^\/api\/v1\/namespaces\/([^/]+)\/services\/([^/]+)\/proxy(\/.*)?$/.exec(rawPath);
  if (!proxied) return undefined;
  return {service: `${decodeURIComponent(proxied[1]!)}/${decodeURIComponent(proxied[2]!)}`, path: proxied[3] ?? '/'};
}

/** `dryRun=All` (repeatable); any other value is a 400. */
export function dryRunParam(q: URLSearchParams): boolean {
  const values = q.getAll('dryRun');
  for (const v of values) if (v !== 'All') throw badRequest(`Invalid dry run value: ${v}; supported values: All`);
  return values.length > 0;
}

export function checkFieldValidation(q: URLSearchParams): void {
  const v = q.get('fieldValidation');
  // Strict is served as Ignore: the simulator cannot tell unknown fields from known ones (kubectl cannot tell the difference).
  if (v !== null && v !== '' && v !== 'Strict' && v !== 'Warn' && v !== 'Ignore') {
    throw badRequest(`fieldValidation parameter unsupported: ${v}; must be one of Ignore, Warn, or Strict`);
  }
}

/** The `fieldSelector` and `labelSelector` parameters, parsed and checked against the resource (400 when malformed). */
export function selectorParams(path: ResourcePath, q: URLSearchParams): {labelSelector?: LabelSelector; fieldSelector: FieldSelector} {
  const fieldSelector = parseFieldSelector(q.get('fieldSelector') ?? '');
  checkFieldSelector(path.info.resource, fieldSelector);
  const labelSelector = labelSelectorParam(q.get('labelSelector') ?? '');
  return {labelSelector, fieldSelector};
}
