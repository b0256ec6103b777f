// The store's events: a bounded history of committed changes that watches resume from (etcd's revisions
// up to compaction; older resourceVersions get 410 Expired), and the synchronous fan-out to in-process
// listeners, in resourceVersion order even when a listener writes (its events are queued behind).
import type {ResourceName} from './resources.js';
import {badRequest, expired} from './status-errors.js';
import type {StoredObject} from './store-tables.js';
import type {KubeObject} from './types.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** A committed change. `object` for DELETED is the last state, carrying the deletion's resourceVersion. */
export class StoreEvent {
  constructor(
    readonly type: WatchEventType,
    readonly stored: StoredObject,
    readonly resourceVersion: number,
    readonly oldObject: KubeObject | undefined,
  ) {}

  get resource(): ResourceName {
    return this.stored.resource;
  }

  get object(): KubeObject {
    return this.stored.object;
  }

  /** The object's JSON, cached. */
  get objectJson(): string {
    return this.stored.json;
  }
}

export type StoreListener = (event: StoreEvent) => void;

export interface SubscribeOptions {
  /** Only events of this resource. */
  readonly resource?: ResourceName;
}

/** The last `size` events, in a ring; what fell out of it is compacted. */
export class EventHistory {
  private readonly history: (StoreEvent | undefined)[];
  private historyStart = 0;
  private historyLength = 0;
  private compacted = 0;

  constructor(size: number) {
    this.history = new Array<StoreEvent | undefined>(Math.max(1, size));
  }

  /** The oldest resourceVersion a watch can still resume from. */
  get compactedRv(): number {
    return this.compacted;
  }

  append(event: StoreEvent): void {
    const cap = this.history.length;
    if (this.historyLength === cap) {
      this.compacted = this.history[this.historyStart]!.resourceVersion;
      this.history[this.historyStart] = event;
      this.historyStart = (this.historyStart + 1) % cap;
    } else {
      this.history[(this.historyStart + this.historyLength) % cap] = event;
      this.historyLength++;
    }
  }

  /** Committed events with resourceVersion > rv, oldest first. 410 Expired when rv is older than the history. */
  since(resourceVersion: number | string): StoreEvent[] {
    const rv = typeof resourceVersion === 'number' ? resourceVersion : Number(resourceVersion);
    if (!Number.isInteger(rv) || rv < 0) throw badRequest(`invalid resource version: ${String(resourceVersion)}`);
    if (rv < this.compacted) throw expired(`too old resource version: ${rv} (${this.compacted})`);
    const out: StoreEvent[] = [];
    // Events are appended in rv order; walk back from the newest until rv is reached.
    for (let i = this.historyLength - 1; i >= 0; i--) {
      const e = this.history[(this.historyStart + i) % this.history.length]!;
      if (e.resourceVersion <= rv) break;
      out.push(e);
    }
    return out.reverse();
  }
}

/** Listeners by resource ('*': all), each event delivered to every one before the next event starts. */
export class EventFanOut {
  private readonly listeners = new Map<ResourceName | '*', Set<StoreListener>>();
  private readonly queue: StoreEvent[] = [];
  private queueHead = 0;
  private dispatching = false;

  constructor(private readonly onListenerError: (error: unknown, event: StoreEvent) => void) {}

  /** Returns the unsubscribe function. */
  subscribe(listener: StoreListener, options: SubscribeOptions = {}): () => void {
    const key = options.resource ?? '*';
    let set = this.listeners.get(key);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(key, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  /** Delivers `event` now, or after the events already being delivered when a listener is writing. */
  publish(event: StoreEvent): void {
    this.queue.push(event);
    if (!this.dispatching) this.drain();
  }

  clear(): void {
    this.listeners.clear();
  }

  private drain(): void {
    this.dispatching = true;
    try {
      // Bounded by the events writes produce; a listener loop that never settles is a bug we surface, not hang on.
      for (let n = 0; this.queueHead < this.queue.length; n++) {
        if (n > 10_000_000) throw new Error('sim store: event dispatch does not settle');
        const event = this.queue[this.queueHead++]!;
        const targets = [...(this.listeners.get(event.resource) ?? []), ...(this.listeners.get('*') ?? [])];
        for (const l of targets) {
          try {
            l(event);
          } catch (err) {
            this.onListenerError(err, event);
          }
        }
      }
    } finally {
      this.queue.length = 0;
      this.queueHead = 0;
      this.dispatching = false;
    }
  }
}
