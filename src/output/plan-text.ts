// ds-plan's output for people: where the rollout stands, what the next sync does, how it unfolds, what blocks it.
import type {IntOrString, NodePlan, NodeRolloutState, PlanTiming, PodDeletion, PodSummary, RolloutPlan, Wave} from '../core/index.js';
import {palette, type Palette} from './color.js';
import {formatCount, formatDuration, formatList, formatMeasuredDuration, plural} from './format.js';
import {describeGatedStage} from './gated-text.js';
import {renderTable} from './table.js';

export interface PlanTextOptions {
  readonly color: boolean;
  /** Terminal width: long blocker and note lines wrap to it. Undefined (a pipe): no wrapping. */
  readonly width?: number;
  /** Show every node even in a large cluster. */
  readonly allNodes?: boolean;
  /** The DaemonSet's own values, so that budgets can be shown as written (`25% of 4`). */
  readonly spec?: {
    readonly maxUnavailable?: IntOrString;
    readonly maxSurge?: IntOrString;
  };
}

/** Above this many nodes, the table shows only the nodes that still need something. */
export const NODE_TABLE_LIMIT = 40;
/** Up to this many waves are listed in full; beyond it, the first WAVES_HEAD and a summary. */
export const WAVE_LIST_LIMIT = 20;
export const WAVES_HEAD = 10;
/** Lines of the next sync's actions listed before the rest is counted. */
const NEXT_SYNC_LINES = 20;
/** Actions of one kind listed by name in a wave line before the rest is counted. */
const WAVE_ACTIONS_SHOWN = 3;

export function renderPlanText(plan: RolloutPlan, options: PlanTextOptions): string {
  const c = palette(options.color);
  const sections = [
    [
      summaryLine(plan, c),
      budgetLine(plan, options, c),
      ...(plan.gated ? [`${c.bold('Gated rollout:')} ${describeGatedStage(plan.gated)}`] : []),
      statusLine(plan),
      `${c.bold('Controller:')} planned as the Kubernetes ${plan.controllerVersion} DaemonSet controller decides`,
    ],
    nodeSection(plan, options, c),
    nextSyncSection(plan, c),
    waveSection(plan, c),
    listSection('Blockers', plan.blockers.map(blockerText), options, c, c.red),
    listSection('Warnings', plan.warnings.map(blockerText), options, c, c.yellow),
    listSection('Notes', plan.notes, options, c),
  ].filter((section) => section.length > 0);
  return `${sections.map((section) => section.join('\n')).join('\n\n')}\n`;
}

function summaryLine(plan: RolloutPlan, c: Palette): string {
  const {current, update} = plan.revisions;
  const revision =
    current.revision === update.revision && current.hash === update.hash
      ? `revision ${update.revision}`
      : `revision ${current.revision} -> ${update.revision}${update.exists ? '' : ' (not created yet)'}`;
  // The controller's own counter (what `kubectl rollout status` reports), so it agrees with the Status line.
  const updated = plan.status.updatedNumberScheduled;
  const desired = plan.status.desiredNumberScheduled;
  return `${c.bold(`DaemonSet ${plan.daemonSet.namespace}/${plan.daemonSet.name}`)}: ${plan.strategy.type}, ${revision}, ${formatCount(updated)} of ${plural(desired, 'node')} updated, ${progress(plan, c)}`;
}

function progress(plan: RolloutPlan, c: Palette): string {
  if (plan.paused) return plan.complete ? `${c.green('rollout complete')}, ${c.yellow('paused by ds-rollout')}` : c.yellow('paused by ds-rollout');
  if (plan.complete) return c.green('rollout complete');
  if (plan.converges) return c.cyan('rollout in progress');
  // OnDelete never finishes by itself: that is its design, not a fault.
  return plan.strategy.type === 'OnDelete' ? c.yellow('waiting for old pods to be deleted (OnDelete)') : c.red('rollout stuck');
}

function asWritten(value: IntOrString | undefined, scaled: number, desired: number): string {
  if (typeof value === 'string' && value.endsWith('%')) return `${scaled} (${value} of ${formatCount(desired)})`;
  return String(scaled);
}

function budgetLine(plan: RolloutPlan, options: PlanTextOptions, c: Palette): string {
  if (plan.paused) {
    const {strategy, budgets, pausedAt} = plan.paused;
    const desired = plan.status.desiredNumberScheduled;
    return `${c.bold('Budgets:')} paused by ds-rollout since ${pausedAt}; recorded maxUnavailable ${asWritten(strategy.maxUnavailable, budgets.maxUnavailable, desired)}, maxSurge ${asWritten(strategy.maxSurge, budgets.maxSurge, desired)} (step works within them, resume restores them)`;
  }
  if (plan.strategy.type !== 'RollingUpdate') {
    return `${c.bold('Budgets:')} none (${plan.strategy.type}: the controller replaces a pod only after it is deleted)`;
  }
  const {maxUnavailable, maxSurge} = plan.strategy;
  const desired = plan.status.desiredNumberScheduled;
  const spec = options.spec;
  let unavailable = asWritten(spec?.maxUnavailable, maxUnavailable, desired);
  if (plan.strategy.bothZeroFallback) unavailable = '1 (both budgets are 0; the controller uses 1)';
  const surge = asWritten(spec?.maxSurge, maxSurge, desired);
  // A budget in use to the last unit is why a rollout waits: make it stand out.
  const used = (n: number, max: number) => (n >= max ? c.red(`in use ${n}`) : `in use ${n}`);
  const parts =
    maxSurge > 0
      ? [`maxUnavailable ${unavailable}`, `maxSurge ${surge}, ${used(plan.budget.maxSurge.used, maxSurge)}`]
      : [`maxUnavailable ${unavailable}, ${used(plan.budget.maxUnavailable.used, maxUnavailable)}`, `maxSurge ${surge}`];
  return `${c.bold('Budgets:')} ${parts.join('; ')}`;
}

function statusLine(plan: RolloutPlan): string {
  const s = plan.status;
  return [
    `Status: ${formatCount(s.desiredNumberScheduled)} desired`,
    `${formatCount(s.currentNumberScheduled)} scheduled`,
    `${formatCount(s.updatedNumberScheduled)} up-to-date`,
    `${formatCount(s.numberReady)} ready`,
    `${formatCount(s.numberAvailable)} available`,
    `${formatCount(s.numberUnavailable)} unavailable`,
    `${formatCount(s.numberMisscheduled)} misscheduled`,
  ].join(', ');
}

// ----------------------------------------------------------------------------------------------------------------
// Nodes

function stateColor(state: NodeRolloutState, c: Palette): (text: string) => string {
  switch (state) {
    case 'updated':
      return c.green;
    case 'updating':
    case 'surging':
      return c.cyan;
    case 'old':
    case 'terminating':
    case 'misscheduled':
      return c.yellow;
    case 'missing':
      return c.red;
    case 'not-eligible':
      return c.dim;
  }
}

function podDetail(pod: PodSummary): string {
  const extra = [pod.terminating ? 'terminating' : '', pod.phase !== 'Running' ? pod.phase : '', pod.problem ?? ''].filter(Boolean);
  return [`${pod.ready ? 'yes' : 'no'}/${pod.available ? 'yes' : 'no'}`, ...extra].join(' ');
}

function nodeRows(node: NodePlan, c: Palette): string[][] {
  const color = stateColor(node.state, c);
  // A blocker or warning often restates the reason with its consequence; show the longer text once.
  const finding = node.blocker ?? node.warning;
  const remark = finding && node.reason && finding.startsWith(node.reason) ? finding : [node.reason, finding ?? ''].filter(Boolean).join('; ');
  const wave = node.wave === undefined ? '-' : String(node.wave);
  const remarkCell = node.blocker ? c.red(remark) : node.warning ? c.yellow(remark) : remark;
  if (node.pods.length === 0) return [[node.name, color(node.state), '-', '', '', wave, remarkCell]];
  return node.pods.map((pod, index) => {
    const hash = pod.updated ? c.green(pod.hash) : pod.hash;
    const detail = pod.ready && pod.available ? podDetail(pod) : c.yellow(podDetail(pod));
    return index === 0 ? [node.name, color(node.state), pod.name, hash, detail, wave, remarkCell] : ['', '', pod.name, hash, detail, '', ''];
  });
}

/** Node states with a change under way (a pod starting, surging, terminating, missing or to be removed). */
const IN_FLIGHT: ReadonlySet<NodeRolloutState> = new Set(['updating', 'surging', 'terminating', 'missing', 'misscheduled']);
/** Nodes listed one by one in a large cluster before the rest are counted by state. */
const INDIVIDUAL_NODES = 30;

function nodeSection(plan: RolloutPlan, options: PlanTextOptions, c: Palette): string[] {
  if (plan.nodes.length === 0) return ['Nodes: none in the cluster'];
  const header = ['NODE', 'STATE', 'POD', 'HASH', 'READY/AVAIL', 'WAVE', 'REASON/BLOCKER'].map((title) => c.bold(title));
  if (plan.nodes.length <= NODE_TABLE_LIMIT || options.allNodes)
    return renderTable(
      plan.nodes.flatMap((node) => nodeRows(node, c)),
      {header},
    );
  // A large cluster: nodes with a blocker or warning, nodes with something in flight, then the first wave's nodes,
  // one by one; the others counted by state, with the waves that reach them.
  const notable = (node: NodePlan) => (node.blocker || node.warning ? 0 : IN_FLIGHT.has(node.state) ? 1 : node.wave === 1 ? 2 : 3);
  const individual = plan.nodes
    .filter((node) => notable(node) < 3)
    .sort((a, b) => notable(a) - notable(b))
    .slice(0, INDIVIDUAL_NODES);
  const listed = new Set(individual);
  const groups = new Map<NodeRolloutState, NodePlan[]>();
  for (const node of plan.nodes) if (!listed.has(node)) groups.set(node.state, [...(groups.get(node.state) ?? []), node]);
  const grouped = [...groups].map(([state, nodes]) => {
    const waves = nodes.map((node) => node.wave).filter((wave): wave is number => wave !== undefined);
    const span = waves.length === 0 ? '-' : `${Math.min(...waves)}-${Math.max(...waves)}`;
    return [c.dim(`${formatCount(nodes.length)} more`), stateColor(state, c)(state), '', '', '', span, ''];
  });
  const lines = renderTable([...individual.flatMap((node) => nodeRows(node, c)), ...grouped], {header});
  lines.push(c.dim(`(${plural(plan.nodes.length - individual.length, 'node')} counted by state, not listed; --all-nodes lists every node)`));
  return lines;
}

// ----------------------------------------------------------------------------------------------------------------
// Actions

/** Pods terminating now: a deletion of one (Kubernetes 1.20 and before re-delete them) frees nothing, and says so. */
function terminatingPods(plan: RolloutPlan): Set<string> {
  return new Set(plan.nodes.flatMap((node) => node.pods.filter((pod) => pod.terminating).map((pod) => pod.name)));
}

function deletionReason(action: PodDeletion, terminating: ReadonlySet<string>): string {
  if (terminating.has(action.pod)) return `${action.reason}; already terminating: deleted again, frees nothing`;
  // The pod stays, terminating, and the node keeps its unit of maxUnavailable: later waves are planned so.
  if (action.staysTerminating) return `${action.reason}; node not Ready: stays terminating until the node is Ready again, holding its unit of the budget`;
  return action.reason;
}

function deletionText(action: PodDeletion, terminating: ReadonlySet<string>): string {
  return `delete ${action.pod} on ${action.node} (${deletionReason(action, terminating)})`;
}

function nextSyncSection(plan: RolloutPlan, c: Palette): string[] {
  const {create, delete: deletions} = plan.nextSync;
  if (create.length === 0 && deletions.length === 0) return [`${c.bold('Next sync:')} nothing to create or delete`];
  const terminating = terminatingPods(plan);
  const actions = [...deletions.map((action) => `  ${deletionText(action, terminating)}`), ...create.map((action) => `  create a pod on ${action.node}`)];
  const shown =
    actions.length > NEXT_SYNC_LINES
      ? [...actions.slice(0, NEXT_SYNC_LINES - 1), c.dim(`  … and ${formatCount(actions.length - NEXT_SYNC_LINES + 1)} more (-o json lists every action)`)]
      : actions;
  return [`${c.bold('Next sync:')} ${actionCount(plan.nextSync)}`, ...shown];
}

function actionCount(actions: {readonly create: readonly unknown[]; readonly delete: readonly unknown[]}): string {
  const parts = [];
  if (actions.delete.length > 0) parts.push(`${formatCount(actions.delete.length)} to delete`);
  if (actions.create.length > 0) parts.push(`${formatCount(actions.create.length)} to create`);
  return parts.join(', ');
}

/** One wave as one line: every action when there are few, otherwise counts and the first names. */
export function waveText(wave: Wave, terminating: ReadonlySet<string> = new Set()): string {
  const parts: string[] = [];
  const deletions = wave.delete;
  if (deletions.length > 0 && deletions.length <= WAVE_ACTIONS_SHOWN) {
    parts.push(`delete ${deletions.map((action) => `${action.pod} on ${action.node} (${deletionReason(action, terminating)})`).join(', ')}`);
  } else if (deletions.length > 0) {
    const reasons = [...new Set(deletions.map((action) => action.reason))].join(', ');
    parts.push(
      `delete ${formatCount(deletions.length)} pods (${reasons}) on ${formatList(
        deletions.map((action) => action.node),
        WAVE_ACTIONS_SHOWN,
      )}`,
    );
  }
  const nodes = wave.create.map((action) => action.node);
  if (nodes.length === 1) parts.push(`create a pod on ${nodes[0]}`);
  else if (nodes.length > 1 && nodes.length <= WAVE_ACTIONS_SHOWN) parts.push(`create pods on ${nodes.join(', ')}`);
  else if (nodes.length > 1) parts.push(`create ${formatCount(nodes.length)} pods on ${formatList(nodes, WAVE_ACTIONS_SHOWN)}`);
  return parts.join('; ');
}

function waveSection(plan: RolloutPlan, c: Palette): string[] {
  const waves = plan.waves;
  const title = c.bold('Waves:');
  if (waves.length === 0) {
    return [
      plan.complete ? `${title} none, the rollout is complete` : `${title} none, nothing would change${plan.blockers.length > 0 ? ' (see Blockers)' : ''}`,
    ];
  }
  const last = waves[waves.length - 1]!;
  const head = plan.converges
    ? `${title} ${plural(waves.length, 'sync')} until the rollout is complete; the last wave starts at +${formatDuration(last.at)}`
    : `${title} ${plural(waves.length, 'sync')}, then the rollout stops short of complete${plan.blockers.length > 0 ? ' (see Blockers)' : ''}`;
  const listed = waves.length > WAVE_LIST_LIMIT ? waves.slice(0, WAVES_HEAD) : waves;
  const terminating = terminatingPods(plan);
  const rows = listed.map((wave, index) => [String(index + 1), `+${formatDuration(wave.at)}`, waveText(wave, terminating)]);
  const lines = [head, ...(plan.timing ? [`  ${etaText(plan.timing)}`] : []), ...renderTable(rows, {indent: '  ', alignRight: [0]})];
  if (listed.length < waves.length) {
    lines.push(`  ... ${plural(waves.length - listed.length, 'more wave')}, the last starts at +${formatDuration(last.at)}`);
  }
  return lines;
}

/**
 * "complete in about 4m10s (ETA), from 12 observed pod starts (median 2.1s); deletions assumed 1s (none seen to
 * finish)": when the rollout is expected to be complete (its last pods available), and what the times rest on.
 */
export function etaText(timing: PlanTiming): string {
  const start = timing.podStart;
  const startText =
    start.basis === 'observed'
      ? `from ${plural(start.observations, 'observed pod start')} (median ${formatMeasuredDuration(start.seconds)})`
      : start.basis === 'given'
        ? `from ${formatMeasuredDuration(start.seconds)} per pod start (--pod-start)`
        : `assumed ${formatMeasuredDuration(start.seconds)} per pod start (no observations)`;
  const deletion = timing.podDeletion;
  const deletionText =
    deletion.basis === 'observed'
      ? `deletions ${formatMeasuredDuration(deletion.seconds)} (median of ${plural(deletion.observations, 'deletion')} seen to finish)`
      : `deletions assumed ${formatMeasuredDuration(deletion.seconds)} (none seen to finish)`;
  return `${timing.etaSeconds !== undefined ? `complete in about ${formatDuration(timing.etaSeconds)} (ETA), ` : ''}${startText}; ${deletionText}`;
}

// ----------------------------------------------------------------------------------------------------------------
// Blockers and notes

export function blockerText(blocker: RolloutPlan['blockers'][number] | RolloutPlan['warnings'][number]): string {
  const nodes = (blocker.nodes ?? []).filter((name) => !blocker.message.includes(name));
  return nodes.length > 0 ? `${blocker.message} (${nodes.length === 1 ? 'node' : 'nodes'}: ${formatList(nodes, 5)})` : blocker.message;
}

function listSection(title: string, items: readonly string[], options: PlanTextOptions, c: Palette, tint = (text: string) => text): string[] {
  if (items.length === 0) return [];
  return [c.bold(`${title}:`), ...items.flatMap((item) => wrap(item, options.width, '  - ', '    ').map(tint))];
}

/** Word-wraps `text` to `width` with a first-line prefix and a hanging indent; no width, no wrapping. */
export function wrap(text: string, width: number | undefined, first: string, rest: string): string[] {
  if (width === undefined || width <= first.length + 20) return [first + text];
  const lines: string[] = [];
  let line = first;
  for (const word of text.split(' ')) {
    const prefix = lines.length === 0 ? first : rest;
    if (line.length > prefix.length && line.length + 1 + word.length > width) {
      lines.push(line);
      line = rest + word;
    } else {
      line = line.length > prefix.length ? `${line} ${word}` : line + word;
    }
  }
  lines.push(line);
  return lines;
}
