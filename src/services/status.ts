// `ds-rollout status`: kubectl's verdict (the DaemonSetStatusViewer message, computed from the status the
// controller wrote) plus why, node by node, from planRollout; and a verdict a CI job can act on: complete,
// progressing (something is in flight or the controller has work), or stuck (nothing can move without a change).
// The watch loop only re-evaluates the same pure function on every change the watches report.
import {resolveNow} from './plan.js';
import type {ClusterSource, DaemonSetRef} from '../cluster/cluster-source.js';
import {
  type ClusterState,
  claimObjects,
  type DaemonSetStatusCounters,
  formatInvalid,
  isPodReady,
  type Node,
  type NodePlan,
  type Pod,
  planRollout,
  isNodeReady,
  isPodStarting,
  isTerminatingOnTime,
  type RolloutPlan,
  validateDaemonSet,
} from '../core/index.js';
import {type DsRolloutError, EXIT_OK, EXIT_STUCK, InputError} from '../errors.js';
import {STATUS_KEYS} from '../output/plan-json.js';
import type {NodeStatus, NodeStatusState, RolloutStatusReport, RolloutVerdict} from '../output/status-text.js';

export type {NodeStatus, NodeStatusState, RolloutStatusReport, RolloutVerdict};

/** Exit codes of `ds-rollout status` (documented in its --help and the README). */
export const STATUS_EXIT: Readonly<Record<RolloutVerdict, number>> = {complete: EXIT_OK, stuck: EXIT_STUCK, progressing: 4};

/** A pod that is not ready, has no failure reason and is this young is taken to be still starting. */

/**
 * kubectl's DaemonSetStatusViewer message and done flag (reconcile-spec 12, last bullet). Unlike kubectl it also
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
  if (updated < desired) return {message: `Waiting for daemon set ${name} rollout to finish: ${updated} out of ${desired} new pods have been updated...`, done: false};
  if (available < desired) return {message: `Waiting for daemon set ${name} rollout to finish: ${available} of ${desired} updated pods are available...`, done: false};
  return {message: `daemon set ${name} successfully rolled out`, done: true};
}

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

function waitingReason(node: NodePlan, plan: RolloutPlan, stuck: boolean): string {
  const fresh = node.pods.find((pod) => pod.updated && !pod.terminating);
  switch (node.state) {
    case 'old':
      if (stuck) return 'old pod, waiting for the budget';
      return node.wave === undefined ? 'old pod, not replaced yet' : `old pod, replaced in wave ${node.wave} of ${plan.waves.length}`;
    case 'missing':
      if (stuck) return 'no daemon pod, none can be created yet';
      return node.wave === undefined ? 'no daemon pod yet' : `no daemon pod yet, created in wave ${node.wave} of ${plan.waves.length}`;
    case 'updating':
    case 'surging': {
      if (fresh === undefined) return node.state;
      const what = fresh.ready ? 'ready, waiting out minReadySeconds' : `starting${fresh.problem ? ` (${fresh.problem})` : fresh.phase && fresh.phase !== 'Running' ? ` (${fresh.phase})` : ''}`;
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

/**
 * Why a node holds a unit of the rollout's budget, when it does: it has no available pod (only terminating
 * ones, or none ready). Used when nothing can move, to name what to fix.
 */
function budgetHold(node: NodePlan, podsByName: ReadonlyMap<string, Pod>): string | undefined {
  if (!node.shouldRun && node.pods.length === 0) return undefined;
  const live = node.pods.filter((pod) => !pod.terminating);
  if (live.some((pod) => pod.available)) return undefined;
  if (live.length === 0 && node.pods.length > 0) {
    const pod = node.pods[0]!;
    const since = podsByName.get(pod.name)?.metadata.deletionTimestamp;
    return `pod ${pod.name} stuck Terminating${since ? ` since ${since}` : ''}`;
  }
  const pod = live[0];
  if (pod === undefined) return 'no daemon pod';
  return `pod ${pod.name} ${pod.ready ? 'ready but not yet available' : `not ready${pod.problem ? ` (${pod.problem})` : pod.phase !== 'Running' ? ` (${pod.phase || 'Pending'})` : ''}`}`;
}

function classify(node: NodePlan, plan: RolloutPlan, conditions: readonly string[], hold: string | undefined, stuck: boolean): {state: NodeStatusState; reason: string} {
  const prefix = conditions.length > 0 ? `node ${conditions.join(', ')}; ` : '';
  // The plan's budget blocker speaks of all the nodes at once; for one node, what it holds the budget with says more.
  const budgetOnly = plan.blockers.some((b) => b.kind === 'budget-exhausted' && b.message === node.blocker);
  if (node.blocker && !(budgetOnly && hold !== undefined)) return {state: 'blocked', reason: prefix + node.blocker};
  if (hold !== undefined) return {state: 'blocked', reason: `${prefix}${hold}: it holds the budget`};
  if (node.state === 'updated') return {state: 'updated', reason: node.warning ?? ''};
  // Out of the rollout (it finishes without them), possibly with a pod still to go: say why, do not call it blocked.
  if (!node.shouldRun) return {state: 'not-eligible', reason: prefix + (node.pods.length === 0 ? node.reason : (node.warning ?? waitingReason(node, plan, stuck)))};
  return {state: 'waiting', reason: prefix + waitingReason(node, plan, stuck)};
}

const STATE_ORDER: Readonly<Record<NodeStatusState, number>> = {blocked: 0, waiting: 1, 'not-eligible': 2, updated: 3};

/** The status report for the cluster as it is at `now`. Pure. */
/** `plan`, when given, must be planRollout(state, {now}) (the dashboard has it already and plans once per change). */
export function rolloutStatusOf(state: ClusterState, now: number, planned?: RolloutPlan): RolloutStatusReport {
  const ds = state.daemonSet;
  const errors = validateDaemonSet(ds);
  if (errors.length > 0) throw new InputError(formatInvalid('daemonset', `${ds.metadata.namespace ?? 'default'}/${ds.metadata.name}`, errors));
  const plan = planned ?? planRollout(state, {now});
  const {message, done} = kubectlStatusMessage(state);
  const nodesByName = new Map(state.nodes.map((node) => [node.metadata.name, node]));
  const daemonPods = claimObjects(ds, state.pods).owned;
  const podsByName = new Map(daemonPods.map((pod) => [pod.metadata.name, pod]));

  const inFlight = whatIsInFlight(state, daemonPods, plan, now, done);
  const verdict: RolloutVerdict = done && plan.complete ? 'complete' : inFlight.length > 0 ? 'progressing' : 'stuck';
  const stuck = verdict === 'stuck';

  // When nothing can move, the nodes without an available pod are what uses up the budget: name them.
  const holds = new Map<string, string>();
  if (stuck && plan.strategy.type === 'RollingUpdate') {
    for (const node of plan.nodes) {
      const hold = budgetHold(node, podsByName);
      if (hold !== undefined) holds.set(node.name, hold);
    }
  }
  const nodes: NodeStatus[] = plan.nodes.map((node) => {
    const conditions = nodeConditions(nodesByName.get(node.name));
    return {name: node.name, ...classify(node, plan, conditions, holds.get(node.name), stuck), conditions, pods: node.pods};
  });
  nodes.sort((a, b) => STATE_ORDER[a.state] - STATE_ORDER[b.state] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const counts = {updated: 0, waiting: 0, blocked: 0, 'not-eligible': 0};
  for (const node of nodes) counts[node.state]++;

  const detail =
    verdict === 'complete'
      ? `${counts.updated} of ${plan.status.desiredNumberScheduled} nodes run revision ${plan.revisions.update.revision}`
      : verdict === 'progressing'
        ? inFlight.join('; ')
        : stuckDetail(plan, nodes, holds);

  const written = ds.status ?? {};
  const status = Object.fromEntries(STATUS_KEYS.map((key) => [key, written[key] ?? 0])) as unknown as DaemonSetStatusCounters;
  return {
    kind: 'DaemonSetRolloutStatus',
    daemonSet: plan.daemonSet,
    verdict,
    message,
    detail,
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
  };
}

/**
 * What can still move without anyone changing anything: the controller's next sync has actions, it has not seen
 * the newest generation or written the final status, or pods are starting, terminating on time, or waiting out
 * minReadySeconds. Later waves of the plan do not count: they only happen once something here moves.
 */
function whatIsInFlight(state: ClusterState, daemonPods: readonly Pod[], plan: RolloutPlan, now: number, kubectlDone: boolean): string[] {
  const out: string[] = [];
  const ds = state.daemonSet;
  const unobserved = (ds.metadata.generation ?? 0) > (ds.status?.observedGeneration ?? 0);
  if (unobserved) out.push(`the controller has not yet observed generation ${ds.metadata.generation}`);
  const {create, delete: deletions} = plan.nextSync;
  if (create.length + deletions.length > 0) {
    const parts = [...(deletions.length > 0 ? [`deletes ${deletions.length === 1 ? '1 pod' : `${deletions.length} pods`}`] : []), ...(create.length > 0 ? [`creates ${create.length === 1 ? '1 pod' : `${create.length} pods`}`] : [])];
    out.push(`the controller's next sync ${parts.join(' and ')} (${plan.waves.length === 1 ? '1 sync' : `${plan.waves.length} syncs`} planned)`);
  }
  if (plan.complete && !kubectlDone && !unobserved) out.push('the controller has not yet written the final status');
  const nodesByName = new Map(state.nodes.map((node) => [node.metadata.name, node]));
  const minReadyMs = (ds.spec.minReadySeconds ?? 0) * 1000;
  let starting = 0;
  let terminating = 0;
  let warming = 0;
  for (const pod of daemonPods) {
    const node = nodesByName.get(pod.spec.nodeName ?? '');
    if (isPodStarting(pod, node, now)) starting++;
    else if (isTerminatingOnTime(pod, node, now)) terminating++;
    else if (minReadyMs > 0 && !pod.metadata.deletionTimestamp && isPodReady(pod) && podAge(pod, now) < minReadyMs) warming++;
  }
  const pods = (n: number) => (n === 1 ? '1 pod is' : `${n} pods are`);
  if (starting > 0) out.push(`${pods(starting)} starting`);
  if (terminating > 0) out.push(`${pods(terminating)} terminating`);
  if (warming > 0) out.push(`${pods(warming)} waiting out minReadySeconds`);
  return out;
}

function stuckDetail(plan: RolloutPlan, nodes: readonly NodeStatus[], holds: ReadonlyMap<string, string>): string {
  if (plan.strategy.type === 'OnDelete') return 'OnDelete: the controller replaces an old pod only after someone deletes it';
  const blocked = nodes.filter((node) => node.state === 'blocked');
  const budgetBlocked = plan.blockers.some((b) => b.kind === 'budget-exhausted');
  if ((holds.size > 0 || budgetBlocked) && blocked.length > 0) {
    const budget = plan.strategy.maxSurge > 0 ? `maxSurge budget (${plan.strategy.maxSurge})` : `maxUnavailable budget (${plan.strategy.maxUnavailable})`;
    return `no progress is possible without a change: the ${budget} is used by ${blocked.map((node) => node.name).join(', ')}`;
  }
  const first = plan.blockers[0] ?? plan.warnings.find((w) => w.kind === 'pod-terminating');
  return first ? `no progress is possible without a change: ${first.message}` : 'no progress is possible without a change';
}

export interface StatusOptions {
  readonly source: ClusterSource;
  readonly ref: DaemonSetRef;
  /** A fixed instant, or a clock read after the state was fetched (live: the cluster's clock). */
  readonly now: number | (() => number);
}

export async function statusService(options: StatusOptions): Promise<RolloutStatusReport> {
  const state = await options.source.readState(options.ref);
  return rolloutStatusOf(state, resolveNow(options.now));
}

export type WatchOutcome = 'complete' | 'stuck' | 'timeout';

export interface WatchStatusOptions {
  /** Starts following the cluster (live.watch); every state after the first full read and after each change. */
  readonly follow: (handlers: {onState(state: ClusterState): void; onError(error: DsRolloutError): void}) => {stop(): void};
  readonly now: () => number;
  /** Give up after this many ms (0 or undefined: never). */
  readonly timeoutMs?: number;
  /** How long the rollout must stay stuck before the watch ends with that verdict (0: at once). */
  readonly stuckAfterMs: number;
  /** Each report whose message, verdict or detail changed. */
  readonly onReport?: (report: RolloutStatusReport) => void;
  /** Re-evaluation without events (minReadySeconds, the stuck delay, starting pods growing old); default 2,000 ms. */
  readonly tickMs?: number;
}

/** Follows the rollout until it completes, stays stuck for stuckAfterMs, or the timeout ends. */
export function watchStatus(options: WatchStatusOptions): Promise<{report: RolloutStatusReport | undefined; outcome: WatchOutcome}> {
  return new Promise((resolve, reject) => {
    let latest: ClusterState | undefined;
    let report: RolloutStatusReport | undefined;
    let stuckSince: number | undefined;
    let finished = false;
    let lastKey = '';
    let tick: NodeJS.Timeout | undefined;
    let deadline: NodeJS.Timeout | undefined;

    const finish = (outcome: WatchOutcome | Error) => {
      if (finished) return;
      finished = true;
      clearInterval(tick);
      clearTimeout(deadline);
      handle?.stop();
      if (outcome instanceof Error) reject(outcome);
      else resolve({report, outcome});
    };
    const evaluate = () => {
      if (finished || latest === undefined) return;
      try {
        report = rolloutStatusOf(latest, options.now());
      } catch (error) {
        finish(error as Error);
        return;
      }
      const key = `${report.verdict}\n${report.message}\n${report.detail}`;
      if (key !== lastKey) {
        lastKey = key;
        options.onReport?.(report);
      }
      if (report.verdict === 'complete') return finish('complete');
      if (report.verdict !== 'stuck') {
        stuckSince = undefined;
        return;
      }
      stuckSince ??= Date.now();
      if (Date.now() - stuckSince >= options.stuckAfterMs) finish('stuck');
    };

    tick = setInterval(evaluate, options.tickMs ?? 2000);
    if (options.timeoutMs) deadline = setTimeout(() => finish('timeout'), options.timeoutMs);
    let handle: {stop(): void} | undefined;
    handle = options.follow({
      onState: (state) => {
        latest = state;
        evaluate();
      },
      onError: (error) => finish(error),
    });
    if (finished) handle.stop();
  });
}
