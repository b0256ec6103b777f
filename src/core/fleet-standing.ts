// Where a fleet rollout stands, as `status --contexts` sees it (docs/commands/status.md#a-fleet-rollout): from the
// DaemonSets that command read anyway, which may be only some of the contexts the fleet's plan names. The fleet's
// phase is fleet-machine.ts's own derivation (fleetViewOfClusters, as `fleet status` has it); the contexts not asked
// here are assumed from the records that were read, since the fleet moves to a wave only once every earlier one
// completed: an earlier wave's cluster is complete, the current wave's is as its asked neighbour, a later one pending.
import {
  type FleetCluster,
  type FleetClusterInput,
  type FleetPlan,
  type FleetView,
  fleetClusterOf,
  recordedGenerationOf,
  fleetIdOf,
  fleetRecordOf,
  fleetViewOfClusters,
  planOfRecord,
  waveOfContext,
} from './fleet-machine.js';

/** One fleet rollout (one plan id) as the contexts read here show it. */
export interface FleetStanding {
  /** The fleet's view: its phase and wave (0-based), the not-asked clusters as assumed (their message says so). */
  readonly view: FleetView;
  /** The plan's contexts read here, each as fleetClusterOf has it (an unreadable one: unreachable), in the plan's order. */
  readonly asked: readonly FleetCluster[];
  /** The plan's contexts this command did not ask, in the plan's order. */
  readonly notAsked: readonly string[];
}

export const NOT_ASKED_HERE = 'not asked here';

/** Whether the fleet has ended: a record left behind, not a rollout under way. */
const ended = (standing: FleetStanding) => standing.view.phase === 'complete' || standing.view.phase === 'aborted';

/**
 * Each fleet rollout recorded in the DaemonSets read (one per plan id; those under way first, then in the order
 * first read), and where it stands. Empty when no cluster read holds a fleet record.
 */
export function fleetStandingsOf(inputs: readonly FleetClusterInput[]): FleetStanding[] {
  const plans = new Map<string, FleetPlan>();
  for (const input of inputs) {
    if ('error' in input) continue;
    const found = fleetRecordOf(input.ds);
    if (found.kind !== 'record') continue;
    const plan = planOfRecord(found.record);
    // Keyed by the plan's hash, as fleetClusterOf knows its own fleet's records.
    if (!plans.has(fleetIdOf(plan))) plans.set(fleetIdOf(plan), plan);
  }
  const standings = [...plans.values()].map((plan) => standingOf(plan, inputs));
  return [...standings.filter((s) => !ended(s)), ...standings.filter(ended)];
}

function standingOf(plan: FleetPlan, inputs: readonly FleetClusterInput[]): FleetStanding {
  const read = new Map(inputs.map((input) => [input.context, input]));
  const generation = recordedGenerationOf(plan, inputs);
  const asked = plan.contexts.filter((context) => read.has(context)).map((context) => fleetClusterOf(plan, read.get(context)!, generation));
  const notAsked = plan.contexts.filter((context) => !read.has(context));
  // The wave the asked clusters have reached: the fleet started it, so it completed every wave before it.
  const reached = Math.max(-1, ...asked.filter((c) => c.touched).map((c) => c.wave));
  // A neighbour that stopped speaks for itself only: the fleet stops on it, not on a cluster nobody read.
  const neighbours = asked.filter((c) => c.touched && c.wave === reached);
  const neighbour = neighbours.find((c) => c.phase !== 'failed' && c.phase !== 'changed');
  const assumed = (context: string): FleetCluster => {
    const wave = waveOfContext(plan, context);
    if (wave < reached) return {context, wave, phase: 'complete', touched: true, message: NOT_ASKED_HERE};
    if (wave === reached) return {...(neighbour ?? {phase: 'starting', touched: true}), context, wave, message: NOT_ASKED_HERE};
    return {context, wave, phase: 'pending', touched: false, message: NOT_ASKED_HERE};
  };
  const clusters = plan.contexts.map((context) => asked.find((c) => c.context === context) ?? assumed(context));
  return {view: fleetViewOfClusters(plan, clusters), asked, notAsked};
}

/**
 * One context's part in the fleets: the fleet whose record it holds, else the first whose plan names it (a cluster
 * of a later wave, not touched yet). Undefined: no fleet read here names it.
 */
export function fleetPartOf(
  standings: readonly FleetStanding[],
  input: FleetClusterInput,
): {readonly standing: FleetStanding; readonly cluster: FleetCluster} | undefined {
  const found = 'ds' in input ? fleetRecordOf(input.ds) : undefined;
  const own = found?.kind === 'record' ? standings.find((s) => s.view.id === found.record.id) : undefined;
  const standing = own ?? standings.find((s) => s.asked.some((c) => c.context === input.context));
  const cluster = standing?.asked.find((c) => c.context === input.context);
  return standing && cluster ? {standing, cluster} : undefined;
}
