// Waiting on a followed cluster: `Follower` keeps the latest state of any source of states (live: the watches of
// watch.ts, which retry passing trouble under the retry policy and report a cluster that stays unreachable or
// frozen) and answers "wait until". `step`, `status --watch` and the dashboard feed all follow through it. No
// client library here, so services can hold one without loading the live adapter.
import type {ClusterState} from '../../core/index.js';
import type {ClusterUnreachableError, DsRolloutError} from '../../platform/errors.js';

export type Connection = 'live' | 'reconnecting';

export interface FollowHandlers {
  /** Reported after the first full read and after each burst of changes. */
  onState(state: ClusterState): void;
  /**
   * Reported once when following is no longer possible (RBAC, the DaemonSet deleted, a cluster that never
   * answered, or, without onUnreachable, one that stopped answering); the follower has stopped then.
   */
  onError(error: DsRolloutError | Error): void;
  /** `reconnecting` while any watch is retrying or re-listing, `live` again once all follow. */
  onConnection?(connection: Connection): void;
  /**
   * The cluster stopped answering (past the request timeout and the retry policy's tries). Given: the follower
   * keeps trying and reports `live` once it answers again (the dashboard). Not given: it is an onError.
   */
  onUnreachable?(error: ClusterUnreachableError): void;
  /**
   * Every watch stream is open (not just listed): from now on a change reaches onState without waiting for a
   * request to start. Again after a stream broke and was opened again.
   */
  onStreaming?(): void;
}

/** Starts following; live: `watchClusterState`, tests: anything that calls the handlers. */
export type Follow = (handlers: FollowHandlers) => {stop(): void};

// ---------------------------------------------------------------------------------------------------------------

export interface UntilOptions {
  /** Resolve with 'timeout' after this many ms (0: no limit). */
  readonly timeoutMs: number;
  /** Re-evaluate the latest state this often without an event (time-dependent verdicts: minReadySeconds). */
  readonly tickMs: number;
  readonly signal?: AbortSignal;
  /** The error an abort rejects with; undefined: aborts are ignored (keep waiting through Ctrl-C). */
  readonly onAbort?: () => Error;
  /** Runs before each tick's evaluation (the step refreshes the server's clock there). */
  readonly onTick?: () => Promise<void>;
}

/** The latest state of a followed cluster, and "wait until" over it; stops following when stopped. */
export class Follower {
  latest: ClusterState | undefined;
  /** The source has had every stream open once (onStreaming): its start, the slow part, is over. */
  private streaming = false;
  private error: unknown;
  private readonly handle: {stop(): void} | undefined;
  private readonly listeners = new Set<() => void>();
  private stopped = false;

  /**
   * `observer` hears everything as it happens (the dashboard feed); with its onUnreachable, the follower keeps
   * trying through an outage instead of ending with it.
   */
  constructor(follow: Follow, observer: Partial<FollowHandlers> = {}) {
    const unreachable = observer.onUnreachable;
    this.handle = follow({
      onState: (state) => {
        this.latest = state;
        observer.onState?.(state);
        this.notify();
      },
      onError: (error) => {
        this.error = error;
        // May run inside follow() (an error at once): stop what it started once it returned.
        if (this.handle) this.stop();
        observer.onError?.(error);
        this.notify();
      },
      ...(observer.onConnection ? {onConnection: (connection: Connection) => observer.onConnection?.(connection)} : {}),
      ...(unreachable ? {onUnreachable: (error: ClusterUnreachableError) => unreachable(error)} : {}),
      onStreaming: () => {
        this.streaming = true;
        observer.onStreaming?.();
        this.notify();
      },
    });
    if (this.error) this.stop();
  }

  stop(): void {
    if (this.stopped || !this.handle) return;
    this.stopped = true;
    this.handle.stop();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /**
   * Resolves true once the source has reported every stream open (so that what happens next is seen as it
   * happens, not once a slow stream start catches up), false after timeoutMs or once following ended.
   */
  untilStreaming(timeoutMs: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const finish = (value: boolean) => {
        this.listeners.delete(check);
        clearTimeout(timer);
        resolve(value);
      };
      const check = () => {
        if (this.streaming) finish(true);
        else if (this.error || this.stopped) finish(false);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.listeners.add(check);
      check();
    });
  }

  /**
   * Resolves with the first value `evaluate` returns for a state (or 'timeout'); rejects with what it throws, and
   * with the follower's error (a cluster that stopped answering, RBAC, the DaemonSet deleted).
   */
  until<T>(evaluate: (state: ClusterState) => T | undefined, options: UntilOptions): Promise<T | 'timeout'> {
    return new Promise<T | 'timeout'>((resolve, reject) => {
      let done = false;
      let ticking = false;
      const finish = (fn: () => void) => {
        if (done) return;
        done = true;
        this.listeners.delete(check);
        clearInterval(tick);
        if (timer) clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const check = () => {
        if (done) return;
        if (this.error) return finish(() => reject(this.error));
        if (!this.latest) return;
        try {
          const value = evaluate(this.latest);
          if (value !== undefined) finish(() => resolve(value));
        } catch (error) {
          finish(() => reject(error));
        }
      };
      const onAbort = () => {
        const error = options.onAbort?.();
        if (error) finish(() => reject(error));
      };
      const tick = setInterval(() => {
        if (ticking || done) return;
        ticking = true;
        void (options.onTick?.() ?? Promise.resolve()).finally(() => {
          ticking = false;
          check();
        });
      }, options.tickMs);
      const timer = options.timeoutMs > 0 ? setTimeout(() => finish(() => resolve('timeout')), options.timeoutMs) : undefined;
      options.signal?.addEventListener('abort', onAbort);
      if (options.signal?.aborted) onAbort();
      this.listeners.add(check);
      check();
    });
  }
}
