// Raw JSON over the kubeconfig's own transport: credentials.ts builds the agent (CA, client certificates, proxy)
// and the auth headers (tokens, exec plugins); every request, watches included, goes through node:http(s) and
// bodies are parsed as plain JSON. Plain JSON is what the core reads (strings for times, not Date objects), and it is about twice as fast
// as client-node's typed deserialiser on large lists (docs/design/architecture.md, "Reading large lists").
import {setMaxListeners} from 'node:events';
import {Agent as HttpAgent, type AgentOptions as HttpAgentOptions, type ClientRequest, type IncomingMessage, request as httpRequest} from 'node:http';
import {Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions, request as httpsRequest} from 'node:https';
import type {Credentials, Transport} from './credentials.js';
import {ClusterError, DsRolloutError} from '../../platform/errors.js';
import {AnswerTooLargeError, errorFromCredentials, errorFromResponse, errorFromTransport, isExpired, type RequestDescription} from './errors.js';
import {formatBytes, MAX_ANSWER_BYTES} from '../bounded-input.js';
import {ListItemSplitter} from './list-stream.js';
import {type WatchEventType, WatchEventSplitter} from './watch-stream.js';
import {RETRY_ATTEMPTS, sleep, withRetries} from './retry.js';
import {jsonText, restoreExactRevisions} from '../../core/index.js';

export interface KubeClientOptions {
  /** Per-request limit in ms; 0 or undefined: none. */
  readonly timeoutMs?: number;
  /** Tries per read when the server is overloaded, failing or not answering (default: the retry policy's). */
  readonly attempts?: number;
  /** Waits between tries; injectable so tests do not sleep. */
  readonly delay?: (ms: number) => Promise<void>;
}

export interface RequestOptions {
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  readonly contentType?: string;
}

export interface ListOptions {
  /** Items per page (`limit`); the last page carries no continue token. */
  readonly pageSize: number;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export interface ListResult<T> {
  readonly items: T[];
  readonly resourceVersion: string;
}

export class KubeClient {
  /** Requests sent, for tests and benchmarks. */
  requestCount = 0;
  private serverDate: {readonly at: number; readonly receivedAt: number} | undefined;
  private readonly attempts: number;
  private readonly delay: (ms: number) => Promise<void>;
  private readonly closing = new AbortController();

  constructor(
    private readonly credentials: Credentials,
    readonly server: string,
    readonly context: string,
    private readonly options: KubeClientOptions = {},
  ) {
    this.attempts = Math.max(1, options.attempts ?? RETRY_ATTEMPTS);
    this.delay = options.delay ?? sleep;
    // Each request in flight and each open watch stream listens for close(): parallel list pages and four streams
    // are more than Node's default warning threshold, and none of them is a leak (each removes itself).
    setMaxListeners(0, this.closing.signal);
  }

  /**
   * The server's clock: its last answer's Date header (whole seconds, so never ahead) plus the local time since.
   * minReadySeconds availability is judged on the server's clock, which need not agree with this machine's
   * (the simulated cluster runs faster than real time). Before any answer: the local clock.
   */
  serverNow(): number {
    if (this.serverDate === undefined) return Date.now();
    return this.serverDate.at + (performance.now() - this.serverDate.receivedAt);
  }

  private noteServerDate(header: string | undefined): void {
    this.noteServerTime(header === undefined ? Number.NaN : Date.parse(header));
  }

  /**
   * A time the server's side wrote (a Date header, or a timestamp in an object a watch delivered): the server's
   * clock has reached it. A watch brings no Date header after it starts, and between answers the estimate advances
   * at this machine's rate: without these, a long watch judges minReadySeconds and ages on a clock that falls behind
   * a server running faster (the simulated cluster at --speed 10), and disagrees with a fresh read.
   */
  noteServerTime(at: number): void {
    if (Number.isNaN(at)) return;
    // Whole seconds: a later answer may read earlier than the running estimate; keep the larger.
    if (this.serverDate === undefined || at > this.serverNow()) this.serverDate = {at, receivedAt: performance.now()};
  }

  /**
   * Ends every request still waiting for an answer (a frozen server, no --request-timeout): a command that is done
   * must not be kept alive by a background request. Later requests fail at once.
   */
  close(): void {
    this.closing.abort();
  }

  get timeoutMs(): number | undefined {
    return this.options.timeoutMs || undefined;
  }

  /** GET one object (or one list page) as plain JSON. */
  get<T>(path: string, request: RequestDescription, options: RequestOptions = {}): Promise<T> {
    return this.retrying(() => this.send<T>('GET', path, request, options));
  }

  /**
   * GET through the API server of JSON that is not an API object (a service proxy's answer, e.g. Prometheus's
   * query API): parsed, not checked for a kind; never retried (the caller asks again on its own interval).
   */
  getJson<T>(path: string, request: RequestDescription, options: RequestOptions = {}, timeoutMs = this.timeoutMs): Promise<T> {
    return this.exchange('GET', path, request, options, timeoutMs, async (res) => JSON.parse(await readBody(res)) as T);
  }

  /** A write: never retried here (the writer decides, with fresh preconditions). */
  write<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, request: RequestDescription, options: RequestOptions = {}): Promise<T> {
    return this.send<T>(method, path, request, options);
  }

  /**
   * Every item of a collection, page by page (`limit` / `continue`). Each page is read as a stream and each item
   * projected by `project` as soon as its JSON is complete, so neither a page's text nor its full objects are held
   * at once. An expired continue token (410) restarts the list once, as client-go's pager does.
   */
  async list<T>(path: string, request: RequestDescription, project: (item: unknown) => T, options: ListOptions): Promise<ListResult<T>> {
    let items: T[] = [];
    let token: string | undefined;
    let restarted = false;
    for (;;) {
      const query = {limit: options.pageSize, continue: token, labelSelector: options.labelSelector, fieldSelector: options.fieldSelector};
      let page: {items: T[]; metadata: {resourceVersion?: string; continue?: string}};
      try {
        page = await this.retrying(() => this.listPage(path, request, project, query));
      } catch (error) {
        if (token === undefined || restarted || !isExpired(error)) throw error;
        restarted = true;
        items = [];
        token = undefined;
        continue;
      }
      for (const item of page.items) items.push(item);
      token = page.metadata.continue || undefined;
      if (token === undefined) return {items, resourceVersion: page.metadata.resourceVersion ?? ''};
    }
  }

  private async listPage<T>(
    path: string,
    request: RequestDescription,
    project: (item: unknown) => T,
    query: RequestOptions['query'],
  ): Promise<{items: T[]; metadata: {resourceVersion?: string; continue?: string}}> {
    const items: T[] = [];
    // Only a ControllerRevision has a revision number to read exactly: a pod or node item is parsed as it is.
    const parse = request.resource === 'controllerrevisions' ? parseObject : JSON.parse;
    const envelope = await this.exchange('GET', path, request, {query}, this.timeoutMs, (res) =>
      streamItems(res, (json) => {
        items.push(project(parse(json)));
      }),
    );
    const problem = notTheObjectAsked(envelope, request, true);
    if (problem !== undefined) throw notKubernetes(this.server, `GET ${path}`, undefined, undefined, problem);
    const metadata = (envelope['metadata'] ?? {}) as {resourceVersion?: string; continue?: string};
    return {items, metadata};
  }

  private retrying<T>(call: () => Promise<T>): Promise<T> {
    return withRetries(call, {attempts: this.attempts, delay: (ms) => this.delay(ms)});
  }

  /**
   * Is the server answering? One GET of /version (cheap, no RBAC needed), tried as every read is, each try
   * limited by --request-timeout or, without one, by `fallbackTimeoutMs`: a frozen server must not hang the probe.
   */
  async probe(fallbackTimeoutMs: number, noAnswerAttempts?: number): Promise<void> {
    const call = () => this.send('GET', '/version', {verb: 'get', resource: 'version'}, {}, this.timeoutMs ?? fallbackTimeoutMs);
    await withRetries(call, {attempts: this.attempts, delay: (ms) => this.delay(ms), ...(noAnswerAttempts ? {noAnswerAttempts} : {})});
  }

  /**
   * One watch stream (`watch=1`): its events are handed to `onEvent` as each line arrives, and `onDone` runs once
   * when the stream ends: undefined when the server closed it (timeoutSeconds) or it was aborted (the handle,
   * close()), else the error, mapped as every request's. Resolves with the handle once the server answered 200;
   * rejects with the mapped error when it answered otherwise or not at all: no answer within --request-timeout is
   * a NoAnswerError, as for a read, and `signal` drops a stream still starting. The stream has an agent of its own
   * (same TLS options and proxy): it must not hold a socket the reads need, and dropping it closes only its socket.
   */
  async watch(
    path: string,
    request: RequestDescription,
    query: RequestOptions['query'],
    onEvent: (type: WatchEventType, object: unknown) => void,
    onDone: (error: DsRolloutError | undefined) => void,
    signal: AbortSignal,
    refreshed = false,
  ): Promise<{abort(): void}> {
    const transport = await this.authTransport();
    const url = this.url(path, {...query, watch: 1});
    const timeoutMs = this.timeoutMs;
    // A plain agent is copied (its TLS context shared); a proxy's is built again, with the same proxy and TLS material.
    let agent = streamAgent(transport.agent);
    try {
      agent ??= await transport.newAgent();
    } catch (error) {
      throw errorFromCredentials(error, this.context);
    }
    this.requestCount++;
    let req: ClientRequest | undefined;
    let res: IncomingMessage | undefined;
    let done = false;
    // Destroying the stream's own agent closes its socket, also one a proxy that never answers holds in its connect.
    const closeAll = () => {
      req?.destroy();
      res?.destroy();
      agent.destroy();
    };
    const finish = (error: DsRolloutError | undefined) => {
      if (done) return;
      done = true;
      this.closing.signal.removeEventListener('abort', abort);
      closeAll();
      onDone(error);
    };
    const abort = () => finish(undefined);

    let answered: IncomingMessage;
    try {
      answered = await new Promise<IncomingMessage>((resolve, reject) => {
        const cancel = (reason: unknown) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onSignal);
          this.closing.signal.removeEventListener('abort', onSignal);
          closeAll();
          reject(reason);
        };
        const onSignal = () => cancel(signal.reason ?? this.closing.signal.reason ?? new DOMException('The operation was aborted', 'AbortError'));
        // Connecting and the answer's headers are one request's worth; the events after them are not limited.
        const timer = timeoutMs ? setTimeout(() => cancel(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), timeoutMs) : undefined;
        if (signal.aborted || this.closing.signal.aborted) return onSignal();
        signal.addEventListener('abort', onSignal, {once: true});
        this.closing.signal.addEventListener('abort', onSignal, {once: true});
        req = requestFor(url)(url, {method: 'GET', agent, headers: requestHeaders(transport.headers)}, (response) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onSignal);
          this.closing.signal.removeEventListener('abort', onSignal);
          resolve(response);
        });
        req.on('error', cancel);
        req.end();
      });
    } catch (error) {
      throw errorFromTransport(error, this.server, timeoutMs, this.credentials.proxyShown());
    }
    this.noteServerDate(answered.headers.date);
    const status = answered.statusCode ?? 0;
    if (status < 200 || status > 299) {
      const text = await readBody(answered).catch(() => '');
      closeAll();
      if (status === 401 && !refreshed && this.credentials.refreshAfterUnauthorized(transport))
        return this.watch(path, request, query, onEvent, onDone, signal, true);
      throw errorFromResponse(status, text, request, this.server);
    }

    res = answered;
    const splitter = new WatchEventSplitter((type, object) => {
      if (!done) onEvent(type, object);
    });
    // What the caller did with an event failed: the stream ends with that error rather than go on past the event.
    const failed = (error: unknown) =>
      finish(error instanceof DsRolloutError ? error : new ClusterError(`following ${request.resource}: ${(error as Error).message}`, {cause: error}));
    answered.on('data', (chunk: Buffer) => {
      try {
        splitter.write(chunk);
      } catch (error) {
        failed(error);
      }
    });
    answered.on('end', () => {
      try {
        splitter.end();
        finish(undefined);
      } catch (error) {
        failed(error);
      }
    });
    answered.on('error', (error) => finish(errorFromTransport(error, this.server, undefined)));
    answered.on('close', () => {
      if (!answered.complete) finish(errorFromTransport(Object.assign(new Error('socket hang up'), {code: 'ECONNRESET'}), this.server, undefined));
    });
    if (this.closing.signal.aborted) abort();
    else this.closing.signal.addEventListener('abort', abort, {once: true});
    return {abort};
  }

  private url(path: string, query: RequestOptions['query']): URL {
    const url = new URL(this.server + path);
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '') url.searchParams.set(key, String(value));
    return url;
  }

  private authTransport(): Promise<Transport> {
    return this.credentials.transport().catch((error: unknown) => {
      throw errorFromCredentials(error, this.context);
    });
  }

  private send<T>(method: string, path: string, request: RequestDescription, options: RequestOptions, timeoutMs = this.timeoutMs): Promise<T> {
    return this.exchange(method, path, request, options, timeoutMs, async (res, describeUrl) => {
      const text = await readBody(res);
      let value: unknown;
      try {
        value = parseObject(text);
      } catch (error) {
        throw notKubernetes(this.server, describeUrl, res, error);
      }
      const problem = notTheObjectAsked(value, request, request.verb === 'list');
      if (problem !== undefined) throw notKubernetes(this.server, describeUrl, res, undefined, problem);
      return value as T;
    });
  }

  /**
   * One HTTP exchange: a 2xx answer is handed to `read`; anything else becomes the project's error for that
   * status, and a failure to get or read an answer becomes ClusterUnreachableError naming the server.
   */
  private async exchange<R>(
    method: string,
    path: string,
    request: RequestDescription,
    options: RequestOptions,
    timeoutMs: number | undefined,
    read: (res: IncomingMessage, describeUrl: string) => Promise<R>,
    refreshed = false,
  ): Promise<R> {
    const transport = await this.authTransport();
    const {agent, headers} = transport;
    const url = this.url(path, options.query);
    const body = options.body === undefined ? undefined : jsonText(options.body);
    this.requestCount++;
    let failure: {status: number; text: string} | undefined;
    let result: R | undefined;
    const abort = requestAbort(this.closing.signal, timeoutMs);
    let onAbort: (() => void) | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        const req = requestFor(url)(
          url,
          {
            method,
            agent,
            headers: {
              ...requestHeaders(headers),
              ...(body === undefined ? {} : {'Content-Type': options.contentType ?? 'application/json', 'Content-Length': Buffer.byteLength(body)}),
            },
            // A fresh timeout per request (a shared one would poison every later call once it fired), and close().
            signal: abort.signal,
          },
          (res) => {
            this.noteServerDate(res.headers.date);
            const status = res.statusCode ?? 0;
            if (status < 200 || status > 299) {
              readBody(res).then(
                (text) => {
                  failure = {status, text};
                  resolve();
                },
                (error: unknown) => reject(error instanceof AnswerTooLargeError ? tooLarge(this.server, `${method} ${url.pathname}`, error) : error),
              );
              return;
            }
            const describeUrl = `${method} ${url.pathname}`;
            read(res, describeUrl).then(
              (value) => {
                result = value;
                resolve();
              },
              (error: unknown) => {
                // A transport failure while reading stays one; an answer that does not parse means the server is not Kubernetes.
                const code = (error as NodeJS.ErrnoException)?.code;
                if (error instanceof AnswerTooLargeError) reject(tooLarge(this.server, describeUrl, error));
                else reject(code === 'ECONNRESET' || error instanceof DsRolloutError ? error : notKubernetes(this.server, describeUrl, res, error));
              },
            );
          },
        );
        req.on('error', reject);
        // A proxy agent still connecting (a proxy that accepted and never answers) does not end the request on
        // an abort: the wait ends here, whatever the agent does.
        onAbort = () => {
          req.destroy();
          reject(abort.signal.reason ?? new DOMException('The operation was aborted', 'AbortError'));
        };
        abort.signal.addEventListener('abort', onAbort, {once: true});
        req.end(body);
      });
    } catch (error) {
      if (error instanceof DsRolloutError) throw error;
      throw errorFromTransport(error, this.server, timeoutMs, this.credentials.proxyShown());
    } finally {
      if (onAbort) abort.signal.removeEventListener('abort', onAbort);
      abort.done();
    }
    if (failure !== undefined) {
      // client-go's exec authenticator: a 401 on a plugin's credential gets a fresh one and one more try (nothing
      // was applied, so a write may be repeated too).
      if (failure.status === 401 && !refreshed && this.credentials.refreshAfterUnauthorized(transport))
        return this.exchange(method, path, request, options, timeoutMs, read, true);
      throw errorFromResponse(failure.status, failure.text, request, this.server);
    }
    return result as R;
  }
}

function requestFor(url: URL): typeof httpRequest {
  return url.protocol === 'http:' ? httpRequest : httpsRequest;
}

function requestHeaders(auth: Transport['headers']): Record<string, string | string[]> {
  return {...auth, Accept: 'application/json', 'User-Agent': 'ds-rollout'};
}

/** A plain http(s) agent's twin for one stream (same options, own sockets); undefined for a proxy's agent. */
function streamAgent(shared: unknown): HttpAgent | undefined {
  if (shared instanceof HttpsAgent && shared.constructor === HttpsAgent) return new HttpsAgent((shared as HttpsAgent & {options: HttpsAgentOptions}).options);
  if (shared instanceof HttpAgent && shared.constructor === HttpAgent) return new HttpAgent((shared as HttpAgent & {options: HttpAgentOptions}).options);
  return undefined;
}

/**
 * The signal of one request: aborted by close(), or when `timeoutMs` has passed. Not AbortSignal.timeout inside
 * AbortSignal.any: on Node 20 the garbage collector may take such a timeout signal before it fires (observed), and
 * the request then waits for as long as the server does. A timer holds its controller until `done()`.
 */
function requestAbort(closing: AbortSignal, timeoutMs: number | undefined): {readonly signal: AbortSignal; done(): void} {
  if (!timeoutMs) return {signal: closing, done: () => undefined};
  const controller = new AbortController();
  const onClose = () => controller.abort(closing.reason);
  if (closing.aborted) onClose();
  else closing.addEventListener('abort', onClose, {once: true});
  const timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), timeoutMs);
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      closing.removeEventListener('abort', onClose);
    },
  };
}

/**
 * A 2xx answer that is not what the API serves (a captive portal, a proxy's HTML page, a web server's JSON):
 * `problem` says what it was instead, else it was not JSON.
 */
function notKubernetes(server: string, describeUrl: string, res: IncomingMessage | undefined, cause: unknown, problem?: string): ClusterError {
  const what = problem ?? `something that is not JSON (${(res?.headers['content-type'] ?? 'no content type').split(';')[0]})`;
  return new ClusterError(`the server at ${server} is not a Kubernetes API server: it answered ${describeUrl} with ${what}`, {cause});
}

// The kind of each resource this program reads and writes; other resources' answers must only carry a kind.
const KIND_OF_RESOURCE: Readonly<Record<string, string>> = {
  daemonsets: 'DaemonSet',
  pods: 'Pod',
  nodes: 'Node',
  controllerrevisions: 'ControllerRevision',
};

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Why a 2xx answer's JSON is not what the API server sends for `request` (an object of the kind asked for, with
 * metadata; a list of them; for /version, a map), or undefined when it is. A DELETE may answer a Status.
 */
function notTheObjectAsked(value: unknown, request: RequestDescription, list: boolean): string | undefined {
  if (!isMap(value)) return 'JSON that is not an API object';
  if (request.resource === 'version') return undefined;
  const kind = KIND_OF_RESOURCE[request.resource];
  const want = kind === undefined ? undefined : list ? `${kind}List` : kind;
  const got = value['kind'];
  if (typeof got !== 'string' || got === '') return `JSON without a kind${want ? `, not a ${want}` : ''}`;
  if (want !== undefined && got !== want && !(request.verb === 'delete' && got === 'Status')) {
    return `a ${JSON.stringify(got.slice(0, 60))} object, not a ${want}`;
  }
  if (list ? !(Array.isArray(value['items']) || value['items'] === null) : !isMap(value['metadata'])) return `a ${got} without ${list ? 'items' : 'metadata'}`;
  return undefined;
}

/** An object's (or a list's) JSON, with a ControllerRevision's number past 2^53 read exactly (JSON.parse rounds it). */
function parseObject(json: string): unknown {
  const value: unknown = JSON.parse(json);
  const items = (value as {items?: unknown} | null)?.items;
  restoreExactRevisions(Array.isArray(items) ? items : [value], json);
  return value;
}

function streamItems(res: IncomingMessage, onItem: (json: string) => void): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const splitter = new ListItemSplitter(onItem);
    res.on('data', (chunk: Buffer) => {
      try {
        splitter.write(chunk);
      } catch (error) {
        // Settled first: destroying a response still arriving emits 'aborted' at once, which would win as a hang-up.
        reject(error);
        res.destroy();
      }
    });
    res.on('end', () => {
      try {
        resolve(splitter.end());
      } catch (error) {
        reject(error);
      }
    });
    res.on('error', reject);
    res.on('aborted', () => reject(Object.assign(new Error('socket hang up'), {code: 'ECONNRESET'})));
  });
}

/** An answer past MAX_ANSWER_BYTES, naming the server and the request. */
function tooLarge(server: string, describeUrl: string, error: AnswerTooLargeError): ClusterError {
  return new ClusterError(`the server at ${server} answered ${describeUrl} with more than ${formatBytes(error.limit)}: refused`, {cause: error});
}

/** A whole answer's text, refused once past MAX_ANSWER_BYTES (a body without end, a Content-Length of 10^15). */
function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_ANSWER_BYTES) return void chunks.push(chunk);
      chunks.length = 0;
      // Settled first: destroying the response emits 'aborted', which would win as a hang-up.
      reject(new AnswerTooLargeError(MAX_ANSWER_BYTES));
      res.destroy();
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
    res.on('aborted', () => reject(Object.assign(new Error('socket hang up'), {code: 'ECONNRESET'})));
  });
}
