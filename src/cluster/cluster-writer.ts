// Writes a command may make to a cluster, always with preconditions so that nothing changed meanwhile is
// overwritten blindly. Implemented by the live adapter; a snapshot has no writer (writes are input errors).
import type {ControllerRevision, DaemonSet} from '../core/index.js';
import type {DaemonSetRef} from './cluster-source.js';

export interface DaemonSetPatch {
  /** `strategic`: strategic merge patch (what kubectl sends, `$patch: replace` honoured); `merge`: RFC 7386. */
  readonly type: 'strategic' | 'merge';
  /** A JSON object; the writer adds `metadata.resourceVersion` of the object it was built from. */
  readonly body: Readonly<Record<string, unknown>>;
}

export interface PatchResult {
  /** False when `build` found nothing to do (then `after` is the object as read). */
  readonly applied: boolean;
  /** The object the applied patch was built from. */
  readonly before: DaemonSet;
  /** The object the server returned (with `dryRun`: what it would have stored). */
  readonly after: DaemonSet;
  /** Reads it took: 1, plus one per conflict that was retried. */
  readonly attempts: number;
}

/** kubectl's --dry-run modes that change nothing: client sends no write; server sends it with dryRun=All. */
export type DryRunMode = 'client' | 'server';

export interface WriteOptions {
  /** Sent with dryRun=All: validated, defaulted and answered, but not stored. */
  readonly dryRun?: boolean;
  /**
   * patchDaemonSet: a recent copy (a watch's) to decide the first attempt on instead of a GET; its resourceVersion
   * is the precondition, so a stale copy costs a 409 and a fresh read, never a stale write.
   */
  readonly base?: DaemonSet;
}

export interface PodPreconditions {
  readonly uid: string;
  readonly resourceVersion?: string;
}

export interface ClusterWriter {
  /**
   * Reads the DaemonSet, asks `build` for a patch against it (undefined: nothing to do) and sends it with that
   * read's resourceVersion as a precondition. On a conflict it reads again and rebuilds, a bounded number of times.
   */
  patchDaemonSet(ref: DaemonSetRef, build: (current: DaemonSet) => DaemonSetPatch | undefined, options?: WriteOptions): Promise<PatchResult>;
  /** Deletes a pod only if it is still the same object (uid) in the same version (resourceVersion, when given). */
  deletePod(namespace: string, name: string, preconditions: PodPreconditions, options?: WriteOptions): Promise<void>;
  /** Reads one ControllerRevision by name (to see the controller renumber it). */
  readRevision(namespace: string, name: string): Promise<ControllerRevision>;
  /** Sets annotations on a ControllerRevision (merge patch), only if it is still the same object (uid). */
  annotateRevision(namespace: string, name: string, uid: string, annotations: Readonly<Record<string, string>>): Promise<ControllerRevision>;
}
