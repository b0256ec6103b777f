// The rollout report: for one cluster state and one clock, the verdict (complete, progressing, paused, stuck) with
// its reasons, each node's state and why, who uses the budget, and kubectl rollout status's own line. ds-plan's
// plan is its input; `status`, `status --watch` and the dashboard (with a terminal and without) all render this one
// report, so they cannot disagree.
import {isNodeReady, isPodReady, isPodStarting, isTerminatingOnTime} from './availability.js';
import {claimObjects} from './claim.js';
import {runsOldPod} from './daemon-pods.js';
import {getTargetNodeName} from './eligibility.js';
import {planObserved} from './observed-plan.js';
import {formatCount, plural} from './words.js';
import type {Blocker, ClusterState, DaemonSetStatusCounters, Node, NodePlan, Pod, PodSummary, RolloutPlan} from './types.js';

export type RolloutVerdict = 'complete' | 'progressing' | 'paused' | 'stuck';

export type NodeStatusState = 'updated' | 'waiting' | 'blocked' | 'not-eligible';

export interface NodeStatus {
  readonly name: string;
  readonly state: NodeStatusState;
  /** Why the node is not updated yet (empty when it is). */
  readonly reason: string;
  /** Node conditions that matter to a daemon pod: NotReady, cordoned. */
  readonly conditions: readonly string[];
  readonly pods: readonly PodSummary[];
  /** The wave (sync) of the plan that first changes this node, when one does. */
  readonly wave?: number;
}

export interface RolloutStatusReport {
  readonly kind: 'DaemonSetRolloutStatus';
  readonly daemonSet: {readonly namespace: string; readonly name: string};
  readonly verdict: RolloutVerdict;
  /** What `kubectl rollout status` prints (without its trailing newline). */
  readonly message: string;
  /** What stays in motion (progressing), what waits for a step (paused), or why nothing can move (stuck). */
  readonly detail: string;
  /** What can still move without a change, as data (the detail's words for a progressing or paused rollout). */
  readonly inFlight: readonly InFlight[];
  readonly generation: number;
  readonly observedGeneration: number;
  readonly strategy: RolloutPlan['strategy'];
  readonly revisions: RolloutPlan['revisions'];
  /** The counters as the controller last wrote them (kubectl's source). */
  readonly status: DaemonSetStatusCounters;
  readonly counts: Readonly<Record<NodeStatusState, number>>;
  readonly nodes: readonly NodeStatus[];
  readonly blockers: readonly Blocker[];
  readonly warnings: readonly Blocker[];
  /** The plan's view: whether the rollout reaches completion from here without a change. */
  readonly converges: boolean;
  /** Who uses the budget now (the recorded one while paused; limits of 0 for plain OnDelete). */
  readonly budget: RolloutPlan['budget'];
  /** Present when `ds-rollout pause` paused the DaemonSet. */
  readonly paused?: RolloutPlan['paused'];
  /** Present while a gated rollout is under way. */
  readonly gated?: RolloutPlan['gated'];
}

/** One thing in motion: the controller's next sync, pods starting, terminating, waiting out minReadySeconds. */
export interface InFlight {
  readonly kind: 'unobserved-generation' | 'next-sync' | 'final-status' | 'starting' | 'terminating' | 'min-ready';
  /** How many pods (or, for next-sync, creations and deletions). */
  readonly count?: number;
  readonly message: string;
}

/** The seven status counters in the contract's order. */
export const STATUS_KEYS = [
  'desiredNumberScheduled',
  'currentNumberScheduled',
  'numberMisscheduled',
  'numberReady',
  'updatedNumberScheduled',
  'numberAvailable',
  'numberUnavailable',
] as const;

/**
 * kubectl's DaemonSetStatusViewer message and done flag (docs/design/reconcile.md §12, last paragraph). Unlike kubectl it also
 * answers for OnDelete, with the same counts.
 */
// upstream: staging/src/k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go DaemonSetStatusViewer.Status
export function kubectlStatusMessage(state: ClusterState): {message: string; done: boolean} {
  const ds = state.daemonSet;
  const status = ds.status ?? {};
  const name = JSON.stringify(ds.metadata.name);
  if ((ds.metadata.generation ?? 0) > (status.observedGeneration ?? 0)) return {message: 'Waiting for daemon set spec update to be observed...', done: false};
  const updated = status.updatedNumberScheduled ?? 0;
  const desired = status.desiredNumberScheduled ?? 0;
  const available = status.numberAvailable ?? 0;
  if (updated < desired)
    return {message: `Waiting for daemon set ${name} rollout to finish: ${updated} out of ${desired} new pods have been updated...`, done: false};
  if (available < desired)
    return {message: `Waiting for daemon set ${name} rollout to finish: ${available} of ${desired} updated pods are available...`, done: false};
  return {message: `daemon set ${name} successfully rolled out`, done: true};
}

/**
 * The node a daemon pod belongs to: where it is bound, or, before the scheduler binds it, the node its required
 * node affinity pins it to (the controller creates unbound pods since 1.12; the scheduler binds them later).
 */
export function nodeOfPod(pod: Pod, nodesByName: ReadonlyMap<string, Node>): Node | undefined {
  const name = getTargetNodeName(pod);
  return name === undefined ? undefined : nodesByName.get(name);
}

/** The report for the cluster as it is at `now`. `plan`, when given, must be planObserved(state, {now}) (the same plan every face shows). */
export function rolloutReport(state: ClusterState, now: number, planned?: RolloutPlan): RolloutStatusReport {
  const ds = state.daemonSet;
  const plan = planned ?? planObserved(state, {now});
  const {message, done} = kubectlStatusMessage(state);
  const nodesByName = new Map(state.nodes.map((node) => [node.metadata.name, node]));
  const daemonPods = claimObjects(ds, state.pods).owned;

  const inFlight = whatIsInFlight(state, daemonPods, nodesByName, plan, now, done);
  const verdict: RolloutVerdict = done && plan.complete ? 'complete' : plan.paused ? 'paused' : inFlight.length > 0 ? 'progressing' : 'stuck';

  // When nothing can move, the nodes the rolling update counts against its budget are what to fix: name them.
  const holds = new Map<string, string>();
  if (verdict === 'stuck') for (const use of plan.budget[plan.budget.spends].nodes) holds.set(use.node, use.reason);
  const nodes: NodeStatus[] = plan.nodes.map((node) => {
    const conditions = nodeConditions(nodesByName.get(node.name));
    return {
      name: node.name,
      ...classify(node, plan, conditions, holds.get(node.name), verdict),
      conditions,
      pods: node.pods,
      ...(node.wave !== undefined ? {wave: node.wave} : {}),
    };
  });
  nodes.sort(
    (a, b) => STATE_ORDER[a.state] - STATE_ORDER[b.state] || (a.wave ?? Infinity) - (b.wave ?? Infinity) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const counts = {updated: 0, waiting: 0, blocked: 0, 'not-eligible': 0};
  for (const node of nodes) counts[node.state]++;

  const detail =
    verdict === 'complete'
      ? `${formatCount(counts.updated)} of ${formatCount(plan.status.desiredNumberScheduled)} nodes run revision ${plan.revisions.update.revision}`
      : verdict === 'progressing'
        ? inFlight.map((item) => item.message).join('; ')
        : verdict === 'paused'
          ? pausedDetail(plan, inFlight)
          : stuckDetail(plan);

  const written = ds.status ?? {};
  const status = Object.fromEntries(STATUS_KEYS.map((key) => [key, written[key] ?? 0])) as unknown as DaemonSetStatusCounters;
  return {
    kind: 'DaemonSetRolloutStatus',
    daemonSet: plan.daemonSet,
    verdict,
    message,
    detail,
    inFlight,
    generation: ds.metadata.generation ?? 0,
    observedGeneration: ds.status?.observedGeneration ?? 0,
    strategy: plan.strategy,
    revisions: plan.revisions,
    status,
    counts,
    nodes,
    blockers: plan.blockers,
    warnings: plan.warnings,
    converges: plan.converges,
    budget: plan.budget,
    ...(plan.paused ? {paused: plan.paused} : {}),
    ...(plan.gated ? {gated: plan.gated} : {}),
  };
}

const STATE_ORDER: Readonly<Record<NodeStatusState, number>> = {blocked: 0, waiting: 1, 'not-eligible': 2, updated: 3};

function nodeConditions(node: Node | undefined): string[] {
  if (node === undefined) return ['not in the node list'];
  const out: string[] = [];
  if (!isNodeReady(node)) out.push('NotReady');
  if (node.spec?.unschedulable) out.push('cordoned');
  return out;
}

function podAge(pod: Pod, now: number): number {
  const since = pod.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime ?? pod.metadata.creationTimestamp;
  const t = since === undefined ? Number.NaN : Date.parse(since);
  return Number.isNaN(t) ? 0 : now - t;
}

function waitingReason(node: NodePlan, plan: RolloutPlan, verdict: RolloutVerdict): string {
  const fresh = node.pods.find((pod) => pod.updated && !pod.terminating);
  switch (node.state) {
    case 'old':
      if (verdict === 'paused') return 'old pod, waits for `ds-rollout step` (paused)';
      if (verdict === 'stuck') return 'old pod, waiting for the budget';
      return node.wave === undefined ? 'old pod, not replaced yet' : `old pod, deleted in wave ${node.wave} of ${plan.waves.length}`;
    case 'missing':
      if (verdict === 'stuck') return 'no daemon pod, none can be created yet';
      return node.wave === undefined ? 'no daemon pod yet' : `no daemon pod yet, created in wave ${node.wave} of ${plan.waves.length}`;
    case 'updating':
    case 'surging': {
      if (fresh === undefined) return node.state;
      const what = fresh.ready
        ? 'ready, waiting out minReadySeconds'
        : `starting${fresh.problem ? ` (${fresh.problem})` : fresh.phase && fresh.phase !== 'Running' ? ` (${fresh.phase})` : ''}`;
      return `new pod ${fresh.name} ${what}${node.state === 'surging' ? ' next to the old one' : ''}`;
    }
    case 'terminating':
      return `pod ${node.pods.map((pod) => pod.name).join(', ')} terminating`;
    case 'misscheduled':
      return `pod to be removed: ${node.reason || 'the node no longer runs the daemon'}`;
    default:
      return node.reason;
  }
}

function classify(
  node: NodePlan,
  plan: RolloutPlan,
  conditions: readonly string[],
  hold: string | undefined,
  verdict: RolloutVerdict,
): {state: NodeStatusState; reason: string} {
  const prefix = conditions.length > 0 ? `node ${conditions.join(', ')}; ` : '';
  // The plan's budget blocker speaks of all the nodes at once; for one node, what it holds the budget with says more.
  const generic = hold !== undefined && plan.blockers.some((b) => b.kind === 'budget-exhausted' && b.message === node.blocker);
  if (node.blocker && !generic) return {state: 'blocked', reason: prefix + node.blocker};
  if (hold !== undefined) return {state: 'blocked', reason: `${prefix}${hold}: it uses the budget`};
  if (node.state === 'updated') return {state: 'updated', reason: node.warning ?? ''};
  // Out of the rollout (it finishes without them), possibly with a pod still to go: say why, do not call it blocked.
  if (!node.shouldRun)
    return {state: 'not-eligible', reason: prefix + (node.pods.length === 0 ? node.reason : (node.warning ?? waitingReason(node, plan, verdict)))};
  return {state: 'waiting', reason: prefix + waitingReason(node, plan, verdict)};
}

/**
 * What can still move without anyone changing anything: the controller's next sync has actions, it has not seen
 * the newest generation or written the final status, or pods are starting, terminating on time, or waiting out
 * minReadySeconds. Later waves of the plan do not count: they only happen once something here moves.
 */
function whatIsInFlight(
  state: ClusterState,
  daemonPods: readonly Pod[],
  nodesByName: ReadonlyMap<string, Node>,
  plan: RolloutPlan,
  now: number,
  kubectlDone: boolean,
): InFlight[] {
  const out: InFlight[] = [];
  const ds = state.daemonSet;
  const unobserved = (ds.metadata.generation ?? 0) > (ds.status?.observedGeneration ?? 0);
  if (unobserved) out.push({kind: 'unobserved-generation', message: `the controller has not yet observed generation ${ds.metadata.generation}`});
  const {create, delete: deletions} = plan.nextSync;
  if (create.length + deletions.length > 0) {
    const parts = [
      ...(deletions.length > 0 ? [`deletes ${plural(deletions.length, 'pod')}`] : []),
      ...(create.length > 0 ? [`creates ${plural(create.length, 'pod')}`] : []),
    ];
    out.push({
      kind: 'next-sync',
      count: create.length + deletions.length,
      message: `the controller's next sync ${parts.join(' and ')} (${plural(plan.waves.length, 'sync')} planned)`,
    });
  }
  if (plan.complete && !kubectlDone && !unobserved) out.push({kind: 'final-status', message: 'the controller has not yet written the final status'});
  const minReadyMs = (ds.spec.minReadySeconds ?? 0) * 1000;
  let starting = 0;
  let terminating = 0;
  let warming = 0;
  for (const pod of daemonPods) {
    const node = nodeOfPod(pod, nodesByName);
    if (isPodStarting(pod, node, now)) starting++;
    else if (isTerminatingOnTime(pod, node, now)) terminating++;
    else if (minReadyMs > 0 && !pod.metadata.deletionTimestamp && isPodReady(pod) && podAge(pod, now) < minReadyMs) warming++;
  }
  const are = (n: number) => (n === 1 ? '1 pod is' : `${formatCount(n)} pods are`);
  if (starting > 0) out.push({kind: 'starting', count: starting, message: `${are(starting)} starting`});
  if (terminating > 0) out.push({kind: 'terminating', count: terminating, message: `${are(terminating)} terminating`});
  if (warming > 0) out.push({kind: 'min-ready', count: warming, message: `${are(warming)} waiting out minReadySeconds`});
  return out;
}

function pausedDetail(plan: RolloutPlan, inFlight: readonly InFlight[]): string {
  const paused = plan.paused!;
  const old = plan.nodes.filter((node) => runsOldPod(node.pods)).length;
  const runs = old === 1 ? '1 node runs' : `${formatCount(old)} nodes run`;
  // Held by a gated rollout under way, the way on is its own (the gated line names it); step and resume are refused.
  const held = plan.gated && plan.gated.phase !== 'superseded';
  const waits =
    old === 0
      ? 'no old pod is left'
      : held
        ? `${runs} an old pod, held by the gated rollout (${plan.gated!.phase})`
        : `${runs} an old pod, waiting for \`ds-rollout step\` (or \`resume\`)`;
  const budget = `recorded maxUnavailable ${paused.strategy.maxUnavailable}, maxSurge ${paused.strategy.maxSurge}`;
  return `paused by ds-rollout since ${paused.pausedAt}: ${waits}; ${budget}${inFlight.length > 0 ? `; in flight: ${inFlight.map((item) => item.message).join('; ')}` : ''}`;
}

function stuckDetail(plan: RolloutPlan): string {
  if (plan.strategy.type === 'OnDelete') return 'OnDelete: the controller replaces an old pod only after someone deletes it';
  const budget = plan.budget[plan.budget.spends];
  const budgetBlocked = plan.blockers.some((b) => b.kind === 'budget-exhausted');
  if (budgetBlocked && budget.used > 0) {
    const name = plan.budget.spends;
    const users = budget.nodes.map((use) => use.node);
    const shown = users.length > 5 ? `${users.slice(0, 5).join(', ')} and ${formatCount(users.length - 5)} more` : users.join(', ');
    return `no progress is possible without a change: ${formatCount(budget.used)} of ${formatCount(budget.limit)} ${name} in use (${shown})`;
  }
  const first = plan.blockers[0] ?? plan.warnings.find((w) => w.kind === 'pod-terminating');
  return first ? `no progress is possible without a change: ${first.message}` : 'no progress is possible without a change';
}
