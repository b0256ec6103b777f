// `ds-plan -f MANIFEST --contexts ...`: one new manifest planned against every cluster, each checked by that
// cluster's own API server (its dry run: its version's fields and rules) and planned on that cluster's nodes,
// pods and revisions. A cluster that refuses the manifest is an `invalid` row, as one that cannot be read is its
// row: the others are still planned.
import {EXIT_OK} from '../platform/errors.js';
import type {DaemonSet} from '../core/index.js';
import type {FleetSession} from '../cluster/session.js';
import type {ContextResult} from '../output/fleet-text.js';
import {eachContext, planState} from './fleet.js';
import {planUpdate, type PlanUpdateResult} from './plan.js';

export interface FleetManifestOptions {
  readonly manifest: DaemonSet;
  /** For labels: the file name (`-`: stdin). */
  readonly manifestPath: string;
  /** The DaemonSet's name (NAME, else the manifest's). */
  readonly name: string;
  readonly kubeVersion?: number;
  readonly podStartMs?: number;
  readonly concurrency?: number;
}

/** Each cluster's plan of the manifest, with its diff against that cluster's current revision and its warnings. Exit 0 for a plan. */
export function fleetPlanManifest(members: readonly FleetSession[], options: FleetManifestOptions): Promise<ContextResult<PlanUpdateResult>[]> {
  return eachContext(
    members,
    async (session) => {
      const ref = {namespace: session.namespace, name: options.name};
      const update = await planUpdate({
        source: session.source,
        clock: session.clock,
        ref,
        manifest: options.manifest,
        manifestPath: options.manifestPath,
        serverDryRun: (sent, current) => session.live.writer.dryRunDaemonSet(ref, sent, current),
        ...(options.kubeVersion === undefined ? {} : {kubeVersion: options.kubeVersion}),
        ...(options.podStartMs === undefined ? {} : {podStartMs: options.podStartMs}),
      });
      return {result: update, state: planState(update.plan), exitCode: EXIT_OK};
    },
    options.concurrency,
  );
}
