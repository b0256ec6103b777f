// The next wave of `ds-rollout step` on a paused DaemonSet: which old pods to delete, decided by the controller's
// own rolling-update rule (RollingUpdateTally, maxSurge == 0) under the recorded budget or the one given, on the
// state as the paused controller leaves it after its own manage pass. Also: how the nodes of a wave stand while
// their replacements start (waveLanding), and the template identity a step must not see change under it.
import {allowsSurge, rolloutBudgets, validateRollingUpdate} from './budgets.js';
import {type BudgetHold, budgetHold, explainBudgetUse, holdBlocks, holdsUntilReady} from './budget-use.js';
import {byName, type NodeSlot, isDaemonPodAvailable} from './daemon-pods.js';
import {type PausedStrategy, pauseStateOf, withStrategy} from './pause.js';
import {podProblem} from './availability.js';
import {templateGeneration} from './pod-template.js';
import {computeTemplateHash} from './revisions.js';
import {type RollingUpdateDecision, RollingUpdateTally, tallyEntryFor} from './rolling-update.js';
import {labelSelectorMatches} from './selectors.js';
import {engineFor, prepareReconcile} from './sync.js';
import type {BudgetUse, ClusterState, DaemonSet, IntOrString, LabelSelector, Node, PodDeletion} from './types.js';

export interface StepWaveOptions {
  /** The instant availability is judged at (the server's clock), epoch ms. */
  readonly now: number;
  /** The budget for this step instead of the recorded one (`--max-unavailable`), scaled against desired. */
  readonly maxUnavailable?: IntOrString;
  /** Only the old pods of these nodes may go (`--nodes`). */
  readonly nodes?: readonly string[];
  /** Only the old pods of nodes with matching labels may go (`--selector`). */
  readonly selector?: LabelSelector;
}

export interface StepBudget {
  /** maxUnavailable scaled against `desired` (rounded up), as the controller scales it. */
  readonly maxUnavailable: number;
  /** As written: the record's value or the flag's. */
  readonly written: IntOrString;
  readonly source: 'record' | 'flag';
  /** Nodes that should run the daemon. */
  readonly desired: number;
}

export interface StepDeletion extends PodDeletion {
  /** The old pod was available: deleting it uses one unit of the budget (an unavailable one uses none). */
  readonly available: boolean;
  /** False when the node no longer takes the daemon: nothing replaces the pod there. */
  readonly replaced: boolean;
  /** Always said in a step (PodDeletion's staysTerminating). */
  readonly staysTerminating: boolean;
}

/** What a step must not see change: the template, by generation and by content. */
export interface TemplateKey {
  readonly generation: number | undefined;
  readonly hash: string;
}

export interface StepWave {
  readonly budget: StepBudget;
  /** Nodes counted as unavailable now, by name. */
  readonly unavailable: readonly BudgetUse[];
  /** Of those, the ones that do not clear by themselves (nodes that are not Ready, pods that do not come up). */
  readonly hold: BudgetHold;
  /**
   * Predicted: the hold once this wave's deletions are done, when it takes the whole budget while available old
   * pods in scope still wait, so that no later wave can start until it ends (absent otherwise).
   */
  readonly holdAfter?: BudgetHold;
  /** The old pods to delete, by node name: the unavailable ones, then as many available ones as the budget leaves. */
  readonly delete: readonly StepDeletion[];
  /** Nodes in scope whose available old pod waits for a later wave. */
  readonly waiting: readonly string[];
  /** Nodes in scope that still run an old pod (this wave's included). */
  readonly oldLeft: number;
  /** Nodes of the whole DaemonSet that still run an old pod (the same as oldLeft without a scope). */
  readonly allOldLeft: number;
  /** No old pod is left in scope: nothing more for `step` to do. */
  readonly done: boolean;
  /** The nodes in scope when `nodes` or `selector` narrowed it. */
  readonly scope?: readonly string[];
  readonly template: TemplateKey;
}

export type StepProblem =
  | {readonly kind: 'not-paused'; readonly type: string}
  | {readonly kind: 'invalid-record'; readonly error: string}
  /** No budget to step with: an OnDelete DaemonSet the tool did not pause, or a record that surges (maxSurge > 0). */
  | {readonly kind: 'needs-budget'; readonly why: 'on-delete' | 'surge'; readonly maxSurge?: IntOrString}
  | {readonly kind: 'invalid-budget'; readonly errors: readonly string[]}
  | {readonly kind: 'unknown-nodes'; readonly nodes: readonly string[]};

export type StepWavePlan = {readonly ok: true; readonly wave: StepWave} | {readonly ok: false; readonly problem: StepProblem};

export function templateKeyOf(ds: DaemonSet): TemplateKey {
  return {generation: templateGeneration(ds), hash: computeTemplateHash(ds.spec.template)};
}

export function sameTemplate(a: TemplateKey, b: TemplateKey): boolean {
  return a.generation === b.generation && a.hash === b.hash;
}

type BudgetChoice =
  {readonly ok: true; readonly written: IntOrString; readonly source: 'record' | 'flag'} | {readonly ok: false; readonly problem: StepProblem};

function chooseBudget(ds: DaemonSet, override: IntOrString | undefined): BudgetChoice {
  const state = pauseStateOf(ds);
  const onDelete = ds.spec.updateStrategy?.type === 'OnDelete';
  if (!onDelete) return {ok: false, problem: {kind: 'not-paused', type: ds.spec.updateStrategy?.type ?? ''}};
  if (override !== undefined) return {ok: true, written: override, source: 'flag'};
  if (state.kind === 'invalid') return {ok: false, problem: {kind: 'invalid-record', error: state.error}};
  if (state.kind !== 'paused') return {ok: false, problem: {kind: 'needs-budget', why: 'on-delete'}};
  const recorded = state.strategy.rollingUpdate;
  // A surging strategy has maxUnavailable 0: deleting in place would use a budget the record never granted.
  if (allowsSurge(withStrategy(ds, state.strategy))) return {ok: false, problem: {kind: 'needs-budget', why: 'surge', maxSurge: recorded.maxSurge}};
  return {ok: true, written: recorded.maxUnavailable, source: 'record'};
}

/**
 * The next wave: the controller's rolling update (maxSurge == 0) under the step's budget, restricted to the nodes in
 * scope, computed on the state after the paused controller's own manage pass (it fills empty nodes and removes
 * failed pods whatever the strategy). Unavailability is counted over every node exactly as the controller counts
 * it: empty eligible nodes, nodes whose only pod is terminating, unavailable new or old pods, old and new side by
 * side. Every unavailable old pod in scope goes (it uses no budget); available ones only within what is left.
 */
export function planStepWave(state: ClusterState, options: StepWaveOptions): StepWavePlan {
  const ds = state.daemonSet;
  const choice = chooseBudget(ds, options.maxUnavailable);
  if (!choice.ok) return choice;

  const stepStrategy = {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: choice.written, maxSurge: 0}};
  const invalid = validateRollingUpdate(withStrategy(ds, stepStrategy));
  if (invalid.length > 0) return {ok: false, problem: {kind: 'invalid-budget', errors: invalid}};

  // The paused controller: OnDelete, so one sync is manage alone; its effects are applied to the engine's view.
  const input = prepareReconcile({...state, daemonSet: withStrategy(ds, {type: 'OnDelete'})});
  const engine = engineFor(input, {backoffAcrossSyncs: false});
  engine.sync(options.now);
  const scaled = rolloutBudgets(withStrategy(ds, stepStrategy), engine.desired);
  if (!scaled.ok) return {ok: false, problem: {kind: 'invalid-budget', errors: [scaled.error]}};

  const nodesByName = new Map(state.nodes.map((node) => [node.metadata.name, node]));
  if (options.nodes) {
    const unknown = options.nodes.filter((name) => !nodesByName.has(name));
    if (unknown.length > 0) return {ok: false, problem: {kind: 'unknown-nodes', nodes: unknown}};
  }
  const {restricted, inScope} = scopeOf(engine.slots, nodesByName, options);

  const tally = new RollingUpdateTally(engine.slots.length);
  engine.slots.forEach((slot, index) => tally.set(index, tallyEntryFor(slot, options.now)));
  const decision = tally.decideWithin(scaled.budgets.maxUnavailable, restricted ? (index) => inScope[index]! : undefined);

  const unavailable: BudgetUse[] = [];
  const waiting: string[] = [];
  let oldLeft = 0;
  let allOldLeft = 0;
  const deleted = new Set(decision.delete.map((d) => d.index));
  engine.slots.forEach((slot, index) => {
    const entry = tally.entry(index);
    if (!entry) return;
    const cls = entry.cls;
    const use = explainBudgetUse(cls, input.slots[index]!, nodesByName.get(slot.name), options.now);
    if (use) unavailable.push({node: slot.name, ...use});
    if (cls.kind === 'old-only' || cls.kind === 'both') allOldLeft++;
    if (!inScope[index]) return;
    if (cls.kind === 'old-only' || cls.kind === 'both') oldLeft++;
    if (cls.kind === 'old-only' && cls.oldAvailable && !deleted.has(index)) waiting.push(slot.name);
  });

  const deletions = stepDeletions(decision, tally, engine.slots, nodesByName, options.now);

  const nodeOf = (name: string) => nodesByName.get(name);
  const hold = budgetHold(unavailable, nodeOf, scaled.budgets.maxUnavailable);
  const holdAfter = predictHold(hold, deletions, waiting.length);

  return {
    ok: true,
    wave: {
      budget: {maxUnavailable: scaled.budgets.maxUnavailable, written: choice.written, source: choice.source, desired: engine.desired},
      unavailable,
      hold,
      ...(holdAfter ? {holdAfter} : {}),
      delete: deletions,
      waiting,
      oldLeft,
      allOldLeft,
      done: oldLeft === 0,
      ...(restricted ? {scope: engine.slots.filter((_, index) => inScope[index]).map((slot) => slot.name)} : {}),
      template: templateKeyOf(ds),
    },
  };
}

/** The nodes a restricted step may touch (`--nodes`, `--selector`), index by index; every node when unrestricted. */
function scopeOf(
  slots: readonly {readonly name: string}[],
  nodesByName: ReadonlyMap<string, Node>,
  options: StepWaveOptions,
): {restricted: boolean; inScope: boolean[]} {
  const wanted = options.nodes ? new Set(options.nodes) : undefined;
  const selector = options.selector;
  const restricted = wanted !== undefined || selector !== undefined;
  const inScope = slots.map((slot) => {
    if (wanted && !wanted.has(slot.name)) return false;
    if (selector) {
      const node = nodesByName.get(slot.name);
      return node !== undefined && labelSelectorMatches(selector, node.metadata.labels);
    }
    return true;
  });

  return {restricted, inScope};
}

// upstream: pkg/controller/daemon/daemon_controller.go syncNodes (the deletions one sync issues, with the
// preconditions of each: uid and resourceVersion)
// The wave's deletions in node name order, each with what the step shows of it: whether the pod was available,
// whether a new pod replaces it, and whether it stays terminating on a node that is not Ready.
function stepDeletions(
  decision: RollingUpdateDecision,
  tally: RollingUpdateTally,
  slots: readonly {readonly name: string}[],
  nodesByName: ReadonlyMap<string, Node>,
  now: number,
): StepDeletion[] {
  const deletions: StepDeletion[] = decision.delete.map((d) => {
    const meta = d.pod.pod.metadata;
    const entry = tally.entry(d.index)!;
    return {
      pod: d.pod.name,
      node: slots[d.index]!.name,
      reason: d.reason,
      ...(meta.uid ? {uid: meta.uid} : {}),
      ...(meta.resourceVersion ? {resourceVersion: meta.resourceVersion} : {}),
      available: isDaemonPodAvailable(d.pod, now),
      replaced: entry.shouldRun,
      staysTerminating: holdsUntilReady(nodesByName.get(slots[d.index]!.name)),
    };
  });
  deletions.sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  return deletions;
}

/**
 * The hold after a wave, when it stops every later one and NotReady nodes take part in it: the nodes that hold now keep holding (a pod deleted on a
 * NotReady node stays terminating), except a Ready node whose unavailable old pod the wave replaces; a node the
 * wave deletes a pod on while it is not Ready joins them.
 */
function predictHold(hold: BudgetHold, deletions: readonly StepDeletion[], waiting: number): BudgetHold | undefined {
  if (deletions.length === 0 || waiting === 0) return undefined;
  const replaced = new Set(deletions.filter((d) => !d.staysTerminating).map((d) => d.node));
  const untilReady = [...new Set([...hold.untilReady, ...deletions.filter((d) => d.staysTerminating).map((d) => d.node)])].sort(byName);
  const after: BudgetHold = {limit: hold.limit, untilReady, other: hold.other.filter((node) => !replaced.has(node))};
  // Said where NotReady nodes hold it: their hold is the one a plan of the controller's rule does not show by itself.
  return holdBlocks(after) && after.untilReady.length > 0 ? after : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Following a wave

/**
 * How one node of a wave stands: `old` (its old pod still runs), `surging` (old and new side by side),
 * `terminating` (the old pod is going), `creating` (no pod yet), `starting` (new pod not ready), `failing` (new pod
 * not ready with a reason such as CrashLoopBackOff), `ready` (waiting out minReadySeconds), `available` (done),
 * `gone` (the node no longer takes the daemon and its pod is gone: done), `crowded` (two new pods).
 */
export type LandingState = 'old' | 'surging' | 'terminating' | 'creating' | 'starting' | 'failing' | 'ready' | 'available' | 'gone' | 'crowded';

export interface NodeLanding {
  readonly node: string;
  readonly state: LandingState;
  /** The new pod, once there is one. */
  readonly pod?: string;
  readonly problem?: string;
  /** When a ready new pod becomes (or became) available (server clock, epoch ms). */
  readonly availableAt?: number;
  /** `surging`: the old pod next to the new one, with what a precondition needs. */
  readonly oldPod?: {readonly name: string; readonly uid?: string; readonly resourceVersion?: string};
}

export interface WaveLanding {
  readonly nodes: readonly NodeLanding[];
  /** Every node has an available new pod (or no longer takes the daemon). */
  readonly landed: boolean;
  /** Nodes of the whole DaemonSet that run more than one pod (not counting terminating ones). */
  readonly crowded: readonly string[];
}

const LANDED: ReadonlySet<LandingState> = new Set(['available', 'gone']);

export function waveLanding(state: ClusterState, nodes: readonly string[], now: number): WaveLanding {
  const input = prepareReconcile(state);
  const slots = new Map(input.slots.map((slot) => [slot.name, slot]));
  const result = nodes.map((name) => landingOf(name, slots.get(name), now));
  const crowded = input.slots.filter((slot) => slot.pods.filter((pod) => !pod.terminating).length > 1).map((slot) => slot.name);
  return {nodes: result, landed: result.every((n) => LANDED.has(n.state)), crowded};
}

function landingOf(name: string, slot: NodeSlot | undefined, now: number): NodeLanding {
  const pods = slot?.pods ?? [];
  const live = pods.filter((pod) => !pod.terminating);
  const fresh = live.filter((pod) => pod.updated);
  const old = live.filter((pod) => !pod.updated);
  if (old.length > 0) {
    if (fresh.length === 0) return {node: name, state: 'old'};
    const {uid, resourceVersion} = old[0]!.pod.metadata;
    const availableAt = fresh[0]!.availableAt;
    return {
      node: name,
      state: 'surging',
      pod: fresh[0]!.name,
      ...(availableAt !== undefined ? {availableAt} : {}),
      oldPod: {name: old[0]!.name, ...(uid ? {uid} : {}), ...(resourceVersion ? {resourceVersion} : {})},
    };
  }
  if (fresh.length === 0) {
    if (pods.length > 0) return {node: name, state: 'terminating'};
    const takesDaemon = slot?.node !== undefined && slot.eligibility.shouldRun;
    return {node: name, state: takesDaemon ? 'creating' : 'gone'};
  }
  if (fresh.length > 1) return {node: name, state: 'crowded'};
  const pod = fresh[0]!;
  if (isDaemonPodAvailable(pod, now)) return {node: name, state: 'available', pod: pod.name};
  if (pod.ready && pod.availableAt !== undefined) return {node: name, state: 'ready', pod: pod.name, availableAt: pod.availableAt};
  const problem = podProblem(pod.pod);
  return problem ? {node: name, state: 'failing', pod: pod.name, problem} : {node: name, state: 'starting', pod: pod.name};
}

/**
 * A node's landing in words: the one wording of every face (step's progress lines, its timeout and stuck errors,
 * the dashboard's status line). Fits inside a `;`-separated list, so it uses none itself.
 */
export function landingWords(landing: NodeLanding): string {
  const pod = `new pod ${landing.pod ?? ''}`.trimEnd();
  switch (landing.state) {
    case 'old':
      return 'the old pod still runs';
    case 'surging':
      return `${pod} runs next to the old one`;
    case 'terminating':
      return 'the old pod is still terminating';
    case 'creating':
      return 'no new pod yet (the controller creates it)';
    case 'starting':
      return `${pod} is not ready yet`;
    case 'failing':
      return `${pod} is not ready (${landing.problem ?? 'unknown'})`;
    case 'ready':
      return `${pod} is ready, waiting out minReadySeconds`;
    case 'available':
      return `${pod} is available`;
    case 'gone':
      return 'the node no longer takes the daemon (its old pod is gone)';
    case 'crowded':
      return 'two new pods';
  }
}

/** What `ds-rollout step` reports as it goes (the command renders these as progress lines). */
export type StepEvent =
  | {readonly kind: 'wave'; readonly number: number; readonly total: number; readonly wave: StepWave; readonly dryRun: boolean}
  | {readonly kind: 'waiting-for-budget'; readonly wave: StepWave}
  /** The wave's progress, recorded on the DaemonSet (ds-rollout.io/step) once it deleted something. */
  | {readonly kind: 'recorded'; readonly step: number; readonly of: number}
  /** --force took the lease of another step. */
  | {readonly kind: 'lease-taken'; readonly from: string; readonly renewedSecondsAgo: number}
  | {readonly kind: 'deleted'; readonly pod: string; readonly node: string}
  | {readonly kind: 'kept'; readonly pod: string; readonly node: string; readonly why: string}
  | {readonly kind: 'retry'; readonly what: string; readonly why: string}
  | {readonly kind: 'node'; readonly landing: NodeLanding}
  /** `oldLeft`: nodes of the DaemonSet still running an old pod; `scopeOldLeft`: of those, the chosen ones (--nodes, --selector). */
  | {readonly kind: 'landed'; readonly number: number; readonly seconds: number; readonly oldLeft: number; readonly scopeOldLeft?: number}
  | {
      readonly kind: 'controller-plan';
      readonly number: number;
      readonly total: number;
      readonly nodes: readonly string[];
      readonly strategy: PausedStrategy;
      readonly dryRun: boolean;
    }
  | {readonly kind: 'resumed'}
  | {readonly kind: 'repaused'}
  | {readonly kind: 'pruning'; readonly nodes: readonly string[]};
