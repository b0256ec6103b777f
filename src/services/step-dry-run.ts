// `step --dry-run=server`: the wave a step would delete, sent to the API server with dryRun=All, so that admission,
// RBAC and the preconditions are checked while nothing is deleted.
import type {DaemonSetRef} from '../cluster/cluster-source.js';
import type {ClusterWriter} from '../cluster/cluster-writer.js';
import type {StepResult} from './step.js';

/** Sends the deletions of a dry-run step's next wave with dryRun=All; returns how many the server accepted. */
export async function sendServerDryRun(writer: Pick<ClusterWriter, 'deletePod'>, ref: DaemonSetRef, result: StepResult): Promise<number> {
  const deletions = result.next?.delete ?? [];
  for (const deletion of deletions) {
    await writer.deletePod(
      ref.namespace,
      deletion.pod,
      {uid: deletion.uid ?? '', ...(deletion.resourceVersion ? {resourceVersion: deletion.resourceVersion} : {})},
      {dryRun: true},
    );
  }
  return deletions.length;
}
