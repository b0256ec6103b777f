// `ds-rollout undo`: kubectl's rollback (the target revision, "skipped rollback", the strategic merge patch
// whose body is the revision's own data), previewed first: the template diff, the nodes that will restart
// (planRollout on the DaemonSet as it will be), and the renumbering the controller will do. The change-cause
// goes onto the ControllerRevision the controller reuses, once it has renumbered it, never onto the DaemonSet:
// the controller copies the DaemonSet's annotations only into revisions it creates later, so a cause left there
// would label the next `kubectl set image` with this undo.
import type {DaemonSetRef} from '../cluster/cluster-source.js';
import type {ClusterWriter} from '../cluster/cluster-writer.js';
import {type Follow, Follower} from '../cluster/live/follower.js';
import {
  type ControllerRevision,
  type Revision,
  type DaemonSet,
  formatInvalid,
  observePodTimings,
  planRollout,
  revisionMatchesTemplate,
  validateDaemonSet,
} from '../core/index.js';
import {InputError} from '../platform/errors.js';
import type {Session} from '../cluster/session.js';
import type {UndoView} from '../output/undo-text.js';
import {asStoredUpdate} from './plan.js';
import {CHANGE_CAUSE_ANNOTATION, controlledRevisions, revisionHash, revisionTemplate} from './history.js';

export interface UndoOptions {
  readonly ref: DaemonSetRef;
  /** 0 (kubectl's default): the second-highest revision. */
  readonly toRevision: Revision;
}

export interface RevisionSummary {
  readonly revision: Revision;
  readonly name: string;
  readonly hash: string;
}

/** What the preview shows (UndoView), plus what applying it needs. */
export interface UndoPreview extends UndoView {
  readonly ref: DaemonSetRef;
  readonly from?: RevisionSummary;
  readonly to: RevisionSummary;
  /** The target ControllerRevision as read. */
  readonly target: ControllerRevision;
  /** The DaemonSet as read, and the body of the strategic merge patch. */
  readonly daemonSet: DaemonSet;
  readonly patch: Readonly<Record<string, unknown>>;
}

export function undoChangeCause(revision: Revision): string {
  return `ds-rollout undo to revision ${revision}`;
}

/** kubectl's choice of target (docs/design/reconcile.md §13): the exact number, or for 0 the second highest. */
// upstream: staging/src/k8s.io/kubectl/pkg/polymorphichelpers/rollback.go DaemonSetRollbacker.Rollback, daemonSetHistory
export function undoTarget(revisions: readonly ControllerRevision[], toRevision: Revision): ControllerRevision {
  if (toRevision < 0) throw new InputError(`unable to find specified revision ${toRevision} in history`);
  if (toRevision === 0) {
    if (revisions.length <= 1) throw new InputError('no last revision to roll back to');
    return revisions[revisions.length - 2]!;
  }
  const found = revisions.find((revision) => revision.revision === toRevision);
  if (found === undefined) throw new InputError(`unable to find specified revision ${toRevision} in history`);
  return found;
}

function summary(revision: ControllerRevision): RevisionSummary {
  return {revision: revision.revision, name: revision.metadata.name, hash: revisionHash(revision)};
}

/** The patch kubectl sends: the revision's raw data (the template, `$patch: replace`); the DaemonSet's annotations stay as they are. */
export function undoPatch(target: ControllerRevision): Record<string, unknown> {
  return {...(target.data as Record<string, unknown>)};
}

export async function previewUndo(session: Pick<Session, 'source' | 'clock'>, options: UndoOptions): Promise<UndoPreview> {
  const state = await session.source.readState(options.ref);
  const now = session.clock.now();
  const ds = state.daemonSet;
  const errors = validateDaemonSet(ds);
  if (errors.length > 0) throw new InputError(formatInvalid('daemonset', `${options.ref.namespace}/${options.ref.name}`, errors));
  const revisions = controlledRevisions(ds, state.revisions);
  const target = undoTarget(revisions, options.toRevision);
  const targetTemplate = revisionTemplate(target);
  const current = revisions.find((revision) => revisionMatchesTemplate(revision, ds.spec.template));
  const changeCause = undoChangeCause(target.revision);
  const base = {
    ref: options.ref,
    ...(current ? {from: summary(current)} : {}),
    to: summary(target),
    target,
    currentTemplate: ds.spec.template,
    targetTemplate,
    daemonSet: ds,
    patch: undoPatch(target),
    changeCause,
  };
  if (current === target || revisionMatchesTemplate(target, ds.spec.template)) return {...base, skipped: true, restartNodes: []};

  // What the API server will store: the template replaced ($patch: replace), defaulted, a new generation.
  const next = asStoredUpdate(ds, {...ds, spec: {...ds.spec, template: targetTemplate}});
  // Timed as ds-plan times its waves: from the pod starts this DaemonSet's pods show.
  const undone = {...state, daemonSet: next};
  const plan = planRollout(undone, {now, timings: observePodTimings(undone, {now})});
  const restart = new Set<string>();
  for (const wave of plan.waves) for (const deletion of wave.delete) restart.add(deletion.node);
  const renumberedTo = plan.revisions.update.revision !== target.revision ? plan.revisions.update.revision : undefined;
  return {...base, skipped: false, restartNodes: [...restart].sort(), plan, ...(renumberedTo === undefined ? {} : {renumberedTo})};
}

export interface UndoResult {
  /** False when the template matched the target by the time the patch was built (someone rolled back meanwhile). */
  readonly applied: boolean;
  readonly after: DaemonSet;
  /** Reads it took (1, plus one per conflict retried). */
  readonly attempts: number;
  /** The change-cause written onto the reused revision, and the number it carries then (absent: nothing written). */
  readonly recorded?: {readonly revision: Revision; readonly renumbered: boolean};
}

interface UndoWrite {
  /** How long to wait for the controller to renumber the reused revision before annotating it anyway (default 10 s). */
  readonly renumberTimeoutMs?: number;
}

/**
 * A dry run writes nothing and waits for nothing. A rollback waits for the renumbering on a watched view of the
 * DaemonSet's scope: one already followed (the gated rollout's), or one started for the wait (a session's
 * `follow(ref)`) and stopped after it.
 */
export type ApplyUndoOptions = {readonly dryRun: true} | (UndoWrite & {readonly dryRun?: false} & ({readonly follower: Follower} | {readonly follow: Follow}));

/**
 * Sends the rollback, built again from a fresh read on every attempt (a conflict means "decide again"), then
 * records the change-cause on the reused revision once the controller has given it its new number. Should the
 * controller not do so in time (it is down), the cause is written anyway: the controller's later renumbering is an
 * update with a resourceVersion precondition, so it cannot drop the annotation.
 */
export async function applyUndo(writer: ClusterWriter, preview: UndoPreview, options: ApplyUndoOptions): Promise<UndoResult> {
  const result = await writer.patchDaemonSet(
    preview.ref,
    (current) => {
      if (current.metadata.uid !== preview.daemonSet.metadata.uid) {
        throw new InputError(`daemonset "${preview.ref.name}" was deleted and created again since it was read; nothing was changed`);
      }
      if (revisionMatchesTemplate(preview.target, current.spec.template)) return undefined;
      return {type: 'strategic', body: preview.patch};
    },
    options.dryRun ? {dryRun: true} : {},
  );
  const outcome = {applied: result.applied, after: result.after, attempts: result.attempts};
  if (!result.applied || options.dryRun === true) return outcome;
  const recorded = await recordCause(writer, preview, options);
  return {...outcome, recorded};
}

async function recordCause(
  writer: ClusterWriter,
  preview: UndoPreview,
  options: Exclude<ApplyUndoOptions, {dryRun: true}>,
): Promise<{revision: Revision; renumbered: boolean}> {
  const {namespace} = preview.ref;
  const {name, uid} = preview.target.metadata;
  const [follower, owned] = 'follower' in options ? [options.follower, false] : [new Follower(options.follow), true];
  try {
    // The ticks only re-judge the latest state; every read is the watch's.
    const seen = await follower.until((state) => state.revisions.find((r) => r.metadata.name === name && r.revision !== preview.target.revision), {
      timeoutMs: options.renumberTimeoutMs ?? 10_000,
      tickMs: 250,
    });
    const current = seen === 'timeout' ? await writer.readRevision(namespace, name) : seen;
    const written = await writer.annotateRevision(namespace, name, uid ?? current.metadata.uid ?? '', {[CHANGE_CAUSE_ANNOTATION]: preview.changeCause});
    return {revision: written.revision, renumbered: written.revision !== preview.target.revision};
  } finally {
    if (owned) follower.stop();
  }
}
