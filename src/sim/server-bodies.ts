// Request bodies: read up to the size limit (413 past it), decoded as JSON or YAML within the document limits
// (depth, aliases), checked against the resource and the URL they were sent to, and the bodies of PATCH and
// DELETE (the patch document and its engine; DeleteOptions merged with their query parameters).
import type {IncomingMessage} from 'node:http';
import {load as loadYaml} from 'js-yaml';
import {describeDocumentProblem, documentProblem, jsonTextDepth, MAX_DOCUMENT_DEPTH, restoreExactRevisions} from '../core/index.js';
import {PATCH_CONTENT_TYPES, type PatchEngine} from './patch/index.js';
import {apiVersionOf, type ResourceInfo} from './resources.js';
import type {ResourcePath} from './server-paths.js';
import {parseBool} from './server-paths.js';
import {badRequest, requestTooLarge, StatusError, unsupportedMediaType} from './status-errors.js';
import type {DeleteOptions, PropagationPolicy} from './store-admission.js';
import {isRecord} from './store-tables.js';

export type Json = Record<string, unknown>;

/** Deepest JSON or YAML nesting a body may have: the one document limit. */
export const MAX_BODY_DEPTH = MAX_DOCUMENT_DEPTH;

/** Body media types for create and update, as the API server lists them (protobuf is not decoded here). */
const BODY_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

function tooDeep(): StatusError {
  return badRequest(`the request body is nested deeper than ${MAX_BODY_DEPTH} levels`);
}

function oneLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 300);
}

/** The body as text; a 413 when it is (or declares itself) larger than `maxBytes`. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) {
    // Answered before the body is read; the connection closes after the answer rather than drain it.
    req.resume();
    return Promise.reject(requestTooLarge(maxBytes));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit the rest is read and dropped, so that the client reads a 413 rather than a reset.
      if (size <= maxBytes) chunks.push(chunk);
    });
    req.on('end', () => (size > maxBytes ? reject(requestTooLarge(maxBytes)) : resolve(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}

function decodeText(type: string, body: string): unknown {
  try {
    // A YAML body's aliases are shared by js-yaml, so parsing a bomb is cheap; its expansion is measured below.
    if (type === 'application/yaml') return loadYaml(body);
    if (jsonTextDepth(body, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) throw tooDeep();
    return body.trim() === '' ? undefined : JSON.parse(body);
  } catch (err) {
    if (err instanceof StatusError) throw err;
    throw badRequest(`couldn't get version/kind; json parse error: ${oneLine((err as Error).message)}`);
  }
}

function parseBody(req: IncomingMessage, body: string): unknown {
  const type = (req.headers['content-type'] ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && type !== 'application/yaml') {
    throw unsupportedMediaType(
      type === 'application/vnd.kubernetes.protobuf'
        ? 'the simulated cluster does not decode protobuf bodies: send application/json'
        : `the body of the request was in an unknown format - accepted media types include: ${BODY_MEDIA_TYPES.join(', ')}`,
    );
  }
  const parsed = decodeText(type, body);
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

/** A create or update body: an object of the resource's kind and version (both filled in when absent). */
function objectBody(req: IncomingMessage, body: string, info: ResourceInfo): Json {
  const obj = parseBody(req, body);
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

/** `obj` with the URL's name and namespace; a 400 when it names others. */
export function withPathIdentity(obj: Json, path: ResourcePath): Json {
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

/** The object a POST or PUT to `path` sends, decoded and checked against the URL. */
export function requestObject(req: IncomingMessage, body: string, path: ResourcePath): Json {
  return withPathIdentity(objectBody(req, body, path.info), path);
}

/** A PATCH body: the engine its Content-Type names (415 for others) and the patch document. */
export function patchBody(req: IncomingMessage, body: string): {engine: PatchEngine; patch: unknown} {
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
  return {engine, patch};
}

/** DeleteOptions from the body, with the query's gracePeriodSeconds, orphanDependents and propagationPolicy where the body has none. */
export function deleteOptions(q: URLSearchParams, body: string): DeleteOptions & {orphanDependents?: boolean} {
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
