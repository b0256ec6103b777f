// A minimal OpenAPI v3: enough for kubectl's query-param verifier to see that every kind's PATCH accepts
// `fieldValidation`, so `create -f` / `apply -f` validate server-side instead of needing OpenAPI v2
// (docs/design/sim-api.md §3). No schemas: `kubectl explain` is out of scope.
import {createHash} from 'node:crypto';
import {RESOURCES, type ResourceInfo} from './resources.js';
import {SERVER_VERSION} from './discovery.js';

const PATCH_PARAMETERS = [
  {name: 'dryRun', in: 'query', schema: {type: 'string', uniqueItems: true}},
  {name: 'fieldManager', in: 'query', schema: {type: 'string', uniqueItems: true}},
  {name: 'fieldValidation', in: 'query', schema: {type: 'string', uniqueItems: true}},
  {name: 'force', in: 'query', schema: {type: 'boolean', uniqueItems: true}},
];

function objectPath(info: ResourceInfo): string {
  const prefix = info.group === '' ? '/api/v1' : `/apis/${info.group}/${info.version}`;
  return info.namespaced ? `${prefix}/namespaces/{namespace}/${info.resource}/{name}` : `${prefix}/${info.resource}/{name}`;
}

function patchOperation(info: ResourceInfo, subresource: string): object {
  return {
    operationId: `patch${info.kind}${subresource}`,
    'x-kubernetes-action': 'patch',
    'x-kubernetes-group-version-kind': {group: info.group, version: info.version, kind: info.kind},
    parameters: PATCH_PARAMETERS,
    responses: {'200': {description: 'OK'}},
  };
}

function groupVersionDocument(key: string): object {
  const paths: Record<string, object> = {};
  for (const info of Object.values(RESOURCES)) {
    const gvKey = info.group === '' ? 'api/v1' : `apis/${info.group}/${info.version}`;
    if (gvKey !== key) continue;
    paths[objectPath(info)] = {patch: patchOperation(info, '')};
    if (info.hasStatus) paths[`${objectPath(info)}/status`] = {patch: patchOperation(info, 'Status')};
  }
  return {openapi: '3.0.0', info: {title: 'Kubernetes', version: SERVER_VERSION.gitVersion}, paths, components: {schemas: {}}};
}

export interface OpenApiDocuments {
  /** `/openapi/v3` */
  readonly root: string;
  /** `api/v1`, `apis/apps/v1` -> document JSON */
  readonly documents: ReadonlyMap<string, string>;
}

function build(): OpenApiDocuments {
  const keys = [...new Set(Object.values(RESOURCES).map((r) => (r.group === '' ? 'api/v1' : `apis/${r.group}/${r.version}`)))];
  const documents = new Map<string, string>();
  const rootPaths: Record<string, object> = {};
  for (const key of keys) {
    const json = JSON.stringify(groupVersionDocument(key));
    documents.set(key, json);
    // A content hash, so kubectl's per-hash disk cache never serves a stale document.
    const hash = createHash('sha512').update(json).digest('hex').toUpperCase();
    rootPaths[key] = {serverRelativeURL: `/openapi/v3/${key}?hash=${hash}`};
  }
  return {root: JSON.stringify({paths: rootPaths}), documents};
}

let cached: OpenApiDocuments | undefined;

export function openApiDocuments(): OpenApiDocuments {
  return (cached ??= build());
}

// ------------------------------------------------------------------------------------------
// OpenAPI v2, for clients older than 1.27 (Debian's kubectl 1.20 among them): they validate `create -f` and
// `apply -f` against /openapi/v2 and give up without it. An empty document (no paths, no definitions) is
// enough: kubectl then finds no schema for the kind and skips client-side validation, as it does for a CRD
// without one. Newer kubectl uses v3 and tolerates this too. The body is the gnostic protobuf encoding of
// {swagger: "2.0", info: {title, version}, paths: {}}, written out by hand (three length-delimited fields).

function protoString(field: number, text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from([(field << 3) | 2, bytes.length]), bytes]);
}

function protoMessage(field: number, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([(field << 3) | 2, body.length]), body]);
}

export const OPENAPI_V2_PROTOBUF: Buffer = Buffer.concat([
  protoString(1, '2.0'),
  protoMessage(2, Buffer.concat([protoString(1, 'Kubernetes'), protoString(2, 'v1.32.5')])),
  protoMessage(8, Buffer.alloc(0)),
]);
