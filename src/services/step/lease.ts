// The step lease (core/step-lease.ts) as a running step holds it: refuse when another step renews it, take it
// (with --force: from anyone) just before the first change, renew it while the step runs, give it back at the
// end. Times are the server's clock; the renewal pace too, so a cluster whose clock runs fast sees it renewed.
import {hostname, userInfo} from 'node:os';
import type {DeadlineClock} from '../../platform/clock.js';
import type {DaemonSetRef} from '../../cluster/cluster-source.js';
import {type DaemonSet, leaseExpiresAt, sameHolder, STEP_LEASE_SECONDS, type StepEvent, type StepLease, stepLeaseBody, stepLeaseOf} from '../../core/index.js';
import {StepInProgressError} from '../../platform/errors.js';
import {describeRef, rfc3339} from '../pause.js';
import type {StepHolder, StepSession} from './types.js';

/** This process, on this host. A lease of a process on this host that no longer runs (killed) is released. */
export function thisProcess(): StepHolder {
  const host = hostname();
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry (a container): the host and pid still name the holder
  }
  return {
    holderIdentity: `${user}@${host}`,
    host,
    pid: process.pid,
    isAlive: (lease) => {
      if (lease.host !== host) return true;
      try {
        process.kill(lease.pid, 0);
        return true;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'EPERM';
      }
    },
  };
}

/**
 * How often (real time) the lease checks whether a quarter of its duration has passed on the server's clock, and
 * then renews it. The server's clock need not run at this machine's pace (the simulated cluster runs faster): it is
 * asked as that quarter falls due (DeadlineClock), not on every check.
 */
const RENEW_CHECK_MS = 1_000;

export class StepLeaseHolder {
  private held: StepLease | undefined;
  private lost: StepInProgressError | undefined;
  private timer: NodeJS.Timeout | undefined;
  private renewing = false;

  constructor(
    private readonly session: StepSession,
    private readonly ref: DaemonSetRef,
    private readonly holder: StepHolder,
    private readonly force: boolean,
    private readonly emit: (event: StepEvent) => void,
    /** The run's server clock, asked as the renewal falls due. */
    private readonly clock: DeadlineClock,
    /** The DaemonSet as the run's watch shows it: a write decides on it and saves a GET (a stale one meets a 409 and is read again). */
    private readonly watched: () => DaemonSet | undefined = () => undefined,
  ) {}

  private base(): {base?: DaemonSet} {
    const base = this.watched();
    return base ? {base} : {};
  }

  /** Another step that holds a live lease, or undefined (none, ours, expired, or its process is gone). */
  private other(ds: DaemonSet): StepLease | undefined {
    const lease = stepLeaseOf(ds);
    if (!lease || sameHolder(lease, this.holder)) return undefined;
    if (leaseExpiresAt(lease) <= this.session.clock.now() || !this.holder.isAlive(lease)) return undefined;
    return lease;
  }

  private refusal(lease: StepLease): StepInProgressError {
    const ago = Math.max(0, Math.round((this.session.clock.now() - Date.parse(lease.renewTime)) / 1000));
    return new StepInProgressError(
      `another step of ${describeRef(this.ref)} is in progress: ${lease.holderIdentity} (pid ${lease.pid}) holds the step lease since ${lease.acquireTime}, renewed ${ago}s ago (it lapses ${lease.leaseDurationSeconds}s after the last renewal); wait for it, or pass --force to take over`,
    );
  }

  /** Refuses at once when another step is running (before any question is asked). */
  check(ds: DaemonSet): void {
    const other = this.other(ds);
    if (other && !this.force) throw this.refusal(other);
  }

  /** Takes the lease in one patch (with the DaemonSet's resourceVersion), then keeps renewing it. */
  async acquire(): Promise<void> {
    if (this.held) return;
    const now = this.session.clock.now();
    const lease: StepLease = {
      holderIdentity: this.holder.holderIdentity,
      host: this.holder.host,
      pid: this.holder.pid,
      acquireTime: rfc3339(now),
      renewTime: rfc3339(now),
      leaseDurationSeconds: STEP_LEASE_SECONDS,
    };
    let taken: StepLease | undefined;
    await this.session.writer.patchDaemonSet(
      this.ref,
      (current) => {
        const other = this.other(current);
        if (other && !this.force) throw this.refusal(other);
        taken = other;
        return {type: 'merge', body: stepLeaseBody(lease)};
      },
      this.base(),
    );
    this.held = lease;
    if (taken) {
      this.emit({
        kind: 'lease-taken',
        from: `${taken.holderIdentity} (pid ${taken.pid})`,
        renewedSecondsAgo: Math.round((now - Date.parse(taken.renewTime)) / 1000),
      });
    }
    this.timer = setInterval(() => void this.renew(), RENEW_CHECK_MS);
    this.timer.unref();
  }

  /**
   * Throws when another step took the lease over (--force) since: this one must stop changing things. `ds` (a read
   * or watched state) shows a takeover at once; a state older than this step's own lease is not one.
   */
  assertHeld(ds?: DaemonSet): void {
    const held = this.held;
    const lease = ds && held ? stepLeaseOf(ds) : undefined;
    if (held && lease && !sameHolder(lease, held) && Date.parse(lease.acquireTime) >= Date.parse(held.acquireTime)) this.lost ??= this.takenBy(lease);
    if (this.lost) throw this.lost;
  }

  private takenBy(lease: StepLease | undefined): StepInProgressError {
    return new StepInProgressError(
      lease
        ? `${lease.holderIdentity} (pid ${lease.pid}) took over the step lease of ${describeRef(this.ref)} (--force): this step stopped; the DaemonSet stays paused`
        : `the step lease of ${describeRef(this.ref)} was removed by someone else: this step stopped; the DaemonSet stays paused`,
    );
  }

  private async renew(): Promise<void> {
    if (!this.held || this.renewing || this.lost) return;
    this.renewing = true;
    try {
      const due = this.held ? Date.parse(this.held.renewTime) + (this.held.leaseDurationSeconds * 1000) / 4 : Number.NEGATIVE_INFINITY;
      await this.clock.refresh(due);
      const held = this.held;
      const now = this.session.clock.now();
      if (!held || now < due) return;
      const renewed: StepLease = {...held, renewTime: rfc3339(now)};
      await this.session.writer.patchDaemonSet(this.ref, (current) => {
        const lease = stepLeaseOf(current);
        if (!lease || !sameHolder(lease, held)) {
          this.lost = this.takenBy(lease);
          return undefined;
        }
        return {type: 'merge', body: stepLeaseBody(renewed)};
      });
      if (!this.lost) this.held = renewed;
    } catch {
      // Passing trouble: the next check tries again; a cluster that stays away is the follower's to report.
    } finally {
      this.renewing = false;
    }
  }

  /** Stops renewing without a request (the cluster is not answering): the lease lapses on its own. */
  abandon(): void {
    if (this.timer) clearInterval(this.timer);
    this.held = undefined;
  }

  /** Gives the lease back, if still ours. Best effort: a lease left behind lapses on its own. */
  async release(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    const held = this.held;
    this.held = undefined;
    if (!held || this.lost) return;
    await this.session.writer
      .patchDaemonSet(
        this.ref,
        (current) => {
          const lease = stepLeaseOf(current);
          return lease && sameHolder(lease, held) ? {type: 'merge', body: stepLeaseBody(null)} : undefined;
        },
        this.base(),
      )
      .catch(() => undefined);
  }
}
