// The gated rollout's one state machine (docs/gated/abort-and-record.md). From the record and the DaemonSet as the
// cluster has it: the phase the rollout is in, and for each command what it does in that phase, or why it is
// refused with the commands the phase does accept. Every face asks here: the driver (gated step, promote, abort),
// resume, pause, undo, plain step, status, ds-plan and the dashboard. A rollout is the move between two
// revisions fixed when it starts: its origin (what the nodes ran) and its release (what the template held); a
// template that is neither means someone else changed it, and the rollout reads as superseded.
import {detachedJobOf, isDetachedJobOf} from './detach.js';
import {FINISHED_GATED_PHASES, GATED_ROLLOUT_ANNOTATION, type GatedRecord, type RolloutOrigin, describeGateFailure, gatedRecordOf} from './gates.js';
import {claimObjects} from './claim.js';
import {CONTROLLER_REVISION_HASH_LABEL} from './pod-template.js';
import {computeTemplateHash, controlledRevisions, revisionHash, revisionMatchesTemplate, templateOfRevision} from './revisions.js';
import type {Revision} from './revision-number.js';
import type {ClusterState, ControllerRevision, DaemonSet, GatedPhase, GatedProgress} from './types.js';

/** What can be asked of a DaemonSet that has (or had) a gated rollout. */
export type GatedCommand = 'gated-step' | 'promote' | 'abort' | 'resume' | 'resume-force' | 'pause' | 'undo' | 'step';

/** A rollout as the cluster has it now: the record as written, and the phase it is really in. */
export interface GatedView {
  readonly record: GatedRecord;
  readonly phase: GatedPhase;
  /** Rolling, baking, awaiting approval, failed or aborting: it holds the DaemonSet, other commands wait. */
  readonly underWay: boolean;
  /** The template's hash now (ours, as `record.template`). */
  readonly template: string;
}

/** Phases in which the rollout still holds its DaemonSet. */
function isUnderWay(phase: GatedPhase): boolean {
  return !FINISHED_GATED_PHASES.has(phase);
}

/**
 * The phase a record is really in. A gated rollout holds its DaemonSet paused (OnDelete) until it ends: one whose
 * DaemonSet runs RollingUpdate again was ended by someone else, `complete` when the controller has rolled out its
 * release everywhere, else `abandoned`. A template that is neither the release nor, during an abort, the origin
 * was set by someone else: `superseded`. So no record outlives its rollout and blocks the next one.
 */
export function gatedPhaseOf(ds: DaemonSet, record: GatedRecord): GatedPhase {
  if (FINISHED_GATED_PHASES.has(record.phase)) return record.phase;
  const template = computeTemplateHash(ds.spec.template);
  if (ds.spec.updateStrategy?.type !== 'OnDelete') {
    const status = ds.status;
    const rolledOut =
      template === record.template &&
      status !== undefined &&
      (status.observedGeneration ?? 0) >= (ds.metadata.generation ?? 0) &&
      (status.updatedNumberScheduled ?? 0) === status.desiredNumberScheduled &&
      (status.numberAvailable ?? 0) === status.desiredNumberScheduled;
    return rolledOut ? 'complete' : 'abandoned';
  }
  // Its own rollback: the template is back on the origin (records written before the origin's template was kept
  // cannot tell, and are taken to be), moved by that one rollback and by no other change since.
  const generation = ds.metadata.generation ?? 0;
  if (record.phase === 'aborting' && (record.from?.template === undefined || record.from.template === template)) {
    return record.generation !== undefined && generation > record.generation + 1 ? 'superseded' : 'aborting';
  }
  if (template !== record.template) return 'superseded';
  // The release again, but after someone else's change (set image, then undo): still superseded.
  if (record.generation !== undefined && generation > record.generation) return 'superseded';
  return record.phase;
}

/**
 * Whether the gated rollout of `template` the DaemonSet records ended where a step's Job ends its run (complete,
 * or waiting for approval) with no change of spec since: a Job of that template that completed may have run it.
 * Anything else (no record, another template, aborted, abandoned, superseded, or the spec changed since, as an undo
 * and the release set again) means a completed Job of the template ran an earlier rollout and drives nothing now
 * (services/detach.ts names the next rollout's Job past it).
 */
export function stepJobEndedHere(ds: DaemonSet, template: string): boolean {
  const state = gatedViewOf(ds);
  if (state.kind !== 'view' || state.view.record.template !== template) return false;
  const {record, phase} = state.view;
  const changedSince = record.generation !== undefined && (ds.metadata.generation ?? 0) > record.generation;
  return (phase === 'complete' || phase === 'awaiting-approval') && !changedSince;
}

export type GatedViewState = {readonly kind: 'none'} | {readonly kind: 'invalid'; readonly error: string} | {readonly kind: 'view'; readonly view: GatedView};

export function gatedViewOf(ds: DaemonSet): GatedViewState {
  const found = gatedRecordOf(ds);
  if (found.kind !== 'record') return found;
  const phase = gatedPhaseOf(ds, found.record);
  return {kind: 'view', view: {record: found.record, phase, underWay: isUnderWay(phase), template: computeTemplateHash(ds.spec.template)}};
}

/** The record as the cluster has it now (its phase settled), if any. */
export function effectiveGatedRecord(ds: DaemonSet, record: GatedRecord): GatedRecord {
  const phase = gatedPhaseOf(ds, record);
  return phase === record.phase ? record : {...record, phase, bakeUntil: undefined};
}

/**
 * A record whose phase the cluster has moved on from (ended behind its back), as it ended: `pause` and `resume`
 * write it in the same patch, so a later pause does not bring a finished rollout back. Undefined: nothing to settle.
 */
export function settledGatedRecord(ds: DaemonSet): GatedRecord | undefined {
  const found = gatedRecordOf(ds);
  if (found.kind !== 'record' || FINISHED_GATED_PHASES.has(found.record.phase)) return undefined;
  const effective = effectiveGatedRecord(ds, found.record);
  return effective.phase === found.record.phase ? undefined : effective;
}

// ---------------------------------------------------------------------------------------------------------------
// The rollout's two revisions

/** The revision `ds`'s template is, among its own revisions (undefined: the controller has not written it yet). */
export function templateRevisionOf(ds: DaemonSet, revisions: readonly ControllerRevision[]): ControllerRevision | undefined {
  return controlledRevisions(ds, revisions).find((r) => revisionMatchesTemplate(r, ds.spec.template));
}

/** The controller's hash of the template's revision, as its pods are labelled (ours, before it exists). */
export function templateLabelHashOf(state: ClusterState): string {
  const current = templateRevisionOf(state.daemonSet, state.revisions);
  return current ? revisionHash(current) : computeTemplateHash(state.daemonSet.spec.template);
}

/**
 * Where a new gated rollout starts from, read from the pods themselves: the newest revision that some node runs,
 * other than the template's. On a fleet mid-way between two revisions that is the one it was moving to (where the
 * operator was before this release); never a revision that runs nowhere, as "the newest other revision" is after
 * an undo (the failed release). Undefined: every node already runs the template, so there is nothing to roll out.
 */
export function rolloutOriginOf(state: ClusterState): RolloutOrigin | undefined {
  const release = templateLabelHashOf(state);
  const running = new Set([...nodesByRevisionHash(state).keys()].filter((hash) => hash !== release));
  // controlledRevisions is in revision order: the last one running is the newest.
  const origin = controlledRevisions(state.daemonSet, state.revisions)
    .filter((revision) => running.has(revisionHash(revision)))
    .at(-1);
  if (!origin) return undefined;
  const template = templateOfRevision(origin);
  return {revision: origin.revision, hash: revisionHash(origin), ...(template ? {template: computeTemplateHash(template)} : {})};
}

/** The nodes each revision runs on (sorted), by the controller's hash label on the DaemonSet's pods that are not terminating. */
export function nodesByRevisionHash(state: ClusterState): Map<string, string[]> {
  const nodes = new Map<string, Set<string>>();
  for (const pod of claimObjects(state.daemonSet, state.pods).owned) {
    const hash = pod.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL];
    if (pod.metadata.deletionTimestamp || !pod.spec.nodeName || hash === undefined) continue;
    if (!nodes.has(hash)) nodes.set(hash, new Set());
    nodes.get(hash)!.add(pod.spec.nodeName);
  }
  return new Map([...nodes].map(([hash, names]) => [hash, [...names].sort()]));
}

// ---------------------------------------------------------------------------------------------------------------
// What each command does in each phase

export type GatedDecision =
  /** No rollout holds the DaemonSet: the command goes ahead (a gated step starts a new one). */
  | {readonly kind: 'free'; readonly view?: GatedView}
  /** Gated step: the rollout under way continues (rolling or baking). */
  | {readonly kind: 'continue'; readonly view: GatedView}
  /** Gated step: the rollout waits for promote; nothing to do. */
  | {readonly kind: 'awaiting-approval'; readonly view: GatedView}
  | {readonly kind: 'promote'; readonly view: GatedView}
  /** Abort: roll back (or go on rolling back) to the origin. */
  | {readonly kind: 'abort'; readonly view: GatedView}
  /** Abort: done already, the template is still the origin. */
  | {readonly kind: 'already-aborted'; readonly view: GatedView}
  /** `resume --force` ends the rollout: its record becomes abandoned in the same patch. */
  | {readonly kind: 'abandon'; readonly view: GatedView}
  /** Refused; nothing changes. Exit 3: the rollout is stopped where it is; 1: the command does not apply. */
  | {readonly kind: 'refuse'; readonly exitCode: 1 | 3; readonly message: string};

export interface DecisionContext {
  readonly ref: {readonly namespace: string; readonly name: string};
  /** The template's revision number now, to name it (a superseding change); undefined: named by hash. */
  readonly templateRevision?: Revision;
}

function stageText(view: GatedView): string {
  const {record} = view;
  const stage = Math.min(record.stage, record.stages.length - 1);
  return `stage ${stage + 1}/${record.stages.length} ${record.stages[stage]?.name ?? ''}`.trimEnd();
}

function templateName(view: GatedView, context: DecisionContext): string {
  return context.templateRevision !== undefined ? `revision ${context.templateRevision}` : `a template it did not roll out (${view.template})`;
}

/** The commands that move a rollout on from its phase, as one clause: its one way forward (or two). */
export function gatedWayForward(phase: GatedPhase, ref: {readonly namespace: string; readonly name: string}): string {
  const name = `${ref.name} -n ${ref.namespace}`;
  switch (phase) {
    case 'rolling':
    case 'baking':
      return `continue it with 'kubectl ds-rollout step ${name} --until-complete' (the same gated step), or roll it back with 'kubectl ds-rollout abort ${name}'`;
    case 'awaiting-approval':
      return `continue it with 'kubectl ds-rollout promote ${name}', or roll it back with 'kubectl ds-rollout abort ${name}'`;
    case 'failed':
      return `roll it back with 'kubectl ds-rollout abort ${name}'`;
    case 'aborting':
      return `finish the rollback with 'kubectl ds-rollout abort ${name}'`;
    case 'superseded':
      return `roll the new template out with a gated step ('kubectl ds-rollout step ${name} --until-complete --canary ...') or 'kubectl ds-rollout resume ${name}'`;
    default:
      return `start a new one with 'kubectl ds-rollout step ${name} --until-complete --canary ...'`;
  }
}

/**
 * A failed rollout in words: the gate's failures (the first few kept, and how many more) and the way on. What the
 * driver says when the gate fails, and every command refused in that phase.
 */
export function gatedFailureText(record: GatedRecord, ref: {readonly namespace: string; readonly name: string}): string {
  const stage = record.stages[Math.min(record.stage, record.stages.length - 1)]?.name ?? '';
  const more = (record.failureCount ?? record.failures.length) - record.failures.length;
  return `gate failed at stage ${stage}: ${record.failures.map(describeGateFailure).join('; ')}${more > 0 ? ` and ${more} more` : ''}; the DaemonSet stays paused (roll back: kubectl ds-rollout abort ${ref.name} -n ${ref.namespace})`;
}

/** Why a command that would move the rollout on is refused in the failed or aborting phase (exit 3: it is stopped). */
function stoppedText(view: GatedView, context: DecisionContext): string {
  if (view.phase === 'failed') return gatedFailureText(view.record, context.ref);
  return `daemonset ${context.ref.namespace}/${context.ref.name} is being rolled back (an abort is under way): ${gatedWayForward('aborting', context.ref)}`;
}

/** `daemonset NS/NAME has a gated rollout under way (stage 1/2 canary, baking)`. */
function underWayText(view: GatedView, context: DecisionContext): string {
  return `daemonset ${context.ref.namespace}/${context.ref.name} has a gated rollout under way (${stageText(view)}, ${view.phase})`;
}

const COMMAND_CONFLICTS: Record<'resume' | 'undo' | 'step', string> = {
  resume: 'resuming would hand every node to the controller outside its stages',
  undo: 'undo would leave its record behind',
  step: 'a plain step would touch nodes outside the stage',
};

/** What `command` does on `ds` given its gated rollout record (if any). */
export function gatedDecision(ds: DaemonSet, command: GatedCommand, context: DecisionContext): GatedDecision {
  const state = gatedViewOf(ds);
  if (state.kind === 'invalid') {
    // Only the commands that read the record need it; the others go ahead and leave it alone.
    if (command === 'gated-step' || command === 'promote' || command === 'abort') {
      return {
        kind: 'refuse',
        exitCode: 1,
        message: `daemonset ${context.ref.namespace}/${context.ref.name} has a gated rollout record that cannot be read (${state.error}): fix or remove the annotation ${GATED_ROLLOUT_ANNOTATION}`,
      };
    }
    return {kind: 'free'};
  }
  const view = state.kind === 'view' ? state.view : undefined;
  const ds_ = `daemonset ${context.ref.namespace}/${context.ref.name}`;
  switch (command) {
    case 'gated-step':
      // A gated rollout steps a paused DaemonSet; on a running one the controller is rolling every node already.
      if (ds.spec.updateStrategy?.type !== 'OnDelete' && !view?.underWay) {
        const name = `${context.ref.name} -n ${context.ref.namespace}`;
        return {
          kind: 'refuse',
          exitCode: 1,
          message: `${ds_} is not paused: a gated rollout steps a paused DaemonSet; pause it first ('kubectl ds-rollout pause ${name}')`,
        };
      }
      if (!view || !view.underWay) return view ? {kind: 'free', view} : {kind: 'free'};
      if (view.phase === 'awaiting-approval') return {kind: 'awaiting-approval', view};
      if (view.phase === 'rolling' || view.phase === 'baking') return {kind: 'continue', view};
      return {kind: 'refuse', exitCode: 3, message: stoppedText(view, context)};
    case 'promote':
      return promoteDecision(view, ds_, context);
    case 'abort':
      return abortDecision(view, ds_, context);
    case 'resume-force':
      return view?.underWay ? {kind: 'abandon', view} : view ? {kind: 'free', view} : {kind: 'free'};
    case 'pause':
      return view ? {kind: 'free', view} : {kind: 'free'};
    case 'resume':
    case 'undo':
    case 'step':
      if (view?.underWay) {
        const force = command === 'resume' ? ', or pass --force to end it (its record then says abandoned)' : '';
        return {
          kind: 'refuse',
          exitCode: 1,
          message: `${underWayText(view, context)}: ${COMMAND_CONFLICTS[command]}; ${gatedWayForward(view.phase, context.ref)}${force}`,
        };
      }
      return view ? {kind: 'free', view} : {kind: 'free'};
  }
}

/** `promote` moves on only a gated rollout that waits for approval; otherwise it says what the rollout waits for. */
function promoteDecision(view: GatedView | undefined, ds_: string, context: DecisionContext): GatedDecision {
  if (view?.phase === 'awaiting-approval') return {kind: 'promote', view};
  if (view?.phase === 'failed' || view?.phase === 'aborting') {
    return {kind: 'refuse', exitCode: 3, message: stoppedText(view, context)};
  }
  if (view?.underWay) {
    return {
      kind: 'refuse',
      exitCode: 1,
      message: `${ds_} has no gated rollout waiting for approval (${stageText(view)}, ${view.phase}): ${gatedWayForward(view.phase, context.ref)}`,
    };
  }
  if (view?.phase === 'superseded') {
    return {
      kind: 'refuse',
      exitCode: 1,
      message: `${ds_} has no gated rollout waiting for approval: its last one was superseded by ${templateName(view, context)}; ${gatedWayForward('superseded', context.ref)}`,
    };
  }
  return {kind: 'refuse', exitCode: 1, message: `${ds_} has no gated rollout waiting for approval`};
}

/** `abort` rolls back only a gated rollout's own release, never a change someone made since. */
function abortDecision(view: GatedView | undefined, ds_: string, context: DecisionContext): GatedDecision {
  if (view?.underWay) return {kind: 'abort', view};
  if (view?.phase === 'aborted') {
    if (view.record.from?.template === undefined || view.record.from.template === view.template) return {kind: 'already-aborted', view};
    return {
      kind: 'refuse',
      exitCode: 1,
      message: `${ds_}'s gated rollout was aborted, and its template has changed since to ${templateName(view, context)}: abort rolls back only its own release; nothing was changed ('kubectl ds-rollout undo' rolls back that change)`,
    };
  }
  if (view?.phase === 'superseded') {
    return {
      kind: 'refuse',
      exitCode: 1,
      message: `${ds_}'s gated rollout was superseded: its template was changed to ${templateName(view, context)} by someone else, and abort rolls back only its own release; nothing was changed ('kubectl ds-rollout undo' rolls back that change)`,
    };
  }
  return {kind: 'refuse', exitCode: 1, message: `${ds_} has no gated rollout to abort${view ? ` (its last one is ${view.phase})` : ''}`};
}

/** Why a plain `step` or an `undo` is refused while a gated rollout is under way (undefined: it is not). */
export function gatedRefusalReason(
  ds: DaemonSet,
  ref: {readonly namespace: string; readonly name: string},
  command: 'step' | 'undo' | 'resume',
): string | undefined {
  const decision = gatedDecision(ds, command, {ref});
  return decision.kind === 'refuse' ? decision.message : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// What the faces show

/**
 * The gated rollout as status, ds-plan and the dashboard show it: under way, or superseded while it still holds
 * the DaemonSet paused (someone changed the template); undefined once it has ended otherwise.
 */
export function gatedProgressOf(ds: DaemonSet, now: number, templateRevision?: Revision): GatedProgress | undefined {
  const state = gatedViewOf(ds);
  if (state.kind !== 'view') return undefined;
  const {view} = state;
  if (!view.underWay && !(view.phase === 'superseded' && ds.spec.updateStrategy?.type === 'OnDelete')) return undefined;
  const job = detachedJobOf(ds);
  const driven = view.underWay && job !== undefined && isDetachedJobOf(job, ds.metadata.name, view.record.template);
  const record = view.record;
  const stage = Math.min(record.stage, record.stages.length - 1);
  return {
    stage: stage + 1,
    stages: record.stages.length,
    name: record.stages[stage]?.name ?? '',
    phase: view.phase,
    ...(view.phase === 'baking' && record.bakeUntil !== undefined ? {bakeLeftSeconds: Math.max(0, Math.ceil((record.bakeUntil - now) / 1000))} : {}),
    failures: record.failures,
    ...(record.readings && record.readings.length > 0 ? {readings: record.readings} : {}),
    ...(view.phase === 'superseded' ? {supersededBy: templateRevision !== undefined ? {revision: templateRevision} : {hash: view.template}} : {}),
    ...(driven ? {job} : {}),
  };
}
