// `step --dry-run=server`: what the step would send first, sent to the API server with dryRun=All, so that admission,
// RBAC and the preconditions are checked while nothing changes: the next wave's deletions, or with --controller the
// patch that resumes the recorded strategy for the controller's wave.
import type {DaemonSetRef} from '../cluster/cluster-source.js';
import type {ClusterWriter} from '../cluster/cluster-writer.js';
import {pauseStateOf, resumeBody} from '../core/index.js';
import type {StepResult} from './step/types.js';

export interface ServerDryRun {
  /** Pod deletions the server accepted. */
  readonly deletions: number;
  /** DaemonSet patches the server accepted (the controller wave's resume). */
  readonly patches: number;
}

/** Sends a dry-run step's first writes with dryRun=All; a refusal surfaces as the writer's error. */
export async function sendServerDryRun(writer: ClusterWriter, ref: DaemonSetRef, result: StepResult): Promise<ServerDryRun> {
  if (result.controllerNodes !== undefined) {
    const patch = await writer.patchDaemonSet(
      ref,
      (current) => {
        const state = pauseStateOf(current);
        return state.kind === 'paused' ? {type: 'merge', body: resumeBody(state.strategy.rollingUpdate)} : undefined;
      },
      {dryRun: true},
    );
    return {deletions: 0, patches: patch.applied ? 1 : 0};
  }
  const deletions = result.next?.delete ?? [];
  for (const deletion of deletions) {
    await writer.deletePod(
      ref.namespace,
      deletion.pod,
      {uid: deletion.uid ?? '', ...(deletion.resourceVersion ? {resourceVersion: deletion.resourceVersion} : {})},
      {dryRun: true},
    );
  }
  return {deletions: deletions.length, patches: 0};
}
