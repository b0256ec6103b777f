// The simulated cluster's Job controller, as 1.20's behaves where a detached rollout notices: one pod at a time
// (parallelism and completions 1, as ds-rollout's Jobs are), a failed pod (restartPolicy Never) replaced after a
// backoff of 10 s doubling to 6 min, the Job Failed with BackoffLimitExceeded once its failures pass backoffLimit or
// with DeadlineExceeded after activeDeadlineSeconds, Complete once a pod succeeded; status active/succeeded/failed.
import {jobEndedAs, type Pod} from '../core/index.js';
import {formatTimestamp, type CancelTimer, type SimClock} from './clock.js';
import {isAlreadyExists, isConflict, isNotFound} from './status-errors.js';
import type {Store, StoreEvent} from './store.js';

interface JobCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastProbeTime?: string;
  readonly lastTransitionTime?: string;
}

export interface SimJob {
  readonly metadata: {readonly name: string; readonly namespace?: string; readonly uid?: string; readonly deletionTimestamp?: string};
  readonly spec: {
    readonly backoffLimit?: number;
    readonly activeDeadlineSeconds?: number;
    readonly completions?: number;
    readonly selector?: {readonly matchLabels?: Readonly<Record<string, string>>};
    readonly template: {readonly metadata?: {readonly labels?: Readonly<Record<string, string>>}; readonly spec: Record<string, unknown>};
  };
  readonly status?: {
    readonly active?: number;
    readonly succeeded?: number;
    readonly failed?: number;
    readonly startTime?: string;
    readonly completionTime?: string;
    readonly conditions?: readonly JobCondition[];
  };
}

// upstream (behaviour): pkg/controller/job DefaultJobBackOff and MaxJobBackOff.
const BACKOFF_MS = 10_000;
const MAX_BACKOFF_MS = 360_000;

/** Has the Job ended (a Complete or Failed condition)? */
export function jobFinished(job: SimJob): boolean {
  return jobEndedAs(job, 'Complete', 'Failed');
}

export class JobController {
  private readonly timers = new Map<string, CancelTimer>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: SimClock,
  ) {}

  start(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.store.subscribe((event) => this.route(event));
    for (const job of this.store.list('jobs').items) this.sync(job.metadata.namespace ?? 'default', job.metadata.name);
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
  }

  private route(event: StoreEvent): void {
    const obj = event.object;
    if (event.resource === 'jobs') {
      if (event.type !== 'DELETED') this.sync(obj.metadata.namespace ?? 'default', obj.metadata.name);
      return;
    }
    if (event.resource !== 'pods') return;
    const owner = (obj.metadata.ownerReferences ?? []).find((r) => r.kind === 'Job' && r.controller === true);
    if (owner !== undefined) this.sync(obj.metadata.namespace ?? 'default', owner.name);
  }

  // upstream (behaviour): pkg/controller/job/job_controller.go syncJob (parallelism 1).
  private sync(namespace: string, name: string): void {
    const job = this.store.get('jobs', namespace, name) as unknown as SimJob | undefined;
    if (job === undefined || job.metadata.deletionTimestamp !== undefined || jobFinished(job)) return;
    const uid = job.metadata.uid ?? '';
    const pods = (this.store.list('pods', {namespace}).items as Pod[]).filter((p) => (p.metadata.ownerReferences ?? []).some((r) => r.uid === uid));
    const active = pods.filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' && !p.metadata.deletionTimestamp);
    const succeeded = pods.filter((p) => p.status?.phase === 'Succeeded').length;
    const failed = pods.filter((p) => p.status?.phase === 'Failed').length;
    const now = this.clock.now();
    const startTime = job.status?.startTime ?? formatTimestamp(now);
    const backoffLimit = job.spec.backoffLimit ?? 6;
    let condition: JobCondition | undefined;
    if (succeeded >= (job.spec.completions ?? 1)) {
      condition = {type: 'Complete', status: 'True'};
    } else if (failed > (job.status?.failed ?? 0) && failed > backoffLimit) {
      condition = {type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit'};
    } else if (job.spec.activeDeadlineSeconds !== undefined && now - Date.parse(startTime) >= job.spec.activeDeadlineSeconds * 1000) {
      condition = {type: 'Failed', status: 'True', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline'};
    }
    if (condition !== undefined) {
      // A failed Job's running pods are deleted; a completed one has none.
      if (condition.type === 'Failed') for (const pod of active) this.quietly(() => this.store.delete('pods', namespace, pod.metadata.name));
      const at = formatTimestamp(now);
      this.writeStatus(namespace, name, {
        startTime,
        active: 0,
        succeeded,
        failed,
        ...(condition.type === 'Complete' ? {completionTime: at} : {}),
        conditions: [...(job.status?.conditions ?? []), {...condition, lastProbeTime: at, lastTransitionTime: at}],
      });
      this.cancel(uid);
      return;
    }
    let running = active.length;
    if (running === 0 && !this.timers.has(uid)) {
      // The first pod at once; after a failure, the next one after the backoff (from the last failure's end).
      const delay = failed === 0 ? 0 : Math.min(BACKOFF_MS * 2 ** (failed - 1), MAX_BACKOFF_MS);
      const since = Math.max(...pods.map((p) => finishedAt(p) ?? 0), 0);
      const wait = Math.max(0, since + delay - now);
      if (wait > 0)
        this.timers.set(
          uid,
          this.clock.setTimer(wait, () => (this.timers.delete(uid), this.createPod(job))),
        );
      else if (this.createPod(job)) running = 1;
    }
    if (job.status?.active !== running || job.status?.failed !== failed || job.status?.succeeded !== succeeded || job.status?.startTime === undefined) {
      this.writeStatus(namespace, name, {...job.status, startTime, active: running, succeeded, failed});
    }
    if (job.spec.activeDeadlineSeconds !== undefined && !this.timers.has(`deadline/${uid}`)) {
      const left = Date.parse(startTime) + job.spec.activeDeadlineSeconds * 1000 - now;
      this.timers.set(
        `deadline/${uid}`,
        this.clock.setTimer(Math.max(0, left), () => (this.timers.delete(`deadline/${uid}`), this.sync(namespace, name))),
      );
    }
  }

  private createPod(job: SimJob): boolean {
    const namespace = job.metadata.namespace ?? 'default';
    const current = this.store.get('jobs', namespace, job.metadata.name) as unknown as SimJob | undefined;
    if (current === undefined || current.metadata.uid !== job.metadata.uid || jobFinished(current)) return false;
    return this.quietly(() =>
      this.store.create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          generateName: `${job.metadata.name}-`,
          namespace,
          labels: {...current.spec.template.metadata?.labels},
          ownerReferences: [{apiVersion: 'batch/v1', kind: 'Job', name: job.metadata.name, uid: job.metadata.uid, controller: true, blockOwnerDeletion: true}],
        },
        spec: current.spec.template.spec,
      }),
    );
  }

  private writeStatus(namespace: string, name: string, status: SimJob['status']): void {
    this.quietly(() => this.store.patchStatus('jobs', namespace, name, () => status));
  }

  private cancel(uid: string): void {
    for (const key of [uid, `deadline/${uid}`]) {
      this.timers.get(key)?.();
      this.timers.delete(key);
    }
  }

  private quietly(write: () => void): boolean {
    try {
      write();
      return true;
    } catch (error) {
      if (!isNotFound(error) && !isConflict(error) && !isAlreadyExists(error)) throw error;
      return false;
    }
  }
}

function finishedAt(pod: Pod): number | undefined {
  const finished = (pod.status?.containerStatuses ?? [])
    .map((c) => (c.state?.terminated as {finishedAt?: string} | undefined)?.finishedAt)
    .find((t) => t !== undefined);
  return finished === undefined ? undefined : Date.parse(finished);
}
