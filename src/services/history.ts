// `ds-rollout history`: the DaemonSet's revisions by kubectl's rules (controlled by the DaemonSet, labels
// matching its selector, keyed by revision number), with what kubectl leaves out: hash, age, images, how
// many daemon pods run each one, and which one is current; one revision's template; the diff of two.
import type {DaemonSetRef} from '../cluster/cluster-source.js';
import {
  type ClusterState,
  type ControllerRevision,
  claimObjects,
  controlledRevisions,
  type PodTemplateSpec,
  type Revision,
  CONTROLLER_REVISION_HASH_LABEL,
  revisionChangeCause,
  revisionHash,
  revisionMatchesTemplate,
  templateOfRevision,
} from '../core/index.js';
import {InputError} from '../platform/errors.js';
import type {HistoryReport, RevisionEntry} from '../output/history-text.js';
import type {Session} from '../cluster/session.js';

export type {HistoryReport, RevisionEntry};

// The rules live in the core (one place for history, undo, ds-plan -f and the dashboard); re-exported for the commands.
export {CHANGE_CAUSE_ANNOTATION, controlledRevisions, revisionHash} from '../core/index.js';

/** The revision numbered `n`, or kubectl's error. */
export function findRevision(revisions: readonly ControllerRevision[], n: Revision): ControllerRevision {
  const found = revisions.find((revision) => revision.revision === n);
  if (found === undefined) throw new InputError(`unable to find the specified revision ${n}`);
  return found;
}

/** A revision's template, or an input error when its data is not a DaemonSet template patch. */
export function revisionTemplate(revision: ControllerRevision): PodTemplateSpec {
  const template = templateOfRevision(revision);
  if (template === undefined) throw new InputError(`revision ${revision.revision} (${revision.metadata.name}) holds no pod template`);
  return template;
}

export function historyOf(state: ClusterState, now: number): HistoryReport {
  const ds = state.daemonSet;
  const revisions = controlledRevisions(ds, state.revisions);
  const podsByHash = new Map<string, number>();
  for (const pod of claimObjects(ds, state.pods).owned) {
    if (pod.metadata.deletionTimestamp) continue;
    const hash = pod.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL];
    if (hash !== undefined) podsByHash.set(hash, (podsByHash.get(hash) ?? 0) + 1);
  }
  const entries: RevisionEntry[] = revisions.map((revision) => {
    const created = revision.metadata.creationTimestamp;
    const age = created === undefined ? undefined : Math.max(0, Math.floor((now - Date.parse(created)) / 1000));
    const template = templateOfRevision(revision);
    const hash = revisionHash(revision);
    const changeCause = revisionChangeCause(revision);
    return {
      revision: revision.revision,
      name: revision.metadata.name,
      hash,
      ...(created === undefined ? {} : {created}),
      ...(age === undefined || Number.isNaN(age) ? {} : {ageSeconds: age}),
      ...(changeCause ? {changeCause} : {}),
      images: template ? [...(template.spec.initContainers ?? []), ...template.spec.containers].map((c) => c.image ?? '') : [],
      pods: podsByHash.get(hash) ?? 0,
      current: revisionMatchesTemplate(revision, ds.spec.template),
    };
  });
  return {kind: 'DaemonSetHistory', daemonSet: {namespace: ds.metadata.namespace ?? 'default', name: ds.metadata.name}, revisions: entries};
}

export interface HistoryOptions {
  readonly ref: DaemonSetRef;
}

export interface HistoryResult {
  readonly state: ClusterState;
  readonly report: HistoryReport;
  /** The controlled revisions, sorted by number (for --revision and --diff). */
  readonly revisions: readonly ControllerRevision[];
}

export async function historyService(session: Pick<Session, 'source' | 'clock'>, options: HistoryOptions): Promise<HistoryResult> {
  const state = await session.source.readState(options.ref);
  // Ages on the server's clock (read after the answer): the revisions' timestamps were written by it.
  return {state, report: historyOf(state, session.clock.now()), revisions: controlledRevisions(state.daemonSet, state.revisions)};
}

/** `--revision N`: its row of the history and its pod template; an unknown number is bad input. */
export function revisionOf(result: HistoryResult, n: Revision): {readonly entry: RevisionEntry; readonly template: PodTemplateSpec} {
  const template = revisionTemplate(findRevision(result.revisions, n));
  return {entry: result.report.revisions.find((r) => r.revision === n)!, template};
}

export interface DiffSide {
  /** `revision 3 (5d4c8f7b6)`: as the diff's header names it. */
  readonly label: string;
  readonly template: PodTemplateSpec;
}

/** `--diff A B`: the two templates, labelled with number and hash; an unknown number is bad input. */
export function diffSidesOf(result: HistoryResult, a: Revision, b: Revision): {readonly from: DiffSide; readonly to: DiffSide} {
  const side = (n: Revision): DiffSide => {
    const revision = findRevision(result.revisions, n);
    return {label: `revision ${revision.revision} (${revisionHash(revision)})`, template: revisionTemplate(revision)};
  };
  return {from: side(a), to: side(b)};
}
