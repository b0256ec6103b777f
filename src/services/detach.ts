// `step --until-complete ... --detach` and `promote --detach`: the gated rollout handed to a Kubernetes Job in the
// DaemonSet's namespace, which runs the same command with in-cluster credentials (docs/gated/detached.md). The
// rollout's state stays in the DaemonSet's annotations, so the Job's restarts, and any machine, continue from it.
import type {DaemonSetRef} from '../cluster/cluster-source.js';
import type {ClusterWriter, DryRunMode} from '../cluster/cluster-writer.js';
import {
  type DaemonSet,
  DETACHED_JOB_ANNOTATION,
  DETACHED_JOB_LABEL,
  DETACHED_JOB_NAMESPACE_LABEL,
  type Manifest,
  type PrometheusTarget,
  computeTemplateHash,
  detachManifests,
  detachProxiedService,
  detachedCommandArgs,
  detachedJobName,
  failedJobPatch,
  gatedRecordOf,
  jobEndedAs,
  jobOwnerReference,
  pausedStrategyOf,
  stepJobEndedHere,
} from '../core/index.js';
import {ClusterForbiddenError, ConflictError, InputError} from '../platform/errors.js';
import {describeRef} from './pause.js';

export interface DetachCluster {
  readDaemonSet(ref: DaemonSetRef): Promise<DaemonSet>;
  /** Creates one object; `exists` when one of that name is there already. */
  create(manifest: Manifest, options: {dryRun?: boolean}): Promise<'created' | 'exists'>;
  read(kind: string, namespace: string | undefined, name: string): Promise<ClusterObject | undefined>;
  /** A JSON merge patch. */
  patch(kind: string, namespace: string | undefined, name: string, body: Readonly<Record<string, unknown>>): Promise<void>;
  /** `namespace` undefined: cluster-scoped objects, or a namespaced kind in every namespace. */
  list(kind: string, namespace: string | undefined, labelSelector: string): Promise<ClusterObject[]>;
  delete(kind: string, namespace: string | undefined, name: string, preconditions: {uid: string; resourceVersion: string}): Promise<void>;
  readonly writer: Pick<ClusterWriter, 'patchDaemonSet'>;
}

/** The little of an object these steps read. */
export interface ClusterObject {
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly ownerReferences?: readonly {readonly uid: string}[];
  };
  readonly spec?: {readonly backoffLimit?: number};
  readonly status?: {readonly conditions?: readonly {readonly type: string; readonly status: string}[]};
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
  /** Where the strategy's metric gate reaches Prometheus: through the service proxy, the Job's RBAC lets it (detachProxiedService). */
  readonly prometheus?: PrometheusTarget;
  /** The command takes --yes (the Job has no terminal to ask on). */
  readonly yes: boolean;
  readonly dryRun?: DryRunMode;
  /**
   * A Job of this rollout that failed (its pods never ran the rollout to its end: an image that cannot be pulled,
   * a node lost too often) or was deleted is left as it is, and a fresh one made under the next name (`-retry-2`, ...). Only for a
   * rollout that has not failed: refuseUnrunnable refuses a failed gate first, so a gate's failure is never rerun.
   */
  readonly retryFailed?: boolean;
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
  const promoted = options.command === 'promote' && found.kind === 'record' ? found.record.stage + 1 : undefined;
  const job = await jobNameFor(cluster, ds, ref, {template, promoted, retryFailed: options.retryFailed === true});
  const prometheusService = detachProxiedService(found.kind === 'record' ? found.record : undefined, template, options.prometheus);
  const manifests = detachManifests({
    namespace: ref.namespace,
    daemonSet: ref.name,
    template,
    job,
    image: options.image,
    args: detachedCommandArgs(options.command, options.argv, {namespace: ref.namespace, strategy: options.strategy !== undefined, yes: options.yes}),
    ...(options.strategy !== undefined ? {strategy: options.strategy} : {}),
    ...(prometheusService !== undefined ? {prometheusService} : {}),
  });
  const result = {kind: 'DetachedRollout' as const, daemonSet: ref, job, manifests, dryRun: options.dryRun !== undefined};
  if (options.dryRun === 'client') return {...result, created: true};
  let created = true;
  for (const manifest of manifests) {
    const outcome = await cluster.create(manifest, {dryRun: options.dryRun === 'server'});
    if (manifest.kind === 'Job') created = outcome === 'created';
  }
  if (options.dryRun === undefined) {
    await ownByJob(cluster, ref.namespace, job, manifests);
    await deleteStaleGrants(cluster, ref.namespace);
    // Named on the DaemonSet, so status, ds-plan and the dashboard name the Job from the object they read anyway.
    await cluster.writer.patchDaemonSet(ref, (current) =>
      current.metadata.annotations?.[DETACHED_JOB_ANNOTATION] === job
        ? undefined
        : {type: 'merge', body: {metadata: {annotations: {[DETACHED_JOB_ANNOTATION]: job}}}},
    );
  }
  return {...result, created};
}

/** How many fresh Jobs a rollout gets after failed ones: past that, the cause is not passing. */
const MAX_JOB_ATTEMPTS = 10;

/** Whether a Job has ended Failed. */
export function jobFailed(job: ClusterObject | undefined): boolean {
  return jobEndedAs(job, 'Failed');
}

/**
 * The rollout's Job name: the first not taken by a Job that ran an earlier rollout of this template (one that
 * completed while the DaemonSet records no rollout of this template ending where a step's Job ends: it was aborted,
 * undone or superseded since, and its Job drives nothing) and, with `retryFailed`, not by one that failed. A name
 * the DaemonSet says was made (DETACHED_JOB_ANNOTATION) whose Job is gone was deleted: its ServiceAccount, Role and
 * ConfigMap may still be on their way out with it, so with `retryFailed` it is passed over too. Otherwise the first
 * such name is the rollout's, whether its Job runs (a rerun finds it) or not yet.
 */
async function jobNameFor(
  cluster: DetachCluster,
  ds: DaemonSet,
  ref: DaemonSetRef,
  rollout: {readonly template: string; readonly promoted: number | undefined; readonly retryFailed: boolean},
): Promise<string> {
  const {template, promoted, retryFailed} = rollout;
  const made = ds.metadata.annotations?.[DETACHED_JOB_ANNOTATION];
  const endedHere = stepJobEndedHere(ds, template);
  for (let attempt = 1; attempt <= MAX_JOB_ATTEMPTS; attempt++) {
    const job = detachedJobName(ref.name, template, promoted, attempt);
    const found = await cluster.read('Job', ref.namespace, job);
    if (jobEndedAs(found, 'Complete') && !endedHere) continue;
    if (!retryFailed) return job;
    if (found === undefined ? job !== made : !jobFailed(found)) return job;
  }
  throw new InputError(
    `${describeRef(ref)}: its last ${MAX_JOB_ATTEMPTS} Jobs failed, or ran earlier rollouts of this template, before this rollout ended; see why with kubectl logs job/${detachedJobName(ref.name, template, promoted, MAX_JOB_ATTEMPTS)} -n ${ref.namespace}`,
  );
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

/** The kinds a rollout's Job owns: its ServiceAccount, Role, RoleBinding and strategy ConfigMap go when it goes. */
const OWNED_BY_JOB = new Set(['ServiceAccount', 'Role', 'RoleBinding', 'ConfigMap']);

/**
 * Makes the Job the owner of the rollout's namespaced objects in its namespace (once the Job exists it has a uid to
 * name; an owner in another namespace is none). Checked on every --detach, so a run cut short between the creates and
 * these patches is completed by the next.
 */
async function ownByJob(cluster: DetachCluster, namespace: string, job: string, manifests: readonly Manifest[]): Promise<void> {
  const uid = (await cluster.read('Job', namespace, job))?.metadata.uid;
  if (uid === undefined) return;
  for (const manifest of manifests) {
    if (!OWNED_BY_JOB.has(manifest.kind) || manifest.metadata.namespace !== namespace) continue;
    const current = await cluster.read(manifest.kind, namespace, manifest.metadata.name);
    if (current === undefined || (current.metadata.ownerReferences ?? []).some((owner) => owner.uid === uid)) continue;
    await cluster.patch(manifest.kind, namespace, manifest.metadata.name, {
      metadata: {
        resourceVersion: current.metadata.resourceVersion,
        ownerReferences: [...(current.metadata.ownerReferences ?? []), jobOwnerReference({name: job, uid})],
      },
    });
  }
}

/**
 * What a rollout grants outside its Job's reach as owner, labelled with the Job instead: the node binding, and a
 * metric gate's Role and RoleBinding in another namespace. The bindings go first: a Role left alone grants nothing.
 */
const LABELLED_WITH_JOB = ['ClusterRoleBinding', 'RoleBinding', 'Role'] as const;

/**
 * Those of them whose Job is gone (deleted, its ServiceAccount with it: they grant nothing any more) are deleted, each
 * only if unchanged since read. Listing them (cluster-wide) may be forbidden to the operator: then they stay.
 */
async function deleteStaleGrants(cluster: DetachCluster, namespace: string): Promise<void> {
  const jobGone = new Map<string, boolean>();
  for (const kind of LABELLED_WITH_JOB) {
    let objects: ClusterObject[];
    try {
      objects = await cluster.list(kind, undefined, `app.kubernetes.io/managed-by=ds-rollout,${DETACHED_JOB_NAMESPACE_LABEL}=${namespace}`);
    } catch (error) {
      if (error instanceof ClusterForbiddenError) continue;
      throw error;
    }
    for (const object of objects) {
      const job = object.metadata.labels?.[DETACHED_JOB_LABEL];
      const {uid, resourceVersion} = object.metadata;
      if (job === undefined || uid === undefined || resourceVersion === undefined) continue;
      if (!jobGone.has(job)) jobGone.set(job, (await cluster.read('Job', namespace, job)) === undefined);
      if (jobGone.get(job)) await cluster.delete(kind, object.metadata.namespace, object.metadata.name, {uid, resourceVersion});
    }
  }
}

/**
 * In a detached Job's pod, after its rollout failed: makes the Job controller fail the Job on this pod's exit
 * (failedJobPatch), so the Job ends Failed at once and is not run again. `unchanged` when it is failing already.
 */
export async function failDetachedJob(cluster: Pick<DetachCluster, 'read' | 'patch'>, namespace: string, job: string): Promise<'patched' | 'unchanged'> {
  for (let attempt = 1; ; attempt++) {
    const current = await cluster.read('Job', namespace, job);
    const patch = current === undefined ? undefined : failedJobPatch(current);
    if (patch === undefined) return 'unchanged';
    try {
      await cluster.patch('Job', namespace, job, patch);
      return 'patched';
    } catch (error) {
      if (!(error instanceof ConflictError) || attempt >= 3) throw error;
    }
  }
}
