// The fleet dashboard's feed over fake cluster feeds: each member connecting, then followed or failed; a failed
// one asked again; a bounded number opened at once; nothing after stop.
import {afterEach, describe, expect, test, vi} from 'vitest';
import {ClusterUnreachableError, InputError, NotFoundError} from '../../src/platform/errors.js';
import type {DashboardSnapshot, SnapshotListener} from '../../src/services/dashboard/feed.js';
import {createFleetFeed, type FleetSnapshot, type MemberPlanFeed} from '../../src/services/dashboard/fleet-feed.js';
import {handMadeState, snapshotOf} from '../ui/fixtures.js';

const SNAPSHOT = snapshotOf(handMadeState());

/** A cluster feed whose first answer the test gives. */
class FakeMemberFeed implements MemberPlanFeed {
  stopped = false;
  private readonly listeners = new Set<SnapshotListener>();
  private latest: DashboardSnapshot | undefined;
  private settle!: {resolve(s: DashboardSnapshot): void; reject(e: unknown): void};
  private readonly first = new Promise<DashboardSnapshot>((resolve, reject) => {
    this.settle = {resolve, reject};
  });

  ready(): Promise<DashboardSnapshot> {
    return this.first;
  }
  answer(snapshot: DashboardSnapshot): void {
    this.latest = snapshot;
    this.settle.resolve(snapshot);
    for (const listener of this.listeners) listener(snapshot);
  }
  fail(error: unknown): void {
    this.settle.reject(error);
  }
  subscribe(listener: SnapshotListener): () => void {
    this.listeners.add(listener);
    if (this.latest) listener(this.latest);
    return () => this.listeners.delete(listener);
  }
  stop(): void {
    this.stopped = true;
  }
}

function opener() {
  const opened: FakeMemberFeed[] = [];
  return {
    opened,
    open: () => {
      const feed = new FakeMemberFeed();
      opened.push(feed);
      return feed;
    },
  };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
const phases = (snapshot: FleetSnapshot | undefined) => snapshot?.members.map((m) => `${m.context}:${m.phase === 'failed' ? m.state : m.phase}`);

afterEach(() => {
  vi.useRealTimers();
});

describe('createFleetFeed', () => {
  test('each cluster is connecting, then followed (its latest snapshot) or a failure in its own words', async () => {
    const east = opener();
    const west = opener();
    const feed = createFleetFeed(
      [
        {context: 'east', server: 'https://east', ...east},
        {context: 'west', ...west},
        {context: 'broken', error: new InputError('context "broken" names no cluster')},
      ],
      {retryMs: 0},
    );
    let latest: FleetSnapshot | undefined;
    feed.subscribe((snapshot) => (latest = snapshot));
    expect(phases(latest)).toEqual(['east:connecting', 'west:connecting', 'broken:invalid']);
    expect(feed.feedOf('east')).toBeUndefined();

    east.opened[0]!.answer(SNAPSHOT);
    west.opened[0]!.fail(new NotFoundError('daemonset "fluentd" not found in namespace "kube-system"'));
    await flush();
    expect(phases(latest)).toEqual(['east:following', 'west:not found', 'broken:invalid']);
    expect(latest!.members[0]).toMatchObject({server: 'https://east', snapshot: SNAPSHOT});
    expect(latest!.members[1]).toMatchObject({failure: {reason: 'NotFound', message: expect.stringContaining('not found') as string}, retrying: false});
    expect(feed.feedOf('east')).toBe(east.opened[0]);
    expect(west.opened[0]!.stopped).toBe(true);

    // A later snapshot of a followed cluster changes only its row.
    const reconnecting = {...SNAPSHOT, connection: 'reconnecting' as const};
    east.opened[0]!.answer(reconnecting);
    expect(latest!.members[0]).toMatchObject({phase: 'following', snapshot: reconnecting});
    feed.stop();
  });

  test('a failed cluster is asked again after retryMs, and followed once it answers', async () => {
    vi.useFakeTimers();
    const down = opener();
    const feed = createFleetFeed([{context: 'down', ...down}], {retryMs: 15_000});
    let latest: FleetSnapshot | undefined;
    feed.subscribe((snapshot) => (latest = snapshot));
    down.opened[0]!.fail(new ClusterUnreachableError('cannot reach the cluster at https://10.0.3.4:6443: connection refused'));
    await vi.advanceTimersByTimeAsync(0);
    expect(latest!.members[0]).toMatchObject({phase: 'failed', state: 'unreachable', retrying: true});
    await vi.advanceTimersByTimeAsync(14_999);
    expect(down.opened).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(down.opened).toHaveLength(2);
    // Until it answers, the row keeps saying why it failed (no flicker back to connecting).
    expect(phases(latest)).toEqual(['down:unreachable']);
    down.opened[1]!.answer(SNAPSHOT);
    await vi.advanceTimersByTimeAsync(0);
    expect(phases(latest)).toEqual(['down:following']);
    feed.stop();
  });

  test('at most `concurrency` clusters are being opened at once; the next opens when one answers', async () => {
    const members = Array.from({length: 3}, (_, index) => ({context: `c${index}`, ...opener()}));
    const feed = createFleetFeed(members, {concurrency: 2, retryMs: 0});
    expect(members.map((m) => m.opened.length)).toEqual([1, 1, 0]);
    members[1]!.opened[0]!.answer(SNAPSHOT);
    await flush();
    expect(members.map((m) => m.opened.length)).toEqual([1, 1, 1]);
    feed.stop();
  });

  test('stop stops every cluster feed and retry, and nothing is reported after it', async () => {
    vi.useFakeTimers();
    const a = opener();
    const b = opener();
    const feed = createFleetFeed(
      [
        {context: 'a', ...a},
        {context: 'b', ...b},
      ],
      {retryMs: 1_000},
    );
    const seen: FleetSnapshot[] = [];
    feed.subscribe((snapshot) => seen.push(snapshot));
    a.opened[0]!.answer(SNAPSHOT);
    b.opened[0]!.fail(new ClusterUnreachableError('down'));
    await vi.advanceTimersByTimeAsync(0);
    const count = seen.length;
    feed.stop();
    expect(a.opened[0]!.stopped).toBe(true);
    a.opened[0]!.answer({...SNAPSHOT, connection: 'reconnecting'});
    await vi.advanceTimersByTimeAsync(5_000);
    expect(b.opened).toHaveLength(1);
    expect(seen).toHaveLength(count);
  });
});
