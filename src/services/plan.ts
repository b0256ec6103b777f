// ds-plan's use case: read the state, refuse an invalid DaemonSet with one clear line, plan the rollout; with
// -f, plan the rollout of a new version of the DaemonSet instead, with the diff and the warnings a person wants
// before applying it. No oclif here; the command turns thrown errors into exit codes.
import {checkDocumentShape, isStackOverflow, MAX_MANIFEST_BYTES, readBoundedFile, readBoundedStream, tooDeepMessage} from '../cluster/bounded-input.js';
import type {Clock} from '../platform/clock.js';
import type {ClusterSource, DaemonSetRef} from '../cluster/cluster-source.js';
import {
  type ClusterState,
  type ControllerMinor,
  type DaemonSet,
  decodeObject,
  formatMinor,
  parseMinor,
  prepareDaemonSetCreate,
  summarizeFieldErrors,
  prepareDaemonSetUpdate,
  formatInvalid,
  planObserved,
  type PodTemplateSpec,
  revisionMatchesTemplate,
  type RolloutPlan,
  type UpdateWarning,
  updateWarnings,
  isToleratedByController,
  validateDaemonSet,
  validateDaemonSetUpdate,
} from '../core/index.js';
import {ClusterForbiddenError, InputError, NotFoundError, UsageError} from '../platform/errors.js';
import {controlledRevisions, revisionHash} from './history.js';
import {markPhase} from '../platform/timings.js';

export interface PlanOptions {
  readonly source: ClusterSource;
  readonly ref: DaemonSetRef;
  /** The session's clock, read after the cluster answered (live: the server's; --now: fixed). */
  readonly clock: Pick<Clock, 'now'>;
  /** `--kube-version`: the Kubernetes minor to model; undefined: the live server's (read from /version), else the newest modelled. */
  readonly kubeVersion?: ControllerMinor;
  /** ds-plan --pod-start: how long a new pod takes to become Ready, instead of what the cluster shows (ms). */
  readonly podStartMs?: number;
}

/**
 * The Kubernetes minor whose controller the plan models: `--kube-version`, else what a live server reports (one
 * request), else undefined (the newest modelled): also when /version does not answer or is not a 1.x version.
 */
export async function controllerMinorFor(options: PlanOptions): Promise<ControllerMinor | undefined> {
  if (options.kubeVersion !== undefined) return options.kubeVersion;
  if (!options.source.readServerVersion) return undefined;
  // A server (or proxy) that does not answer /version still gets a plan: the newest controller's, which it names.
  const version = await options.source.readServerVersion().catch(() => undefined);
  return version === undefined ? undefined : parseMinor(version);
}

/** The plan of the given controller, its wave times from the durations this DaemonSet's own pods show (or the stated defaults, or --pod-start). */
function planWithTimings(state: ClusterState, now: number, podStartMs: number | undefined, controllerMinor: ControllerMinor | undefined): RolloutPlan {
  const plan = planObserved(state, {now, ...(podStartMs !== undefined ? {podStartMs} : {}), ...(controllerMinor === undefined ? {} : {controllerMinor})});
  markPhase('plan');
  return plan;
}

export interface PlanResult {
  readonly plan: RolloutPlan;
  /** The DaemonSet as read, for renderers that show its own values (percentages as written). */
  readonly daemonSet: DaemonSet;
}

export async function planService(options: PlanOptions): Promise<RolloutPlan> {
  return (await planDaemonSet(options)).plan;
}

export async function planDaemonSet(options: PlanOptions): Promise<PlanResult> {
  const [state, controllerMinor] = await Promise.all([options.source.readState(options.ref), controllerMinorFor(options)]);
  markPhase('read');
  // A stored object is planned as the controller acts on it; what only admission refuses becomes a plan warning.
  const errors = validateDaemonSet(state.daemonSet).filter((error) => !isToleratedByController(error));
  if (errors.length > 0) {
    throw new InputError(formatInvalid('daemonset', `${options.ref.namespace}/${options.ref.name}`, errors));
  }
  return {plan: planWithTimings(state, options.clock.now(), options.podStartMs, controllerMinor), daemonSet: state.daemonSet};
}

// ---------------------------------------------------------------------------------------------------------------
// -f MANIFEST

/** The DaemonSet a manifest file holds (YAML or JSON; one DaemonSet, or the one named NAME among several). */
export async function readManifest(path: string, name: string | undefined, stdin: NodeJS.ReadableStream = process.stdin): Promise<DaemonSet> {
  const objects = await readManifestObjects(path, stdin);
  const daemonSets = objects.filter((doc) => isObject(doc) && doc['kind'] === 'DaemonSet').map((doc, index) => decodeManifestDaemonSet(doc, index, path));
  const wanted = name === undefined ? daemonSets : daemonSets.filter((ds) => ds.metadata.name === name);
  if (wanted.length === 1) return wanted[0]!;
  if (daemonSets.length === 0) throw new InputError(`manifest "${path}" holds no DaemonSet`);
  if (wanted.length === 0)
    throw new UsageError(
      `manifest "${path}" holds no DaemonSet named "${name}" (it has ${daemonSets
        .slice(0, 10)
        .map((ds) => `"${ds.metadata.name}"`)
        .join(', ')}${daemonSets.length > 10 ? ` and ${daemonSets.length - 10} more` : ''})`,
    );
  const names = wanted.slice(0, 10).map((ds) => ds.metadata.name);
  const more = wanted.length > names.length ? ` and ${wanted.length - names.length} more` : '';
  throw new UsageError(`manifest "${path}" holds ${wanted.length} DaemonSets: name the one to plan (${names.join(', ')}${more})`);
}

/** The objects of a manifest file (`-` for stdin): every YAML or JSON document, the items of a List spread. */
export async function readManifestObjects(path: string, stdin: NodeJS.ReadableStream = process.stdin): Promise<unknown[]> {
  const limits = {what: `manifest "${path}"`, maxBytes: MAX_MANIFEST_BYTES};
  const text = path === '-' ? await readBoundedStream(stdin, limits, {waitingFor: 'standard input (-f -)'}) : await readBoundedFile(path, limits);
  let documents: unknown[];
  const {loadAll} = await import('js-yaml');
  try {
    documents = loadAll(text);
  } catch (error) {
    if (isStackOverflow(error)) throw new InputError(tooDeepMessage(`manifest "${path}"`), {cause: error});
    throw new InputError(`manifest "${path}" is not valid YAML or JSON: ${(error as Error).message.split('\n')[0]}`, {cause: error});
  }
  checkDocumentShape(documents, text.length, `manifest "${path}"`);
  return documents.flatMap((doc) => (isObject(doc) && doc['kind'] === 'List' && Array.isArray(doc['items']) ? doc['items'] : [doc]));
}

/** A manifest's DaemonSet with the types the API server's decoder wants (field values are judged later, as admission judges them). */
function decodeManifestDaemonSet(doc: unknown, index: number, path: string): DaemonSet {
  const {object, errors} = decodeObject('DaemonSet', doc);
  if (object !== undefined) return object as unknown as DaemonSet;
  const meta = isObject(doc) && isObject(doc['metadata']) ? doc['metadata'] : {};
  const which = typeof meta['name'] === 'string' ? `DaemonSet "${meta['name']}"` : `DaemonSet ${index + 1}`;
  throw new InputError(`manifest "${path}": ${which}: ${summarizeFieldErrors(errors)}`);
}

/** The namespace of a -f plan: the manifest's, unless -n says otherwise (kubectl refuses a mismatch the same way); undefined: the context's. */
export function manifestNamespace(manifest: DaemonSet, flagNamespace: string | undefined): string | undefined {
  const own = manifest.metadata.namespace || undefined;
  if (own !== undefined && flagNamespace !== undefined && own !== flagNamespace) {
    throw new UsageError(`the namespace from the manifest ("${own}") does not match the namespace "${flagNamespace}"; pass --namespace=${own}`);
  }
  return own ?? flagNamespace;
}

/** The DaemonSet as the API server would store `next` over `current`: prepared as for an update, identity and status kept. */
export function asStoredUpdate(current: DaemonSet, next: DaemonSet): DaemonSet {
  const prepared = prepareDaemonSetUpdate(current, next);
  const {uid, resourceVersion, creationTimestamp, namespace} = current.metadata;
  return {
    ...prepared,
    metadata: {
      ...prepared.metadata,
      name: current.metadata.name,
      ...(namespace === undefined ? {} : {namespace}),
      ...(uid === undefined ? {} : {uid}),
      ...(resourceVersion === undefined ? {} : {resourceVersion}),
      ...(creationTimestamp === undefined ? {} : {creationTimestamp}),
    },
    ...(current.status === undefined ? {} : {status: current.status}),
  };
}

export type {UpdateWarning, UpdateWarningKind} from '../core/index.js';

export interface PlanUpdateResult extends PlanResult {
  /** The DaemonSet as stored now; undefined when the manifest would create it. */
  readonly current: DaemonSet | undefined;
  /** What the diff compares against: the current update revision's template, else the stored template. */
  readonly from: {readonly label: string; readonly template: PodTemplateSpec | undefined};
  readonly to: {readonly label: string; readonly template: PodTemplateSpec};
  /** What a person wants to know before applying, most serious first. */
  readonly warnings: readonly UpdateWarning[];
}

export interface PlanUpdateOptions extends PlanOptions {
  readonly manifest: DaemonSet;
  /** For labels: the file name. */
  readonly manifestPath: string;
  /**
   * Live: the server's dry run of the manifest (an update of the stored DaemonSet, or a create when there is none),
   * returning what it would store. Without it (offline) the manifest is defaulted and validated locally.
   */
  readonly serverDryRun?: (manifest: DaemonSet, current: DaemonSet | undefined) => Promise<DaemonSet>;
}

/**
 * Paths of fields `sent` sets (not null) that `stored` lacks: what the API server dropped (unknown to its version).
 * Lists are compared item by item.
 */
export function droppedFields(sent: unknown, stored: unknown, path: string): string[] {
  if (Array.isArray(sent)) {
    if (!Array.isArray(stored)) return [];
    return sent.flatMap((item, i) => droppedFields(item, stored[i], `${path}[${i}]`));
  }
  if (!isObject(sent) || !isObject(stored)) return [];
  return Object.entries(sent).flatMap(([key, value]) => {
    if (value === null || value === undefined) return [];
    if (!(key in stored)) return [`${path}.${key}`];
    return droppedFields(value, stored[key], `${path}.${key}`);
  });
}

/**
 * Offline, the manifest as an API server of `minor` would decode it: before 1.21 there is no maxSurge (dropped).
 * Returns the manifest to store and the fields dropped.
 */
function asDecodedBy(manifest: DaemonSet, minor: ControllerMinor | undefined): {manifest: DaemonSet; dropped: string[]} {
  const rollingUpdate = manifest.spec.updateStrategy?.rollingUpdate;
  if (minor === undefined || minor >= 21 || rollingUpdate === undefined || !('maxSurge' in rollingUpdate) || rollingUpdate.maxSurge == null) {
    return {manifest, dropped: []};
  }
  const {maxSurge: _dropped, ...kept} = rollingUpdate;
  return {
    manifest: {...manifest, spec: {...manifest.spec, updateStrategy: {...manifest.spec.updateStrategy!, rollingUpdate: kept}}},
    dropped: ['spec.updateStrategy.rollingUpdate.maxSurge'],
  };
}

/**
 * The server's dry run; nothing offline; when RBAC does not allow the write (a read-only user plans locally), the
 * warning that says the server's check was skipped and why.
 */
async function dryRunIfAllowed(
  options: PlanUpdateOptions,
  sent: DaemonSet,
  current: DaemonSet | undefined,
  minor: ControllerMinor | undefined,
): Promise<{stored?: DaemonSet; skipped?: UpdateWarning}> {
  if (!options.serverDryRun) return {};
  try {
    return {stored: await options.serverDryRun(sent, current)};
  } catch (error) {
    if (!(error instanceof ClusterForbiddenError)) throw error;
    const rules = minor === undefined ? "the newest Kubernetes version's rules" : `Kubernetes ${formatMinor(minor)}'s rules`;
    const verb = current ? 'update' : 'create';
    return {
      skipped: {
        kind: 'server-check-skipped',
        message: `the server's check (a dry-run ${verb}) was skipped: forbidden for this user; checked locally with ${rules}, which may miss what the server refuses or drops`,
      },
    };
  }
}

function droppedWarnings(dropped: readonly string[], minor: ControllerMinor | undefined, byServer: boolean): UpdateWarning[] {
  const version = minor === undefined ? 'the API server' : `Kubernetes ${formatMinor(minor)}`;
  return dropped.map((field) => ({
    kind: 'dropped-field' as const,
    message: byServer
      ? `the server (${version}) dropped ${field}, which the manifest sets: it does not know the field; planned without it`
      : `${version} does not know ${field}, which the manifest sets: the API server drops it; planned without it`,
  }));
}

export async function planUpdate(options: PlanUpdateOptions): Promise<PlanUpdateResult> {
  let state: ClusterState;
  try {
    state = await options.source.readState(options.ref);
    markPhase('read');
  } catch (error) {
    if (error instanceof NotFoundError) return planCreate(options);
    throw error;
  }
  const current = state.daemonSet;
  const controllerMinor = await controllerMinorFor(options);
  const sent: DaemonSet = {...options.manifest, metadata: {...options.manifest.metadata, namespace: options.ref.namespace}};
  let next: DaemonSet;
  let dropped: UpdateWarning[];
  // The server's own decoding, defaulting and validation: what it refuses is the error, what it stores is planned.
  const {stored, skipped} = await dryRunIfAllowed(options, sent, current, controllerMinor);
  if (stored) {
    next = {...stored, ...(current.status === undefined ? {} : {status: current.status})};
    dropped = droppedWarnings(droppedFields(sent.spec, stored.spec, 'spec'), controllerMinor, true);
  } else {
    const decoded = asDecodedBy(sent, controllerMinor);
    next = asStoredUpdate(current, decoded.manifest);
    const errors = validateDaemonSetUpdate(current, next, controllerMinor);
    if (errors.length > 0) {
      throw new InputError(`the API server would refuse this manifest: ${formatInvalid('DaemonSet.apps', current.metadata.name, errors)}`);
    }
    dropped = droppedWarnings(decoded.dropped, controllerMinor, false);
  }
  const nextState: ClusterState = {...state, daemonSet: next};
  const now = options.clock.now();
  const plan = planWithTimings(nextState, now, options.podStartMs, controllerMinor);
  const revision = controlledRevisions(current, state.revisions).find((r) => revisionMatchesTemplate(r, current.spec.template));
  return {
    plan,
    daemonSet: next,
    current,
    from: {label: revision ? `revision ${revision.revision} (${revisionHash(revision)})` : 'current template', template: current.spec.template},
    to: {label: options.manifestPath === '-' ? '<stdin>' : options.manifestPath, template: next.spec.template},
    warnings: [...(skipped ? [skipped] : []), ...dropped, ...updateWarnings(state, next, plan)],
  };
}

/** The uid a DaemonSet that does not exist yet plans with: it owns nothing, so the claim rules see only orphans. */
export const PLANNED_UID = 'not-created-yet';

/**
 * ds-plan -f for a DaemonSet that does not exist: what creating it would do. The API server would default
 * and validate it, give it generation 1, and the controller would create revision 1 and a pod on every
 * eligible node (adopting matching orphans).
 */
async function planCreate(options: PlanUpdateOptions): Promise<PlanUpdateResult> {
  const [surroundings, controllerMinor] = await Promise.all([options.source.readSurroundings(options.ref.namespace), controllerMinorFor(options)]);
  const sent: DaemonSet = {...options.manifest, metadata: {...options.manifest.metadata, name: options.ref.name, namespace: options.ref.namespace}};
  let created: DaemonSet;
  let dropped: UpdateWarning[];
  const {stored, skipped} = await dryRunIfAllowed(options, sent, undefined, controllerMinor);
  if (stored) {
    created = stored;
    dropped = droppedWarnings(droppedFields(sent.spec, created.spec, 'spec'), controllerMinor, true);
  } else {
    const decoded = asDecodedBy(sent, controllerMinor);
    created = prepareDaemonSetCreate(decoded.manifest);
    const errors = validateDaemonSet(created, controllerMinor);
    if (errors.length > 0) throw new InputError(`the API server would refuse this manifest: ${formatInvalid('DaemonSet.apps', options.ref.name, errors)}`);
    dropped = droppedWarnings(decoded.dropped, controllerMinor, false);
  }
  const next: DaemonSet = {...created, metadata: {...created.metadata, uid: PLANNED_UID}};
  const state: ClusterState = {...surroundings, daemonSet: next};
  const now = options.clock.now();
  const plan = planWithTimings(state, now, options.podStartMs, controllerMinor);
  // Only the hazards of the template itself apply to a create; the others compare with what runs now.
  const warnings = [...(skipped ? [skipped] : []), ...dropped, ...updateWarnings(state, next, plan).filter((w) => w.kind === 'host-port-surge')];
  return {
    plan,
    daemonSet: next,
    current: undefined,
    from: {label: `(daemonset "${options.ref.name}" does not exist yet)`, template: undefined},
    to: {label: options.manifestPath === '-' ? '<stdin>' : options.manifestPath, template: next.spec.template},
    warnings,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
