// What pause, resume and step print for people (and step's JSON): pure strings from results and step events.
import {
  budgetWayForward,
  holdWords,
  type IntOrString,
  landingWords,
  type NodeLanding,
  type PausedStrategy,
  type RecordedRollingUpdate,
  type StepEvent,
  type StepWave,
} from '../core/index.js';
import {palette, type Palette} from './color.js';
import {formatList, plural} from './format.js';

interface Ref {
  readonly namespace: string;
  readonly name: string;
}

const CAVEAT = 'While paused, the controller still creates pods from the current template on nodes that join, and replaces deleted pods with it.';

function ds(ref: Ref): string {
  return `daemonset ${ref.namespace}/${ref.name}`;
}

function cli(verb: string, ref: Ref): string {
  return `kubectl ds-rollout ${verb} ${ref.name} -n ${ref.namespace}`;
}

function budgets(strategy: {readonly maxUnavailable: IntOrString; readonly maxSurge: IntOrString}): string {
  return `maxUnavailable ${strategy.maxUnavailable}, maxSurge ${strategy.maxSurge}`;
}

// ---------------------------------------------------------------------------------------------------------------
// pause / resume

export interface PauseView {
  readonly daemonSet: Ref;
  readonly outcome: 'paused' | 'already-paused';
  readonly strategy: PausedStrategy;
  readonly replacedStale: boolean;
  readonly dryRun: boolean;
}

export function renderPauseText(result: PauseView, color: boolean): string {
  const c = palette(color);
  const recorded = budgets(result.strategy.rollingUpdate);
  const lines =
    result.outcome === 'already-paused'
      ? [`${c.bold(ds(result.daemonSet))} is already paused by ds-rollout (since ${result.strategy.pausedAt}; recorded RollingUpdate ${recorded}).`]
      : [
          `${c.bold(ds(result.daemonSet))} ${result.dryRun ? 'would be paused (dry run, nothing was changed)' : 'paused'}: updateStrategy OnDelete; RollingUpdate ${recorded} recorded in annotation ds-rollout.io/paused-strategy${result.replacedStale ? ' (replacing a stale record)' : ''}.`,
          'No pod restarts: the template is unchanged.',
        ];
  lines.push(c.yellow(CAVEAT));
  lines.push(
    `Next: ${cli('step', result.daemonSet)} replaces one wave of old pods; ${cli('resume', result.daemonSet)} hands the rollout back to the controller.`,
  );
  return `${lines.join('\n')}\n`;
}

export interface ResumeView {
  readonly daemonSet: Ref;
  readonly outcome: 'resumed' | 'stale-record-removed';
  readonly restored?: RecordedRollingUpdate;
  readonly from?: 'record' | 'flags';
  readonly pausedAt?: string;
  readonly dryRun: boolean;
  readonly abandoned?: {readonly stage: string; readonly phase: string};
}

export function renderResumeText(result: ResumeView, color: boolean): string {
  const c = palette(color);
  const name = c.bold(ds(result.daemonSet));
  const verb = result.dryRun ? 'would be' : '';
  if (result.outcome === 'stale-record-removed') {
    return `${name} was not paused (it runs RollingUpdate already); ${result.dryRun ? 'the leftover pause record would be removed (dry run)' : 'removed the leftover pause record'}.\n`;
  }
  const restored = result.restored ? `RollingUpdate ${budgets(result.restored)}` : 'RollingUpdate';
  const source = result.from === 'flags' ? ' (from --max-unavailable/--max-surge)' : result.pausedAt ? ` (recorded at ${result.pausedAt})` : '';
  const ended = result.abandoned
    ? ` Its gated rollout (stage ${result.abandoned.stage}, ${result.abandoned.phase}) ${result.dryRun ? 'would end' : 'ended'}: abandoned.`
    : '';
  return `${name} ${verb ? `${verb} resumed (dry run, nothing was changed)` : 'resumed'}: updateStrategy ${restored}${source}. The controller carries on with the rollout.${ended}\n`;
}

// ---------------------------------------------------------------------------------------------------------------
// step

/** Nodes named in a list line before the rest is counted. */
const NAMED = 6;

function budgetText(wave: StepWave): string {
  const {budget} = wave;
  const written = typeof budget.written === 'string' ? ` (${budget.written} of ${budget.desired})` : '';
  const source = budget.source === 'record' ? 'recorded' : '--max-unavailable';
  return `maxUnavailable ${budget.maxUnavailable}${written}, ${source}; ${wave.unavailable.length} unavailable now`;
}

function unavailableLines(wave: StepWave, c: Palette): string[] {
  return wave.unavailable.map((use) => `    ${use.node}: ${use.settling ? use.reason : c.yellow(use.reason)}`);
}

export function renderStepEvent(event: StepEvent, ref: Ref, color: boolean): string | undefined {
  const c = palette(color);
  switch (event.kind) {
    case 'wave': {
      const {wave} = event;
      const head = `${c.bold(`Wave ${event.number}/~${event.total}`)}${event.dryRun ? ' (dry run, nothing is deleted)' : ''}: delete ${plural(wave.delete.length, 'old pod')} of ${ds(ref)} (${budgetText(wave)})`;
      const width = Math.max(...wave.delete.map((d) => d.node.length));
      const rows = wave.delete.map((d) => {
        const notes = [
          d.staysTerminating
            ? c.yellow('node not Ready: the pod stays terminating until the node is Ready again, and the node holds its unit of the budget until then')
            : d.available
              ? ''
              : 'not available: uses no budget',
          d.replaced ? '' : c.yellow('the node no longer takes the daemon: nothing replaces it'),
        ].filter(Boolean);
        return `  ${d.node.padEnd(width)}  ${d.pod}${notes.length > 0 ? `  (${notes.join('; ')})` : ''}`;
      });
      const lines = [head, ...rows];
      if (wave.unavailable.length > 0) lines.push('  Unavailable now (counted against the budget):', ...unavailableLines(wave, c));
      if (wave.waiting.length > 0) lines.push(`  Left for later waves: ${formatList(wave.waiting, NAMED)}`);
      if (wave.holdAfter) {
        lines.push(
          c.yellow(`  After this wave no other can start: ${holdWords(wave.holdAfter)}.`),
          `  ${capitalised(budgetWayForward(wave.holdAfter, 'step'))}.`,
        );
      }
      return lines.join('\n');
    }
    case 'waiting-for-budget': {
      const {wave} = event;
      // Nothing that holds the budget clears by itself (only a dry run gets here then): say so, and the way on.
      if (!wave.unavailable.some((use) => use.settling)) {
        return [
          `No old pod can go: maxUnavailable ${wave.budget.maxUnavailable} is in use by ${plural(wave.unavailable.length, 'node')} that ${wave.unavailable.length === 1 ? 'does' : 'do'} not clear by ${wave.unavailable.length === 1 ? 'itself' : 'themselves'}:`,
          ...unavailableLines(wave, c),
          `  ${capitalised(budgetWayForward(wave.hold, 'step', wave.unavailable.length))}.`,
        ].join('\n');
      }
      return [
        `No old pod can go yet: maxUnavailable ${wave.budget.maxUnavailable} is in use by ${plural(wave.unavailable.length, 'node')}; waiting for them to become available:`,
        ...unavailableLines(wave, c),
      ].join('\n');
    }
    case 'recorded':
      return c.dim(`  recorded: step ${event.step}/${event.of} (annotation ds-rollout.io/step)`);
    case 'lease-taken':
      return c.yellow(`  --force: took over the step lease of ${event.from} (renewed ${event.renewedSecondsAgo}s ago)`);
    case 'deleted':
      return `  deleted pod ${event.pod} on ${event.node}`;
    case 'kept':
      return c.yellow(`  kept pod ${event.pod} on ${event.node}: ${event.why}`);
    case 'retry':
      return c.dim(`  retrying (${event.what}): ${event.why}`);
    case 'node':
      return `  ${event.landing.node}: ${landingText(event.landing, c)}`;
    case 'landed': {
      const left = oldPodsLeft(event.oldLeft);
      const scoped = event.scopeOldLeft === undefined ? '' : ` (${event.scopeOldLeft === 0 ? 'none' : event.scopeOldLeft} of the chosen nodes)`;
      return `${c.green(`Wave ${event.number} landed`)} in ${event.seconds}s; ${left}${scoped}.`;
    }
    case 'controller-plan': {
      const strategy = budgets(event.strategy.rollingUpdate);
      return [
        `${c.bold(`Wave ${event.number}/~${event.total} by the controller`)}${event.dryRun ? ' (dry run, nothing is changed)' : ''}: ${ds(ref)} is resumed with its recorded strategy (RollingUpdate ${strategy}).`,
        `  The controller starts new pods next to the old ones on ${plural(event.nodes.length, 'node')} (expected: ${formatList(event.nodes, NAMED)}; the live controller picks its own),`,
        '  removes each old pod once its new pod is available, and then the DaemonSet is paused again (also on Ctrl-C).',
        c.yellow(`  Until then it is NOT paused: if this process is killed, pause it again with ${cli('pause', ref)}.`),
      ].join('\n');
    }
    case 'resumed':
      return '  resumed: the controller runs the wave';
    case 'repaused':
      return '  paused again';
    case 'pruning':
      return `  the controller removes the surge pods it started meanwhile on ${formatList(event.nodes, NAMED)}`;
  }
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The core's words, coloured by how the landing goes. */
/** `no old pods left`, `3 nodes still run old pods`: what a wave left, in the step's lines and the dashboard's. */
export function oldPodsLeft(count: number): string {
  return count === 0 ? 'no old pods left' : `${plural(count, 'node')} still ${count === 1 ? 'runs an old pod' : 'run old pods'}`;
}

function landingText(node: NodeLanding, c: Palette): string {
  const words = landingWords(node);
  if (node.state === 'failing') return c.red(words);
  if (node.state === 'available') return c.green(words);
  return node.state === 'crowded' ? c.yellow(words) : words;
}

export interface StepResultView {
  readonly daemonSet: Ref;
  readonly outcome: 'done' | 'stepped' | 'dry-run' | 'declined';
  readonly oldLeft: number;
  readonly waves: readonly unknown[];
}

/** The closing line of a step in text mode (undefined when the events said it all). */
export function renderStepSummary(result: StepResultView, scoped: boolean, color: boolean): string | undefined {
  const c = palette(color);
  switch (result.outcome) {
    case 'done':
      return result.waves.length === 0
        ? `Nothing to do: every ${scoped ? 'chosen ' : ''}node of ${ds(result.daemonSet)} runs the new revision. ${scoped ? '' : `Resume to hand it back to the controller: ${cli('resume', result.daemonSet)}`}`.trimEnd()
        : `${c.green('Done')}: no old pods left${scoped ? ' on the chosen nodes' : ''}. ${scoped ? `Step the rest, or resume: ${cli('resume', result.daemonSet)}` : `The DaemonSet stays paused; resume it to hand it back to the controller: ${cli('resume', result.daemonSet)}`}`;
    case 'stepped':
      return `The DaemonSet stays paused. Next wave: ${cli('step', result.daemonSet)}`;
    case 'declined':
      return 'Nothing deleted.';
    case 'dry-run':
      return undefined;
  }
}

/** What the API server accepted of a `--dry-run=server` step (undefined: nothing was sent). */
export function renderServerDryRun(sent: {readonly deletions: number; readonly patches: number}): string | undefined {
  const lines: string[] = [];
  if (sent.deletions > 0) {
    lines.push(`The API server accepted the ${sent.deletions === 1 ? 'deletion' : `${sent.deletions} deletions`} (server dry run: nothing was deleted).`);
  }
  if (sent.patches > 0) lines.push('The API server accepted the resume for the controller wave (server dry run: nothing was changed).');
  return lines.length > 0 ? lines.join('\n') : undefined;
}
