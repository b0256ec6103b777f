// ControllerRevisions as the revision pane lists them: the DaemonSet's history by the core's one rule (as
// `ds-rollout history` and kubectl list it), oldest first.
import {type ControllerRevision, controlledRevisions, type DaemonSet, revisionChangeCause, revisionHash, templateOfRevision} from '../../core/index.js';
import type {RevisionEntry} from './feed.js';

export function toRevisionEntries(daemonSet: DaemonSet, revisions: readonly ControllerRevision[]): RevisionEntry[] {
  return controlledRevisions(daemonSet, revisions).map((r) => {
    const template = templateOfRevision(r);
    const changeCause = revisionChangeCause(r);
    return {
      revision: r.revision,
      hash: revisionHash(r),
      name: r.metadata.name,
      ...(r.metadata.creationTimestamp ? {createdAt: r.metadata.creationTimestamp} : {}),
      ...(changeCause ? {changeCause} : {}),
      ...(template ? {template} : {}),
    };
  });
}
