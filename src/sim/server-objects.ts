// The resource verbs: get, list and watch (JSON, Table or PartialObjectMetadata as the Accept header asks),
// create, update, patch, delete and deletecollection through the store, and pods/NAME/log. Each handler
// answers one request; routing, authentication, hooks and error mapping are server.ts's.
import type {IncomingMessage, ServerResponse} from 'node:http';
import {jsonText} from '../core/index.js';
import type {FaultInjector} from './hooks.js';
import {negotiateObjectFormat} from './media.js';
import {JsonPatchError, PatchError} from './patch/index.js';
import {RESOURCES, apiVersionOf} from './resources.js';
import {deleteOptions, patchBody, requestObject, withPathIdentity, type Json} from './server-bodies.js';
import {NO_CACHE, send} from './server-http.js';
import {parseBool, selectorParams, type ResourcePath} from './server-paths.js';
import {badRequest, conflict, deletedStatus, invalid, methodNotAllowed, notFound, StatusError, unknownServerError, unprocessable} from './status-errors.js';
import {decodeForWrite} from './strategy.js';
import type {Store} from './store.js';
import {isRecord} from './store-tables.js';
import {parseIncludeObject, tableContentType, tableJson} from './tables.js';
import {serveWatch, type WatchRegistry} from './watch.js';

/** What the handlers need from the server. */
export interface ObjectContext {
  readonly store: Store;
  readonly watches: WatchRegistry;
  /** Interval of BOOKMARK events on watches that allow them (real ms). */
  readonly bookmarkIntervalMs: number;
  /** The fault injection in force now (it may be replaced while a watch is open). */
  faults(): FaultInjector | undefined;
  /** Where a pod's output is; undefined: it has none. */
  readonly podLog?: (namespace: string, name: string) => {readonly path: string; readonly running: () => boolean} | undefined;
}

export function getObject(ctx: ObjectContext, req: IncomingMessage, res: ServerResponse, path: ResourcePath): void {
  const stored = ctx.store.getStored(path.info.resource, path.namespace, path.name!);
  if (stored === undefined) throw notFound(path.info, path.name!);
  const format = negotiateObjectFormat(req.headers.accept);
  if (format.kind === 'table') {
    const q = new URL(req.url ?? '/', 'http://sim').searchParams;
    const table = tableJson([stored], {
      resource: path.info.resource,
      now: ctx.store.clock.now(),
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

export function listObjects(ctx: ObjectContext, req: IncomingMessage, res: ServerResponse, path: ResourcePath, q: URLSearchParams): void {
  const {labelSelector, fieldSelector} = selectorParams(path, q);
  const limitText = q.get('limit');
  const limit = limitText === null ? 0 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 0) throw badRequest(`invalid limit: ${limitText}`);
  const page = ctx.store.listStored(path.info.resource, {
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
      now: ctx.store.clock.now(),
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
    return send(res, 200, `{"kind":"PartialObjectMetadataList","apiVersion":"${apiVersion}","metadata":${JSON.stringify(meta)},"items":[${items.join(',')}]}`);
  }
  const items = page.items.map((s) => s.json).join(',');
  send(res, 200, `{"kind":"${path.info.kind}List","apiVersion":"${apiVersionOf(path.info)}","metadata":${JSON.stringify(meta)},"items":[${items}]}`);
}

export function watchObjects(ctx: ObjectContext, req: IncomingMessage, res: ServerResponse, path: ResourcePath, q: URLSearchParams): void {
  const {labelSelector, fieldSelector} = selectorParams(path, q);
  const format = negotiateObjectFormat(req.headers.accept);
  const timeoutText = q.get('timeoutSeconds');
  const timeoutSeconds = timeoutText === null ? undefined : Number(timeoutText);
  if (timeoutSeconds !== undefined && (!Number.isFinite(timeoutSeconds) || timeoutSeconds < 0)) throw badRequest(`invalid timeoutSeconds: ${timeoutText}`);
  const rv = q.get('resourceVersion') ?? undefined;
  if (rv !== undefined && rv !== '' && !/^\d+$/.test(rv)) throw badRequest(`invalid resource version: ${rv}`);
  const faults = ctx.faults();
  serveWatch(
    ctx.store,
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
      bookmarkIntervalMs: ctx.bookmarkIntervalMs,
      now: () => ctx.store.clock.now(),
      shouldDrop: faults === undefined ? undefined : () => ctx.faults() === faults && faults.shouldDropWatch(),
    },
    ctx.watches,
  );
}

function sendObject(res: ServerResponse, code: number, obj: object): void {
  send(res, code, jsonText(obj));
}

export function createObject(ctx: ObjectContext, req: IncomingMessage, res: ServerResponse, path: ResourcePath, body: string, dryRun: boolean): void {
  const obj = requestObject(req, body, path);
  const created = ctx.store.create(obj, {resetStatus: true, dryRun, namespace: path.namespace || undefined});
  sendObject(res, 201, created);
}

export function updateObject(ctx: ObjectContext, req: IncomingMessage, res: ServerResponse, path: ResourcePath, body: string, dryRun: boolean): void {
  const obj = requestObject(req, body, path);
  if (path.subresource === 'finalize') {
    const finalizers = isRecord(obj['spec']) ? obj['spec']['finalizers'] : undefined;
    const meta = obj['metadata'] as Json;
    const updated = ctx.store.modify(
      'namespaces',
      undefined,
      path.name!,
      (ns) => {
        if (meta['resourceVersion'] !== undefined && meta['resourceVersion'] !== ns.metadata.resourceVersion) throw conflict(path.info, path.name!);
        return {...ns, spec: {...(ns.spec ?? {}), finalizers: Array.isArray(finalizers) ? finalizers : []}};
      },
      {dryRun},
    );
    return sendObject(res, 200, updated);
  }
  const updated = ctx.store.update(obj, {subresource: path.subresource === 'status' ? 'status' : undefined, dryRun});
  sendObject(res, 200, updated);
}

/** The patch engine's errors as the API server answers them: 400 for a malformed patch, 422 for one that cannot apply. */
function patchFailure(err: unknown): unknown {
  if (err instanceof JsonPatchError) return err.code === 400 ? badRequest(err.message) : unprocessable(err.message);
  if (err instanceof PatchError)
    return err.code === 400 ? badRequest(err.message) : err.code === 422 ? unprocessable(err.message) : unknownServerError(err.message);
  return err;
}

/** A patched object must still have a name: invalid, as a create without one is. */
function checkPatchedName(path: ResourcePath, patched: Json): asserts patched is Json & {metadata: Json} {
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
}

export function patchObject(ctx: ObjectContext, req: IncomingMessage, res: ServerResponse, path: ResourcePath, body: string, dryRun: boolean): void {
  const {engine, patch} = patchBody(req, body);
  const current = ctx.store.getStored(path.info.resource, path.namespace, path.name!);
  if (current === undefined) throw notFound(path.info, path.name!);
  let patched: Json;
  try {
    patched = engine(current.object, patch, path.info.kind) as Json;
  } catch (err) {
    throw patchFailure(err);
  }
  if (!isRecord(patched)) throw badRequest('the patch did not produce an object');
  // A patch that removes the metadata leaves an object without a name.
  checkPatchedName(path, patched);
  const meta = patched['metadata'];
  const currentRv = current.object.metadata.resourceVersion;
  if (meta['resourceVersion'] !== undefined && meta['resourceVersion'] !== '' && meta['resourceVersion'] !== currentRv) {
    throw conflict(path.info, path.name!);
  }
  const obj = withPathIdentity({...patched, kind: path.info.kind, apiVersion: apiVersionOf(path.info)}, path);
  // A patched object the decoder refuses is the patch's fault: the API server's patcher answers 422 there
  // (applyPatchToObject), where a create or update body of the wrong type is a 400.
  const undecodable = decodeForWrite(path.info, obj);
  if (undecodable !== undefined) {
    const message = `Invalid value: the patched object: ${undecodable.message}`;
    throw invalid('', '', '', `"" is invalid: patch: ${message}`, [{reason: 'FieldValueInvalid', message, field: 'patch'}]);
  }
  const updated = ctx.store.update(obj, {expectedResourceVersion: currentRv, subresource: path.subresource === 'status' ? 'status' : undefined, dryRun});
  sendObject(res, 200, updated);
}

export function deleteObject(ctx: ObjectContext, res: ServerResponse, path: ResourcePath, q: URLSearchParams, body: string, dryRun: boolean): void {
  const options = deleteOptions(q, body);
  const result = ctx.store.delete(path.info.resource, path.namespace, path.name!, {...options, dryRun});
  if (!result.deleted) {
    // upstream: handlers/delete.go answers 202 only for a pending delete with orphanDependents=false.
    return send(res, options.orphanDependents === false ? 202 : 200, jsonText(result.object));
  }
  // Pods and namespaces return the deleted object (ReturnDeletedObject); everything else a Success Status.
  if (path.info.resource === 'pods' || path.info.resource === 'namespaces') return send(res, 200, jsonText(result.object));
  send(res, 200, JSON.stringify(deletedStatus(path.info, path.name!, result.object.metadata.uid)));
}

export function deleteCollection(ctx: ObjectContext, res: ServerResponse, path: ResourcePath, q: URLSearchParams, body: string, dryRun: boolean): void {
  if (path.info.namespaced && path.namespace === '') throw methodNotAllowed();
  const {labelSelector, fieldSelector} = selectorParams(path, q);
  const options = deleteOptions(q, body);
  const page = ctx.store.listStored(path.info.resource, {namespace: path.namespace, labelSelector, fieldSelector});
  const out: string[] = [];
  for (const s of page.items) {
    try {
      const r = ctx.store.delete(path.info.resource, path.namespace, s.name, {...options, dryRun});
      out.push(jsonText(r.object));
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }
  send(
    res,
    200,
    `{"kind":"${path.info.kind}List","apiVersion":"${apiVersionOf(path.info)}","metadata":{"resourceVersion":"${ctx.store.resourceVersion}"},"items":[${out.join(',')}]}`,
  );
}

/**
 * pods/NAME/log, which a real API server proxies to the pod's kubelet: served here, from the output of the process
 * the simulated kubelets ran for it (a pod without one has an empty log). follow=true streams until it exits.
 */
export async function podLog(ctx: ObjectContext, req: IncomingMessage, res: ServerResponse, path: ResourcePath, q: URLSearchParams): Promise<void> {
  const {namespace} = path;
  const name = path.name!;
  if (ctx.store.get('pods', namespace, name) === undefined) throw notFound(RESOURCES.pods, name);
  const log = ctx.podLog?.(namespace, name);
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
