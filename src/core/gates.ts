// Gated rollouts (canary, then waves, each watched for a while): the stage plan, the health gate over the new
// revision's pods, and the record kept in an annotation on the DaemonSet. Pure: cluster state and the server's
// clock in, plans and verdicts out.
import {labelSelectorMatches, parseLabelSelector} from './selectors.js';
import {nodeShouldRunDaemonPod} from './eligibility.js';
import {isPodReady} from './availability.js';
import {waveLanding} from './step-wave.js';
import {jsonText, restoreExactRevisions, type Revision} from './revision-number.js';
import type {ClusterState, DaemonSet, GatedPhase, GateFailure, GateReading, IntOrString, Node, StrategyPath, StrategyProblem} from './types.js';
import type {StepEvent} from './step-wave.js';
import {metricsFromDocument, prometheusFromDocument, type MetricQuery, type PrometheusTarget} from './metric-gate.js';

export const GATED_ROLLOUT_ANNOTATION = 'ds-rollout.io/gated-rollout';

/** The first stage: a count or percentage of the nodes that run the daemon, chosen nodes, or a label selector. */
export type CanarySpec =
  | {readonly kind: 'count'; readonly count: number}
  | {readonly kind: 'percent'; readonly percent: number}
  | {readonly kind: 'nodes'; readonly nodes: readonly string[]}
  | {readonly kind: 'selector'; readonly selector: string};

export type OnFailure = 'pause' | 'undo';

/** What the flags (or a strategy file) ask for. */
export interface GatedStrategy {
  readonly canary?: CanarySpec;
  readonly canaryBakeMs: number;
  /** Cumulative percentages of the nodes after the canary (the last one is taken to 100). */
  readonly waves: readonly number[];
  readonly bakeMs: number;
  readonly approve: boolean;
  readonly maxRestarts: number;
  readonly progressDeadlineMs: number;
  readonly onFailure: OnFailure;
  /** The metric gate's queries (docs/gated/metric-gate.md), asked of `prometheus`. */
  readonly metrics?: readonly MetricQuery[];
  readonly prometheus?: PrometheusTarget;
  /** Neighbour pods that may go bad on a stage's nodes (default 0). */
  readonly maxNeighbourFailures?: number;
  /** A label selector of pods the neighbour gate leaves out. */
  readonly neighbourSelector?: string;
}

/** A stage as the rollout works on it: its nodes resolved on the cluster as it is (see resolveGatedStage). */
export interface GatedStage {
  readonly name: string;
  /** The nodes this stage may replace pods on, cumulative (earlier stages included); undefined: every node. */
  readonly nodes?: readonly string[];
  readonly bakeMs: number;
  /** Stop after this stage's bake until `promote`. */
  readonly approve: boolean;
}

/**
 * A stage as the record keeps it: how to choose its nodes, never a list that grows with the fleet (the record
 * must fit in an annotation at 15,000 nodes). `nodes` and `selector` are the operator's own choice of canary.
 */
export interface GatedStageRecord {
  readonly name: string;
  /** Chosen by name (--canary-nodes). */
  readonly nodes?: readonly string[];
  /** Chosen by label (--canary-selector). */
  readonly selector?: string;
  /** How many nodes, earlier stages included: the canary's chosen nodes, then those already on the new revision, then by name. */
  readonly count?: number;
  readonly bakeMs: number;
  /** Stop after this stage's bake until `promote`. */
  readonly approve: boolean;
}

/** Phases after which nothing is left to do: a new gated rollout may start. */
export const FINISHED_GATED_PHASES: ReadonlySet<GatedPhase> = new Set(['complete', 'aborted', 'abandoned', 'superseded']);

/** Phases a driver moves forward (step, promote); the others end its run: finished, or failed and waiting for abort. */
export const DRIVEN_GATED_PHASES: ReadonlySet<GatedPhase> = new Set(['rolling', 'baking', 'awaiting-approval']);

/** The revision a gated rollout started from: abort brings every node back to it (by hash: undo renumbers it). */
export interface RolloutOrigin {
  readonly revision: Revision;
  /** The controller's hash, as the origin's pods are labelled. */
  readonly hash: string;
  /** Our hash of the origin's template (as `GatedRecord.template`): an aborting rollout's template is back on it. */
  readonly template?: string;
}

/** The most failures a record keeps (the rest are counted): the gate may fail on every node of a large stage. */
export const MAX_RECORDED_FAILURES = 5;

/** The annotation's content: everything a rerun needs to continue where the last run stopped. */
export interface GatedRecord {
  /** Template hash of the revision being rolled out: another template means someone else changed it. */
  readonly template: string;
  /** Where abort goes back to (absent in records written before it was kept: the revision before the current one). */
  readonly from?: RolloutOrigin;
  readonly stages: readonly GatedStageRecord[];
  readonly stage: number;
  readonly phase: GatedPhase;
  /** Server clock, epoch ms: when the current stage's bake passes. */
  readonly bakeUntil?: number;
  /** The first MAX_RECORDED_FAILURES failures of the gate. */
  readonly failures: readonly GateFailure[];
  /** How many failures there were, when more than those kept. */
  readonly failureCount?: number;
  readonly maxRestarts: number;
  readonly progressDeadlineMs: number;
  readonly onFailure: OnFailure;
  /** `--max-unavailable` of the first run, kept for promote and reruns (undefined: the pause record's budget). */
  readonly maxUnavailable?: IntOrString;
  /**
   * The DaemonSet's generation this record was last written on. Only a spec change moves it, and a gated rollout
   * makes none but its abort's rollback: a later one means someone else changed the spec (a template set and set
   * back included), so the rollout is superseded even when the template is the release again.
   */
  readonly generation?: number;
  /** The metric gate's queries and where Prometheus is (a rerun asks the same). */
  readonly metrics?: readonly MetricQuery[];
  readonly prometheus?: PrometheusTarget;
  /** The neighbour gate's bound (absent: 0) and the pods it leaves out (absent: none). */
  readonly maxNeighbourFailures?: number;
  readonly neighbourSelector?: string;
  /** The current stage's nodes that were in trouble when it started (bounded): the node gate reports them, never fails them. */
  readonly nodesTroubledAtStart?: {readonly stage: number; readonly nodes: readonly string[]; readonly more?: number};
  /** Each gate's last reading (bounded), as status and the dashboard show them. */
  readonly readings?: readonly GateReading[];
}

// ---------------------------------------------------------------------------------------------------------------
// Stage plan

/** Nodes that should run the daemon, by name. */
function daemonNodes(ds: DaemonSet, nodes: readonly Node[]): Node[] {
  return nodes.filter((node) => nodeShouldRunDaemonPod(node, ds).shouldRun).sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
}

/** At least one node, at most all: ceil(percent of total). */
function percentOf(percent: number, total: number): number {
  return Math.min(total, Math.max(1, Math.ceil((percent * total) / 100)));
}

/** The nodes that run the daemon, those already on the DaemonSet's template first, then by name. */
function preferredNodes(state: ClusterState): {eligible: Node[]; preferred: string[]} {
  const eligible = daemonNodes(state.daemonSet, state.nodes);
  const names = eligible.map((n) => n.metadata.name);
  const landing = waveLanding(state, names, Number.POSITIVE_INFINITY);
  const fresh = new Set(landing.nodes.filter((n) => n.state !== 'old' && n.pod !== undefined).map((n) => n.node));
  return {eligible, preferred: [...names.filter((n) => fresh.has(n)), ...names.filter((n) => !fresh.has(n))]};
}

function chosenNodes(stage: GatedStageRecord, eligible: readonly Node[]): string[] {
  if (stage.nodes) return [...stage.nodes];
  if (stage.selector === undefined) return [];
  const selector = parseLabelSelector(stage.selector);
  return eligible.filter((n) => labelSelectorMatches(selector, n.metadata.labels)).map((n) => n.metadata.name);
}

/**
 * The stages for `strategy` on this cluster: the canary (chosen nodes, a selector, or a count), then each wave's
 * cumulative share, the last one every node. Counts are fixed now; which nodes fill them is decided when a stage
 * runs (resolveGatedStage): the nodes already on the new revision first, so a rerun picks the same ones.
 * Throws a one-line reason when the canary cannot be chosen.
 */
export function planGatedStages(state: ClusterState, strategy: GatedStrategy): GatedStageRecord[] {
  const eligible = daemonNodes(state.daemonSet, state.nodes);
  const names = eligible.map((n) => n.metadata.name);
  const stages: GatedStageRecord[] = [];
  let chosen = 0;
  const canary = strategy.canary;
  let explicit: Pick<GatedStageRecord, 'nodes' | 'selector'> = {};
  if (canary) {
    switch (canary.kind) {
      case 'count':
        chosen = Math.min(canary.count, names.length);
        break;
      case 'percent':
        chosen = percentOf(canary.percent, names.length);
        break;
      case 'nodes': {
        const tooLong = canaryNodesTooLong(canary.nodes);
        if (tooLong) throw new Error(tooLong);
        const unknown = canary.nodes.filter((n) => !names.includes(n));
        if (unknown.length > 0) throw new Error(`canary ${unknown.length === 1 ? 'node does' : 'nodes do'} not run the daemon: ${unknown.join(', ')}`);
        explicit = {nodes: [...canary.nodes]};
        chosen = canary.nodes.length;
        break;
      }
      case 'selector': {
        explicit = {selector: canary.selector};
        chosen = chosenNodes(explicit as GatedStageRecord, eligible).length;
        if (chosen === 0) throw new Error(`no node that runs the daemon matches the canary selector ${canary.selector}`);
        break;
      }
    }
    stages.push({
      name: 'canary',
      ...explicit,
      ...(explicit.nodes || explicit.selector ? {} : {count: chosen}),
      bakeMs: strategy.canaryBakeMs,
      approve: strategy.approve,
    });
  }
  const waves = strategy.waves.length > 0 ? strategy.waves : [100];
  waves.forEach((percent, i) => {
    const last = i === waves.length - 1 || percent >= 100;
    if (i > 0 && waves[i - 1]! >= 100) return;
    const name = `wave ${i + 1} (${last ? 100 : percent}%)`;
    if (last) {
      stages.push({name, bakeMs: strategy.bakeMs, approve: false});
      return;
    }
    chosen = Math.max(chosen, percentOf(percent, names.length));
    stages.push({name, count: chosen, bakeMs: strategy.bakeMs, approve: false});
  });
  return stages;
}

/**
 * Stage `index` with its nodes chosen on `state`: the canary's chosen nodes (by name or label, in every later
 * stage too), then up to `count` the nodes already on the new revision, then by name; no count and no choice:
 * every node.
 */
export function resolveGatedStage(
  state: ClusterState,
  stages: readonly GatedStageRecord[],
  index: number,
  nodes: {eligible: Node[]; preferred: string[]} | undefined = undefined,
): GatedStage {
  const stage = stages[index]!;
  const base = {name: stage.name, bakeMs: stage.bakeMs, approve: stage.approve};
  const first = stages[0]!;
  const explicit = stage.nodes !== undefined || stage.selector !== undefined;
  if (!explicit && stage.count === undefined) return base;
  const {eligible, preferred} = nodes ?? preferredNodes(state);
  const chosen = explicit ? chosenNodes(stage, eligible) : chosenNodes(first, eligible);
  if (stage.count !== undefined && chosen.length < stage.count) {
    const taken = new Set(chosen);
    for (const name of preferred) {
      if (chosen.length >= stage.count) break;
      if (!taken.has(name)) chosen.push(name);
    }
  }
  return {...base, nodes: chosen};
}

/** Every stage resolved on `state` (the plan as it is printed). */
export function resolveGatedStages(state: ClusterState, stages: readonly GatedStageRecord[]): GatedStage[] {
  const nodes = preferredNodes(state);
  return stages.map((_, i) => resolveGatedStage(state, stages, i, nodes));
}

/**
 * The record lives in an annotation that every step reads: it may start with this many bytes (its stages, the
 * canary's node names or selector), its failures add at most MAX_FAILURE_BYTES, the stage's troubled nodes
 * MAX_NODE_BASELINE_BYTES and the gates' readings MAX_READING_BYTES (node-gates.ts), so it stays under 4 KiB
 * whatever the fleet's size and the flags.
 */
export const MAX_START_RECORD_BYTES = 2048;
const MAX_FAILURE_BYTES = 1024;

const utf8Length = (text: string) => new TextEncoder().encode(text).length;

/** The failures a record keeps: the first few that fit its share of the record, and how many there were. */
export function recordedFailures(failures: readonly GateFailure[]): Pick<GatedRecord, 'failures' | 'failureCount'> {
  const kept: GateFailure[] = [];
  let bytes = 0;
  for (const failure of failures) {
    const size = utf8Length(JSON.stringify(failure)) + 1;
    if (kept.length === MAX_RECORDED_FAILURES || (kept.length > 0 && bytes + size > MAX_FAILURE_BYTES)) break;
    kept.push(failure);
    bytes += size;
  }
  return kept.length < failures.length ? {failures: kept, failureCount: failures.length} : {failures: kept};
}

function tooLargeText(bytes: number): string {
  return `the gated rollout's record would start at ${bytes} bytes, over the ${MAX_START_RECORD_BYTES} it may (it lives in an annotation that every step reads): name fewer canary nodes (or label them and use --canary-selector), or use fewer waves`;
}

/** Why a new rollout's record would not fit its annotation (undefined: it fits). */
export function startRecordTooLarge(record: GatedRecord): string | undefined {
  const bytes = utf8Length(formatGatedRecord(record));
  return bytes <= MAX_START_RECORD_BYTES ? undefined : tooLargeText(bytes);
}

/** The canary's node names alone would not fit the record: said before they are looked up on the cluster. */
function canaryNodesTooLong(nodes: readonly string[]): string | undefined {
  const bytes = utf8Length(JSON.stringify(nodes));
  return bytes <= MAX_START_RECORD_BYTES ? undefined : tooLargeText(bytes);
}

// ---------------------------------------------------------------------------------------------------------------
// Health gate

export interface GateInput {
  readonly state: ClusterState;
  /** The stage's nodes (undefined: every node of the cluster). */
  readonly nodes?: readonly string[];
  /** Server clock, epoch ms. */
  readonly now: number;
  readonly maxRestarts: number;
  readonly progressDeadlineMs: number;
  readonly seenReady: readonly string[];
}

export interface GateVerdict {
  readonly failures: readonly GateFailure[];
  /** `seenReady` with the pods Ready now added. */
  readonly seenReady: readonly string[];
}

/** The pod gate's reason for a new pod that was Ready and is not any more. */
export const LOST_READY = 'lost Ready after being Ready';

const FAILING_WAITS: ReadonlySet<string> = new Set(['CrashLoopBackOff', 'ImagePullBackOff', 'ErrImagePull']);

/**
 * Judges the new revision's pods on the stage's nodes: a pod that lost Ready after being Ready, container restarts
 * above maxRestarts, CrashLoopBackOff / ImagePullBackOff / ErrImagePull, or Pending or not Ready longer than the
 * progress deadline since it was created. Each failure names the pod, its node and the reason.
 */
export function judgeGate(input: GateInput): GateVerdict {
  const nodes = input.nodes ?? input.state.nodes.map((n) => n.metadata.name);
  const landing = waveLanding(input.state, nodes, input.now);
  const byName = new Map(input.state.pods.map((pod) => [pod.metadata.name, pod]));
  const seen = new Set(input.seenReady);
  const failures: GateFailure[] = [];
  for (const node of landing.nodes) {
    if (node.state === 'old' || node.pod === undefined) continue;
    const pod = byName.get(node.pod);
    if (!pod || pod.metadata.deletionTimestamp) continue;
    const uid = pod.metadata.uid ?? pod.metadata.name;
    const ready = isPodReady(pod);
    const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
    const waiting = statuses.map((c) => c.state?.waiting?.reason).find((reason) => reason !== undefined && FAILING_WAITS.has(reason));
    const restarts = statuses.reduce((sum, c) => sum + (c.restartCount ?? 0), 0);
    const created = Date.parse(pod.metadata.creationTimestamp ?? '');
    const fail = (reason: string) => failures.push({pod: pod.metadata.name, node: node.node, reason});
    if (waiting) fail(restarts > 0 ? `${waiting} (${restarts} restarts)` : waiting);
    else if (restarts > input.maxRestarts) fail(`${restarts} container restarts (--max-restarts ${input.maxRestarts})`);
    else if (!ready && seen.has(uid)) fail(LOST_READY);
    else if (!ready && Number.isFinite(created) && input.now - created > input.progressDeadlineMs) {
      const phase = pod.status?.phase === 'Pending' || pod.status?.phase === undefined ? 'Pending' : 'not Ready';
      fail(`${phase} past the progress deadline`);
    }
    if (ready) seen.add(uid);
  }
  return {failures, seenReady: [...seen].sort()};
}

// ---------------------------------------------------------------------------------------------------------------
// The record

export type GatedRecordState =
  {readonly kind: 'none'} | {readonly kind: 'record'; readonly record: GatedRecord} | {readonly kind: 'invalid'; readonly error: string};

export function gatedRecordOf(ds: DaemonSet): GatedRecordState {
  const text = ds.metadata.annotations?.[GATED_ROLLOUT_ANNOTATION];
  if (text === undefined || text === '') return {kind: 'none'};
  try {
    const value = JSON.parse(text) as GatedRecord;
    if (typeof value !== 'object' || value === null || !Array.isArray(value.stages) || typeof value.stage !== 'number' || typeof value.phase !== 'string') {
      return {kind: 'invalid', error: 'not a gated rollout record'};
    }
    // The origin's revision past 2^53 is read exactly, as formatGatedRecord wrote it.
    if (value.from !== undefined) restoreExactRevisions([value.from], text);
    // Records written before the per-pod list was dropped still carry it: not kept.
    const {seenReady: _legacy, ...record} = value as GatedRecord & {seenReady?: unknown};
    return {kind: 'record', record: {...record, failures: record.failures ?? []}};
  } catch (error) {
    return {kind: 'invalid', error: (error as Error).message};
  }
}

export function formatGatedRecord(record: GatedRecord): string {
  // jsonText: the origin's revision may be past 2^53 (a bigint).
  return jsonText(record);
}

/** A merge patch that writes the record (the writer adds the resourceVersion precondition). */
export function gatedRecordBody(record: GatedRecord): Record<string, unknown> {
  return {metadata: {annotations: {[GATED_ROLLOUT_ANNOTATION]: formatGatedRecord(record)}}};
}

// ---------------------------------------------------------------------------------------------------------------
// The strategy file

/** The largest int32: the API's restartCount, and a timer's longest wait in ms. */
const INT32_MAX = 2 ** 31 - 1;

const STRATEGY_KEYS = [
  'canary',
  'canaryBake',
  'approve',
  'waves',
  'bake',
  'maxRestarts',
  'progressDeadline',
  'onFailure',
  'maxNeighbourFailures',
  'neighbourSelector',
  'metrics',
  'prometheus',
  'clusterWaves',
] as const;

/**
 * The canary's size as text, `--canary` and a strategy file's `canary:` alike: a node count (`2`, at least 1) or a
 * percentage of the nodes that run the daemon (`10%`, 1 to 100); undefined for anything else.
 */
export function canarySizeOf(text: string): CanarySpec | undefined {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) {
    const count = Number(trimmed);
    return count >= 1 && count <= INT32_MAX ? {kind: 'count', count} : undefined;
  }
  const percent = percentText(trimmed);
  return percent === undefined ? undefined : {kind: 'percent', percent};
}

function percentText(value: unknown): number | undefined {
  const match = typeof value === 'string' ? /^(\d+)%$/.exec(value.trim()) : null;
  const percent = match ? Number(match[1]) : Number.NaN;
  return percent >= 1 && percent <= 100 ? percent : undefined;
}

type StrategyFields = Readonly<Record<string, unknown>>;
type MutableStrategy = {-readonly [K in keyof GatedStrategy]?: GatedStrategy[K]};
type Problem = {readonly problem: StrategyProblem};

const problemAt = (path: StrategyPath, message: string): Problem => ({problem: {path, message}});

/**
 * A wave of clusters as the strategy file names it (`clusterWaves:`, read by `fleet rollout` only): its name and
 * the contexts it takes, names or patterns (`prod-eu-*`) as `--contexts` has them.
 */
export interface ClusterWaveSpec {
  readonly name: string;
  readonly contexts: readonly string[];
}

/** The strategy file: the gated strategy (only the fields it sets) and, for a fleet rollout, its named cluster waves. */
export interface StrategyFile {
  readonly strategy: Partial<GatedStrategy>;
  readonly clusterWaves?: readonly ClusterWaveSpec[];
}

/**
 * The strategy a loaded YAML document asks for (only the fields it sets), or the first problem with its path
 * (the caller turns the path into a line). `duration` parses `10m`, `90s` (throwing a one-line reason).
 */
export function strategyFromDocument(doc: unknown, duration: (text: string) => number): StrategyFile | Problem {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    return problemAt([], 'a strategy is a mapping (canary, canaryBake, approve, waves, bake, ...)');
  const fields = doc as StrategyFields;
  const unknown = Object.keys(fields).find((key) => !(STRATEGY_KEYS as readonly string[]).includes(key));
  if (unknown !== undefined) return problemAt([unknown], `unknown field "${unknown}" (want one of ${STRATEGY_KEYS.join(', ')})`);
  const out: MutableStrategy = {};
  if ('canary' in fields) {
    const canary = canaryFromDocument(fields['canary']);
    if ('problem' in canary) return canary;
    out.canary = canary.canary;
  }
  const stopped = durationsFromDocument(fields, duration, out) ?? boundsFromDocument(fields, out);
  if (stopped) return stopped;
  if ('waves' in fields) {
    const waves = nodeWavesFromDocument(fields['waves']);
    if ('problem' in waves) return waves;
    out.waves = waves.waves;
  }
  if ('metrics' in fields) {
    const parsed = metricsFromDocument(fields['metrics'], duration);
    if ('problem' in parsed) return parsed;
    out.metrics = parsed.metrics;
  }
  if ('prometheus' in fields) {
    const parsed = prometheusFromDocument(fields['prometheus']);
    if ('problem' in parsed) return parsed;
    out.prometheus = parsed.prometheus;
  }
  if (!('clusterWaves' in fields)) return {strategy: out};
  const clusterWaves = clusterWavesFromDocument(fields['clusterWaves']);
  return 'problem' in clusterWaves ? clusterWaves : {strategy: out, clusterWaves: clusterWaves.clusterWaves};
}

/** `canary:` a node count, a percentage, `{nodes: [...]}` or `{selector: ...}`. */
function canaryFromDocument(canary: unknown): {canary: CanarySpec} | Problem {
  if (typeof canary === 'number') {
    if (!Number.isInteger(canary) || canary < 1 || canary > INT32_MAX)
      return problemAt(['canary'], 'canary: want a node count of at least 1, a percentage, {nodes: [...]} or {selector: ...}');
    return {canary: {kind: 'count', count: canary}};
  }
  if (typeof canary === 'string') {
    const size = canarySizeOf(canary);
    return size === undefined ? problemAt(['canary'], `canary: "${canary}" is not a node count or a percentage between 1% and 100%`) : {canary: size};
  }
  if (typeof canary !== 'object' || canary === null || Array.isArray(canary))
    return problemAt(['canary'], 'canary: want a node count, a percentage, {nodes: [...]} or {selector: ...}');
  const spec = canary as Record<string, unknown>;
  if (Array.isArray(spec['nodes']) && spec['nodes'].length > 0 && spec['nodes'].every((n) => typeof n === 'string' && n !== ''))
    return {canary: {kind: 'nodes', nodes: spec['nodes'] as string[]}};
  if (typeof spec['selector'] !== 'string') return problemAt(['canary'], 'canary: want {nodes: [NODE, ...]} or {selector: SELECTOR}');
  try {
    parseLabelSelector(spec['selector']);
  } catch (error) {
    return problemAt(['canary', 'selector'], `canary.selector: ${(error as Error).message}`);
  }
  return {canary: {kind: 'selector', selector: spec['selector']}};
}

/** `canaryBake:`, `bake:`, `progressDeadline:`: a duration, or a number of seconds. */
function durationsFromDocument(fields: StrategyFields, duration: (text: string) => number, out: MutableStrategy): Problem | undefined {
  for (const [key, field] of [
    ['canaryBake', 'canaryBakeMs'],
    ['bake', 'bakeMs'],
    ['progressDeadline', 'progressDeadlineMs'],
  ] as const) {
    if (!(key in fields)) continue;
    const value = fields[key];
    // A number is seconds, within what --bake and the other duration flags take (596h: what a timer holds).
    if (typeof value === 'number' && value >= 0 && value * 1000 <= INT32_MAX) out[field] = value * 1000;
    else if (typeof value === 'number') return problemAt([key], `${key}: want a duration from 0 to 596h (24 days)`);
    else if (typeof value !== 'string') return problemAt([key], `${key}: want a duration such as 30s, 10m or 1h`);
    else {
      try {
        out[field] = duration(value);
      } catch (error) {
        return problemAt([key], `${key}: ${(error as Error).message}`);
      }
    }
  }
  return undefined;
}

/** `approve:`, `maxRestarts:`, `maxNeighbourFailures:`, `neighbourSelector:`, `onFailure:`. */
function boundsFromDocument(fields: StrategyFields, out: MutableStrategy): Problem | undefined {
  if ('approve' in fields) {
    if (typeof fields['approve'] !== 'boolean') return problemAt(['approve'], 'approve: want true or false');
    out.approve = fields['approve'];
  }
  const whole = (value: unknown, max: number) => typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max;
  if ('maxRestarts' in fields) {
    // As --max-restarts: a container's restartCount is an int32.
    if (!whole(fields['maxRestarts'], INT32_MAX)) return problemAt(['maxRestarts'], `maxRestarts: want a whole number from 0 to ${INT32_MAX}`);
    out.maxRestarts = fields['maxRestarts'] as number;
  }
  if ('maxNeighbourFailures' in fields) {
    if (!whole(fields['maxNeighbourFailures'], Number.POSITIVE_INFINITY))
      return problemAt(['maxNeighbourFailures'], 'maxNeighbourFailures: want a whole number of at least 0');
    out.maxNeighbourFailures = fields['maxNeighbourFailures'] as number;
  }
  if ('neighbourSelector' in fields) {
    const value = fields['neighbourSelector'];
    if (typeof value !== 'string') return problemAt(['neighbourSelector'], 'neighbourSelector: want a label selector, e.g. app!=batch');
    try {
      parseLabelSelector(value);
    } catch (error) {
      return problemAt(['neighbourSelector'], `neighbourSelector: ${(error as Error).message}`);
    }
    out.neighbourSelector = value;
  }
  if ('onFailure' in fields) {
    const value = fields['onFailure'];
    if (value !== 'pause' && value !== 'undo') return problemAt(['onFailure'], 'onFailure: want pause or undo');
    out.onFailure = value;
  }
  return undefined;
}

/** `waves:` the nodes' cumulative percentages after the canary, each growing on the one before it. */
function nodeWavesFromDocument(waves: unknown): {waves: number[]} | Problem {
  if (!Array.isArray(waves) || waves.length === 0) return problemAt(['waves'], 'waves: want a list of percentages, e.g. [10%, 25%, 100%]');
  const percents: number[] = [];
  for (const [i, wave] of waves.entries()) {
    const percent = percentText(wave);
    if (percent === undefined) return problemAt(['waves', i], `waves[${i}]: "${String(wave)}" is not a percentage between 1% and 100%`);
    if (percents.length > 0 && percent <= percents.at(-1)!)
      return problemAt(['waves', i], `waves[${i}]: ${percent}% does not grow on the wave before it (${percents.at(-1)}%)`);
    percents.push(percent);
  }
  return {waves: percents};
}

/** A cluster wave's name: a short word that progress lines and the record carry. */
const CLUSTER_WAVE_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/** `clusterWaves:` a list of `{name, contexts: [NAME or PATTERN, ...]}`, in the fleet's order, names unique. */
function clusterWavesFromDocument(value: unknown): {clusterWaves: ClusterWaveSpec[]} | Problem {
  const want = 'clusterWaves: want a list of waves, each {name: NAME, contexts: [CONTEXT or PATTERN, ...]}';
  if (!Array.isArray(value) || value.length === 0) return problemAt(['clusterWaves'], want);
  const waves: ClusterWaveSpec[] = [];
  for (const [i, item] of value.entries()) {
    const at = `clusterWaves[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return problemAt(['clusterWaves', i], `${at}: want {name: NAME, contexts: [...]}`);
    const wave = item as Record<string, unknown>;
    const extra = Object.keys(wave).find((key) => key !== 'name' && key !== 'contexts');
    if (extra !== undefined) return problemAt(['clusterWaves', i, extra], `${at}: unknown field "${extra}" (want name, contexts)`);
    const name = wave['name'];
    if (typeof name !== 'string' || !CLUSTER_WAVE_NAME.test(name))
      return problemAt(['clusterWaves', i, 'name'], `${at}.name: want a short name of letters, digits, '-', '_' or '.' (such as canary or prod-eu)`);
    if (waves.some((w) => w.name === name)) return problemAt(['clusterWaves', i, 'name'], `${at}.name: "${name}" names an earlier wave too`);
    const contexts = wave['contexts'];
    if (!Array.isArray(contexts) || contexts.length === 0 || !contexts.every((c) => typeof c === 'string' && c.trim() !== ''))
      return problemAt(['clusterWaves', i, 'contexts'], `${at}.contexts: want a list of context names or patterns, e.g. [stage] or ["prod-eu-*"]`);
    waves.push({name, contexts: contexts.map((c: string) => c.trim())});
  }
  return {clusterWaves: waves};
}

/** Whether `line` holds `key` followed by optional blanks and a colon at `at`. */
function keyAt(line: string, key: string, at: number): boolean {
  return line.startsWith(key, at) && /^[ \t]*:/.test(line.slice(at + key.length));
}

/** Whether `line` holds `key:` anywhere, not within a longer word. */
function keyIn(line: string, key: string): boolean {
  for (let at = line.indexOf(key); at >= 0; at = line.indexOf(key, at + 1)) {
    if ((at === 0 || !/\w/.test(line[at - 1]!)) && keyAt(line, key, at)) return true;
  }
  return false;
}

/**
 * The 1-based line of a path in a block-style YAML strategy (`key:` at the top, `- item` or `[a, b]` lists), or
 * undefined. Good enough for the small documents a strategy is; the whole document's line 1 otherwise.
 */
export function strategyLine(text: string, path: StrategyPath): number | undefined {
  const lines = text.split('\n');
  if (path.length === 0) return lines.findIndex((l) => l.trim() !== '' && !l.trim().startsWith('#')) + 1 || undefined;
  // Keys are compared as text, never made into a pattern: a key may hold anything (`[`, a control character).
  const top = lines.findIndex((l) => keyAt(l, String(path[0]), 0));
  if (top < 0) return undefined;
  if (path.length === 1 || typeof path[1] !== 'number') {
    if (path.length > 1) {
      const key = String(path[1]);
      const nested = lines.findIndex((l, i) => i >= top && keyIn(l, key));
      if (nested >= 0) return nested + 1;
    }
    return top + 1;
  }
  const index = path[1];
  if (/\[/.test(lines[top]!)) return top + 1;
  let seen = -1;
  for (let i = top + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\S/.test(line)) break;
    if (/^\s*-/.test(line) && ++seen === index) return i + 1;
  }
  return top + 1;
}

/** What a gated rollout reports as it goes (the command renders these as progress lines). */
export type GatedEvent =
  | {readonly kind: 'plan'; readonly stages: readonly GatedStage[]; readonly stage: number; readonly resumed: boolean}
  | {readonly kind: 'stage'; readonly number: number; readonly total: number; readonly stage: GatedStage}
  | {readonly kind: 'step'; readonly event: StepEvent}
  | {readonly kind: 'baking'; readonly stage: GatedStage; readonly leftMs: number}
  | {readonly kind: 'bake-passed'; readonly stage: GatedStage}
  | {readonly kind: 'gate-failed'; readonly stage: GatedStage; readonly failures: readonly GateFailure[]}
  | {readonly kind: 'rolling-back'; readonly toRevision: Revision; readonly nodes: readonly string[]}
  /** Someone else set another template: the run stops, the record says superseded (its closing event). */
  | {readonly kind: 'superseded'; readonly message: string}
  /** The rollout is back on its origin (abort, or --on-failure undo): its closing event. */
  | {readonly kind: 'aborted'; readonly toRevision: Revision; readonly nodes: readonly string[]};

export interface GatedResult {
  readonly kind: 'GatedRollout';
  readonly daemonSet: {readonly namespace: string; readonly name: string};
  /**
   * `complete`: every stage passed; `awaiting-approval`: stopped after the canary for `promote`; `dry-run`: a dry
   * run; `unchanged`: every node already runs the template, so no rollout was recorded.
   */
  readonly outcome: 'complete' | 'awaiting-approval' | 'dry-run' | 'unchanged';
  /** The record as this run left it (`unchanged`: none was written). */
  readonly record?: GatedRecord;
  /** `unchanged`: the revision every node runs already. */
  readonly revision?: Revision;
}

/** What `abort` did (or, with a dry run, would do). */
export interface AbortResult {
  readonly kind: 'GatedRolloutAbort';
  readonly daemonSet: {readonly namespace: string; readonly name: string};
  /** The revision every node is (or, with a dry run, would be) back on, as numbered now. */
  readonly toRevision: Revision;
  /** The nodes stepped back (dry run: to step back). */
  readonly nodes: readonly string[];
  /** `aborted`: every node is back; `already`: it was, nothing was done; `dry-run`. */
  readonly outcome: 'aborted' | 'already' | 'dry-run';
}

export function describeGateFailure(failure: GateFailure): string {
  switch (failure.gate) {
    case 'node':
      return `node gate: node ${failure.node}${failure.pod ? ` (pod ${failure.pod})` : ''}: ${failure.reason}`;
    case 'neighbour':
      return `neighbour gate: pod ${failure.pod} on node ${failure.node}: ${failure.reason}`;
    case 'metric':
      // A metric names no pod: its reason says which query, its value and its bound.
      return failure.reason;
    default:
      return `pod ${failure.pod} on node ${failure.node}: ${failure.reason}`;
  }
}
