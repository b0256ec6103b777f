// Watch streams (docs/design/sim-api.md §5.2): newline-delimited compact JSON events, flushed per event, starting
// from a resourceVersion (no gaps, no duplicates), a synthetic ADDED snapshot when it is unset or "0",
// selector-aware ADDED/DELETED when an object moves in or out of the selection, bookmarks only on request,
// 410 as an ERROR event followed by close, and cleanup when the client goes away.
import type {ServerResponse} from 'node:http';
import {goJsonEscape} from './json-escape.js';
import {labelSelectorMatches} from '../core/index.js';
import type {LabelSelector} from '../core/index.js';
import {fieldSelectorMatches, type FieldSelector} from './field-selectors.js';
import {RESOURCES, apiVersionOf, type ResourceName} from './resources.js';
import {isStatusError} from './status-errors.js';
import {StoredObject, type Store, type StoreEvent} from './store.js';
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

export function serveWatch(store: Store, req: WatchRequest, res: ServerResponse, hooks: WatchHooks, registry: WatchRegistry): void {
  const info = RESOURCES[req.resource];
  const matches = (obj: KubeObject | undefined): boolean => {
    if (obj === undefined) return false;
    if (req.namespace !== '' && info.namespaced && obj.metadata.namespace !== req.namespace) return false;
    if (req.labelSelector !== undefined && !labelSelectorMatches(req.labelSelector, obj.metadata.labels)) return false;
    return req.fieldSelector.length === 0 || fieldSelectorMatches(req.resource, obj, req.fieldSelector);
  };

  // Work out the replay before writing anything, so a too-old resourceVersion is still an ERROR event
  // on a 200 stream (what the watch cache does) rather than a half-written response.
  const rvText = req.resourceVersion ?? '';
  const fromScratch = rvText === '' || rvText === '0' || req.sendInitialEvents;
  let replay: StoreEvent[] = [];
  let initial: StoredObject[] = [];
  let expiredStatus: object | undefined;
  try {
    if (fromScratch) {
      initial = store.listStored(req.resource, {namespace: req.namespace, labelSelector: req.labelSelector, fieldSelector: req.fieldSelector})
        .items as StoredObject[];
    } else {
      // The store's history holds every resource's events; this watch wants one resource's.
      replay = store.eventsSince(rvText).filter((event) => event.resource === req.resource);
    }
  } catch (err) {
    if (!isStatusError(err) || err.code !== 410) throw err;
    expiredStatus = err.toStatus();
  }

  res.writeHead(200, {
    'Content-Type': req.table ? tableContentType(req.table.version) : 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  // Headers now, not with the first event: clients time out waiting for them on a quiet watch.
  res.flushHeaders();

  let closed = false;
  let unsubscribe: () => void = () => undefined;
  let bookmarkTimer: NodeJS.Timeout | undefined;
  let timeoutTimer: NodeJS.Timeout | undefined;
  const clearTimers = (): void => {
    clearTimeout(bookmarkTimer);
    clearTimeout(timeoutTimer);
  };
  const close = (): void => {
    if (closed) return;
    closed = true;
    unsubscribe();
    clearTimers();
    unregister();
    res.end();
  };
  const unregister = registry.add(close);
  res.on('close', () => {
    if (!closed) {
      closed = true;
      unsubscribe();
      clearTimers();
      unregister();
    }
  });

  const writeLine = (line: string): boolean => {
    if (closed) return false;
    if (hooks.shouldDrop?.() === true) {
      close();
      return false;
    }
    res.write(goJsonEscape(line));
    return true;
  };

  const send = (type: EventType, stored: StoredObject): boolean => {
    const object = req.table
      ? tableJson([stored], {
          resource: req.resource,
          now: hooks.now(),
          version: req.table.version,
          includeObject: req.table.includeObject,
          resourceVersion: stored.object.metadata.resourceVersion,
        })
      : stored.json;
    return writeLine(`{"type":"${type}","object":${object}}\n`);
  };

  const bookmark = (initialEventsEnd: boolean): void => {
    const metadata: Record<string, unknown> = {resourceVersion: store.resourceVersion};
    if (initialEventsEnd) metadata['annotations'] = {'k8s.io/initial-events-end': 'true'};
    writeLine(`${JSON.stringify({type: 'BOOKMARK', object: {kind: info.kind, apiVersion: apiVersionOf(info), metadata}})}\n`);
  };

  if (expiredStatus !== undefined) {
    writeLine(`${JSON.stringify({type: 'ERROR', object: expiredStatus})}\n`);
    close();
    return;
  }

  // An event as this watcher sees it: objects entering or leaving the selection are ADDED / DELETED.
  const deliver = (event: StoreEvent): boolean => {
    const now = matches(event.object);
    if (event.type === 'ADDED') return now ? send('ADDED', event.stored) : true;
    if (event.type === 'DELETED') return matches(event.oldObject) || now ? send('DELETED', event.stored) : true;
    const before = matches(event.oldObject);
    if (before && now) return send('MODIFIED', event.stored);
    if (now) return send('ADDED', event.stored);
    if (before) return send('DELETED', event.stored);
    return true;
  };

  for (const stored of initial) if (!send('ADDED', stored)) return;
  if (req.sendInitialEvents && req.allowBookmarks) bookmark(true);
  for (const event of replay) if (!deliver(event)) return;
  if (closed) return;
  unsubscribe = store.subscribe(
    (event) => {
      deliver(event);
    },
    {resource: req.resource},
  );

  if (req.allowBookmarks && hooks.bookmarkIntervalMs > 0) {
    const tick = (): void => {
      if (closed) return;
      bookmark(false);
      bookmarkTimer = setTimeout(tick, hooks.bookmarkIntervalMs).unref();
    };
    bookmarkTimer = setTimeout(tick, hooks.bookmarkIntervalMs).unref();
  }
  if (req.timeoutSeconds !== undefined && req.timeoutSeconds > 0) {
    timeoutTimer = setTimeout(() => {
      // The real server sends a last bookmark before a timed-out watch ends, so the client resumes cheaply.
      if (req.allowBookmarks) bookmark(false);
      close();
    }, req.timeoutSeconds * 1000).unref();
  }
}

export {StoredObject};
