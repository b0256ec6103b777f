// A generated sequence of commands and outside actions, run on a fresh World, with the invariants of issue 26
// checked after every step against a model of what the user did: which templates the user set, and what each
// node ran when the current gated rollout started. A violation throws, naming the invariant and the step.
import {computeTemplateHash, FINISHED_GATED_PHASES, type GatedPhase, type GatedStrategy} from '../../src/core/index.js';
import * as sut from './commands.js';
import {BAD_IMAGE, REF, World} from './world.js';

/** Kill -9 of the driver right after its n-th record write or pod deletion (never, if it makes fewer). */
export interface Kill {
  readonly after: 'record-write' | 'pod-delete';
  readonly n: number;
}

export type Canary = {readonly count: number} | {readonly nodes: readonly number[]} | {readonly selector: readonly number[]};

export type Step =
  | {
      readonly kind: 'gated';
      readonly canary: Canary;
      readonly canaryBakeS: number;
      readonly waves: readonly number[];
      readonly bakeS: number;
      readonly approve: boolean;
      readonly onFailure: 'pause' | 'undo';
      readonly maxUnavailable?: number;
      readonly kill?: Kill;
    }
  | {readonly kind: 'promote'; readonly kill?: Kill}
  | {readonly kind: 'abort'; readonly maxUnavailable?: number; readonly kill?: Kill}
  | {readonly kind: 'step'; readonly kill?: Kill}
  | {readonly kind: 'resume'; readonly force: boolean}
  | {readonly kind: 'pause'}
  | {readonly kind: 'undo'}
  | {readonly kind: 'restart'}
  | {readonly kind: 'set-image'; readonly image: string}
  | {readonly kind: 'set-env'; readonly value: string}
  | {readonly kind: 'kubectl-undo'}
  | {readonly kind: 'rolling-update'}
  | {readonly kind: 'node-ready'; readonly node: number; readonly ready: boolean}
  | {readonly kind: 'crash-loop'; readonly node: number}
  | {readonly kind: 'wait'; readonly seconds: number};

type Driven = Extract<Step, {kind: 'gated' | 'promote' | 'abort' | 'step'}>;

const node = (i: number) => `node-${i}`;
const killText = (kill: Kill | undefined) =>
  kill ? `   # kill -9 after its ${ordinal(kill.n)} ${kill.after === 'record-write' ? 'record write' : 'pod deletion'}` : '';
const ordinal = (n: number) => `${n}${n === 1 ? 'st' : n === 2 ? 'nd' : n === 3 ? 'rd' : 'th'}`;
const R = 'kubectl ds-rollout';

/** The step as a person would type it. */
export function describeStep(step: Step): string {
  switch (step.kind) {
    case 'gated': {
      const c = step.canary;
      const canary =
        'count' in c
          ? `--canary ${c.count}`
          : 'nodes' in c
            ? `--canary-nodes ${c.nodes.map(node).join(',')}`
            : `--canary-selector 'kubernetes.io/hostname in (${c.selector.map(node).join(',')})'`;
      const waves = step.waves.length > 0 ? ` --strategy <(echo 'waves: [${step.waves.join(', ')}]')` : '';
      return `${R} step agent --until-complete ${canary} --canary-bake ${step.canaryBakeS}s --bake ${step.bakeS}s${step.approve ? ' --approve' : ''} --on-failure ${step.onFailure}${step.maxUnavailable !== undefined ? ` --max-unavailable ${step.maxUnavailable}` : ''}${waves} --yes${killText(step.kill)}`;
    }
    case 'promote':
      return `${R} promote agent --yes${killText(step.kill)}`;
    case 'abort':
      return `${R} abort agent${step.maxUnavailable !== undefined ? ` --max-unavailable ${step.maxUnavailable}` : ''} --yes${killText(step.kill)}`;
    case 'step':
      return `${R} step agent --until-complete --yes${killText(step.kill)}`;
    case 'resume':
      return `${R} resume agent${step.force ? ' --force --max-unavailable 2' : ''}`;
    case 'pause':
      return `${R} pause agent`;
    case 'undo':
      return `${R} undo agent --yes`;
    case 'restart':
      return '# restart the killed driver: its command again, on a fresh connection';
    case 'set-image':
      return `kubectl set image ds/agent main=${step.image}`;
    case 'set-env':
      return `kubectl set env ds/agent MODE=${step.value}`;
    case 'kubectl-undo':
      return 'kubectl rollout undo ds/agent';
    case 'rolling-update':
      return `kubectl patch ds/agent -p '{"spec":{"updateStrategy":{"type":"RollingUpdate"}}}'`;
    case 'node-ready':
      return `# ${node(step.node)} turns ${step.ready ? 'Ready again' : 'NotReady'}`;
    case 'crash-loop':
      return `# every new pod on ${node(step.node)} crash-loops`;
    case 'wait':
      return `sleep ${step.seconds}   # on the cluster's clock`;
  }
}

export function describeSequence(nodes: number, steps: readonly Step[]): string {
  return [`# ${nodes} nodes, agent:v1 everywhere, paused, template agent:v2 (${BAD_IMAGE} crash-loops)`, ...steps.map(describeStep)].join('\n');
}

const isFinished = (phase: string | undefined) => phase !== undefined && FINISHED_GATED_PHASES.has(phase as GatedPhase);

/** The invariants, by the name a violation carries. */
export const INVARIANTS = ['node-revision', 'template', 'abort-release', 'budget', 'views-agree', 'ended-shown', 'ended-refuses', 'revived', 'hang'] as const;
export type Invariant = (typeof INVARIANTS)[number];

/** A violated invariant, with the step it followed. */
export class InvariantViolation extends Error {}

interface Rollout {
  /** What each node ran when the rollout started. */
  readonly startKeys: ReadonlyMap<string, string | undefined>;
  /** The template abort may go back to: the one before the user's release (none: the template stays). */
  readonly origin: string;
  /** The record's hash of the template it rolls out. */
  readonly release: string;
  /** How it ended, if it did (complete, aborted, abandoned, superseded by someone else's template). */
  ended?: string;
  /**
   * Someone set the template after it ended (`kubectl rollout undo` back to the aborted release, say): the same
   * command run again then starts a new rollout of what they set, as a spec change starts one in Argo Rollouts.
   */
  respecified?: boolean;
}

interface Snapshot {
  readonly template: string;
  readonly templateHash: string;
  readonly nodeKeys: ReadonlyMap<string, string | undefined>;
  readonly recordText: string | undefined;
  readonly record: ReturnType<typeof sut.recordOf>;
}

/** Simulated time a command may take before it counts as hung. */
const HANG_MS = 30 * 60_000;
/** Simulated time the cluster gets after each step (pods replaced, crash loops noticed). */
const SETTLE_MS = 2_000;
const PAUSED_MAX_UNAVAILABLE = 2;

export class SequenceRun {
  private template = '';
  /** Whether the user set the current template (else our abort did), and the one before the user's last change. */
  private setByUser = true;
  private beforeUser = 'agent:v1';
  private rollout: Rollout | undefined;
  private killed: Driven | undefined;
  /** Nodes made unavailable by our deletions (an available pod deleted), until they are available again. */
  private readonly caused = new Set<string>();
  readonly log: string[] = [];
  /** Invariants reported in the log instead of thrown (exploring past a known failure). */
  private skip: ReadonlySet<Invariant> = new Set();
  /** The connection of every driver that is not killed, and of the views (a kill gets a fresh one). */
  private shared: sut.Driver;
  /** A command that did not end: reported after the other invariants had their look at what it did. */
  private hung: string | undefined;

  private constructor(private readonly world: World) {
    this.shared = world.driver();
  }

  static async run(nodes: number, steps: readonly Step[], skip: ReadonlySet<Invariant> = new Set()): Promise<void> {
    const world = await World.start(nodes);
    try {
      const run = new SequenceRun(world);
      run.skip = skip;
      run.template = world.templateKey();
      for (const [index, step] of steps.entries()) {
        try {
          await run.step(step);
        } catch (error) {
          if (error instanceof InvariantViolation) {
            const reproduction = describeSequence(nodes, steps.slice(0, index + 1));
            throw new InvariantViolation(`after step ${index + 1}: ${error.message}\n  outcomes: ${run.log.join(' | ')}\n  reproduction:\n${reproduction}`);
          }
          throw error;
        }
      }
    } finally {
      await world.stop();
    }
  }

  private violate(invariant: Invariant, message: string): void {
    if (this.skip.has(invariant)) this.log.push(`(skipped ${invariant}: ${message})`);
    else throw new InvariantViolation(`[${invariant}] ${message}`);
  }

  private snapshot(): Snapshot {
    const ds = this.world.daemonSet();
    return {
      template: this.world.templateKey(),
      templateHash: computeTemplateHash(ds.spec.template),
      nodeKeys: this.world.nodeKeys(),
      recordText: ds.metadata.annotations?.['ds-rollout.io/gated-rollout'],
      record: sut.recordOf(ds),
    };
  }

  private async step(step: Step): Promise<void> {
    const before = this.snapshot();
    // What runs: a restart reruns the killed command.
    const runs = step.kind === 'restart' ? (this.killed?.kind ?? 'restart') : step.kind;
    let ours = false;
    switch (step.kind) {
      case 'set-image':
      case 'set-env':
      case 'kubectl-undo':
        if (step.kind === 'set-image') this.world.setImage(step.image);
        else if (step.kind === 'set-env') this.world.setEnv(step.value);
        else this.world.kubectlUndo();
        this.userChangedTemplate(before);
        break;
      case 'rolling-update':
        this.world.patchRollingUpdate();
        break;
      case 'node-ready':
        this.world.setNodeReady(node(step.node), step.ready);
        break;
      case 'crash-loop':
        this.world.crashLoop(node(step.node));
        break;
      case 'wait':
        break;
      default:
        ours = true;
        await this.ours(step);
    }
    await this.world.settle(step.kind === 'wait' ? step.seconds * 1000 : SETTLE_MS);
    const after = this.snapshot();
    const endedBefore = this.rollout?.ended;
    const revived = after.record.raw?.template === this.rollout?.release && !isFinished(after.record.raw?.phase);
    if (step.kind === 'restart' && endedBefore !== undefined && !this.rollout?.respecified && after.recordText !== before.recordText && revived) {
      this.violate('revived', `the restarted driver revived its rollout, which had ended (${endedBefore}): the record now says ${after.record.raw?.phase}`);
    }
    this.noteNewRollout(step, before, after);
    if (ours) this.checkOurChanges(runs, before, after);
    this.follow(step, before, after);
    await this.checkViews(after);
    if (this.hung) this.violate('hang', this.hung);
    this.hung = undefined;
  }

  /** Someone else changed the template: the rollout under way (not our own abort) is superseded. */
  private userChangedTemplate(before: Snapshot): void {
    const now = this.world.templateKey();
    if (now === before.template) return;
    this.beforeUser = before.template;
    this.setByUser = true;
    if (this.rollout?.ended) this.rollout.respecified = true;
    if (this.rollout && !this.rollout.ended && before.record.raw?.phase !== 'aborting') this.rollout.ended = 'superseded';
  }

  private async ours(
    step: Exclude<Step, {kind: 'set-image' | 'set-env' | 'kubectl-undo' | 'rolling-update' | 'node-ready' | 'crash-loop' | 'wait'}>,
  ): Promise<void> {
    if (step.kind === 'restart') {
      const killed = this.killed;
      this.killed = undefined;
      if (killed) await this.drive({...killed, kill: undefined} as Driven);
      else this.log.push('restart: nothing was killed');
      return;
    }
    if (step.kind === 'promote' || step.kind === 'abort' || step.kind === 'step' || step.kind === 'gated') {
      await this.drive(step);
      return;
    }
    const driver = this.shared;
    const outcome =
      step.kind === 'resume'
        ? await sut.resume(driver, REF, step.force ? PAUSED_MAX_UNAVAILABLE : undefined)
        : step.kind === 'pause'
          ? await sut.pause(driver, REF)
          : await this.world.drive(sut.undo(driver, REF), HANG_MS);
    if (outcome === 'hang') {
      // Killed, as a hung gated command is: it must change nothing while the invariants look.
      this.shared.kill();
      this.shared = this.world.driver();
      this.hung = `${step.kind} hung (no end within ${HANG_MS / 60_000} min on the cluster's clock)`;
    }
    this.log.push(`${step.kind}: ${outcome === 'hang' ? 'hung' : `exit ${outcome.exit}`}`);
  }

  /** Runs a command that deletes pods, with the budget witness on, killing it at the generated moment. */
  private async drive(step: Driven): Promise<void> {
    const driver = step.kill ? this.world.driver() : this.shared;
    let killedNow: () => void = () => {};
    const killed = new Promise<'killed'>((resolve) => (killedNow = () => resolve('killed')));
    const counts = {'record-write': 0, 'pod-delete': 0};
    const moment = (what: Kill['after']) => {
      counts[what]++;
      if (step.kill?.after === what && counts[what] === step.kill.n) {
        driver.kill();
        killedNow();
      }
    };
    const hooks: sut.DriverHooks = {onRecordWrite: () => moment('record-write'), onPodDeleted: () => moment('pod-delete')};
    const flag = step.kind === 'gated' || step.kind === 'abort' ? step.maxUnavailable : undefined;
    // The command's own --max-unavailable, else (gated commands) the one the record in force started with, else the
    // paused strategy's: read at each deletion, since a gated step may start a new record with its own.
    const stopWitness = this.budgetWitness(() =>
      Number(flag ?? (step.kind === 'step' ? undefined : sut.recordOf(this.world.daemonSet()).raw?.maxUnavailable) ?? PAUSED_MAX_UNAVAILABLE),
    );
    const flags = (s: Extract<Driven, {kind: 'gated'}>): sut.GatedFlags => ({
      strategy: strategyOf(s),
      ...(s.maxUnavailable !== undefined ? {maxUnavailable: s.maxUnavailable} : {}),
    });
    const work =
      step.kind === 'gated'
        ? sut.gatedStep(driver, REF, flags(step), hooks)
        : step.kind === 'promote'
          ? sut.promote(driver, REF, hooks)
          : step.kind === 'abort'
            ? sut.abort(driver, REF, step.maxUnavailable, hooks)
            : sut.plainStep(driver, REF, hooks);
    try {
      const outcome = await this.world.drive(Promise.race([work, killed]), HANG_MS);
      if (outcome === 'hang') {
        // Killed, so that it changes nothing more while the invariants look at what it did.
        driver.kill();
        if (driver === this.shared) this.shared = this.world.driver();
        // A plain step and an abort have no gate: waiting on a pod that never becomes available (its node crash-loops
        // every pod, or is NotReady) is what their --timeout (5 min by default) ends, on this machine's clock, which
        // the harness cannot give them. That end is not a hang; an abort waiting with every node available is.
        if (step.kind === 'step' || (step.kind === 'abort' && this.world.unavailable().length > 0)) {
          this.log.push(`${step.kind}: ended by its --timeout (waiting on unavailable pods)`);
          return;
        }
        this.hung = `${step.kind} hung (no end within ${HANG_MS / 60_000} min on the cluster's clock)`;
        this.log.push(`${step.kind}: hung`);
        return;
      }
      if (outcome === 'killed') {
        this.killed = step;
        this.log.push(`${step.kind}: killed`);
      } else {
        this.log.push(`${step.kind}: exit ${outcome.exit}${outcome.message ? ` (${outcome.message.slice(0, 160)})` : ''}`);
      }
    } finally {
      if (driver !== this.shared) driver.kill();
      work.catch(() => undefined);
      stopWitness();
    }
  }

  /**
   * The budget: each available pod our driver deletes (the DaemonSet paused, so nobody else deletes) makes its node
   * ours until it is available again; at no deletion may more of ours be unavailable than maxUnavailable.
   */
  private budgetWitness(budget: () => number): () => void {
    let violation: string | undefined;
    const stop = this.world.store.subscribe((event) => {
      if (event.resource !== 'pods' || violation) return;
      const old = event.oldObject as
        {metadata: {deletionTimestamp?: string}; spec: {nodeName?: string}; status?: {conditions?: {type: string; status: string}[]}} | undefined;
      const pod = event.object as unknown as typeof old & {};
      const starts =
        event.type === 'MODIFIED'
          ? !old?.metadata.deletionTimestamp && !!pod.metadata.deletionTimestamp
          : event.type === 'DELETED' && !old?.metadata.deletionTimestamp;
      if (!starts || this.world.daemonSet().spec.updateStrategy?.type !== 'OnDelete') return;
      const unavailable = new Set(this.world.unavailable());
      for (const n of this.caused) if (!unavailable.has(n)) this.caused.delete(n);
      const wasAvailable = (old ?? pod).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
      if (!wasAvailable || !pod.spec.nodeName) return;
      this.caused.add(pod.spec.nodeName);
      const maxUnavailable = budget();
      if (this.caused.size > maxUnavailable) {
        violation = `budget exceeded: deleting the available pod on ${pod.spec.nodeName} made ${[...this.caused].sort().join(', ')} unavailable (maxUnavailable ${maxUnavailable})`;
      }
    });
    return () => {
      stop();
      if (violation) this.violate('budget', violation);
    };
  }

  /** Our command moved nodes and the template only where the user's templates and the rollout's start allow. */
  private checkOurChanges(kind: Step['kind'], before: Snapshot, after: Snapshot): void {
    const rollout = this.rollout && !this.rollout.ended ? this.rollout : undefined;
    if (after.template !== before.template && kind !== 'undo') {
      const abortLike = kind === 'abort' || kind === 'gated' || kind === 'promote' || kind === 'restart';
      if (!abortLike) this.violate('template', `${kind} changed the template from ${before.template} to ${after.template}`);
      // The origin is read from the pods when the rollout starts (issue 26): a revision some node ran then.
      const origins = new Set([...(this.rollout?.startKeys.values() ?? [])].filter((key): key is string => key !== undefined));
      if (!origins.has(after.template)) {
        this.violate(
          'template',
          `the template went from ${before.template} to ${after.template}, which no node ran when the rollout started (${[...origins].sort().join(', ') || 'no rollout: nothing to go back to'})`,
        );
      }
      const raw = before.record.raw;
      // Abort only: a gated step may have started a new record, whose --on-failure undo the origin check covers.
      if (kind === 'abort' && raw && raw.template !== before.templateHash && raw.phase !== 'aborting') {
        this.violate(
          'abort-release',
          `abort changed a template it did not record as the release (${before.template}, record phase ${raw.phase}) to ${after.template}`,
        );
      }
    }
    for (const [name, key] of after.nodeKeys) {
      if (key === undefined || key === before.nodeKeys.get(name)) continue;
      const allowed = new Set([before.template, after.template]);
      const start = (rollout ?? this.rollout)?.startKeys.get(name);
      if (start !== undefined) allowed.add(start);
      if (!allowed.has(key)) {
        this.violate(
          'node-revision',
          `${name} now runs ${key}: neither a template of this step (${[before.template, after.template].join(', ')}) nor what it ran when the rollout started (${start ?? 'no rollout'})`,
        );
      }
    }
  }

  /** A gated step that wrote a record over none, a finished one or another template's started a new rollout. */
  private noteNewRollout(step: Step, before: Snapshot, after: Snapshot): void {
    const raw = after.record.raw;
    if (!(step.kind === 'gated' || step.kind === 'restart') || !raw || after.recordText === before.recordText) return;
    const old = before.record;
    const fresh = !old.raw || FINISHED_GATED_PHASES.has(old.effective as GatedPhase) || old.raw.template !== raw.template;
    if (fresh) this.rollout = {startKeys: before.nodeKeys, origin: this.setByUser ? this.beforeUser : before.template, release: raw.template};
  }

  /** The model follows what happened: the template and who set it, the rollout's end. */
  private follow(step: Step, before: Snapshot, after: Snapshot): void {
    if (after.template !== before.template && step.kind === 'undo') {
      this.beforeUser = before.template;
      this.setByUser = true;
    } else if (after.template !== this.template && (step.kind === 'abort' || step.kind === 'gated' || step.kind === 'promote' || step.kind === 'restart')) {
      this.setByUser = false;
    }
    this.template = after.template;
    if (this.rollout && !this.rollout.ended && after.record.effective && FINISHED_GATED_PHASES.has(after.record.effective as GatedPhase)) {
      this.rollout.ended = after.record.effective;
    }
  }

  /** status, ds-plan, the dashboard and the record agree; an ended rollout is shown by none and blocks nothing. */
  private async checkViews(after: Snapshot): Promise<void> {
    const driver = this.shared;
    {
      const views = await this.world.drive(sut.gatedViews(driver, REF, this.world.now()), HANG_MS);
      if (views === 'hang') return this.violate('hang', 'status / ds-plan hung');
      const effective = after.record.effective;
      // Under way: its phase. Superseded by someone else's template: shown as such while the DaemonSet stays paused
      // (every face names the new revision and the way on). Any other end: shown by none.
      const paused = this.world.daemonSet().spec.updateStrategy?.type === 'OnDelete';
      const expected =
        effective !== undefined && (!FINISHED_GATED_PHASES.has(effective as GatedPhase) || (effective === 'superseded' && paused)) ? effective : undefined;
      const shown = `status ${views.status ?? '-'}, ds-plan ${views.plan ?? '-'}, dashboard ${views.dashboard ?? '-'}, record ${after.record.raw?.phase ?? '-'} (effective ${effective ?? '-'})`;
      if (views.status !== expected || views.plan !== expected || views.dashboard !== expected)
        this.violate('views-agree', `the views disagree on the gated phase: ${shown}`);
      const ended = this.rollout?.ended;
      if (ended !== undefined) {
        if (expected !== undefined && expected !== 'superseded')
          this.violate('ended-shown', `the rollout ended (${ended}) but the views still show it: ${shown}`);
        const refused = await sut.refusedByRecord(driver, REF, this.world.daemonSet());
        if (refused.length > 0) this.violate('ended-refuses', `the rollout ended (${ended}) but its record still refuses: ${refused.join(', ')}`);
      }
    }
  }
}

/** The gated flags as the command turns them into a strategy (test/helpers/paused-release.ts's defaults). */
export function strategyOf(step: Extract<Step, {kind: 'gated'}>): GatedStrategy {
  const c = step.canary;
  return {
    canary:
      'count' in c
        ? {kind: 'count', count: c.count}
        : 'nodes' in c
          ? {kind: 'nodes', nodes: c.nodes.map(node)}
          : {kind: 'selector', selector: `kubernetes.io/hostname in (${c.selector.map(node).join(',')})`},
    canaryBakeMs: step.canaryBakeS * 1000,
    waves: step.waves,
    bakeMs: step.bakeS * 1000,
    approve: step.approve,
    maxRestarts: 0,
    progressDeadlineMs: 10 * 60_000,
    onFailure: step.onFailure,
  };
}
