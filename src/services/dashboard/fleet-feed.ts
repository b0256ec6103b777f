// The fleet dashboard's feed (`dashboard NAME --contexts`): one plan feed per cluster, each following its cluster
// through its own watches as the one-cluster dashboard does, and one list of where each cluster stands. A cluster
// that cannot be followed (unreachable, forbidden, no such DaemonSet) is a member saying so and is asked again
// later; it never ends the others. Clusters are opened a bounded number at a time, as the fleet view asks them.
import type {DashboardSnapshot, PlanFeed} from './feed.js';
import type {ContextFailure} from '../../output/fleet-text.js';
import {contextFailure, FLEET_CONCURRENCY} from '../fleet.js';

/** One cluster's plan feed (services/dashboard.ts createPlanFeed): ready() rejects when it cannot follow at all. */
export interface MemberPlanFeed extends PlanFeed {
  ready(): Promise<DashboardSnapshot>;
  stop(): void;
}

/** A context of the fleet: how to follow it, or why it could not be opened (its kubeconfig entry). */
export type FleetFeedMember = {readonly context: string; readonly server?: string} & ({readonly open: () => MemberPlanFeed} | {readonly error: unknown});

/** Where one cluster stands: being opened, followed (its latest snapshot), or failed (and whether it is asked again). */
export type FleetMemberView = {readonly context: string; readonly server?: string} & (
  | {readonly phase: 'connecting'}
  | {readonly phase: 'following'; readonly snapshot: DashboardSnapshot}
  | {readonly phase: 'failed'; readonly state: string; readonly failure: ContextFailure; readonly retrying: boolean}
);

export interface FleetSnapshot {
  /** In the order asked. */
  readonly members: readonly FleetMemberView[];
}

export type FleetListener = (snapshot: FleetSnapshot) => void;

export interface FleetFeed {
  /** The latest fleet first, then every change; returns the unsubscribe function. */
  subscribe(listener: FleetListener): () => void;
  /** A followed cluster's own feed (the drill-in screen subscribes to it); undefined while it is not followed. */
  feedOf(context: string): PlanFeed | undefined;
  stop(): void;
}

export interface FleetFeedOptions {
  /** How many clusters are being opened at once (default: the fleet view's). */
  readonly concurrency?: number;
  /** Ask a failed cluster again after this long (default 15 s; 0: never). */
  readonly retryMs?: number;
}

export const DEFAULT_FLEET_RETRY_MS = 15_000;

function serverOf(member: FleetFeedMember): {readonly server?: string} {
  return member.server === undefined ? {} : {server: member.server};
}

function failedView(member: FleetFeedMember, error: unknown, retrying: boolean): FleetMemberView {
  const {state, reason, message} = contextFailure(error);
  return {context: member.context, ...serverOf(member), phase: 'failed', state, failure: {reason, message}, retrying};
}

/** Follows every member; a member's view changes only when its own feed says something new. */
export function createFleetFeed(members: readonly FleetFeedMember[], options: FleetFeedOptions = {}): FleetFeed {
  const fleet = new Fleet(members, Math.max(1, options.concurrency ?? FLEET_CONCURRENCY), options.retryMs ?? DEFAULT_FLEET_RETRY_MS);
  fleet.pump();
  return {
    subscribe: (listener) => fleet.subscribe(listener),
    feedOf: (context) => fleet.followed.get(context),
    stop: () => fleet.stop(),
  };
}

class Fleet {
  readonly followed = new Map<string, MemberPlanFeed>();
  private readonly listeners = new Set<FleetListener>();
  private readonly opened = new Set<MemberPlanFeed>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private readonly queue: number[] = [];
  private readonly views: FleetMemberView[];
  private latest: FleetSnapshot;
  private active = 0;
  private stopped = false;

  constructor(
    private readonly members: readonly FleetFeedMember[],
    private readonly concurrency: number,
    private readonly retryMs: number,
  ) {
    this.views = members.map((member, index) => {
      if ('error' in member) return failedView(member, member.error, false);
      this.queue.push(index);
      return {context: member.context, ...serverOf(member), phase: 'connecting'};
    });
    this.latest = {members: [...this.views]};
  }

  subscribe(listener: FleetListener): () => void {
    this.listeners.add(listener);
    listener(this.latest);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Opens queued members while fewer than `concurrency` are waiting for their first answer. */
  pump(): void {
    while (!this.stopped && this.active < this.concurrency && this.queue.length > 0) this.start(this.queue.shift()!);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    for (const feed of this.opened) feed.stop();
  }

  private set(index: number, view: FleetMemberView): void {
    if (this.stopped) return;
    this.views[index] = view;
    this.latest = {members: [...this.views]};
    for (const listener of this.listeners) listener(this.latest);
  }

  private start(index: number): void {
    const member = this.members[index]!;
    if (!('open' in member)) return;
    let feed: MemberPlanFeed;
    try {
      feed = member.open();
    } catch (error) {
      this.failed(index, error);
      return;
    }
    this.active++;
    this.opened.add(feed);
    const settled = () => {
      this.active--;
      this.pump();
    };
    feed.ready().then(
      () => {
        settled();
        if (this.stopped) return;
        this.followed.set(member.context, feed);
        feed.subscribe((snapshot) => this.set(index, {context: member.context, ...serverOf(member), phase: 'following', snapshot}));
      },
      (error: unknown) => {
        feed.stop();
        this.opened.delete(feed);
        settled();
        this.failed(index, error);
      },
    );
  }

  /** A member that could not be followed: its row says why, and it is asked again later (it may come back). */
  private failed(index: number, error: unknown): void {
    if (this.stopped) return;
    this.set(index, failedView(this.members[index]!, error, this.retryMs > 0));
    if (this.retryMs <= 0) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.queue.push(index);
      this.pump();
    }, this.retryMs);
    timer.unref?.();
    this.timers.add(timer);
  }
}
