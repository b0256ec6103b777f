// Gated rollouts (canary, then waves, each watched for a while): the stage plan, the health gate over the new
// revision's pods, and the record kept in an annotation on the DaemonSet. Pure: cluster state and the server's
// clock in, plans and verdicts out.
import {detachedJobOf, isDetachedJobOf} from './detach.js';
import {labelSelectorMatches, parseLabelSelector} from './selectors.js';
import {nodeShouldRunDaemonPod} from './eligibility.js';
import {isPodReady} from './availability.js';
import {waveLanding} from './step-wave.js';
import type {ClusterState, DaemonSet, IntOrString, Node} from './types.js';
import type {StepEvent} from './step-wave.js';

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
}

export interface GatedStage {
  readonly name: string;
  /** The nodes this stage may replace pods on, cumulative (earlier stages included); undefined: every node. */
  readonly nodes?: readonly string[];
  readonly bakeMs: number;
  /** Stop after this stage's bake until `promote`. */
  readonly approve: boolean;
}

export type GatedPhase = 'rolling' | 'baking' | 'awaiting-approval' | 'failed' | 'complete' | 'aborted';

export interface GateFailure {
  readonly pod: string;
  readonly node: string;
  readonly reason: string;
}

/** The annotation's content: everything a rerun needs to continue where the last run stopped. */
export interface GatedRecord {
  /** Template hash of the revision being rolled out: another template means someone else changed it. */
  readonly template: string;
  readonly stages: readonly GatedStage[];
  readonly stage: number;
  readonly phase: GatedPhase;
  /** Server clock, epoch ms: when the current stage's bake passes. */
  readonly bakeUntil?: number;
  readonly failures: readonly GateFailure[];
  readonly maxRestarts: number;
  readonly progressDeadlineMs: number;
  readonly onFailure: OnFailure;
  /** `--max-unavailable` of the first run, kept for promote and reruns (undefined: the pause record's budget). */
  readonly maxUnavailable?: IntOrString;
  /** Pod uids seen Ready: losing Ready after that fails the gate. */
  readonly seenReady: readonly string[];
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

/**
 * The stages for `strategy` on this cluster: the canary's nodes (nodes already running the new revision first,
 * then by name, so a rerun picks the same ones), then each wave's cumulative share, the last one every node.
 * Throws a one-line reason when the canary cannot be chosen.
 */
export function planGatedStages(state: ClusterState, strategy: GatedStrategy): GatedStage[] {
  const eligible = daemonNodes(state.daemonSet, state.nodes);
  const names = eligible.map((n) => n.metadata.name);
  const landing = waveLanding(state, names, Number.POSITIVE_INFINITY);
  const fresh = new Set(landing.nodes.filter((n) => n.state !== 'old' && n.pod !== undefined).map((n) => n.node));
  const preferred = [...names.filter((n) => fresh.has(n)), ...names.filter((n) => !fresh.has(n))];
  const stages: GatedStage[] = [];
  let chosen: string[] = [];
  const canary = strategy.canary;
  if (canary) {
    switch (canary.kind) {
      case 'count':
        chosen = preferred.slice(0, Math.min(canary.count, names.length));
        break;
      case 'percent':
        chosen = preferred.slice(0, percentOf(canary.percent, names.length));
        break;
      case 'nodes': {
        const unknown = canary.nodes.filter((n) => !names.includes(n));
        if (unknown.length > 0) throw new Error(`canary ${unknown.length === 1 ? 'node does' : 'nodes do'} not run the daemon: ${unknown.join(', ')}`);
        chosen = [...canary.nodes];
        break;
      }
      case 'selector': {
        const selector = parseLabelSelector(canary.selector);
        chosen = eligible.filter((n) => labelSelectorMatches(selector, n.metadata.labels)).map((n) => n.metadata.name);
        if (chosen.length === 0) throw new Error(`no node that runs the daemon matches the canary selector ${canary.selector}`);
        break;
      }
    }
    stages.push({name: 'canary', nodes: chosen, bakeMs: strategy.canaryBakeMs, approve: strategy.approve});
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
    const count = percentOf(percent, names.length);
    const rest = preferred.filter((n) => !chosen.includes(n));
    chosen = [...chosen, ...rest.slice(0, Math.max(0, count - chosen.length))];
    stages.push({name, nodes: chosen, bakeMs: strategy.bakeMs, approve: false});
  });
  return stages;
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
    else if (!ready && seen.has(uid)) fail('lost Ready after being Ready');
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
    return {kind: 'record', record: {...value, failures: value.failures ?? [], seenReady: value.seenReady ?? []}};
  } catch (error) {
    return {kind: 'invalid', error: (error as Error).message};
  }
}

export function formatGatedRecord(record: GatedRecord): string {
  return JSON.stringify(record);
}

/** A merge patch that writes the record (the writer adds the resourceVersion precondition). */
export function gatedRecordBody(record: GatedRecord): Record<string, unknown> {
  return {metadata: {annotations: {[GATED_ROLLOUT_ANNOTATION]: formatGatedRecord(record)}}};
}

/** What status, ds-plan and the dashboard show: the stage, the phase and, while baking, the time left. */
export interface GatedProgress {
  readonly stage: number;
  readonly stages: number;
  readonly name: string;
  readonly phase: GatedPhase;
  /** While baking: seconds left on the server's clock. */
  readonly bakeLeftSeconds?: number;
  readonly failures: readonly GateFailure[];
  /** The Job driving it (`--detach`), when the DaemonSet names one for this rollout's template. */
  readonly job?: string;
}

/** The gated rollout in progress on `ds` (not finished, not aborted), as status and ds-plan show it. */
export function gatedProgressOf(ds: DaemonSet, now: number): GatedProgress | undefined {
  const found = gatedRecordOf(ds);
  if (found.kind !== 'record' || found.record.phase === 'complete' || found.record.phase === 'aborted') return undefined;
  const job = detachedJobOf(ds);
  const driven = job !== undefined && isDetachedJobOf(job, ds.metadata.name, found.record.template);
  return {...gatedProgress(found.record, now), ...(driven ? {job} : {})};
}

export function gatedProgress(record: GatedRecord, now: number): GatedProgress {
  const stage = Math.min(record.stage, record.stages.length - 1);
  return {
    stage: stage + 1,
    stages: record.stages.length,
    name: record.stages[stage]?.name ?? '',
    phase: record.phase,
    ...(record.phase === 'baking' && record.bakeUntil !== undefined ? {bakeLeftSeconds: Math.max(0, Math.ceil((record.bakeUntil - now) / 1000))} : {}),
    failures: record.failures,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The strategy file

export type StrategyPath = readonly (string | number)[];

export interface StrategyProblem {
  readonly path: StrategyPath;
  readonly message: string;
}

const STRATEGY_KEYS = ['canary', 'canaryBake', 'approve', 'waves', 'bake', 'maxRestarts', 'progressDeadline', 'onFailure'] as const;

function percentText(value: unknown): number | undefined {
  const match = typeof value === 'string' ? /^(\d+)%$/.exec(value.trim()) : null;
  const percent = match ? Number(match[1]) : Number.NaN;
  return percent >= 1 && percent <= 100 ? percent : undefined;
}

/**
 * The strategy a loaded YAML document asks for (only the fields it sets), or the first problem with its path
 * (the caller turns the path into a line). `duration` parses `10m`, `90s` (throwing a one-line reason).
 */
export function strategyFromDocument(doc: unknown, duration: (text: string) => number): {strategy: Partial<GatedStrategy>} | {problem: StrategyProblem} {
  const problem = (path: StrategyPath, message: string) => ({problem: {path, message}});
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    return problem([], 'a strategy is a mapping (canary, canaryBake, approve, waves, bake, ...)');
  const fields = doc as Record<string, unknown>;
  const out: {-readonly [K in keyof GatedStrategy]?: GatedStrategy[K]} = {};
  for (const key of Object.keys(fields)) {
    if (!(STRATEGY_KEYS as readonly string[]).includes(key)) return problem([key], `unknown field "${key}" (want one of ${STRATEGY_KEYS.join(', ')})`);
  }
  const durationOf = (key: string): number | {problem: StrategyProblem} => {
    const value = fields[key];
    if (typeof value === 'number' && value >= 0) return value * 1000;
    if (typeof value !== 'string') return problem([key], `${key}: want a duration such as 30s, 10m or 1h`);
    try {
      return duration(value);
    } catch (error) {
      return problem([key], `${key}: ${(error as Error).message}`);
    }
  };
  if ('canary' in fields) {
    const canary = fields['canary'];
    if (typeof canary === 'number') {
      if (!Number.isInteger(canary) || canary < 1)
        return problem(['canary'], 'canary: want a node count of at least 1, a percentage, {nodes: [...]} or {selector: ...}');
      out.canary = {kind: 'count', count: canary};
    } else if (typeof canary === 'string') {
      const percent = percentText(canary);
      if (percent === undefined) return problem(['canary'], `canary: "${canary}" is not a node count or a percentage between 1% and 100%`);
      out.canary = {kind: 'percent', percent};
    } else if (typeof canary === 'object' && canary !== null && !Array.isArray(canary)) {
      const spec = canary as Record<string, unknown>;
      if (Array.isArray(spec['nodes']) && spec['nodes'].length > 0 && spec['nodes'].every((n) => typeof n === 'string' && n !== '')) {
        out.canary = {kind: 'nodes', nodes: spec['nodes'] as string[]};
      } else if (typeof spec['selector'] === 'string') {
        try {
          parseLabelSelector(spec['selector']);
        } catch (error) {
          return problem(['canary', 'selector'], `canary.selector: ${(error as Error).message}`);
        }
        out.canary = {kind: 'selector', selector: spec['selector']};
      } else return problem(['canary'], 'canary: want {nodes: [NODE, ...]} or {selector: SELECTOR}');
    } else return problem(['canary'], 'canary: want a node count, a percentage, {nodes: [...]} or {selector: ...}');
  }
  for (const [key, field] of [
    ['canaryBake', 'canaryBakeMs'],
    ['bake', 'bakeMs'],
    ['progressDeadline', 'progressDeadlineMs'],
  ] as const) {
    if (!(key in fields)) continue;
    const ms = durationOf(key);
    if (typeof ms !== 'number') return ms;
    out[field] = ms;
  }
  if ('approve' in fields) {
    if (typeof fields['approve'] !== 'boolean') return problem(['approve'], 'approve: want true or false');
    out.approve = fields['approve'];
  }
  if ('maxRestarts' in fields) {
    const value = fields['maxRestarts'];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) return problem(['maxRestarts'], 'maxRestarts: want a whole number of at least 0');
    out.maxRestarts = value;
  }
  if ('onFailure' in fields) {
    const value = fields['onFailure'];
    if (value !== 'pause' && value !== 'undo') return problem(['onFailure'], 'onFailure: want pause or undo');
    out.onFailure = value;
  }
  if ('waves' in fields) {
    const waves = fields['waves'];
    if (!Array.isArray(waves) || waves.length === 0) return problem(['waves'], 'waves: want a list of percentages, e.g. [10%, 25%, 100%]');
    const percents: number[] = [];
    for (const [i, wave] of waves.entries()) {
      const percent = percentText(wave);
      if (percent === undefined) return problem(['waves', i], `waves[${i}]: "${String(wave)}" is not a percentage between 1% and 100%`);
      if (percents.length > 0 && percent <= percents.at(-1)!)
        return problem(['waves', i], `waves[${i}]: ${percent}% does not grow on the wave before it (${percents.at(-1)}%)`);
      percents.push(percent);
    }
    out.waves = percents;
  }
  return {strategy: out};
}

/**
 * The 1-based line of a path in a block-style YAML strategy (`key:` at the top, `- item` or `[a, b]` lists), or
 * undefined. Good enough for the small documents a strategy is; the whole document's line 1 otherwise.
 */
export function strategyLine(text: string, path: StrategyPath): number | undefined {
  const lines = text.split('\n');
  if (path.length === 0) return lines.findIndex((l) => l.trim() !== '' && !l.trim().startsWith('#')) + 1 || undefined;
  const top = lines.findIndex((l) => new RegExp(`^${String(path[0])}\\s*:`).test(l));
  if (top < 0) return undefined;
  if (path.length === 1 || typeof path[1] !== 'number') {
    if (path.length > 1) {
      const nested = lines.findIndex((l, i) => i >= top && new RegExp(`\\b${String(path[1])}\\s*:`).test(l));
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
  | {readonly kind: 'rolling-back'; readonly toRevision: number; readonly nodes: readonly string[]};

export interface GatedResult {
  readonly kind: 'GatedRollout';
  readonly daemonSet: {readonly namespace: string; readonly name: string};
  /** `complete`: every stage passed; `awaiting-approval`: stopped after the canary for `promote`. */
  readonly outcome: 'complete' | 'awaiting-approval';
  readonly record: GatedRecord;
}

export function describeGateFailure(failure: GateFailure): string {
  return `pod ${failure.pod} on node ${failure.node}: ${failure.reason}`;
}
