// Small HTTP helpers for talking to the simulated API server in tests.
import {type IncomingMessage, request as httpRequest} from 'node:http';
import {request as httpsRequest} from 'node:https';

export const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

/** A base URL, or a simulated cluster (its URL and CA, and its admin's token on every request). */
export type Target = string | {readonly url: string; readonly caCert?: string | undefined; authHeaders(): Record<string, string>};

interface Resolved {
  readonly base: string;
  readonly auth: Record<string, string>;
  readonly ca: string | undefined;
}

function resolveTarget(target: Target): Resolved {
  return typeof target === 'string' ? {base: target, auth: {}, ca: undefined} : {base: target.url, auth: target.authHeaders(), ca: target.caCert};
}

/** One request over http or https (trusting the cluster's CA); the answer's status, headers and body. */
function send(
  {base, ca}: Resolved,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<{status: number; headers: Headers; raw: Buffer}> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${base}${path}`);
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    // Node frames a DELETE body only with an explicit length.
    const framed = body === undefined ? headers : {...headers, 'content-length': String(Buffer.byteLength(body))};
    const req = request(url, {method, headers: framed, ...(ca ? {ca} : {})}, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const out = new Headers();
        for (const [key, value] of Object.entries(res.headers)) if (typeof value === 'string') out.set(key, value);
        resolve({status: res.statusCode ?? 0, headers: out, raw: Buffer.concat(chunks)});
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export interface JsonResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
  /** The body's bytes. */
  readonly raw: Buffer;
}

export async function call(
  target: Target,
  method: string,
  path: string,
  options: {body?: unknown; headers?: Record<string, string>} = {},
): Promise<JsonResponse> {
  const resolved = resolveTarget(target);
  const headers: Record<string, string> = {...resolved.auth, ...(options.headers ?? {})};
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await send(resolved, method, path, headers, body);
  const text = res.raw.toString('utf8');
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // leave text
  }
  return {status: res.status, headers: res.headers, body: parsed, raw: res.raw};
}

export interface WatchEvent {
  readonly type: string;
  readonly object: any;
}

export interface WatchStream {
  readonly events: WatchEvent[];
  readonly lines: string[];
  readonly status: Promise<number>;
  readonly contentType: Promise<string>;
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  waitFor(count: number, timeoutMs?: number): Promise<WatchEvent[]>;
  close(): void;
}

export function watch(target: Target, path: string, extraHeaders: Record<string, string> = {}): WatchStream {
  const {base, auth, ca} = resolveTarget(target);
  const headers = {...auth, ...extraHeaders};
  const events: WatchEvent[] = [];
  const lines: string[] = [];
  const waiters: {count: number; resolve: () => void}[] = [];
  let resolveStatus!: (n: number) => void;
  let resolveType!: (s: string) => void;
  let resolveEnd!: () => void;
  const status = new Promise<number>((r) => (resolveStatus = r));
  const contentType = new Promise<string>((r) => (resolveType = r));
  const ended = new Promise<void>((r) => (resolveEnd = r));
  const url = new URL(`${base}${path}`);
  const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {headers, ...(ca ? {ca} : {})}, (res) => {
    resolveStatus(res.statusCode ?? 0);
    resolveType(String(res.headers['content-type']));
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let nl = buffer.indexOf('\n');
      while (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        lines.push(line);
        if (line.trim() !== '') events.push(JSON.parse(line) as WatchEvent);
        nl = buffer.indexOf('\n');
      }
      for (const w of [...waiters]) if (events.length >= w.count) w.resolve();
    });
    res.on('end', () => resolveEnd());
    res.on('close', () => resolveEnd());
  });
  req.on('error', () => resolveEnd());
  req.end();
  return {
    events,
    lines,
    status,
    contentType,
    ended,
    waitFor(count: number, timeoutMs = 30_000): Promise<WatchEvent[]> {
      if (events.length >= count) return Promise.resolve(events);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${count} events; got ${JSON.stringify(events.map((e) => e.type))}`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(events);
          },
        });
      });
    },
    close(): void {
      req.destroy();
    },
  };
}

export async function until(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
