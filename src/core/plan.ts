// planRollout: the next sync and every wave until the rollout converges, as a fold of the same engine
// that syncDaemonSet runs once. The simulated world: deletions finish at once; pods the controller
// creates become ready at once and available after minReadySeconds (unless a host port is still taken
// by the node's other pod); pods that are not ready now stay not ready; no node is in failed-pod backoff.
import {isNodeReady, isPodStarting, isStuckTerminating, podProblemAt} from './availability.js';
import {formatTaint} from './eligibility.js';
import {budgetInUse, budgetWayForward, type BudgetHold, holdBlocks, holdsUntilReady, holdWords} from './budget-use.js';
import {planStepWave} from './step-wave.js';
import {byName, type DaemonPod, isDaemonPodAvailable, runsOldPod} from './daemon-pods.js';
import {CONTROLLER_REVISION_HASH_LABEL} from './pod-template.js';
import type {ReconcileEngine} from './engine.js';
import {pausedInfoOf, unpausedWarning} from './pause.js';
import {gatedProgressOf, gatedWayForward} from './gated-machine.js';
import type {GatedProgress} from './types.js';
import {classifyNodeForUpdate, countsAgainstBudget} from './rolling-update.js';
import {MinHeap} from './min-heap.js';
import {currentRevisionOf} from './revisions.js';
import {computeDaemonSetStatus} from './status.js';
import {formatCount, formatList, plural} from './words.js';
import {type ControllerMinor, formatMinor, modelledMinor, NEWEST_MODELLED_MINOR, OLDEST_MODELLED_MINOR} from './versions.js';
import type {DurationEstimate, PodTimings} from './timing.js';
import {engineFor, prepareReconcile, type ReconcileInput, syncGate} from './sync.js';
import {formatFieldError, isToleratedByController, validateDaemonSet} from './validation.js';
import type {
  Blocker,
  ClusterState,
  DaemonSet,
  NodePlan,
  NodeRolloutState,
  PausedInfo,
  PodCreation,
  PodDeletion,
  PodSummary,
  RolloutBudgets,
  RolloutPlan,
  TimingEstimate,
  Wave,
} from './types.js';

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

export function planRollout(state: ClusterState, options: PlanOptions): RolloutPlan {
  const {now} = options;
  const askedMinor = options.controllerMinor ?? NEWEST_MODELLED_MINOR;
  const input = prepareReconcile(state, modelledMinor(askedMinor));
  const {ds} = input;
  const status = computeDaemonSetStatus(input.slots, now);
  const minReadyMs = Math.max(0, input.target.minReadySeconds) * 1000;
  const hostPorts = templateUsesHostPorts(input);

  const engine = engineFor(input, {backoffAcrossSyncs: false});
  const events = new TimeQueue();
  const startMs = options.timings?.podStart.ms ?? 0;
  const deletionMs = options.timings?.podDeletion.ms ?? 0;
  // Nodes whose planned pod is starting: when it turns Ready.
  const starts = new Map<number, number>();
  let lastDeletionAt: number | undefined;
  input.slots.forEach((slot, index) => {
    for (const pod of slot.pods)
      if (pod.availableAt !== undefined && pod.availableAt > now && Number.isFinite(pod.availableAt)) events.push(pod.availableAt, index);
  });

  // Pods on nodes that are not Ready: deleting one does not make it go.
  const unconfirmed = new Map<string, {index: number; pod: DaemonPod}>();
  input.slots.forEach((slot, index) => {
    if (slot.node && !isNodeReady(slot.node)) for (const pod of slot.pods) if (!pod.terminating) unconfirmed.set(pod.name, {index, pod});
  });
  const waves: Wave[] = [];
  const waveOfNode = new Map<string, number>();
  const deletedBy = new Map<string, string>();
  const hostPortWaiting = new Set<number>();
  let nextSync: {create: readonly PodCreation[]; delete: readonly PodDeletion[]} | undefined;
  let arbitrary = false;
  let splitBySync = false;
  let rollingUpdateError: string | undefined;
  let terminatingSettled = false;
  let t = now;
  let syncs = 0;
  const maxSyncs = options.maxSyncs ?? 4 * input.slots.length + 1000;
  let stoppedEarly = false;

  // Being deleted, or selecting all pods: upstream's sync returns at once, and so does every later one.
  const gate = syncGate(ds);
  for (;;) {
    if (gate) break;
    if (++syncs > maxSyncs) {
      stoppedEarly = true;
      break;
    }
    const step = engine.sync(t);
    // The contract lists a sync's actions by node name, whatever order the controller issues them in.
    const create = [...step.manage.create, ...step.rollingUpdate.create].sort((a, b) => byName(a.node, b.node));
    // A deletion on a node that is not Ready is said to stay terminating (see below).
    const del = [...step.manage.delete, ...step.rollingUpdate.delete]
      .sort((a, b) => byName(a.node, b.node))
      .map((d) => (unconfirmed.has(d.pod) ? {...d, staysTerminating: true} : d));
    if (!nextSync) {
      nextSync = {create, delete: del};
      splitBySync = step.manage.create.length + step.manage.delete.length > 0 && step.rollingUpdate.create.length + step.rollingUpdate.delete.length > 0;
    }
    if (step.rollingUpdateError) rollingUpdateError = step.rollingUpdateError;
    if (step.rollingUpdateDecision?.arbitraryChoice) arbitrary = true;
    // A pod deleted on a node that is not Ready stays, terminating: no kubelet confirms the deletion, and the
    // rolling update keeps counting the node as unavailable.
    for (const d of del) {
      const kept = unconfirmed.get(d.pod);
      if (kept === undefined) continue;
      unconfirmed.delete(d.pod);
      engine.addPod(kept.index, {
        ...kept.pod,
        terminating: true,
        availableAt: undefined,
        pod: {...kept.pod.pod, metadata: {...kept.pod.pod.metadata, deletionTimestamp: new Date(t).toISOString()}},
      });
    }
    const changed = create.length + del.length > 0;
    if (changed) {
      waves.push({create, delete: del, at: (t - now) / 1000});
      for (const d of del) if (!deletedBy.has(d.node)) deletedBy.set(d.node, `${d.pod}, wave ${waves.length}`);
      const touched = new Set<number>();
      const deletedOn = new Set<number>();
      for (const c of create) touched.add(engine.indexOf(c.node)!);
      for (const d of del) {
        touched.add(engine.indexOf(d.node)!);
        deletedOn.add(engine.indexOf(d.node)!);
      }
      if (del.length > 0) {
        lastDeletionAt = t;
        // The controller looks again when the deleted pods are gone (their DELETED events), not at once.
        if (deletionMs > 0) events.push(t + deletionMs, SYNC_ONLY);
      }
      for (const index of [...touched, ...hostPortWaiting]) {
        const name = engine.slots[index]!.name;
        if (!waveOfNode.has(name)) waveOfNode.set(name, waves.length);
        if (startMs === 0) settlePlannedPods(engine, index, t, minReadyMs, hostPorts, events, hostPortWaiting);
        else if (!starts.has(index) && engine.slots[index]!.pods.some((pod) => pod.planned && !pod.ready)) {
          // A host port is free only once the old pod is gone.
          const at = t + startMs + (hostPorts && deletedOn.has(index) ? deletionMs : 0);
          starts.set(index, at);
          events.push(at, index);
        }
      }
    }
    if (!terminatingSettled) {
      // Pods that were already terminating finish now, like the deletions the plan issues; except where
      // nothing will confirm the deletion: a node that is not Ready, or a grace period long over.
      terminatingSettled = true;
      let dropped = false;
      engine.slots.forEach((_, index) => {
        const node = input.slots[index]!.node;
        if (engine.removePods(index, (pod) => pod.terminating && !isStuckTerminating(pod.pod, node, now))) dropped = true;
        // Pods that are merely starting come up now, like the ones the plan creates.
        for (const pod of engine.slots[index]!.pods) {
          if (pod.planned || pod.ready || !isPodStarting(pod.pod, node, now)) continue;
          // A pod already starting is Ready podStart after its creation (or now, if that has passed).
          const readyAt = Math.max(now, Date.parse(pod.pod.metadata.creationTimestamp ?? '') + startMs || now);
          const availableAt = minReadyMs === 0 && readyAt === now ? Number.NEGATIVE_INFINITY : readyAt + minReadyMs;
          engine.replacePod(index, pod, {...pod, ready: true, availableAt});
          if (availableAt > now) events.push(availableAt, index);
          dropped = true;
        }
      });
      if (dropped && !changed) continue;
    }
    if (changed && !(del.length > 0 && deletionMs > 0)) continue;
    const next = events.popUntilNext(t);
    if (!next) break;
    t = next.at;
    for (const index of next.indexes) {
      if (index === SYNC_ONLY) continue;
      engine.touch(index);
      const startAt = starts.get(index);
      if (startAt !== undefined && startAt <= t) {
        starts.delete(index);
        settlePlannedPods(engine, index, t, minReadyMs, hostPorts, events, hostPortWaiting);
      }
    }
  }

  const finalSlots = engine.slots;
  const converges = !stoppedEarly && finalSlots.every((slot) => !slot.exists || !slot.eligibility.shouldRun || isConverged(slot.pods, t));
  const first = nextSync ?? {create: [], delete: []};
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
  const spent = paused ? paused.budgets : strategyBudgets;
  const budget = budgetInUse(input.slots, spent, now);
  const found = findBlockers(input, engine, t, now, {converges, rollingUpdateError, hostPorts, hostPortWaiting, paused, gated}, deletedBy);
  // When the controller does not sync it, nothing the rolling update would wait for matters.
  const blockers: Blocker[] =
    gate?.skipped === 'being-deleted'
      ? [{kind: 'being-deleted', message: `the DaemonSet is being deleted (since ${ds.metadata.deletionTimestamp}): the controller does nothing more for it`}]
      : gate?.skipped === 'selects-all'
        ? [{kind: 'selects-all', message: 'the selector is empty: the controller records a SelectingAll warning event and does nothing for it'}]
        : [...found.blockers, ...pausedStepHold(state, now, paused !== undefined && gated === undefined)];
  const unpaused = unpausedWarning(ds);
  const warnings = [...unmodelledVersion(askedMinor), ...(unpaused ? [unpaused] : []), ...notAdmissible(ds), ...found.warnings];
  const firstMessageByNode = (findings: readonly Blocker[]) => {
    const byNode = new Map<string, string>();
    for (const b of findings) for (const node of b.nodes ?? []) if (!byNode.has(node)) byNode.set(node, b.message);
    return byNode;
  };
  const blockerOfNode = firstMessageByNode(blockers);
  const warningOfNode = firstMessageByNode(warnings);

  // Built field by field, in the contract's order (so that the output prints them as they are): one per node.
  const nodes: NodePlan[] = [];
  for (const slot of input.slots) {
    if (!slot.node) continue;
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
    const wave = waveOfNode.get(slot.name);
    if (wave !== undefined) plan.wave = wave;
    nodes.push(plan);
  }

  const current = currentRevisionOf(input.history.update.hash, input.revisions, input.daemonPods);
  const update = input.history.update;

  const notes: string[] = [];
  if (arbitrary) notes.push('Where the budget leaves a choice, upstream picks arbitrarily (Go map order); this plan picks nodes in name order.');
  if (splitBySync) {
    notes.push(
      "The next sync shows manage's and the rolling update's actions together, as upstream's tests do; the live controller may split them over two syncs while its informer catches up.",
    );
  }
  if (!update.exists)
    notes.push(`Revision ${update.revision} does not exist yet: the controller will create it; its hash ${update.hash} is the planner's stand-in.`);
  if (waves.length > 0 && !options.timings) {
    notes.push(
      `Assumed: deletions finish at once (not on NotReady nodes); new and starting pods become ready at once and available after minReadySeconds (${minReadyMs / 1000}s); other pods that are not ready stay so.`,
    );
  }
  if (waves.length > 0 && options.timings) {
    notes.push(
      `Assumed: deletions finish after ${formatSeconds(deletionMs)} (not on NotReady nodes); new and starting pods become ready ${formatSeconds(startMs)} after creation and available after minReadySeconds (${minReadyMs / 1000}s) more; other pods that are not ready stay so.`,
    );
  }
  if (input.slots.some((slot) => slot.pods.some((pod) => pod.phase === 'Failed')))
    notes.push('Assumed: no node is in failed-pod backoff at the start of a sync (that state lives only in the controller).');
  if (stoppedEarly) notes.push(`The simulation stopped after ${maxSyncs} syncs without converging.`);
  if (paused) {
    notes.push('Paused: the controller still creates pods from the current template on nodes that join and replaces deleted pods with it.');
  }

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
    nodes,
    nextSync: first,
    waves,
    complete,
    converges,
    blockers,
    warnings,
    notes,
    budget,
    ...(paused ? {paused} : {}),
    ...(options.timings
      ? {
          timing: {
            ...(converges && !complete ? {etaSeconds: (Math.max(t, lastDeletionAt === undefined ? t : lastDeletionAt + deletionMs) - now) / 1000} : {}),
            podStart: estimate(options.timings.podStart),
            podDeletion: estimate(options.timings.podDeletion),
          },
        }
      : {}),
    ...(gated ? {gated} : {}),
  };
}

/**
 * Paused by ds-rollout, the waves are the steps': when the budget is held by nodes that do not clear by themselves
 * (above all NotReady ones, where a deleted pod stays terminating), what the next step runs into, said before it
 * happens, with the way on. The step decides by the same rule (planStepWave).
 */
function pausedStepHold(state: ClusterState, now: number, paused: boolean): Blocker[] {
  if (!paused) return [];
  const planned = planStepWave(state, {now});
  if (!planned.ok) return [];
  const {wave} = planned;
  const nodesOf = (hold: BudgetHold) => [...hold.untilReady, ...hold.other];
  if (wave.holdAfter) {
    const stays = wave.delete.filter((d) => d.staysTerminating).map((d) => `${d.pod} on ${d.node}`);
    const first =
      stays.length > 0
        ? `the next step deletes ${formatList(stays, 3)}, ${stays.length === 1 ? 'which stays' : 'which stay'} terminating; after it`
        : 'after the next step';
    return [
      {
        kind: 'budget-exhausted',
        message: `${first} no step can start: ${holdWords(wave.holdAfter)}; ${budgetWayForward(wave.holdAfter, 'step')}`,
        nodes: nodesOf(wave.holdAfter),
      },
    ];
  }
  if (wave.delete.length === 0 && !wave.done && !wave.unavailable.some((use) => use.settling) && holdBlocks(wave.hold) && wave.hold.untilReady.length > 0) {
    return [
      {
        kind: 'budget-exhausted',
        message: `no step can start: ${holdWords(wave.hold)}; ${budgetWayForward(wave.hold, 'step', wave.unavailable.length)}`,
        nodes: nodesOf(wave.hold),
      },
    ];
  }
  return [];
}

/** The plan's objects are built field by field before they are handed out read-only. */
type Mutable<T> = {-readonly [K in keyof T]: T[K]};

function estimate(value: DurationEstimate): TimingEstimate {
  return {seconds: value.ms / 1000, basis: value.basis, observations: value.observations};
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))}s`;
}

function isConverged(pods: readonly DaemonPod[], now: number): boolean {
  return pods.length === 1 && pods[0]!.updated && !pods[0]!.terminating && isDaemonPodAvailable(pods[0]!, now);
}

/** After a wave, the pods it created start: ready now, available after minReadySeconds, unless a host port is still held. */
function settlePlannedPods(
  engine: ReconcileEngine,
  index: number,
  t: number,
  minReadyMs: number,
  hostPorts: boolean,
  events: TimeQueue,
  hostPortWaiting: Set<number>,
): void {
  const pods = engine.slots[index]!.pods;
  hostPortWaiting.delete(index);
  for (const pod of pods) {
    if (!pod.planned || pod.ready) continue;
    if (hostPorts && pods.some((other) => other !== pod && !other.terminating)) {
      hostPortWaiting.add(index);
      continue;
    }
    const availableAt = minReadyMs === 0 ? Number.NEGATIVE_INFINITY : t + minReadyMs;
    engine.replacePod(index, pod, {...pod, ready: true, phase: 'Running', availableAt});
    if (minReadyMs > 0) events.push(availableAt, index);
  }
}

function templateUsesHostPorts(input: ReconcileInput): boolean {
  const spec = input.ds.spec.template.spec;
  return [...(spec.containers ?? []), ...(spec.initContainers ?? [])].some((c) => (c.ports ?? []).some((p) => (p.hostPort ?? 0) > 0));
}

function nodeState(shouldRun: boolean, pods: readonly DaemonPod[], now: number): NodeRolloutState {
  const live = pods.filter((pod) => !pod.terminating);
  if (live.length === 0) return pods.length > 0 ? 'terminating' : shouldRun ? 'missing' : 'not-eligible';
  if (!shouldRun) return 'misscheduled';
  const fresh = live.filter((pod) => pod.updated);
  if (fresh.length > 0 && fresh.length < live.length) return 'surging';
  if (fresh.length === 0) return 'old';
  return isDaemonPodAvailable(fresh[0]!, now) ? 'updated' : 'updating';
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

interface BlockerContext {
  readonly converges: boolean;
  readonly rollingUpdateError: string | undefined;
  readonly hostPorts: boolean;
  readonly hostPortWaiting: ReadonlySet<number>;
  readonly paused: PausedInfo | undefined;
  readonly gated: GatedProgress | undefined;
}

interface Findings {
  readonly blockers: Blocker[];
  readonly warnings: Blocker[];
}

function findBlockers(
  input: ReconcileInput,
  engine: ReconcileEngine,
  end: number,
  now: number,
  ctx: BlockerContext,
  deletedBy: ReadonlyMap<string, string>,
): Findings {
  const blockers: Blocker[] = [];
  const warnings: Blocker[] = [];
  const names = (indexes: Iterable<number>) => [...indexes].map((i) => engine.slots[i]!.name);

  // Nodes kept from the daemon by a taint: they are not part of the rollout, but a person wants to know,
  // above all when the rolling update removes an old pod there that nothing will replace.
  const byTaint = new Map<string, string[]>();
  for (const slot of input.slots) {
    const {taint} = slot.eligibility;
    if (!slot.node || slot.eligibility.shouldRun || taint === undefined) continue;
    if (slot.eligibility.shouldContinueRunning && deletedBy.has(slot.name)) {
      warnings.push({
        kind: 'node-loses-daemon',
        message: `${slot.name} loses its daemon pod: the rolling update deletes the old pod (${deletedBy.get(slot.name)}) and the taint ${formatTaint(taint)} keeps a new one from being created`,
        nodes: [slot.name],
      });
      continue;
    }
    const list = byTaint.get(slot.eligibility.reason) ?? [];
    list.push(slot.name);
    byTaint.set(slot.eligibility.reason, list);
  }
  for (const [reason, nodes] of byTaint) {
    warnings.push({
      kind: 'untolerated-taint',
      message: `${reason}: no daemon pod will be created on ${nodes.length === 1 ? 'that node' : 'those nodes'}`,
      nodes,
    });
  }

  for (const slot of input.slots) {
    for (const pod of slot.pods) {
      if (!pod.terminating || !isStuckTerminating(pod.pod, slot.node, now)) continue;
      const why = !slot.node
        ? 'its node is gone'
        : !isNodeReady(slot.node)
          ? 'its node is not Ready, so nothing confirms the deletion'
          : `its deletion was due at ${pod.pod.metadata.deletionTimestamp}`;
      warnings.push({kind: 'pod-terminating', message: `pod ${pod.name} on ${slot.name} is stuck terminating: ${why}`, nodes: [slot.name]});
    }
  }

  if (input.surge && ctx.hostPorts) {
    const entry = {
      kind: 'host-port-surge' as const,
      message: 'the template uses a hostPort and maxSurge > 0: a surge pod cannot start while the old pod on its node holds the port',
      nodes: names(ctx.hostPortWaiting),
    };
    (ctx.hostPortWaiting.size > 0 ? blockers : warnings).push(entry);
  }
  if (ctx.converges) return {blockers, warnings};

  if (input.strategyType !== 'RollingUpdate') {
    const old = engine.slots.filter((slot) => slot.pods.some((pod) => !pod.updated)).map((slot) => slot.name);
    // Paused, old pods wait for a step by design: the operator's choice, not a fault of any node. Counted as the
    // report's detail counts them: nodes running an old pod that is not already going.
    const running = input.slots.filter((slot) => slot.node && runsOldPod(slot.pods)).length;
    const runs = running === 1 ? '1 node runs' : `${formatCount(running)} nodes run`;
    // Held by a gated rollout, the way on is the state machine's, never a plain step or resume (both refused).
    if (running > 0 && ctx.paused && ctx.gated)
      warnings.push({
        kind: 'on-delete',
        message: `paused by a gated rollout (${ctx.gated.phase}): ${runs} an old pod; ${gatedWayForward(ctx.gated.phase, {namespace: input.ds.metadata.namespace ?? 'default', name: input.ds.metadata.name})}`,
      });
    else if (running > 0 && ctx.paused)
      warnings.push({
        kind: 'on-delete',
        message: `paused by ds-rollout: ${runs} an old pod, waiting for \`ds-rollout step\` (or \`ds-rollout resume\`)`,
      });
    else if (old.length > 0) {
      blockers.push({
        kind: 'on-delete',
        message: `updateStrategy is ${input.strategyType || 'unset'}: the controller replaces an old pod only after someone deletes it`,
        nodes: old,
      });
    }
  }
  if (ctx.rollingUpdateError) {
    const ghosts = engine.slots.filter((slot) => !slot.exists && slot.pods.some((pod) => !pod.updated && !pod.terminating));
    const detail = ghosts.map((slot) => `${slot.pods.find((pod) => !pod.updated)!.name} on ${slot.name}`).join(', ');
    blockers.push({
      kind: 'rolling-update-error',
      message: `the rolling update fails: ${ctx.rollingUpdateError}${detail ? ` (${detail})` : ''}`,
      nodes: ghosts.map((slot) => slot.name),
    });
  }

  engine.slots.forEach((slot, index) => {
    if (!slot.exists) return;
    for (const pod of slot.pods) {
      if (pod.terminating || isDaemonPodAvailable(pod, end) || ctx.hostPortWaiting.has(index)) continue;
      const problem = podProblemAt(pod.pod, now);
      const what = pod.ready ? 'is ready but never becomes available' : `is not ready${problem ? ` (${problem})` : ''}`;
      blockers.push({kind: 'pod-unavailable', message: `pod ${pod.name} on ${slot.name} ${what}`, nodes: [slot.name]});
    }
  });

  const decision = engine.peekRollingUpdate(end);
  if (decision && decision.waiting > 0 && 'maxUnavailable' in input.budgets) {
    const held: number[] = [];
    engine.slots.forEach((slot, index) => {
      if (slot.pods.length === 0 && !(slot.exists && slot.eligibility.shouldRun)) return;
      if (countsAgainstBudget(classifyNodeForUpdate(slot.pods, end), input.surge)) held.push(index);
    });
    const budget = input.surge ? `maxSurge budget (${input.budgets.maxSurge})` : `maxUnavailable budget (${input.budgets.maxUnavailable})`;
    const waits = `${plural(decision.waiting, 'old pod')} wait${decision.waiting === 1 ? 's' : ''}`;
    const hold: BudgetHold = {
      limit: input.budgets.maxUnavailable,
      untilReady: held.filter((index) => holdsUntilReady(input.slots[index]!.node)).map((index) => engine.slots[index]!.name),
      other: held.filter((index) => !holdsUntilReady(input.slots[index]!.node)).map((index) => engine.slots[index]!.name),
    };
    blockers.push({
      kind: 'budget-exhausted',
      // Held by NotReady nodes (or with them): who holds it until when, and what would move the rollout on.
      message:
        input.surge || hold.untilReady.length === 0
          ? `${plural(held.length, 'node')} that never become${held.length === 1 ? 's' : ''} available use${held.length === 1 ? 's' : ''} the whole ${budget}: ${waits}`
          : `${holdWords(hold)}, the whole budget: ${waits}; ${budgetWayForward(hold, 'controller')}`,
      nodes: names(held),
    });
  }
  return {blockers, warnings};
}

/** A queued instant that only makes the controller sync (a deletion finishing), for no node in particular. */
const SYNC_ONLY = -1;

/** Availability instants still to come, in time order. */
class TimeQueue {
  private readonly heap = new MinHeap<{at: number; index: number}>((a, b) => a.at < b.at);

  push(at: number, index: number): void {
    this.heap.push({at, index});
  }

  /** The next instant after `t` and every node with an event at that instant. */
  popUntilNext(t: number): {at: number; indexes: number[]} | undefined {
    while (this.heap.size > 0 && this.heap.peek()!.at <= t) this.heap.pop();
    const first = this.heap.pop();
    if (!first) return undefined;
    const indexes = [first.index];
    while (this.heap.size > 0 && this.heap.peek()!.at === first.at) indexes.push(this.heap.pop()!.index);
    return {at: first.at, indexes};
  }
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
