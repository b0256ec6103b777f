// The fleet rollout's state machine (docs/commands/fleet.md): one release taken to several clusters in waves, each
// cluster's wave a gated rollout (gated-machine.ts). There is no server: each cluster the fleet touches holds the
// whole plan (fleet id, contexts, waves, release) and its own wave in an annotation on the DaemonSet, so any machine
// with the same kubeconfig reads where the fleet stands. From every cluster's DaemonSet (or why it could not be
// read), this decides each cluster's phase, the fleet's, and what a driver does next; services do the I/O.
import {canonicalJson} from './canonical-json.js';
import {gatedViewOf} from './gated-machine.js';
import {computeTemplateHash, textHash} from './revisions.js';
import {type ClusterWaveSpec, FINISHED_GATED_PHASES, gatedRecordOf, type GatedRecord, type GatedStrategy, type RolloutOrigin} from './gates.js';
import {metricsDocumentOf, prometheusDocumentOf} from './metric-gate.js';
import type {DaemonSet, PodTemplateSpec} from './types.js';

export const FLEET_ROLLOUT_ANNOTATION = 'ds-rollout.io/fleet-rollout';

/** The record's format; a record of another version is not read as this one. */
export const FLEET_RECORD_VERSION = 1;

/** What the fleet sets in each cluster's template: these containers' images (`--image CONTAINER=IMAGE`). */
export interface FleetImageRelease {
  readonly images: Readonly<Record<string, string>>;
}

/** `-f MANIFEST`: the manifest's whole pod template replaces each cluster's. */
export interface FleetTemplateRelease {
  readonly template: PodTemplateSpec;
  /** computeTemplateHash of the template: the name the simulated controller gives its revision (ours, not a real one's). */
  readonly hash: string;
  /** For people (status lines, a conflict's refusal): the template's images and its hash. */
  readonly description: string;
}

export type FleetRelease = FleetImageRelease | FleetTemplateRelease;

export function isTemplateRelease(release: FleetRelease): release is FleetTemplateRelease {
  return 'template' in release;
}

/** The plan every record holds whole: which clusters, in which waves, get which release of which DaemonSet. */
export interface FleetPlan {
  readonly namespace: string;
  readonly name: string;
  readonly contexts: readonly string[];
  /** Cumulative cluster counts, growing, the last the number of contexts: wave i is contexts[waves[i-1] .. waves[i]). */
  readonly waves: readonly number[];
  /** The waves' names, one per wave, when the strategy file's `clusterWaves` made them. */
  readonly waveNames?: readonly string[];
  readonly release: FleetRelease;
  /** Each cluster's gated rollout (canary, bakes, gates, --on-failure): every cluster of the fleet runs the same. */
  readonly strategy: GatedStrategy;
}

/** The annotation's content on one cluster's DaemonSet. */
export interface FleetRecord extends FleetPlan {
  readonly version: number;
  /** The plan's hash: a rerun with the same arguments is the same fleet rollout. */
  readonly id: string;
  /** This cluster's context and wave. */
  readonly context: string;
  readonly wave: number;
  /** Our hash of this cluster's template with the release set (as `GatedRecord.template`): its gated rollout's. */
  readonly template?: string;
  /** The images the release replaced in this cluster: where `fleet abort` sets the template back to when its gated rollout never began. */
  readonly origin?: FleetImageRelease;
  /** With a template release (-f): the revision this cluster's template was, its own origin (the cluster's history holds the template). */
  readonly originRevision?: RolloutOrigin;
  /** `fleet abort` was asked: this cluster goes back to its own origin. */
  readonly aborted?: boolean;
  /**
   * Orders the fleet rollouts of a DaemonSet: one more than the highest its clusters held when it began (absent: 0).
   * A cluster of this plan that holds a higher one was taken by a later fleet rollout (fleetGenerationOf).
   */
  readonly generation?: number;
}

// ---------------------------------------------------------------------------------------------------------------
// The plan

/**
 * `--cluster-waves 1,25%,100%` over `count` contexts: cumulative counts (a percentage rounds up, so 25% of 3 is 1).
 * A wave that adds no cluster (after rounding) is dropped; the last must reach every context. Throws one line.
 */
export function clusterWavesOf(text: string | undefined, count: number): number[] {
  if (count === 0) throw new Error('--contexts names no context');
  // Without --cluster-waves: one cluster at a time, each watched before the next.
  if (text === undefined) return Array.from({length: count}, (_, i) => i + 1);
  const waves: number[] = [];
  for (const word of text.split(',').map((w) => w.trim())) {
    const percent = /^(\d+)%$/.exec(word);
    const size = percent ? Math.ceil((Number(percent[1]) * count) / 100) : /^\d+$/.test(word) ? Number(word) : Number.NaN;
    if (!Number.isFinite(size) || size < 1 || (percent && Number(percent[1]) > 100))
      throw new Error(`invalid --cluster-waves "${text}": "${word}" is not a cluster count (1) or a percentage (25%) of the contexts`);
    if (size > count) throw new Error(`invalid --cluster-waves "${text}": ${word} is more than the ${count} contexts`);
    if (waves.length > 0 && size < waves.at(-1)!) throw new Error(`invalid --cluster-waves "${text}": ${word} is fewer clusters than the wave before it`);
    if (size !== waves.at(-1)) waves.push(size);
  }
  if (waves.at(-1) !== count) throw new Error(`invalid --cluster-waves "${text}": the last wave must reach every context (100% or ${count})`);
  return waves;
}

/** Whether a context name matches a pattern of `--contexts` or of a named wave: `*` any text, `?` one character, else the name itself. */
export function contextMatches(pattern: string, context: string): boolean {
  if (!/[*?]/.test(pattern)) return pattern === context;
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`).test(context);
}

/**
 * The strategy file's named waves over `contexts` (their order kept within a wave): each context in the first wave
 * with a pattern that matches it. A context no wave takes, or a wave that takes none, is refused (a typo must not
 * reorder or shrink the fleet silently). Throws one line.
 */
export function namedClusterWavesOf(specs: readonly ClusterWaveSpec[], contexts: readonly string[]): Pick<FleetPlan, 'contexts' | 'waves' | 'waveNames'> {
  if (contexts.length === 0) throw new Error('--contexts names no context');
  const members: string[][] = specs.map(() => []);
  for (const context of contexts) {
    const wave = specs.findIndex((spec) => spec.contexts.some((pattern) => contextMatches(pattern, context)));
    if (wave < 0) throw new Error(`context "${context}" is in no wave of the strategy file's clusterWaves (${specs.map((s) => s.name).join(', ')})`);
    members[wave]!.push(context);
  }
  const empty = specs.findIndex((_, i) => members[i]!.length === 0);
  if (empty >= 0)
    throw new Error(
      `the strategy file's cluster wave "${specs[empty]!.name}" (${specs[empty]!.contexts.join(', ')}) takes none of the contexts ${contexts.join(', ')}`,
    );
  const waves = members.map((_, i) => members.slice(0, i + 1).reduce((sum, m) => sum + m.length, 0));
  return {contexts: members.flat(), waves, waveNames: specs.map((s) => s.name)};
}

/** `--image CONTAINER=IMAGE` (repeatable) as a release; throws one line. */
export function fleetReleaseOf(images: readonly string[]): FleetRelease {
  if (images.length === 0) throw new Error('a fleet rollout needs the release: --image CONTAINER=IMAGE or -f MANIFEST');
  const out: Record<string, string> = {};
  for (const text of images) {
    const match = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)=(\S+)$/.exec(text.trim());
    if (!match) throw new Error(`invalid --image "${text}": want CONTAINER=IMAGE`);
    if (out[match[1]!] !== undefined) throw new Error(`invalid --image "${text}": container ${match[1]} is given twice`);
    out[match[1]!] = match[3]!;
  }
  return {images: out};
}

/** `-f MANIFEST`'s pod template as a release. */
export function fleetTemplateReleaseOf(template: PodTemplateSpec): FleetTemplateRelease {
  const hash = computeTemplateHash(template);
  const images = template.spec.containers.map((c) => `${c.name}=${c.image ?? ''}`).join(',');
  return {template, hash, description: `${images} template ${hash}`};
}

/** The release in a line: as `--image` spells it (`main=agent:v2,side=s:1`), or a template's images and hash. */
export function fleetReleaseText(release: FleetRelease): string {
  if (isTemplateRelease(release)) return release.description;
  return Object.entries(release.images)
    .map(([container, image]) => `${container}=${image}`)
    .join(',');
}

/** The fleet's id: the same plan is the same fleet rollout, from any machine (a template release: by its hash). */
export function fleetIdOf(plan: FleetPlan): string {
  const {namespace, name, contexts, waves, waveNames, strategy} = plan;
  const release = isTemplateRelease(plan.release) ? {template: plan.release.hash} : plan.release;
  return textHash(canonicalJson({namespace, name, contexts, waves, release, strategy, ...(waveNames ? {waveNames} : {})}));
}

/**
 * The most a fleet record may hold: it is an annotation on each cluster's DaemonSet, and all of an object's
 * annotations together may hold 256 KiB (kubectl's last-applied-configuration often holds the manifest again).
 */
export const MAX_FLEET_RECORD_BYTES = 128 * 1024;

/** Why the plan's records would not fit their annotation (a -f manifest's template, many contexts); undefined: they fit. */
export function fleetRecordTooLarge(plan: FleetPlan): string | undefined {
  const longest = plan.contexts.reduce((a, b) => (b.length > a.length ? b : a), '');
  // The record as a cluster holds it, with room for this cluster's template hash and origin.
  const bytes = new TextEncoder().encode(JSON.stringify(fleetRecordFor(plan, longest))).length + 1024;
  if (bytes <= MAX_FLEET_RECORD_BYTES) return undefined;
  const what = isTemplateRelease(plan.release) ? "the manifest's pod template" : 'the plan';
  return `the fleet rollout's record would be ${Math.ceil(bytes / 1024)} KiB, over the ${MAX_FLEET_RECORD_BYTES / 1024} KiB it may hold (an annotation on each DaemonSet, which also holds ${what}): use a smaller manifest, or --image CONTAINER=IMAGE`;
}

/** Each wave's contexts, in the plan's order. */
export function fleetWaves(plan: Pick<FleetPlan, 'contexts' | 'waves'>): string[][] {
  return plan.waves.map((end, i) => plan.contexts.slice(i === 0 ? 0 : plan.waves[i - 1], end));
}

export function waveOfContext(plan: Pick<FleetPlan, 'contexts' | 'waves'>, context: string): number {
  const index = plan.contexts.indexOf(context);
  return plan.waves.findIndex((end) => index < end);
}

/** The record a cluster of `plan` holds. */
export function fleetRecordFor(plan: FleetPlan, context: string): FleetRecord {
  return {version: FLEET_RECORD_VERSION, id: fleetIdOf(plan), ...plan, context, wave: waveOfContext(plan, context)};
}

export type FleetRecordState =
  {readonly kind: 'none'} | {readonly kind: 'record'; readonly record: FleetRecord} | {readonly kind: 'invalid'; readonly error: string};

export function fleetRecordOf(ds: DaemonSet): FleetRecordState {
  const text = ds.metadata.annotations?.[FLEET_ROLLOUT_ANNOTATION];
  if (text === undefined || text === '') return {kind: 'none'};
  try {
    const value = JSON.parse(text) as FleetRecord;
    const release = value?.release as Partial<FleetImageRelease & FleetTemplateRelease> | undefined;
    const valid =
      typeof value === 'object' &&
      value !== null &&
      value.version === FLEET_RECORD_VERSION &&
      typeof value.id === 'string' &&
      Array.isArray(value.contexts) &&
      Array.isArray(value.waves) &&
      (typeof release?.images === 'object' || (typeof release?.template === 'object' && typeof release.hash === 'string'));
    return valid ? {kind: 'record', record: value} : {kind: 'invalid', error: 'not a fleet rollout record of this version'};
  } catch (error) {
    return {kind: 'invalid', error: (error as Error).message};
  }
}

/** A merge patch writing the record (the writer adds the resourceVersion precondition). */
export function fleetRecordBody(record: FleetRecord): Record<string, unknown> {
  return {metadata: {annotations: {[FLEET_ROLLOUT_ANNOTATION]: JSON.stringify(record)}}};
}

/**
 * Whether the template runs the release: each named container on its image; a template release, the template
 * itself (`stored`: our hash of it as the cluster stored it, defaults added, which the record keeps).
 */
export function templateRunsRelease(template: PodTemplateSpec, release: FleetRelease, stored?: string): boolean {
  if (isTemplateRelease(release)) return computeTemplateHash(template) === (stored ?? release.hash);
  return Object.entries(release.images).every(([name, image]) => template.spec.containers.some((c) => c.name === name && c.image === image));
}

/** The images `template` runs in the release's containers: what the release replaces. */
export function releaseOriginOf(template: PodTemplateSpec, release: FleetImageRelease): FleetImageRelease {
  const images: Record<string, string> = {};
  for (const c of template.spec.containers) if (release.images[c.name] !== undefined && c.image !== undefined) images[c.name] = c.image;
  return {images};
}

/** The template with the release set (a container the template lacks: undefined, named in `missing`); a template release is the template. */
export function templateWithRelease(template: PodTemplateSpec, release: FleetRelease): {template: PodTemplateSpec} | {missing: string} {
  if (isTemplateRelease(release)) return {template: release.template};
  const missing = Object.keys(release.images).find((name) => !template.spec.containers.some((c) => c.name === name));
  if (missing !== undefined) return {missing};
  const containers = template.spec.containers.map((c) => (release.images[c.name] !== undefined ? {...c, image: release.images[c.name]!} : c));
  return {template: {...template, spec: {...template.spec, containers}}};
}

/**
 * Whether `ds` holds a gated record that setting the release would make read as the release's own: one of the
 * template the release makes (`released`, our hash) that ended other than complete (an aborted fleet's, one
 * abandoned or superseded). Starting the cluster removes it in the same write, so the release's gated rollout starts
 * afresh rather than being read as failed.
 */
export function staleGatedRecord(ds: DaemonSet, released: string): boolean {
  const found = gatedRecordOf(ds);
  return found.kind === 'record' && found.record.template === released && FINISHED_GATED_PHASES.has(found.record.phase) && found.record.phase !== 'complete';
}

// ---------------------------------------------------------------------------------------------------------------
// Each cluster, and the fleet

/**
 * One cluster's place in the fleet rollout. `pending`: not touched yet; `starting`: its record written, its gated
 * rollout not begun; `rolling`, `baking`, `awaiting-approval`, `complete`: its gated rollout's phase; `failed`: its
 * gate failed (paused, or undone with --on-failure undo); `changed`: someone else changed its template or ended its
 * rollout; `aborting`/`aborted`: `fleet abort`; `unreachable`: it could not be read (or lacks the DaemonSet).
 */
export type FleetClusterPhase =
  'pending' | 'starting' | 'rolling' | 'baking' | 'awaiting-approval' | 'complete' | 'failed' | 'changed' | 'aborting' | 'aborted' | 'unreachable';

/** What a driver read of one cluster: its DaemonSet, or why there is none to read. */
export type FleetClusterInput = {readonly context: string; readonly ds: DaemonSet} | {readonly context: string; readonly error: string};

export interface FleetCluster {
  readonly context: string;
  readonly wave: number;
  readonly phase: FleetClusterPhase;
  /** Why: the read's error, the gate's failure, another fleet's record. */
  readonly message?: string;
  /** It holds this fleet's record (a cluster `fleet abort` takes back). */
  readonly touched: boolean;
  /** `changed` after its gated rollout completed: once every cluster has, the fleet is complete all the same. */
  readonly completed?: boolean;
}

/** The phase of a cluster that holds this fleet's record, from its gated rollout. */
function touchedPhase(ds: DaemonSet, record: FleetRecord): {phase: FleetClusterPhase; message?: string; completed?: boolean} {
  const gated = gatedViewOf(ds);
  const view = gated.kind === 'view' ? gated.view : undefined;
  if (gated.kind === 'invalid') return {phase: 'changed', message: `its gated rollout record cannot be read (${gated.error})`};
  // A gated record of another template (an earlier release): this release's gated rollout has not begun.
  const ours = view !== undefined && (record.template !== undefined ? view.record.template === record.template : view.record.template === view.template);
  if (record.aborted) return {phase: ours && view.underWay ? 'aborting' : 'aborted'};
  if (!ours || view === undefined) {
    if (!templateRunsRelease(ds.spec.template, record.release, record.template)) return {phase: 'changed', message: 'its template is no longer the release'};
    // Every node ran the release already: the gated step had nothing to roll out, and recorded nothing.
    return {phase: isRolledOut(ds) ? 'complete' : 'starting'};
  }
  switch (view.phase) {
    case 'rolling':
    case 'baking':
    case 'awaiting-approval':
      return {phase: view.phase};
    case 'complete':
      // A finished gated record outlives a change by hand: the template says whether it still runs the release.
      return templateRunsRelease(ds.spec.template, record.release, record.template)
        ? {phase: 'complete'}
        : {phase: 'changed', message: 'its template is no longer the release', completed: true};
    case 'failed':
      return {phase: 'failed', message: `gate failed, paused: ${failureWords(view.record.failures)}`};
    case 'aborting':
    case 'aborted':
      return {phase: 'failed', message: `gate failed, undone: ${failureWords(view.record.failures)}`};
    default:
      return {phase: 'changed', message: `its gated rollout is ${view.phase} (someone else changed the DaemonSet)`};
  }
}

/** The controller's status says every node runs the template, available. */
function isRolledOut(ds: DaemonSet): boolean {
  const status = ds.status;
  if (status === undefined || (status.observedGeneration ?? 0) < (ds.metadata.generation ?? 0)) return false;
  return (status.updatedNumberScheduled ?? 0) === status.desiredNumberScheduled && (status.numberAvailable ?? 0) === status.desiredNumberScheduled;
}

function failureWords(failures: readonly {readonly pod?: string; readonly node?: string; readonly reason: string}[]): string {
  const first = failures[0];
  if (first === undefined) return 'the gate failed';
  return `${first.pod ? `pod ${first.pod} ` : ''}${first.node ? `on node ${first.node}: ` : ''}${first.reason}${failures.length > 1 ? ` and ${failures.length - 1} more` : ''}`;
}

/**
 * One cluster as `plan` sees it: its record of another fleet is `pending`, unless that fleet is later than this one
 * (a higher generation than `generation`, this fleet's): then this fleet's part there ended (`changed`, completed,
 * as only a fleet that completed or was aborted lets another begin), and the cluster is the later fleet's to touch.
 */
export function fleetClusterOf(plan: FleetPlan, input: FleetClusterInput, generation?: number): FleetCluster {
  const wave = waveOfContext(plan, input.context);
  if ('error' in input) return {context: input.context, wave, phase: 'unreachable', message: input.error, touched: false};
  const found = fleetRecordOf(input.ds);
  if (found.kind === 'invalid')
    return {context: input.context, wave, phase: 'changed', message: `its fleet record cannot be read (${found.error})`, touched: false};
  if (found.kind === 'record' && found.record.id !== fleetIdOf(plan) && generation !== undefined && (found.record.generation ?? 0) > generation) {
    const message = `taken by a later fleet rollout (${fleetReleaseText(found.record.release)})`;
    return {context: input.context, wave, phase: 'changed', message, touched: false, completed: true};
  }
  if (found.kind === 'none' || found.record.id !== fleetIdOf(plan)) return {context: input.context, wave, phase: 'pending', touched: false};
  return {context: input.context, wave, touched: true, ...touchedPhase(input.ds, found.record)};
}

/**
 * The generation of `plan`'s fleet rollout: the one its records hold, or for a fleet that holds none yet, one more
 * than the highest any cluster read holds (so that each cluster's records only ever grow in generation).
 */
export function fleetGenerationOf(plan: FleetPlan, inputs: readonly FleetClusterInput[]): number {
  return recordedGenerationOf(plan, inputs) ?? 1 + Math.max(0, ...recordsOf(inputs).map((record) => record.generation ?? 0));
}

function recordsOf(inputs: readonly FleetClusterInput[]): FleetRecord[] {
  return inputs.flatMap((input) => {
    if ('error' in input) return [];
    const found = fleetRecordOf(input.ds);
    return found.kind === 'record' ? [found.record] : [];
  });
}

/** The generation this fleet's records hold (absent: 0); undefined: no cluster read holds one. */
export function recordedGenerationOf(plan: FleetPlan, inputs: readonly FleetClusterInput[]): number | undefined {
  const id = fleetIdOf(plan);
  const ours = recordsOf(inputs).filter((record) => record.id === id);
  return ours.length === 0 ? undefined : Math.max(...ours.map((record) => record.generation ?? 0));
}

export type FleetPhase = 'pending' | 'rolling' | 'awaiting-approval' | 'failed' | 'complete' | 'aborting' | 'aborted' | 'unreachable';

/** What a driver does next. */
export type FleetAction =
  /** Take the wave on: `start` its untouched clusters (record, pause, release), drive every one of `drive`. */
  | {readonly kind: 'run'; readonly wave: number; readonly start: readonly string[]; readonly drive: readonly string[]}
  /** Wait for `fleet promote`: these clusters of the wave stopped after their canary. */
  | {readonly kind: 'awaiting-approval'; readonly wave: number; readonly contexts: readonly string[]}
  /** The wave's clusters that could not be read: nothing moves until they can. */
  | {readonly kind: 'unreachable'; readonly wave: number; readonly contexts: readonly string[]}
  | {readonly kind: 'failed'; readonly wave: number; readonly context: string; readonly message: string}
  | {readonly kind: 'complete'}
  /** `fleet abort` was asked: only abort moves it (`contexts`: the touched clusters not back yet). */
  | {readonly kind: 'aborted'; readonly contexts: readonly string[]};

export interface FleetView {
  readonly id: string;
  readonly plan: FleetPlan;
  readonly phase: FleetPhase;
  /** The wave under way (0-based); the last one when complete. */
  readonly wave: number;
  readonly clusters: readonly FleetCluster[];
  readonly action: FleetAction;
}

const STOPPED: ReadonlySet<FleetClusterPhase> = new Set(['failed', 'changed']);

function actionOf(plan: FleetPlan, clusters: readonly FleetCluster[]): FleetAction {
  if (clusters.some((c) => c.touched && (c.phase === 'aborting' || c.phase === 'aborted')))
    return {kind: 'aborted', contexts: clusters.filter((c) => c.touched && c.phase !== 'aborted').map((c) => c.context)};
  // Every cluster completed: a change by hand afterwards is the next release's business, not this fleet's.
  if (clusters.every((c) => c.phase === 'complete' || c.completed)) return {kind: 'complete'};
  // The cluster that stopped the wave under way first, before one changed after it completed (or taken by a later fleet).
  const stops = clusters.filter((c) => (c.touched || c.completed) && STOPPED.has(c.phase));
  const stopped = stops.find((c) => !c.completed) ?? stops[0];
  if (stopped) return {kind: 'failed', wave: stopped.wave, context: stopped.context, message: stopped.message ?? stopped.phase};
  const waves = fleetWaves(plan);
  const wave = waves.findIndex((contexts) => contexts.some((context) => clusters.find((c) => c.context === context)?.phase !== 'complete'));
  if (wave < 0) return {kind: 'complete'};
  const members = clusters.filter((c) => c.wave === wave);
  const down = members.filter((c) => c.phase === 'unreachable').map((c) => c.context);
  if (down.length > 0) return {kind: 'unreachable', wave, contexts: down};
  const start = members.filter((c) => c.phase === 'pending').map((c) => c.context);
  const drive = members.filter((c) => ['pending', 'starting', 'rolling', 'baking'].includes(c.phase)).map((c) => c.context);
  if (drive.length > 0) return {kind: 'run', wave, start, drive};
  return {kind: 'awaiting-approval', wave, contexts: members.filter((c) => c.phase === 'awaiting-approval').map((c) => c.context)};
}

const PHASE_OF_ACTION: Record<FleetAction['kind'], FleetPhase> = {
  run: 'rolling',
  'awaiting-approval': 'awaiting-approval',
  unreachable: 'unreachable',
  failed: 'failed',
  complete: 'complete',
  aborted: 'aborted',
};

/** The fleet as its clusters have it now (every context of the plan, read or not), and what comes next. */
export function fleetViewOf(plan: FleetPlan, inputs: readonly FleetClusterInput[]): FleetView {
  const generation = recordedGenerationOf(plan, inputs);
  return fleetViewOfClusters(
    plan,
    plan.contexts.map((context) => fleetClusterOf(plan, inputs.find((i) => i.context === context) ?? {context, error: 'not read'}, generation)),
  );
}

/** The fleet from each context's cluster, in the plan's order (fleetClusterOf's, or what a partial read assumes: fleet-standing.ts). */
export function fleetViewOfClusters(plan: FleetPlan, clusters: readonly FleetCluster[]): FleetView {
  const action = actionOf(plan, clusters);
  let phase = PHASE_OF_ACTION[action.kind];
  if (action.kind === 'aborted' && action.contexts.length > 0) phase = 'aborting';
  if (action.kind === 'run' && !clusters.some((c) => c.touched)) phase = 'pending';
  const wave =
    'wave' in action ? action.wave : action.kind === 'complete' ? plan.waves.length - 1 : Math.max(0, ...clusters.filter((c) => c.touched).map((c) => c.wave));
  return {id: fleetIdOf(plan), plan, phase, wave, clusters, action};
}

/**
 * Another fleet rollout of this DaemonSet under way in one of the clusters (a different release, or the same one
 * over other contexts or waves): a new one is refused until it ends (complete, or aborted). Undefined: none.
 */
export function conflictingFleet(plan: FleetPlan, inputs: readonly FleetClusterInput[]): string | undefined {
  const id = fleetIdOf(plan);
  for (const input of inputs) {
    if ('error' in input) continue;
    const found = fleetRecordOf(input.ds);
    if (found.kind !== 'record' || found.record.id === id) continue;
    const other = fleetViewOf(found.record, inputs);
    if (other.phase === 'complete' || other.phase === 'aborted') continue;
    return `another fleet rollout of ${plan.namespace}/${plan.name} (${fleetReleaseText(found.record.release)} over ${found.record.contexts.join(',')}) is ${other.phase} in context ${input.context}: finish it, or end it with 'kubectl ds-rollout fleet abort ${plan.name} -n ${plan.namespace} --contexts ${found.record.contexts.join(',')}'`;
  }
  return undefined;
}

/** The plan a cluster's record holds (its plan fields, without what is this cluster's own). */
export function planOfRecord(record: FleetRecord): FleetPlan {
  const {namespace, name, contexts, waves, waveNames, release, strategy} = record;
  return {namespace, name, contexts, waves, ...(waveNames ? {waveNames} : {}), release, strategy};
}

/**
 * The plan recorded in the clusters read (`fleet status`, `promote`, `abort` name no release): a fleet under way
 * before one that ended, else the first context's.
 */
export function recordedFleetPlan(inputs: readonly FleetClusterInput[]): FleetPlan | undefined {
  const plans: FleetPlan[] = [];
  for (const input of inputs) {
    if ('error' in input) continue;
    const found = fleetRecordOf(input.ds);
    if (found.kind !== 'record') continue;
    plans.push(planOfRecord(found.record));
  }
  return plans.find((plan) => !['complete', 'aborted'].includes(fleetViewOf(plan, inputs).phase)) ?? plans[0];
}

/**
 * `fleet abort` on a cluster whose gated rollout completed (its template still the release): the gated record
 * reopened as `aborting`, so the gated abort takes it back to its own origin as it would a rollout under way.
 * Undefined: there is nothing to reopen (under way already, ended otherwise, or no record of ours).
 */
export function reopenedForAbort(ds: DaemonSet): GatedRecord | undefined {
  const gated = gatedViewOf(ds);
  if (gated.kind !== 'view' || gated.view.phase !== 'complete' || gated.view.record.template !== gated.view.template) return undefined;
  if (gated.view.record.from === undefined || ds.spec.updateStrategy?.type !== 'OnDelete') return undefined;
  return {...gated.view.record, phase: 'aborting', bakeUntil: undefined};
}

/** Whether a gated phase ends a cluster's drive (the fleet reads it again then). */
export function gatedRunEnded(phase: FleetClusterPhase): boolean {
  return !['pending', 'starting', 'rolling', 'baking'].includes(phase);
}

/** Seconds, as a strategy file takes a duration. */
const seconds = (ms: number) => ms / 1000;

/**
 * The strategy as a strategy file (docs/gated-rollouts.md#strategy-file) says it, the metric gate's queries and
 * Prometheus included: what a cluster's detached Job mounts (as `step --strategy FILE --detach` would), so it runs
 * the fleet's gated rollout.
 */
export function strategyDocumentOf(strategy: GatedStrategy): Record<string, unknown> {
  const canary = strategy.canary;
  return {
    ...(canary === undefined
      ? {}
      : {
          canary:
            canary.kind === 'count'
              ? canary.count
              : canary.kind === 'percent'
                ? `${canary.percent}%`
                : canary.kind === 'nodes'
                  ? {nodes: canary.nodes}
                  : {selector: canary.selector},
        }),
    canaryBake: seconds(strategy.canaryBakeMs),
    approve: strategy.approve,
    ...(strategy.waves.length > 0 ? {waves: strategy.waves.map((w) => `${w}%`)} : {}),
    bake: seconds(strategy.bakeMs),
    maxRestarts: strategy.maxRestarts,
    progressDeadline: seconds(strategy.progressDeadlineMs),
    onFailure: strategy.onFailure,
    ...(strategy.maxNeighbourFailures !== undefined ? {maxNeighbourFailures: strategy.maxNeighbourFailures} : {}),
    ...(strategy.neighbourSelector !== undefined ? {neighbourSelector: strategy.neighbourSelector} : {}),
    ...(strategy.metrics !== undefined && strategy.metrics.length > 0 ? {metrics: metricsDocumentOf(strategy.metrics)} : {}),
    ...(strategy.prometheus !== undefined && (strategy.metrics?.length ?? 0) > 0 ? {prometheus: prometheusDocumentOf(strategy.prometheus)} : {}),
  };
}

/**
 * The strategy as the gated flags of `step` (durations in ms), for a cluster's detached Job: undefined when only a
 * strategy file can say it (node waves, the metric gate).
 */
export function strategyArgsOf(strategy: GatedStrategy): string[] | undefined {
  if (strategy.waves.length > 0 || (strategy.metrics?.length ?? 0) > 0) return undefined;
  const {canary} = strategy;
  const canaryArgs =
    canary === undefined
      ? []
      : canary.kind === 'count'
        ? ['--canary', String(canary.count)]
        : canary.kind === 'percent'
          ? ['--canary', `${canary.percent}%`]
          : canary.kind === 'nodes'
            ? ['--canary-nodes', canary.nodes.join(',')]
            : ['--canary-selector', canary.selector];
  return [
    ...canaryArgs,
    ...['--canary-bake', `${strategy.canaryBakeMs}ms`, '--bake', `${strategy.bakeMs}ms`],
    ...(strategy.approve ? ['--approve'] : []),
    ...['--max-restarts', String(strategy.maxRestarts), '--progress-deadline', `${strategy.progressDeadlineMs}ms`, '--on-failure', strategy.onFailure],
    ...(strategy.maxNeighbourFailures !== undefined ? ['--max-neighbour-failures', String(strategy.maxNeighbourFailures)] : []),
    ...(strategy.neighbourSelector !== undefined ? ['--neighbour-selector', strategy.neighbourSelector] : []),
  ];
}
