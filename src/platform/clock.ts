// "Now" for every command, in one type: the API server's clock on a live cluster (availability, minReadySeconds,
// ages and the pause record are judged by it, as the controller judges them), a fixed --now, or this machine's for a
// snapshot read without --now. Outside src/sim and src/cluster (the simulated cluster's clock, transport timeouts,
// credential expiry) this is the only module that reads the wall clock. It imports nothing: the transport loads it.

export interface Clock {
  /** Milliseconds since the epoch on the clock the cluster's timestamps were written by. */
  now(): number;
  /**
   * Brings now() up to the server's clock before a wait judges time again (live: one small read, whose Date header
   * the client notes). Between answers a live clock advances at this machine's rate, which a server need not share
   * (the simulated cluster runs N times faster): a wait that re-judges time refreshes first.
   */
  refresh(): Promise<void>;
}

/** One instant, as --now fixes it. */
export function fixedClock(at: number): Clock {
  return {now: () => at, refresh: () => Promise.resolve()};
}

/** A clock read by `read` that needs no refreshing (the simulated cluster's clock, in tests and benchmarks). */
export function clockFrom(read: () => number): Clock {
  return {now: read, refresh: () => Promise.resolve()};
}

/** This machine's time, ms since the epoch: for pacing a screen, never for judging the cluster's timestamps. */
export function localNow(): number {
  return Date.now();
}

/** This machine's clock: only where no server can be asked (a snapshot read without --now). */
export function localClock(): Clock {
  return {now: localNow, refresh: () => Promise.resolve()};
}

/** A server's clock as a client estimates it (`read`), and how to ask the server again (`refresh`). */
export function serverClock(read: () => number, refresh: () => Promise<void>): Clock {
  return {now: read, refresh};
}

/**
 * Milliseconds since the stopwatch was started, on this machine's monotonic clock: for how long a person has waited
 * (--stuck-after, a wave's landing time), which is never compared with the cluster's timestamps.
 */
export function stopwatch(): () => number {
  const started = performance.now();
  return () => performance.now() - started;
}

/** Resolves after `ms`; `unref` lets the process end meanwhile (background retries). */
export function sleep(ms: number, options: {readonly unref?: boolean} = {}): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (options.unref) timer.unref();
  });
}

/**
 * Asks the server for its time only as a deadline falls due. Between answers a live clock advances at this
 * machine's rate, which the server need not share (the simulated cluster runs N times faster); the Date header has
 * whole seconds. So the next ask is planned for when the deadline would fall due at the fastest pace the answers so
 * far allow: early rather than late, and a one-hour bake costs a handful of asks rather than one every few seconds.
 */
export class DeadlineClock {
  private first: {local: number; server: number} | undefined;
  private last: {local: number; server: number} | undefined;
  private nextAt = 0;
  private plannedFor = Number.POSITIVE_INFINITY;
  /** This machine's elapsed time: only to space the asks, never to judge the cluster. */
  private readonly elapsed = stopwatch();

  constructor(private readonly clock: Clock) {}

  now(): number {
    return this.clock.now();
  }

  /** Refreshes the server's time if `deadline` (server ms) may be due by now; cheap to call on every tick. */
  async refresh(deadline: number): Promise<void> {
    // An earlier deadline than the one the next ask was planned for is planned again on what is known.
    if (deadline < this.plannedFor && this.first && this.last) this.plan(deadline, this.first, this.last);
    if (this.elapsed() < this.nextAt) return;
    this.nextAt = Number.POSITIVE_INFINITY;
    await this.clock.refresh().catch(() => undefined);
    const last = {local: this.elapsed(), server: this.clock.now()};
    this.last = last;
    this.first ??= last;
    this.plan(deadline, this.first, last);
  }

  private plan(deadline: number, first: {local: number; server: number}, last: {local: number; server: number}): void {
    const local = last.local - first.local;
    // The fastest pace the whole-second Date headers allow: the server may have moved up to a second more.
    const fastest = local >= 1000 ? (last.server - first.server + 1000) / local : undefined;
    this.plannedFor = deadline;
    this.nextAt = last.local + (fastest === undefined ? 1000 : Math.max(1000, (deadline - last.server) / fastest));
  }
}

/** The first of these server times (undefined ones left out), or undefined: nothing falls due by time alone. */
export function earliest(times: readonly (number | undefined)[]): number | undefined {
  let first: number | undefined;
  for (const at of times) if (at !== undefined && (first === undefined || at < first)) first = at;
  return first;
}
