// What keeps a planned rollout from converging, or what a person should know on the way: each finding read off the
// simulated end state (plan-simulation.ts) or the cluster as it is, with the nodes it concerns.
import {isNodeReady, isStuckTerminating, podProblemAt} from './availability.js';
import {budgetWayForward, type BudgetHold, holdBlocks, holdsUntilReady, holdWords} from './budget-use.js';
import {isDaemonPodAvailable, runsOldPod} from './daemon-pods.js';
import {formatTaint} from './eligibility.js';
import {gatedWayForward} from './gated-machine.js';
import type {SimulatedRollout} from './plan-simulation.js';
import {classifyNodeForUpdate, countsAgainstBudget} from './rolling-update.js';
import {planStepWave} from './step-wave.js';
import type {ReconcileInput} from './sync.js';
import type {Blocker, ClusterState, GatedProgress, PausedInfo} from './types.js';
import {formatCount, formatList, plural} from './words.js';

export interface BlockerContext {
  readonly converges: boolean;
  readonly paused: PausedInfo | undefined;
  readonly gated: GatedProgress | undefined;
}

export interface Findings {
  readonly blockers: Blocker[];
  readonly warnings: Blocker[];
}

/** Every finding of a plan, blockers (what stops it) apart from warnings (what it does on the way). */
export function findBlockers(input: ReconcileInput, sim: SimulatedRollout, now: number, ctx: BlockerContext): Findings {
  const blockers: Blocker[] = [];
  const warnings: Blocker[] = [];
  warnings.push(...taintWarnings(input, sim), ...stuckTerminating(input, now));
  if (input.surge && sim.hostPorts) {
    const entry = {
      kind: 'host-port-surge' as const,
      message: 'the template uses a hostPort and maxSurge > 0: a surge pod cannot start while the old pod on its node holds the port',
      nodes: [...sim.hostPortWaiting].map((i) => sim.engine.slots[i]!.name),
    };
    (sim.hostPortWaiting.size > 0 ? blockers : warnings).push(entry);
  }
  if (ctx.converges) return {blockers, warnings};
  if (input.strategyType !== 'RollingUpdate') {
    const onDelete = onDeleteFinding(input, sim, ctx);
    if (onDelete) (onDelete.kind === 'warning' ? warnings : blockers).push(onDelete.finding);
  }
  if (sim.rollingUpdateError) blockers.push(rollingUpdateFailure(sim, sim.rollingUpdateError));
  blockers.push(...unavailablePods(sim, now));
  const exhausted = budgetExhausted(input, sim);
  if (exhausted) blockers.push(exhausted);
  return {blockers, warnings};
}

// upstream: pkg/controller/daemon/daemon_controller.go NodeShouldRunDaemonPod (shouldRun false, shouldContinueRunning
// for a NoSchedule taint only)
// Nodes kept from the daemon by a taint are not part of the rollout, but a person wants to know, above all when the
// rolling update removes an old pod there that nothing will replace. One warning per reason, one per such node.
function taintWarnings(input: ReconcileInput, sim: SimulatedRollout): Blocker[] {
  const warnings: Blocker[] = [];
  const byTaint = new Map<string, string[]>();
  input.slots.forEach((slot, index) => {
    const {taint} = slot.eligibility;
    if (!slot.node || slot.eligibility.shouldRun || taint === undefined) return;
    const deleted = sim.deletedBy[index];
    if (slot.eligibility.shouldContinueRunning && deleted) {
      warnings.push({
        kind: 'node-loses-daemon',
        message: `${slot.name} loses its daemon pod: the rolling update deletes the old pod (${deleted.pod}, wave ${deleted.wave}) and the taint ${formatTaint(taint)} keeps a new one from being created`,
        nodes: [slot.name],
      });
      return;
    }
    const list = byTaint.get(slot.eligibility.reason) ?? [];
    list.push(slot.name);
    byTaint.set(slot.eligibility.reason, list);
  });
  for (const [reason, nodes] of byTaint) {
    warnings.push({
      kind: 'untolerated-taint',
      message: `${reason}: no daemon pod will be created on ${nodes.length === 1 ? 'that node' : 'those nodes'}`,
      nodes,
    });
  }
  return warnings;
}

/** A pod terminating past any hope of going: its node is gone or not Ready, or its deletion is long overdue. */
function stuckTerminating(input: ReconcileInput, now: number): Blocker[] {
  const warnings: Blocker[] = [];
  // Indexed: a CLI run makes this pass cold, and a cold for-of allocates at every step.
  for (let i = 0; i < input.slots.length; i++) {
    const slot = input.slots[i]!;
    for (let j = 0; j < slot.pods.length; j++) {
      const pod = slot.pods[j]!;
      if (!pod.terminating || !isStuckTerminating(pod.pod, slot.node, now)) continue;
      const why = !slot.node
        ? 'its node is gone'
        : !isNodeReady(slot.node)
          ? 'its node is not Ready, so nothing confirms the deletion'
          : `its deletion was due at ${pod.pod.metadata.deletionTimestamp}`;
      warnings.push({kind: 'pod-terminating', message: `pod ${pod.name} on ${slot.name} is stuck terminating: ${why}`, nodes: [slot.name]});
    }
  }
  return warnings;
}

// upstream: pkg/controller/daemon/daemon_controller.go updateDaemonSet (OnDelete: no rollingUpdate; manage only
// replaces pods that are gone)
// Old pods stay until someone deletes them. Paused by ds-rollout, that is the operator's choice (a warning with the
// way on); otherwise the strategy is what holds them (a blocker).
function onDeleteFinding(input: ReconcileInput, sim: SimulatedRollout, ctx: BlockerContext): {kind: 'warning' | 'blocker'; finding: Blocker} | undefined {
  const old = sim.engine.slots.filter((slot) => slot.pods.some((pod) => !pod.updated)).map((slot) => slot.name);
  // Counted as the report's detail counts them: nodes running an old pod that is not already going.
  const running = input.slots.filter((slot) => slot.node && runsOldPod(slot.pods)).length;
  const runs = running === 1 ? '1 node runs' : `${formatCount(running)} nodes run`;
  // Held by a gated rollout, the way on is the state machine's, never a plain step or resume (both refused).
  if (running > 0 && ctx.paused && ctx.gated) {
    const ds = {namespace: input.ds.metadata.namespace ?? 'default', name: input.ds.metadata.name};
    const message = `paused by a gated rollout (${ctx.gated.phase}): ${runs} an old pod; ${gatedWayForward(ctx.gated.phase, ds)}`;
    return {kind: 'warning', finding: {kind: 'on-delete', message}};
  }
  if (running > 0 && ctx.paused) {
    const message = `paused by ds-rollout: ${runs} an old pod, waiting for \`ds-rollout step\` (or \`ds-rollout resume\`)`;
    return {kind: 'warning', finding: {kind: 'on-delete', message}};
  }
  if (old.length === 0) return undefined;
  const message = `updateStrategy is ${input.strategyType || 'unset'}: the controller replaces an old pod only after someone deletes it`;
  return {kind: 'blocker', finding: {kind: 'on-delete', message, nodes: old}};
}

/** The rolling update fails as a whole (an old pod bound to a node that no longer exists): which pods cause it. */
function rollingUpdateFailure(sim: SimulatedRollout, error: string): Blocker {
  const ghosts = sim.engine.slots.filter((slot) => !slot.exists && slot.pods.some((pod) => !pod.updated && !pod.terminating));
  const detail = ghosts.map((slot) => `${slot.pods.find((pod) => !pod.updated)!.name} on ${slot.name}`).join(', ');
  return {
    kind: 'rolling-update-error',
    message: `the rolling update fails: ${error}${detail ? ` (${detail})` : ''}`,
    nodes: ghosts.map((slot) => slot.name),
  };
}

/** Pods that are still unavailable when the simulation ends (not those waiting for a host port: that has its own). */
function unavailablePods(sim: SimulatedRollout, now: number): Blocker[] {
  const blockers: Blocker[] = [];
  sim.engine.slots.forEach((slot, index) => {
    if (!slot.exists) return;
    for (const pod of slot.pods) {
      if (pod.terminating || isDaemonPodAvailable(pod, sim.end) || sim.hostPortWaiting.has(index)) continue;
      const problem = podProblemAt(pod.pod, now);
      const what = pod.ready ? 'is ready but never becomes available' : `is not ready${problem ? ` (${problem})` : ''}`;
      blockers.push({kind: 'pod-unavailable', message: `pod ${pod.name} on ${slot.name} ${what}`, nodes: [slot.name]});
    }
  });
  return blockers;
}

// upstream: pkg/controller/daemon/update.go rollingUpdate (numUnavailable against maxUnavailable, numSurge against
// maxSurge)
// Old pods wait when the nodes that count against the budget use all of it; who holds it, and until when.
function budgetExhausted(input: ReconcileInput, sim: SimulatedRollout): Blocker | undefined {
  const {engine, end} = sim;
  const decision = engine.peekRollingUpdate(end);
  if (!decision || decision.waiting === 0 || !('maxUnavailable' in input.budgets)) return undefined;
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
  return {
    kind: 'budget-exhausted',
    // Held by NotReady nodes (or with them): who holds it until when, and what would move the rollout on.
    message:
      input.surge || hold.untilReady.length === 0
        ? `${plural(held.length, 'node')} that never become${held.length === 1 ? 's' : ''} available use${held.length === 1 ? 's' : ''} the whole ${budget}: ${waits}`
        : `${holdWords(hold)}, the whole budget: ${waits}; ${budgetWayForward(hold, 'controller')}`,
    nodes: held.map((index) => engine.slots[index]!.name),
  };
}

/**
 * Paused by ds-rollout, the waves are the steps': when the budget is held by nodes that do not clear by themselves
 * (above all NotReady ones, where a deleted pod stays terminating), what the next step runs into, said before it
 * happens, with the way on. The step decides by the same rule (planStepWave).
 */
export function pausedStepHold(state: ClusterState, now: number, paused: boolean): Blocker[] {
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
