// Small HTTP helpers for talking to the simulated API server in tests.
import {request} from 'node:http';

export const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

export interface JsonResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
}

export async function call(
  base: string,
  method: string,
  path: string,
  options: {body?: unknown; headers?: Record<string, string>} = {},
): Promise<JsonResponse> {
  const headers: Record<string, string> = {...(options.headers ?? {})};
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${base}${path}`, {method, headers, body});
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // leave text
  }
  return {status: res.status, headers: res.headers, body: parsed};
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

export function watch(base: string, path: string, headers: Record<string, string> = {}): WatchStream {
  const events: WatchEvent[] = [];
  const lines: string[] = [];
  const waiters: {count: number; resolve: () => void}[] = [];
  let resolveStatus!: (n: number) => void;
  let resolveType!: (s: string) => void;
  let resolveEnd!: () => void;
  const status = new Promise<number>((r) => (resolveStatus = r));
  const contentType = new Promise<string>((r) => (resolveType = r));
  const ended = new Promise<void>((r) => (resolveEnd = r));
  const req = request(`${base}${path}`, {headers}, (res) => {
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
    waitFor(count: number, timeoutMs = 3000): Promise<WatchEvent[]> {
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

export async function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
