// The one place where what the API server (or the network) said becomes the project's errors
// (src/platform/errors.ts): each message is one line that names the server, or the verb and resource refused.
import {
  ClusterError,
  ClusterForbiddenError,
  ClusterUnreachableError,
  ConflictError,
  type DsRolloutError,
  InputError,
  NotFoundError,
} from '../../platform/errors.js';

/** An answer (or one object in a list or watch) past MAX_ANSWER_BYTES: the client names the server and the request. */
export class AnswerTooLargeError extends ClusterError {
  constructor(readonly limit: number) {
    super(`an answer larger than the ${limit} bytes limit`);
  }
}

/** What a request tried to do, in RBAC's terms, so that a refusal can say exactly what was refused. */
export interface RequestDescription {
  readonly verb: 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';
  /** Plural resource, as RBAC names it: daemonsets, pods, nodes, controllerrevisions. */
  readonly resource: string;
  readonly namespace?: string;
  readonly name?: string;
}

/** A Status the server answered with, kept for callers that act on the code (410 relists, 409 retries). */
export class ApiStatusError extends ClusterError {
  constructor(
    message: string,
    readonly status: number,
    readonly reason: string,
  ) {
    super(message);
  }
}

const SINGULAR: Readonly<Record<string, string>> = {
  daemonsets: 'daemonset',
  pods: 'pod',
  nodes: 'node',
  controllerrevisions: 'controllerrevision',
};

function scope(request: RequestDescription): string {
  return request.namespace === undefined ? 'at the cluster scope' : `in namespace ${request.namespace}`;
}

/** `list pods in namespace kube-system`, `patch daemonset fluentd in namespace kube-system` */
export function describeRequest(request: RequestDescription): string {
  const what = request.name === undefined ? request.resource : `${SINGULAR[request.resource] ?? request.resource} ${request.name}`;
  return `${request.verb} ${what} ${scope(request)}`;
}

interface StatusBody {
  readonly kind?: string;
  readonly message?: string;
  readonly reason?: string;
}

function parseStatus(body: string): StatusBody {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? (parsed as StatusBody) : {};
  } catch {
    return {};
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, '; ').trim();
}

/** The error for an HTTP answer other than 2xx. `body` is the raw text (a Status object, normally). */
export function errorFromResponse(status: number, body: string, request: RequestDescription, server: string): DsRolloutError {
  const parsed = parseStatus(body);
  const message = oneLine(parsed.message ?? '') || `HTTP ${status}`;
  const reason = parsed.reason ?? '';
  switch (status) {
    case 401:
      return new ClusterForbiddenError(`unauthorized: the server at ${server} did not accept the credentials (trying to ${describeRequest(request)})`);
    case 403:
      return new ClusterForbiddenError(`forbidden: cannot ${request.verb} ${request.resource} ${scope(request)}`);
    case 404:
      // A plain-text or HTML 404 ("404 page not found") is a wrong server or a proxy, not a missing object.
      if (parsed.kind !== 'Status') {
        const said = oneLine(body).slice(0, 80);
        return new ClusterError(
          `the server at ${server} is not a Kubernetes API server, or not this path's: HTTP 404${said ? ` "${said}"` : ''} on ${describeRequest(request)}`,
        );
      }
      if (request.name !== undefined) {
        const kind = SINGULAR[request.resource] ?? request.resource;
        const where = request.namespace === undefined ? '' : ` in namespace "${request.namespace}"`;
        return new NotFoundError(`${kind} "${request.name}" not found${where}`);
      }
      return new ClusterError(`the server at ${server} does not serve ${request.resource} (HTTP 404 on ${describeRequest(request)})`);
    case 409:
      return new ConflictError(`conflict: ${describeRequest(request)}: ${message}`);
    case 410:
      return new ApiStatusError(`the server expired the list or watch position (${describeRequest(request)}): ${message}`, status, reason || 'Expired');
    case 400:
    case 422:
      // The server judged the request itself: the user's input (a manifest, a revision) is at fault.
      return new InputError(`the server refused to ${describeRequest(request)}: ${message}`);
    default:
      return new ApiStatusError(`the server refused to ${describeRequest(request)}: ${message} (HTTP ${status})`, status, reason);
  }
}

const TLS_CODES = /^(?:CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH|ERR_CERT)/;

/** The error for a request that got no HTTP answer: refused, unknown host, TLS failure, reset, or timed out. */
/** No answer within the request timeout (a frozen server or proxy): the retry policy tries it only once more. */
export class NoAnswerError extends ClusterUnreachableError {}

/** `proxy`: the proxy the request went through, without credentials, to name in the message. */
export function errorFromTransport(error: unknown, server: string, timeoutMs: number | undefined, proxy?: string): DsRolloutError {
  const err = error as NodeJS.ErrnoException & {cause?: NodeJS.ErrnoException};
  const code = err?.code ?? err?.cause?.code ?? '';
  const name = err?.name ?? '';
  const prefix = `cannot reach the cluster at ${server}${proxy ? ` through the proxy ${proxy}` : ''}`;
  let why: string;
  if (name === 'TimeoutError' || name === 'AbortError' || code === 'ABORT_ERR') {
    if (timeoutMs) return new NoAnswerError(`${prefix}: no answer within ${formatSeconds(timeoutMs)} (--request-timeout)`, {cause: error});
    why = 'the request was aborted';
  } else if (code === 'ECONNREFUSED') {
    why = 'connection refused';
  } else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    why = 'host not found';
  } else if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') {
    why = `network unreachable (${code})`;
  } else if (code === 'ECONNRESET' || code === 'EPIPE' || /socket hang up/.test(err?.message ?? '')) {
    why = 'the connection was closed before the answer arrived';
  } else if (TLS_CODES.test(code)) {
    why = `TLS: ${oneLine(err.message)}`;
  } else {
    why = oneLine(err?.message ?? String(error)) || 'unknown network error';
  }
  return new ClusterUnreachableError(`${prefix}: ${why}`, {cause: error});
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

export function isExpired(error: unknown): boolean {
  return error instanceof ApiStatusError && error.status === 410;
}

export function isConflict(error: unknown): boolean {
  return error instanceof ConflictError;
}

/**
 * Credentials that could not be prepared: a missing certificate file (exit 1, the kubeconfig's fault) or an exec
 * plugin that failed or timed out (exit 2: the cluster cannot be used). Messages already name the file and key or
 * the plugin, and never carry what a plugin printed on stdout.
 */
export function errorFromCredentials(error: unknown, context: string): DsRolloutError {
  const why = oneLine((error as Error)?.message ?? String(error));
  const prefix = `cannot prepare the credentials of context "${context}"`;
  if (error instanceof ClusterError) return new ClusterForbiddenError(`${prefix}: ${why}`, {cause: error});
  if (error instanceof InputError) return new InputError(`${prefix}: ${why}`, {cause: error});
  // Anything else (a TLS key that does not parse, say) is still about the kubeconfig, not a bug.
  return new InputError(`${prefix}: ${why}`, {cause: error});
}
