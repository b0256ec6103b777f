// planRollout: the next sync and every wave until the rollout converges, as a fold of the same engine that
// syncDaemonSet runs once (plan-simulation.ts says what the simulated world assumes), with what blocks it
// (plan-blockers.ts) and each node's part in it.
import {podProblemAt} from './availability.js';
import {budgetInUse} from './budget-use.js';
import {type DaemonPod, isDaemonPodAvailable} from './daemon-pods.js';
import {gatedProgressOf} from './gated-machine.js';
import {pausedInfoOf, unpausedWarning} from './pause.js';
import {findBlockers, pausedStepHold} from './plan-blockers.js';
import {type SimulatedRollout, simulateRollout} from './plan-simulation.js';
import {CONTROLLER_REVISION_HASH_LABEL} from './pod-template.js';
import {currentRevisionOf} from './revisions.js';
import {computeDaemonSetStatus} from './status.js';
import {prepareReconcile, type ReconcileInput, syncGate} from './sync.js';
import type {DurationEstimate, PodTimings} from './timing.js';
import {formatFieldError, isToleratedByController, validateDaemonSet} from './validation.js';
import {type ControllerMinor, formatMinor, modelledMinor, NEWEST_MODELLED_MINOR, OLDEST_MODELLED_MINOR} from './versions.js';
import type {Blocker, ClusterState, DaemonSet, Mutable, NodePlan, NodeRolloutState, PodSummary, RolloutBudgets, RolloutPlan, TimingEstimate} from './types.js';

export interface PlanOptions {
  /** The instant at which readiness and availability are judged, epoch ms. */
  readonly now: number;
  /** Safety stop for the simulation; the default is far above what any rollout needs. */
  readonly maxSyncs?: number;
  /**
   * The Kubernetes minor of the cluster's controller (default: the newest modelled). Outside the modelled range the
   * nearest modelled controller is planned, with a warning.
   */
  readonly controllerMinor?: ControllerMinor;
  /**
   * How long pods take to start and to go (observePodTimings): new pods turn Ready podStart after their wave,
   * deletions finish podDeletion after theirs. Without it both are instant, and the plan has no `timing`.
   */
  readonly timings?: PodTimings;
}

/**
 * The plan: the cluster as the controller sees it, the fold of its syncs to convergence (plan-simulation.ts), and what
 * keeps it from getting there (plan-blockers.ts), in the contract's shape.
 */
export function planRollout(state: ClusterState, options: PlanOptions): RolloutPlan {
  const {now} = options;
  const askedMinor = options.controllerMinor ?? NEWEST_MODELLED_MINOR;
  const input = prepareReconcile(state, modelledMinor(askedMinor));
  const {ds} = input;
  const status = computeDaemonSetStatus(input.slots, now);
  const gate = syncGate(ds);
  const sim = simulateRollout(input, options, gate !== undefined);
  const t = sim.end;
  const converges = !sim.stoppedEarly && sim.engine.slots.every((slot) => !slot.exists || !slot.eligibility.shouldRun || isConverged(slot.pods, t));
  const first = sim.nextSync ?? {create: [], delete: []};
  const complete =
    first.create.length === 0 &&
    first.delete.length === 0 &&
    input.slots.every((slot) => !slot.node || !slot.eligibility.shouldRun || isConverged(slot.pods, now));

  const paused = pausedInfoOf(ds, status.desiredNumberScheduled);
  const gated = gatedProgressOf(ds, now, input.history.update.revision);
  // The rolling update's budgets; plain OnDelete (or budgets that cannot be read) has none: limits of 0.
  const strategyBudgets: RolloutBudgets =
    input.strategyType === 'RollingUpdate' && !('error' in input.budgets) ? input.budgets : {maxUnavailable: 0, maxSurge: 0};
  // The budget in use now, on the state as it is: the rolling update's own, or the one a step works within while
  // paused. Without a budget the counts are still what the rolling update would see.
  const budget = budgetInUse(input.slots, paused ? paused.budgets : strategyBudgets, now);
  const found = findBlockers(input, sim, now, {converges, paused, gated});
  const blockers = gate ? [skippedSync(ds, gate.skipped)] : [...found.blockers, ...pausedStepHold(state, now, paused !== undefined && gated === undefined)];
  const unpaused = unpausedWarning(ds);
  const warnings = [...unmodelledVersion(askedMinor), ...(unpaused ? [unpaused] : []), ...notAdmissible(ds), ...found.warnings];
  const current = currentRevisionOf(input.history.update.hash, input.revisions, input.daemonPods);
  const update = input.history.update;
  const timing = options.timings;

  return {
    kind: 'DaemonSetRolloutPlan',
    controllerVersion: formatMinor(input.controllerMinor),
    daemonSet: {namespace: ds.metadata.namespace ?? 'default', name: ds.metadata.name},
    strategy: {type: input.strategyType, ...strategyBudgets},
    revisions: {
      current: {revision: current.revision, hash: current.hash, ...(current.name ? {name: current.name} : {})},
      update: {revision: update.revision, hash: update.hash, exists: update.exists, ...(update.exists ? {name: update.name} : {})},
    },
    status,
    nodes: planNodes(input, sim, now, blockers, warnings),
    nextSync: first,
    waves: sim.waves,
    complete,
    converges,
    blockers,
    warnings,
    notes: planNotes(input, sim, options, paused !== undefined),
    budget,
    ...(paused ? {paused} : {}),
    ...(timing ? {timing: timingOf(sim, timing, now, converges && !complete)} : {}),
    ...(gated ? {gated} : {}),
  };
}

/** When the controller does not sync the DaemonSet, nothing the rolling update would wait for matters. */
function skippedSync(ds: DaemonSet, skipped: NonNullable<ReturnType<typeof syncGate>>['skipped']): Blocker {
  return skipped === 'being-deleted'
    ? {kind: 'being-deleted', message: `the DaemonSet is being deleted (since ${ds.metadata.deletionTimestamp}): the controller does nothing more for it`}
    : {kind: 'selects-all', message: 'the selector is empty: the controller records a SelectingAll warning event and does nothing for it'};
}

// upstream: pkg/controller/daemon/daemon_controller.go NodeShouldRunDaemonPod (shouldRun, shouldContinueRunning)
// One entry per node of the node list, in name order: whether the daemon should run there and why, its pods now, its
// state, the first wave that touches it, and the first blocker and warning that name it. Built field by field, in
// the contract's order (so that the output prints them as they are).
function planNodes(input: ReconcileInput, sim: SimulatedRollout, now: number, blockers: readonly Blocker[], warnings: readonly Blocker[]): NodePlan[] {
  const blockerOfNode = firstMessageByNode(blockers);
  const warningOfNode = firstMessageByNode(warnings);
  const nodes: NodePlan[] = [];
  input.slots.forEach((slot, index) => {
    if (!slot.node) return;
    const plan: Mutable<NodePlan> = {
      name: slot.name,
      shouldRun: slot.eligibility.shouldRun,
      shouldContinueRunning: slot.eligibility.shouldContinueRunning,
      reason: slot.eligibility.reason,
      pods: slot.pods.map((pod) => summarisePod(pod, now)),
      state: nodeState(slot.eligibility.shouldRun, slot.pods, now),
    };
    const blocker = blockerOfNode.get(slot.name);
    if (blocker !== undefined) plan.blocker = blocker;
    const warning = warningOfNode.get(slot.name);
    if (warning !== undefined) plan.warning = warning;
    const wave = sim.waveOfNode[index]!;
    if (wave > 0) plan.wave = wave;
    nodes.push(plan);
  });
  return nodes;
}

function firstMessageByNode(findings: readonly Blocker[]): Map<string, string> {
  const byNode = new Map<string, string>();
  for (const b of findings) for (const node of b.nodes ?? []) if (!byNode.has(node)) byNode.set(node, b.message);
  return byNode;
}

/** What the plan assumed or could not know, said once each. */
function planNotes(input: ReconcileInput, sim: SimulatedRollout, options: PlanOptions, paused: boolean): string[] {
  const notes: string[] = [];
  const minReadyMs = Math.max(0, input.target.minReadySeconds) * 1000;
  const update = input.history.update;
  if (sim.arbitrary) notes.push('Where the budget leaves a choice, upstream picks arbitrarily (Go map order); this plan picks nodes in name order.');
  if (sim.splitBySync) {
    notes.push(
      "The next sync shows manage's and the rolling update's actions together, as upstream's tests do; the live controller may split them over two syncs while its informer catches up.",
    );
  }
  if (!update.exists)
    notes.push(`Revision ${update.revision} does not exist yet: the controller will create it; its hash ${update.hash} is the planner's stand-in.`);
  if (sim.waves.length > 0 && !options.timings) {
    notes.push(
      `Assumed: deletions finish at once (not on NotReady nodes); new and starting pods become ready at once and available after minReadySeconds (${minReadyMs / 1000}s); other pods that are not ready stay so.`,
    );
  }
  if (sim.waves.length > 0 && options.timings) {
    notes.push(
      `Assumed: deletions finish after ${formatSeconds(options.timings.podDeletion.ms)} (not on NotReady nodes); new and starting pods become ready ${formatSeconds(options.timings.podStart.ms)} after creation and available after minReadySeconds (${minReadyMs / 1000}s) more; other pods that are not ready stay so.`,
    );
  }
  if (input.slots.some((slot) => slot.pods.some((pod) => pod.phase === 'Failed')))
    notes.push('Assumed: no node is in failed-pod backoff at the start of a sync (that state lives only in the controller).');
  if (sim.stoppedEarly) notes.push(`The simulation stopped after ${sim.maxSyncs} syncs without converging.`);
  if (paused) {
    notes.push('Paused: the controller still creates pods from the current template on nodes that join and replaces deleted pods with it.');
  }
  return notes;
}

/** How long the rollout takes: until its last wave, or until its last deletion has finished if that is later. */
function timingOf(sim: SimulatedRollout, timings: PodTimings, now: number, underway: boolean): RolloutPlan['timing'] {
  const deletionMs = timings.podDeletion.ms;
  const t = sim.end;
  return {
    ...(underway ? {etaSeconds: (Math.max(t, sim.lastDeletionAt === undefined ? t : sim.lastDeletionAt + deletionMs) - now) / 1000} : {}),
    podStart: estimate(timings.podStart),
    podDeletion: estimate(timings.podDeletion),
  };
}

function estimate(value: DurationEstimate): TimingEstimate {
  return {seconds: value.ms / 1000, basis: value.basis, observations: value.observations};
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))}s`;
}

function isConverged(pods: readonly DaemonPod[], now: number): boolean {
  return pods.length === 1 && pods[0]!.updated && !pods[0]!.terminating && isDaemonPodAvailable(pods[0]!, now);
}

function nodeState(shouldRun: boolean, pods: readonly DaemonPod[], now: number): NodeRolloutState {
  // Counted, not filtered: this runs for every node of the plan.
  let live = 0;
  let fresh = 0;
  let firstFresh: DaemonPod | undefined;
  for (let i = 0; i < pods.length; i++) {
    const pod = pods[i]!;
    if (pod.terminating) continue;
    live++;
    if (!pod.updated) continue;
    fresh++;
    firstFresh ??= pod;
  }
  if (live === 0) return pods.length > 0 ? 'terminating' : shouldRun ? 'missing' : 'not-eligible';
  if (!shouldRun) return 'misscheduled';
  if (fresh > 0 && fresh < live) return 'surging';
  if (firstFresh === undefined) return 'old';
  return isDaemonPodAvailable(firstFresh, now) ? 'updated' : 'updating';
}

function summarisePod(pod: DaemonPod, now: number): PodSummary {
  const summary: Mutable<PodSummary> = {
    name: pod.name,
    hash: pod.pod.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '',
    updated: pod.updated,
    ready: pod.ready,
    available: isDaemonPodAvailable(pod, now),
    terminating: pod.terminating,
    phase: pod.phase,
  };
  const problem = podProblemAt(pod.pod, now);
  if (problem) summary.problem = problem;
  return summary;
}

function unmodelledVersion(minor: ControllerMinor): Blocker[] {
  const modelled = modelledMinor(minor);
  if (modelled === minor) return [];
  return [
    {
      kind: 'unmodelled-version',
      message: `Kubernetes ${formatMinor(minor)} is outside the controller versions this plan models (${formatMinor(OLDEST_MODELLED_MINOR)} to ${formatMinor(NEWEST_MODELLED_MINOR)}): planned as the ${formatMinor(modelled)} controller decides`,
    },
  ];
}

/** A stored DaemonSet the API server would not admit now, but the controller acts on (see isToleratedByController). */
function notAdmissible(ds: DaemonSet): Blocker[] {
  return validateDaemonSet(ds)
    .filter(isToleratedByController)
    .map((error) => ({
      kind: 'not-admissible' as const,
      message: `the API server would not admit this DaemonSet as stored (${formatFieldError(error)}); planned as the controller acts on it${
        error.field === 'spec.selector' ? '' : ' (maxUnavailable 1)'
      }`,
    }));
}
