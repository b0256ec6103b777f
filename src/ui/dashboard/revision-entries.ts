// ControllerRevisions as the revision pane lists them: only the DaemonSet's own, oldest first.
import {type ControllerRevision, type DaemonSet, getControllerOf, CONTROLLER_REVISION_HASH_LABEL, templateOfRevision} from '../../core/index.js';
import type {RevisionEntry} from './feed.js';

const CHANGE_CAUSE = 'kubernetes.io/change-cause';

export function toRevisionEntries(daemonSet: DaemonSet, revisions: readonly ControllerRevision[]): RevisionEntry[] {
  const uid = daemonSet.metadata.uid;
  return revisions
    .filter((r) => {
      const owner = getControllerOf(r.metadata);
      return owner !== undefined && owner.kind === 'DaemonSet' && (uid === undefined ? owner.name === daemonSet.metadata.name : owner.uid === uid);
    })
    .map((r) => {
      const template = templateOfRevision(r);
      const changeCause = r.metadata.annotations?.[CHANGE_CAUSE];
      return {
        revision: r.revision,
        hash: r.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? r.metadata.name.slice(daemonSet.metadata.name.length + 1),
        name: r.metadata.name,
        ...(r.metadata.creationTimestamp ? {createdAt: r.metadata.creationTimestamp} : {}),
        ...(changeCause ? {changeCause} : {}),
        ...(template ? {template} : {}),
      };
    })
    .sort((a, b) => a.revision - b.revision);
}
