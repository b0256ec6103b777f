// Test hooks of the simulated API server: a request log, 403 rules, seeded fault injection and response
// delays. Small on purpose; tests reach them through SimulatedCluster.
import {Prng} from './prng.js';

export interface RequestLogEntry {
  readonly seq: number;
  readonly method: string;
  readonly path: string;
  /** Query parameters (the last value of a repeated key). */
  readonly query: Readonly<Record<string, string>>;
  /** HTTP status; 0 while the response has not started. */
  status: number;
  /** API verb for resource requests: get, list, watch, create, update, patch, delete, deletecollection. */
  readonly verb?: string;
  readonly resource?: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly accept?: string;
  readonly contentType?: string;
  readonly userAgent?: string;
  /** The request body, only when the server was started with logBodies. */
  readonly body?: string;
}

export type RequestFilter = Partial<Pick<RequestLogEntry, 'method' | 'path' | 'verb' | 'resource' | 'subresource' | 'namespace' | 'name' | 'status'>>;

function matchesFilter(e: RequestLogEntry, f: RequestFilter): boolean {
  for (const [k, v] of Object.entries(f)) if (v !== undefined && e[k as keyof RequestLogEntry] !== v) return false;
  return true;
}

/** Every request the server saw, in arrival order (the newest `capacity` kept; `count` never resets except by clear). */
export class RequestLog {
  private items: RequestLogEntry[] = [];
  private total = 0;

  constructor(private readonly capacity = 10_000) {}

  /** Requests seen since start or the last clear(). */
  get count(): number {
    return this.total;
  }

  get entries(): readonly RequestLogEntry[] {
    return this.items;
  }

  add(entry: Omit<RequestLogEntry, 'seq'>): RequestLogEntry {
    const e: RequestLogEntry = {...entry, seq: ++this.total};
    this.items.push(e);
    if (this.items.length > this.capacity) this.items.splice(0, this.items.length - this.capacity);
    return e;
  }

  filter(f: RequestFilter): RequestLogEntry[] {
    return this.items.filter((e) => matchesFilter(e, f));
  }

  countMatching(f: RequestFilter): number {
    return this.filter(f).length;
  }

  clear(): void {
    this.items = [];
    this.total = 0;
  }
}

/** What a rule applies to; omitted fields match anything. `resource` may name a subresource: `pods/status`. */
export interface RequestMatcher {
  readonly verb?: string | readonly string[];
  readonly resource?: string;
  readonly namespace?: string;
  readonly name?: string;
}

export interface RequestAttributes {
  readonly verb: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
}

export function matchesRequest(m: RequestMatcher, a: RequestAttributes): boolean {
  if (m.verb !== undefined && m.verb !== '*') {
    const verbs = typeof m.verb === 'string' ? [m.verb] : m.verb;
    if (!verbs.includes(a.verb)) return false;
  }
  if (m.resource !== undefined && m.resource !== '*') {
    const full = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    if (m.resource !== full) return false;
  }
  if (m.namespace !== undefined && m.namespace !== (a.namespace ?? '')) return false;
  if (m.name !== undefined && m.name !== (a.name ?? '')) return false;
  return true;
}

export interface FaultOptions {
  /** Probability in [0, 1] that an eligible request fails (and, with dropWatches, that a watch event ends its stream instead). */
  readonly rate: number;
  /** HTTP codes to answer with, picked at random (default [500, 429]). */
  readonly codes?: readonly number[];
  /** Also end open watch streams at random (per event, with `rate`). */
  readonly dropWatches?: boolean;
  readonly seed?: number;
  /** Only requests matching this (default: every resource request; discovery, /version and OpenAPI are never faulted). */
  readonly match?: RequestMatcher;
}

export class FaultInjector {
  private readonly prng: Prng;
  private readonly codes: readonly number[];

  constructor(readonly options: FaultOptions) {
    this.prng = new Prng(options.seed ?? 1);
    this.codes = options.codes && options.codes.length > 0 ? options.codes : [500, 429];
  }

  /** The code to fail this request with, or undefined. Draws from the PRNG once per eligible request. */
  failure(a: RequestAttributes): number | undefined {
    if (this.options.match !== undefined && !matchesRequest(this.options.match, a)) return undefined;
    if (this.prng.next() >= this.options.rate) return undefined;
    return this.prng.pick(this.codes);
  }

  shouldDropWatch(): boolean {
    return this.options.dropWatches === true && this.prng.next() < this.options.rate;
  }
}

export interface DelayRule extends RequestMatcher {
  /** Real milliseconds to wait before handling the request. */
  readonly ms: number;
}
