// Watch streams (docs/design/sim-api.md §5.2): newline-delimited compact JSON events, flushed per event, starting
// from a resourceVersion (no gaps, no duplicates), a synthetic ADDED snapshot when it is unset or "0",
// selector-aware ADDED/DELETED when an object moves in or out of the selection, bookmarks only on request,
// 410 as an ERROR event followed by close, and cleanup when the client goes away.
//
// The decisions are pure functions (where the stream starts, which objects it sees, what an event becomes for
// it, how each line is written); WatchStream holds the state of one open stream (closed, timers, listener).
import type {ServerResponse} from 'node:http';
import {goJsonEscape} from './json-escape.js';
import {labelSelectorMatches} from '../core/index.js';
import type {LabelSelector} from '../core/index.js';
import {fieldSelectorMatches, type FieldSelector} from './field-selectors.js';
import {RESOURCES, apiVersionOf, type ResourceInfo, type ResourceName} from './resources.js';
import {isStatusError} from './status-errors.js';
import type {StoreEvent} from './store-events.js';
import {StoredObject} from './store-tables.js';
import type {Store} from './store.js';
import {tableContentType, tableJson, type IncludeObject} from './tables.js';
import type {KubeObject} from './types.js';

export interface WatchRequest {
  readonly resource: ResourceName;
  /** '' for all namespaces / cluster-scoped. */
  readonly namespace: string;
  readonly labelSelector?: LabelSelector;
  readonly fieldSelector: FieldSelector;
  /** undefined or "0": start with ADDED for the current state. */
  readonly resourceVersion?: string;
  readonly timeoutSeconds?: number;
  readonly allowBookmarks: boolean;
  /** WatchList: initial ADDED events, then a bookmark annotated `k8s.io/initial-events-end`. */
  readonly sendInitialEvents: boolean;
  readonly table?: {readonly version: 'v1' | 'v1beta1'; readonly includeObject: IncludeObject};
}

export interface WatchHooks {
  /** Periodic BOOKMARK interval (real ms) when bookmarks are allowed. */
  readonly bookmarkIntervalMs: number;
  /** Asked before each event is written: true ends the stream instead (fault injection). */
  readonly shouldDrop?: () => boolean;
  /** The simulated clock, for Table ages. */
  readonly now: () => number;
}

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** Where a watch starts: the current state (from scratch), the events after its resourceVersion, or 410 Expired. */
export type WatchStart = {readonly initial: readonly StoredObject[]; readonly replay: readonly StoreEvent[]} | {readonly expired: object};

/** Tracks open watches so the server can end them all on stop(). */
export class WatchRegistry {
  private readonly open = new Set<() => void>();

  get size(): number {
    return this.open.size;
  }

  add(close: () => void): () => void {
    this.open.add(close);
    return () => this.open.delete(close);
  }

  closeAll(): void {
    for (const close of [...this.open]) close();
    this.open.clear();
  }
}

/** Whether an object is in the watch's selection: its namespace, label selector and field selector. */
export function watchMatcher(req: WatchRequest): (obj: KubeObject | undefined) => boolean {
  const info = RESOURCES[req.resource];
  return (obj) => {
    if (obj === undefined) return false;
    if (req.namespace !== '' && info.namespaced && obj.metadata.namespace !== req.namespace) return false;
    if (req.labelSelector !== undefined && !labelSelectorMatches(req.labelSelector, obj.metadata.labels)) return false;
    return req.fieldSelector.length === 0 || fieldSelectorMatches(req.resource, obj, req.fieldSelector);
  };
}

/**
 * Works out the replay before anything is written, so a too-old resourceVersion is still an ERROR event on a 200
 * stream (what the watch cache does) rather than a half-written response.
 */
export function watchStart(store: Store, req: WatchRequest): WatchStart {
  const rvText = req.resourceVersion ?? '';
  const fromScratch = rvText === '' || rvText === '0' || req.sendInitialEvents;
  try {
    if (fromScratch) {
      const list = store.listStored(req.resource, {namespace: req.namespace, labelSelector: req.labelSelector, fieldSelector: req.fieldSelector});
      return {initial: list.items, replay: []};
    }
    // The store's history holds every resource's events; this watch wants one resource's.
    return {initial: [], replay: store.eventsSince(rvText).filter((event) => event.resource === req.resource)};
  } catch (err) {
    if (!isStatusError(err) || err.code !== 410) throw err;
    return {expired: err.toStatus()};
  }
}

/**
 * An event as this watcher sees it: objects entering or leaving the selection are ADDED / DELETED; undefined
 * when the watcher sees nothing of it.
 */
export function seenAs(event: Pick<StoreEvent, 'type' | 'object' | 'oldObject'>, matches: (obj: KubeObject | undefined) => boolean): EventType | undefined {
  const now = matches(event.object);
  if (event.type === 'ADDED') return now ? 'ADDED' : undefined;
  if (event.type === 'DELETED') return matches(event.oldObject) || now ? 'DELETED' : undefined;
  const before = matches(event.oldObject);
  if (before && now) return 'MODIFIED';
  if (now) return 'ADDED';
  if (before) return 'DELETED';
  return undefined;
}

/** One event's line: the object's cached JSON, or a one-row Table (aged by `now`) when the watch asked for Tables. */
export function eventLine(req: WatchRequest, type: EventType, stored: StoredObject, now: () => number): string {
  const object = req.table
    ? tableJson([stored], {
        resource: req.resource,
        now: now(),
        version: req.table.version,
        includeObject: req.table.includeObject,
        resourceVersion: stored.object.metadata.resourceVersion,
      })
    : stored.json;
  return `{"type":"${type}","object":${object}}\n`;
}

/** A BOOKMARK at `resourceVersion`; the one ending a WatchList's initial events carries `k8s.io/initial-events-end`. */
export function bookmarkLine(info: ResourceInfo, resourceVersion: string, initialEventsEnd: boolean): string {
  const metadata: Record<string, unknown> = {resourceVersion};
  if (initialEventsEnd) metadata['annotations'] = {'k8s.io/initial-events-end': 'true'};
  return `${JSON.stringify({type: 'BOOKMARK', object: {kind: info.kind, apiVersion: apiVersionOf(info), metadata}})}\n`;
}

/** The state of one open stream: whether it is closed, its store listener and its timers, and its place in the registry. */
class WatchStream {
  private done = false;
  private unsubscribe: () => void = () => undefined;
  private bookmarkTimer: NodeJS.Timeout | undefined;
  private timeoutTimer: NodeJS.Timeout | undefined;
  private readonly unregister: () => void;

  constructor(
    private readonly res: ServerResponse,
    private readonly shouldDrop: (() => boolean) | undefined,
    registry: WatchRegistry,
  ) {
    this.unregister = registry.add(() => this.close());
    res.on('close', () => {
      if (!this.done) this.release();
    });
  }

  get closed(): boolean {
    return this.done;
  }

  /** Writes a line; false when the stream is closed (or fault injection drops it now). */
  writeLine(line: string): boolean {
    if (this.done) return false;
    if (this.shouldDrop?.() === true) {
      this.close();
      return false;
    }
    this.res.write(goJsonEscape(line));
    return true;
  }

  close(): void {
    if (this.done) return;
    this.release();
    this.res.end();
  }

  /** Keeps `unsubscribe` to call when the stream ends. */
  follow(unsubscribe: () => void): void {
    this.unsubscribe = unsubscribe;
  }

  /** Periodic bookmarks every `intervalMs` (real ms; 0: none). */
  bookmarkEvery(intervalMs: number, bookmark: () => void): void {
    if (intervalMs <= 0) return;
    const tick = (): void => {
      if (this.done) return;
      bookmark();
      this.bookmarkTimer = setTimeout(tick, intervalMs).unref();
    };
    this.bookmarkTimer = setTimeout(tick, intervalMs).unref();
  }

  /** Ends the stream after `seconds`, `last` written first. */
  endAfter(seconds: number, last: () => void): void {
    this.timeoutTimer = setTimeout(() => {
      last();
      this.close();
    }, seconds * 1000).unref();
  }

  private release(): void {
    this.done = true;
    this.unsubscribe();
    clearTimeout(this.bookmarkTimer);
    clearTimeout(this.timeoutTimer);
    this.unregister();
  }
}

export function serveWatch(store: Store, req: WatchRequest, res: ServerResponse, hooks: WatchHooks, registry: WatchRegistry): void {
  const info = RESOURCES[req.resource];
  const start = watchStart(store, req);
  res.writeHead(200, {
    'Content-Type': req.table ? tableContentType(req.table.version) : 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  // Headers now, not with the first event: clients time out waiting for them on a quiet watch.
  res.flushHeaders();
  const stream = new WatchStream(res, hooks.shouldDrop, registry);
  if ('expired' in start) {
    stream.writeLine(`${JSON.stringify({type: 'ERROR', object: start.expired})}\n`);
    stream.close();
    return;
  }
  const matches = watchMatcher(req);
  const send = (type: EventType, stored: StoredObject): boolean => stream.writeLine(eventLine(req, type, stored, hooks.now));
  const deliver = (event: StoreEvent): boolean => {
    const type = seenAs(event, matches);
    return type === undefined ? true : send(type, event.stored);
  };
  const bookmark = (initialEventsEnd: boolean): void => {
    stream.writeLine(bookmarkLine(info, store.resourceVersion, initialEventsEnd));
  };

  for (const stored of start.initial) if (!send('ADDED', stored)) return;
  if (req.sendInitialEvents && req.allowBookmarks) bookmark(true);
  for (const event of start.replay) if (!deliver(event)) return;
  if (stream.closed) return;
  stream.follow(store.subscribe((event) => void deliver(event), {resource: req.resource}));
  if (req.allowBookmarks) stream.bookmarkEvery(hooks.bookmarkIntervalMs, () => bookmark(false));
  // The real server sends a last bookmark before a timed-out watch ends, so the client resumes cheaply.
  if (req.timeoutSeconds !== undefined && req.timeoutSeconds > 0) {
    stream.endAfter(req.timeoutSeconds, () => {
      if (req.allowBookmarks) bookmark(false);
    });
  }
}

export {StoredObject};
