// `step`'s own bookkeeping on the DaemonSet, apart from anything `kubectl` reads: the progress of the last wave
// (ds-rollout.io/step, instead of a kubernetes.io/change-cause a later `kubectl set image` would inherit) and a
// lease (ds-rollout.io/step-lease) that tells a second operator a step is running. The lease follows
// coordination.k8s.io Lease's fields (holderIdentity, acquireTime, renewTime, leaseDurationSeconds) and is judged
// on the server's clock. Pure: reading, judging, and the merge-patch bodies.
import {PAUSED_STRATEGY_ANNOTATION} from './pause.js';
import type {DaemonSet} from './types.js';

export const STEP_ANNOTATION = 'ds-rollout.io/step';
export const STEP_LEASE_ANNOTATION = 'ds-rollout.io/step-lease';

/** How long a lease holds without renewal; a running step renews it every quarter of that. */
export const STEP_LEASE_SECONDS = 30;

export interface StepProgress {
  /** The wave's number since the pause, and the estimated total then. */
  readonly step: number;
  readonly of: number;
  /** RFC3339, the server's clock. */
  readonly at: string;
  /** The template hash these steps roll out: steps toward an earlier template do not count for a new one. */
  readonly hash?: string;
}

export interface StepLease {
  /** `user@host`: who to ask. */
  readonly holderIdentity: string;
  /** The holder's host and process id: on the same host, a lease whose process is gone is released. */
  readonly host: string;
  readonly pid: number;
  /** RFC3339 times on the server's clock. */
  readonly acquireTime: string;
  readonly renewTime: string;
  readonly leaseDurationSeconds: number;
}

function object(raw: string | undefined): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;
const isTime = (value: unknown): value is string => typeof value === 'string' && !Number.isNaN(Date.parse(value));

/** The last recorded wave, or undefined (none, or an annotation that cannot be read). */
export function stepProgressOf(ds: DaemonSet): StepProgress | undefined {
  const record = object(ds.metadata.annotations?.[STEP_ANNOTATION]);
  if (!record || !isCount(record['step']) || !isCount(record['of']) || !isTime(record['at'])) return undefined;
  const hash = typeof record['hash'] === 'string' ? {hash: record['hash']} : {};
  return {step: record['step'], of: record['of'], at: record['at'], ...hash};
}

/** The lease on the DaemonSet, or undefined. An unreadable one is no lease (nobody could have renewed it). */
export function stepLeaseOf(ds: DaemonSet): StepLease | undefined {
  const record = object(ds.metadata.annotations?.[STEP_LEASE_ANNOTATION]);
  if (!record) return undefined;
  const {holderIdentity, host, pid, acquireTime, renewTime, leaseDurationSeconds} = record;
  if (typeof holderIdentity !== 'string' || typeof host !== 'string' || !isCount(pid) || !isTime(acquireTime) || !isTime(renewTime)) return undefined;
  if (!isCount(leaseDurationSeconds) || leaseDurationSeconds === 0) return undefined;
  return {holderIdentity, host, pid, acquireTime, renewTime, leaseDurationSeconds};
}

/** When the lease lapses without a renewal (epoch ms). */
export function leaseExpiresAt(lease: StepLease): number {
  return Date.parse(lease.renewTime) + lease.leaseDurationSeconds * 1000;
}

export function sameHolder(a: Pick<StepLease, 'host' | 'pid'>, b: Pick<StepLease, 'host' | 'pid'>): boolean {
  return a.host === b.host && a.pid === b.pid;
}

/** The merge patch that records a wave: progress and, when paused by ds-rollout, the pause record's step count. */
export function stepProgressBody(progress: StepProgress, pausedRecord?: string): Record<string, unknown> {
  const annotations: Record<string, string> = {[STEP_ANNOTATION]: JSON.stringify(progress)};
  if (pausedRecord !== undefined) annotations[PAUSED_STRATEGY_ANNOTATION] = pausedRecord;
  return {metadata: {annotations}};
}

export function stepLeaseBody(lease: StepLease | null): Record<string, unknown> {
  return {metadata: {annotations: {[STEP_LEASE_ANNOTATION]: lease === null ? null : JSON.stringify(lease)}}};
}
