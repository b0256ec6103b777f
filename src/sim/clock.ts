// The simulated cluster's clock. Everything in src/sim reads time and schedules work through a
// SimClock, so tests can freeze or fast-forward time and a demo can run a rollout at N× speed.
import {formatRfc3339, MinHeap} from '../core/index.js';

/** Cancels a timer set with SimClock.setTimer. Calling it twice, or after the timer fired, is harmless. */
export type CancelTimer = () => void;

export interface SimClock {
  /** Milliseconds since the epoch, in simulated time. */
  now(): number;
  /** Runs `fn` once after `ms` of simulated time. */
  setTimer(ms: number, fn: () => void): CancelTimer;
}

export interface RealClockOptions {
  /** Simulated milliseconds per real millisecond (default 1). */
  readonly speed?: number;
  /** Simulated time at construction (default: the real time). */
  readonly start?: number;
}

/** The longest delay setTimeout keeps (about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Real time, optionally sped up: `now()` advances `speed` ms per real ms, timers fire `ms / speed` real ms later. */
export class RealClock implements SimClock {
  readonly speed: number;
  private readonly realStart = Date.now();
  private readonly simStart: number;

  constructor(options: RealClockOptions = {}) {
    const speed = options.speed ?? 1;
    if (!(speed > 0) || !Number.isFinite(speed)) throw new RangeError(`clock speed must be a positive number, got ${speed}`);
    this.speed = speed;
    this.simStart = options.start ?? this.realStart;
  }

  now(): number {
    return this.simStart + (Date.now() - this.realStart) * this.speed;
  }

  setTimer(ms: number, fn: () => void): CancelTimer {
    const delay = Math.max(0, ms / this.speed);
    // Node fires a timer beyond 2^31-1 ms (or NaN) after 1 ms: a minReadySeconds of 1e300 would make the
    // controller requeue a thousand times a second. Work due that far ahead never comes in a simulation's life.
    if (!(delay <= MAX_TIMER_MS)) return () => {};
    const handle = setTimeout(fn, delay);
    // Pending sim work (pod terminations, readiness) must never keep a test process alive.
    handle.unref();
    return () => clearTimeout(handle);
  }
}

interface ManualTimer {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
  cancelled: boolean;
}

function earlier(a: ManualTimer, b: ManualTimer): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/** A clock that only moves when told to. Timers fire inside `advance`/`set`, in due order. */
export class ManualClock implements SimClock {
  private current: number;
  private seq = 0;
  // By (at, seq): thousands of pod terminations may be pending at once.
  private readonly heap = new MinHeap<ManualTimer>(earlier);
  private live = 0;

  constructor(start: number = Date.parse('2026-11-21T12:00:00Z')) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(ms: number, fn: () => void): CancelTimer {
    // NaN is never (as RealClock), not now.
    const timer: ManualTimer = {at: this.current + (Number.isNaN(ms) ? Infinity : Math.max(0, ms)), seq: this.seq++, fn, cancelled: false};
    this.heap.push(timer);
    this.live++;
    return () => {
      if (!timer.cancelled) {
        timer.cancelled = true;
        this.live--;
      }
    };
  }

  /** Number of timers still waiting to fire. */
  get pendingTimers(): number {
    return this.live;
  }

  /** Moves time forward by `ms`, firing every timer that falls due (including timers those timers set). */
  advance(ms: number): void {
    this.set(this.current + ms);
  }

  /** Moves time to `to` (never backwards), firing due timers at their own times. */
  set(to: number): void {
    // Bounded: a timer that keeps re-arming itself with 0 ms would otherwise spin forever.
    for (let fired = 0; fired < 10_000_000; fired++) {
      const next = this.heap.peek();
      if (next === undefined || next.at > to) break;
      this.heap.pop();
      if (next.cancelled) continue;
      next.cancelled = true;
      this.live--;
      this.current = Math.max(this.current, next.at);
      next.fn();
    }
    this.current = Math.max(this.current, to);
  }
}

/** RFC3339 UTC without fractional seconds, as the API server prints metav1.Time (the core's one formatter). */
export const formatTimestamp = formatRfc3339;
