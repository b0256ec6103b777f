// The fleet rollout for people: its progress lines (each cluster's gated rollout lines prefixed by its context) and
// where it stands, one row per cluster (CONTEXT, WAVE, PHASE, and why), with a last line naming the fleet's phase.
// Pure: the service's events and results in, text out.
import {type FleetCluster, type FleetPhase, type FleetRelease, fleetReleaseText, type FleetView, type GatedEvent, isTemplateRelease} from '../core/index.js';
import {escapeControlCharacters, palette} from './color.js';
import {renderGatedEvent} from './gated-text.js';
import {renderTableCuttingLast} from './status-list-text.js';

/** What a fleet driver reports as it goes. */
export type FleetEvent =
  | {readonly kind: 'wave'; readonly wave: number; readonly waves: number; readonly contexts: readonly string[]; readonly name?: string}
  /** Its record written, paused, its template the release. */
  | {readonly kind: 'started'; readonly context: string}
  | {readonly kind: 'detached'; readonly context: string; readonly job: string; readonly created: boolean}
  | {readonly kind: 'gated'; readonly context: string; readonly event: GatedEvent}
  | {readonly kind: 'aborting'; readonly context: string};

/** Where the fleet stands, as `fleet status` prints it and every fleet command ends with (-o json|yaml: this document). */
export interface FleetRolloutResult {
  readonly kind: 'FleetRollout';
  readonly daemonSet: {readonly namespace: string; readonly name: string};
  readonly id: string;
  readonly phase: FleetPhase;
  /** 1-based, as printed. */
  readonly wave: number;
  readonly waves: number;
  readonly release: FleetReleaseSummary;
  /** The waves' names (the strategy file's clusterWaves), when they have names. */
  readonly waveNames?: readonly string[];
  readonly clusters: readonly {
    readonly context: string;
    readonly wave: number;
    readonly waveName?: string;
    readonly phase: string;
    readonly message?: string;
  }[];
}

/** The fleet's document for `clusters` (all of them, or those a status read): FleetRolloutResult without its kind. */
export function fleetDocumentOf(view: FleetView, clusters: readonly FleetCluster[]): Omit<FleetRolloutResult, 'kind'> {
  const {plan} = view;
  return {
    daemonSet: {namespace: plan.namespace, name: plan.name},
    id: view.id,
    phase: view.phase,
    wave: view.wave + 1,
    waves: plan.waves.length,
    release: releaseSummaryOf(plan.release),
    ...(plan.waveNames ? {waveNames: plan.waveNames} : {}),
    clusters: clusters.map((cluster) => fleetClusterDocument(cluster, plan.waveNames?.[cluster.wave])),
  };
}

function fleetClusterDocument(cluster: FleetCluster, waveName: string | undefined): FleetRolloutResult['clusters'][number] {
  return {
    context: cluster.context,
    wave: cluster.wave + 1,
    ...(waveName === undefined ? {} : {waveName}),
    phase: cluster.phase,
    ...(cluster.message === undefined ? {} : {message: cluster.message}),
  };
}

/** The release as a document shows it: the images, and for a template release (-f) its hash and description, never the whole template. */
export interface FleetReleaseSummary {
  readonly images: Readonly<Record<string, string>>;
  readonly template?: string;
  readonly description?: string;
}

export function releaseSummaryOf(release: FleetRelease): FleetReleaseSummary {
  if (!isTemplateRelease(release)) return release;
  const images = Object.fromEntries(release.template.spec.containers.map((c) => [c.name, c.image ?? '']));
  return {images, template: release.hash, description: release.description};
}

/** The summary in a line: a template release's description, or its images as fleetReleaseText spells them. */
function releaseText(release: FleetReleaseSummary): string {
  return release.description ?? fleetReleaseText({images: release.images});
}

/** One progress line (or lines), or undefined for an event the summary says. */
export function renderFleetEvent(event: FleetEvent, ref: {namespace: string; name: string}, color: boolean): string | undefined {
  const c = palette(color);
  const at = (context: string) => `[${escapeControlCharacters(context)}]`;
  switch (event.kind) {
    case 'wave':
      return c.bold(
        `Wave ${event.wave + 1}/${event.waves}${event.name ? ` (${escapeControlCharacters(event.name)})` : ''}: ${event.contexts.map((context) => escapeControlCharacters(context)).join(', ')}`,
      );
    case 'started':
      return `${at(event.context)} paused, release set`;
    case 'detached':
      return `${at(event.context)} Job ${ref.namespace}/${event.job} ${event.created ? 'created: it runs the gated rollout in the cluster' : 'already drives the gated rollout'}`;
    case 'aborting':
      return `${at(event.context)} rolling back to its own origin`;
    case 'gated': {
      const line = renderGatedEvent(event.event, ref, color);
      return line
        ?.split('\n')
        .map((l) => `${at(event.context)} ${l}`)
        .join('\n');
    }
  }
}

export const PHASE_WORDS: Readonly<Record<FleetPhase, string>> = {
  pending: 'not started',
  rolling: 'rolling',
  'awaiting-approval': 'waiting for promote',
  failed: 'failed',
  complete: 'complete',
  aborting: 'aborting',
  aborted: 'aborted',
  unreachable: 'waiting for a cluster that cannot be read',
};

/** The table of clusters and the fleet's line. */
export function renderFleetRolloutText(result: FleetRolloutResult, options: {color: boolean; width?: number}): string {
  const c = palette(options.color);
  const rows = result.clusters.map((cluster) => [
    escapeControlCharacters(cluster.context),
    `${cluster.wave}/${result.waves}${cluster.waveName ? ` ${escapeControlCharacters(cluster.waveName)}` : ''}`,
    cluster.phase,
    escapeControlCharacters(cluster.message ?? ''),
  ]);
  const table = renderTableCuttingLast(['CONTEXT', 'WAVE', 'PHASE', 'MESSAGE'], rows, options.width);
  const {namespace, name} = result.daemonSet;
  const done = result.clusters.filter((cluster) => cluster.phase === 'complete').length;
  const line = `Fleet rollout of daemonset ${namespace}/${name} (${releaseText(result.release)}): ${PHASE_WORDS[result.phase]}, wave ${result.wave}/${result.waves}${result.waveNames ? ` (${escapeControlCharacters(result.waveNames[result.wave - 1] ?? '')})` : ''}, ${done}/${result.clusters.length} clusters complete`;
  return `${table}${c.bold(line)}\n`;
}
