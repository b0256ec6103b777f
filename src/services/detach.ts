// `step --until-complete ... --detach` and `promote --detach`: the gated rollout handed to a Kubernetes Job in the
// DaemonSet's namespace, which runs the same command with in-cluster credentials (docs/gated/detached.md). The
// rollout's state stays in the DaemonSet's annotations, so the Job's restarts, and any machine, continue from it.
import type {DaemonSetRef} from '../cluster/cluster-source.js';
import type {ClusterWriter, DryRunMode} from '../cluster/cluster-writer.js';
import {
  type DaemonSet,
  DETACHED_JOB_ANNOTATION,
  type Manifest,
  computeTemplateHash,
  detachManifests,
  detachedCommandArgs,
  detachedJobName,
  gatedRecordOf,
  pausedStrategyOf,
} from '../core/index.js';
import {InputError} from '../errors.js';
import {describeRef} from './pause.js';

export interface DetachCluster {
  readDaemonSet(ref: DaemonSetRef): Promise<DaemonSet>;
  /** Creates one object; `exists` when one of that name is there already. */
  create(manifest: Manifest, options: {dryRun?: boolean}): Promise<'created' | 'exists'>;
  readonly writer: Pick<ClusterWriter, 'patchDaemonSet'>;
}

export interface DetachOptions {
  readonly cluster: DetachCluster;
  readonly ref: DaemonSetRef;
  readonly command: 'step' | 'promote';
  /** The command's arguments as typed after its name (oclif's argv): the Job runs them, cleaned. */
  readonly argv: readonly string[];
  readonly image: string;
  /** The text of --strategy, mounted into the Job's pod from a ConfigMap. */
  readonly strategy?: string;
  /** The command takes --yes (the Job has no terminal to ask on). */
  readonly yes: boolean;
  readonly dryRun?: DryRunMode;
}

export interface DetachResult {
  readonly kind: 'DetachedRollout';
  readonly daemonSet: DaemonSetRef;
  readonly job: string;
  /** False: the Job of this rollout existed already (it drives the rollout; nothing new was made). */
  readonly created: boolean;
  /** What was (or, in a dry run, would be) created, in order. */
  readonly manifests: readonly Manifest[];
  readonly dryRun: boolean;
}

/** Checks that the Job could run the rollout at all (the cluster stays untouched otherwise), then creates it. */
export async function detachRollout(options: DetachOptions): Promise<DetachResult> {
  const {cluster, ref} = options;
  const ds = await cluster.readDaemonSet(ref);
  refuseUnrunnable(ds, ref, options.command);
  const template = computeTemplateHash(ds.spec.template);
  const found = gatedRecordOf(ds);
  // A promote gets a Job of its own, named after the stage it continues from (the step's Job has ended there).
  const job = detachedJobName(ref.name, template, options.command === 'promote' && found.kind === 'record' ? found.record.stage + 1 : undefined);
  const manifests = detachManifests({
    namespace: ref.namespace,
    daemonSet: ref.name,
    template,
    job,
    image: options.image,
    args: detachedCommandArgs(options.command, options.argv, {namespace: ref.namespace, strategy: options.strategy !== undefined, yes: options.yes}),
    ...(options.strategy !== undefined ? {strategy: options.strategy} : {}),
  });
  const result = {kind: 'DetachedRollout' as const, daemonSet: ref, job, manifests, dryRun: options.dryRun !== undefined};
  if (options.dryRun === 'client') return {...result, created: true};
  let created = true;
  for (const manifest of manifests) {
    const outcome = await cluster.create(manifest, {dryRun: options.dryRun === 'server'});
    if (manifest.kind === 'Job') created = outcome === 'created';
  }
  if (options.dryRun === undefined) {
    // Named on the DaemonSet, so status, ds-plan and the dashboard name the Job from the object they read anyway.
    await cluster.writer.patchDaemonSet(ref, (current) =>
      current.metadata.annotations?.[DETACHED_JOB_ANNOTATION] === job
        ? undefined
        : {type: 'merge', body: {metadata: {annotations: {[DETACHED_JOB_ANNOTATION]: job}}}},
    );
  }
  return {...result, created};
}

function refuseUnrunnable(ds: DaemonSet, ref: DaemonSetRef, command: 'step' | 'promote'): void {
  const name = `${ref.name} -n ${ref.namespace}`;
  const found = gatedRecordOf(ds);
  if (command === 'promote') {
    if (found.kind !== 'record' || found.record.phase !== 'awaiting-approval') {
      throw new InputError(`${describeRef(ref)} has no gated rollout waiting for approval: nothing to hand to a Job`);
    }
    return;
  }
  if (found.kind === 'record' && found.record.phase === 'failed') {
    throw new InputError(`${describeRef(ref)}: its gated rollout failed a gate; roll it back with kubectl ds-rollout abort ${name}`);
  }
  const paused = pausedStrategyOf(ds);
  if (paused === undefined || !paused.ok) {
    throw new InputError(`${describeRef(ref)} is not paused: a gated rollout steps a paused DaemonSet (kubectl ds-rollout pause ${name} first)`);
  }
}
