// API errors in the exact `Status` shapes kubectl and client-node parse (docs/design/sim-api.md §4). The store
// throws these; the HTTP layer serialises `toStatus()` with `code` as the HTTP status.

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Timeout'
  | '';

export interface StatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: readonly StatusCause[];
  readonly retryAfterSeconds?: number;
}

export interface Status {
  readonly kind: 'Status';
  readonly apiVersion: 'v1';
  readonly metadata: Record<string, never>;
  readonly status: 'Success' | 'Failure';
  readonly message?: string;
  readonly reason?: StatusReason;
  readonly details?: StatusDetails;
  /** Absent on the Success status a DELETE answers with, as on a real server. */
  readonly code?: number;
}

/** A group and a plural resource, e.g. {group: 'apps', resource: 'daemonsets'}. */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'StatusError';
  }

  toStatus(): Status {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      ...(this.reason === '' ? {} : {reason: this.reason}),
      ...(this.details === undefined ? {} : {details: compactDetails(this.details)}),
      code: this.code,
    };
  }
}

// Go omits empty strings in StatusDetails; so do we, so `details.group` is absent for core resources.
function compactDetails(d: StatusDetails): StatusDetails {
  const out: {-readonly [K in keyof StatusDetails]: StatusDetails[K]} = {};
  if (d.name) out.name = d.name;
  if (d.group) out.group = d.group;
  if (d.kind) out.kind = d.kind;
  if (d.uid) out.uid = d.uid;
  if (d.causes && d.causes.length > 0) out.causes = d.causes;
  if (d.retryAfterSeconds) out.retryAfterSeconds = d.retryAfterSeconds;
  return out;
}

function qualified(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${qualified(gr)} "${name}" not found`, {name, group: gr.group, kind: gr.resource});
}

/** The generic 404 for paths the server does not serve. */
export function pathNotFound(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${qualified(gr)} "${name}" already exists`, {name, group: gr.group, kind: gr.resource});
}

export const MODIFIED_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

export function conflict(gr: GroupResource, name: string, why: string = MODIFIED_MESSAGE): StatusError {
  return new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${why}`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

/** `kindGroup` is e.g. `DaemonSet.apps`; `message` is the full `… is invalid: …` text. */
export function invalid(kind: string, group: string, name: string, message: string, causes: readonly StatusCause[]): StatusError {
  return new StatusError(422, 'Invalid', message, {name, group, kind, causes});
}

/** What a real apiserver answers for a JSON patch that cannot be applied, or similar generic 422s. */
export function unprocessable(serverMessage: string): StatusError {
  return new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {
    causes: [{reason: 'UnexpectedServerResponse', message: serverMessage}],
  });
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export function expired(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

export function unsupportedMediaType(message: string): StatusError {
  return new StatusError(415, 'UnsupportedMediaType', message);
}

export function methodNotAllowed(): StatusError {
  return new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export function requestTooLarge(limit: number): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
}

export function internalError(message: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, {causes: [{message}]});
}

/** A 500 with an empty reason: kubectl prints it as `Error from server: <message>`. */
export function unknownServerError(message: string): StatusError {
  return new StatusError(500, '', message, {});
}

export function tooManyRequests(retryAfterSeconds = 1): StatusError {
  return new StatusError(429, 'TooManyRequests', 'Too many requests, please try again later.', {retryAfterSeconds});
}

export function serviceUnavailable(message = 'the server is currently unable to handle the request'): StatusError {
  return new StatusError(503, 'ServiceUnavailable', message, {});
}

export interface ForbiddenAttributes {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly user?: string;
}

// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go forbiddenMessage + NewForbidden
export function forbidden(a: ForbiddenAttributes): StatusError {
  const user = a.user ?? 'system:anonymous';
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  const why = `User "${user}" cannot ${a.verb} resource "${resource}" in API group "${a.group}" ${scope}`;
  const target = qualified({group: a.group, resource: a.resource});
  const message = a.name ? `${target} "${a.name}" is forbidden: ${why}` : `${target} is forbidden: ${why}`;
  return new StatusError(403, 'Forbidden', message, {name: a.name, group: a.group, kind: a.resource});
}

export function namespaceTerminating(gr: GroupResource, name: string, namespace: string): StatusError {
  return new StatusError(
    403,
    'Forbidden',
    `${qualified(gr)} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
    {
      name,
      group: gr.group,
      kind: gr.resource,
      causes: [{reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace'}],
    },
  );
}

export function isStatusError(err: unknown): err is StatusError {
  return err instanceof StatusError;
}

export function isNotFound(err: unknown): boolean {
  return err instanceof StatusError && err.reason === 'NotFound';
}

export function isConflict(err: unknown): boolean {
  return err instanceof StatusError && err.reason === 'Conflict';
}

export function isAlreadyExists(err: unknown): boolean {
  return err instanceof StatusError && err.reason === 'AlreadyExists';
}

export function isExpired(err: unknown): boolean {
  return err instanceof StatusError && (err.reason === 'Expired' || err.reason === 'Gone');
}

/** The `Status` a successful DELETE answers with when the object is gone and not returned. */
export function deletedStatus(gr: GroupResource, name: string, uid: string | undefined): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: compactDetails({name, group: gr.group, kind: gr.resource, uid}),
  };
}

/** What the API server answers a request without valid credentials. */
export function unauthorized(): StatusError {
  return new StatusError(401, 'Unauthorized', 'Unauthorized');
}
