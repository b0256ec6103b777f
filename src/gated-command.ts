// What `step --canary ...`, `promote` and `abort` share: the gated strategy from flags and a strategy file, the
// gated rollout service run against a live cluster, its progress printed. Loaded lazily by those commands.
import {type CanarySpec, type DaemonSet, type GatedStrategy, strategyFromDocument, strategyLine} from './core/index.js';
import {InputError, UsageError} from './errors.js';
import {isDocumentFormat, type OutputFormat, parseDuration} from './flags.js';
import {stopAtSafePoint} from './interrupt.js';

export interface GatedFlagValues {
  readonly canary?: string | undefined;
  readonly 'canary-nodes'?: string | undefined;
  readonly 'canary-selector'?: string | undefined;
  readonly 'canary-bake'?: number | undefined;
  readonly bake?: number | undefined;
  readonly approve?: boolean | undefined;
  readonly 'on-failure'?: 'pause' | 'undo' | undefined;
  readonly 'max-restarts'?: number | undefined;
  readonly 'progress-deadline'?: number | undefined;
  readonly strategy?: string | undefined;
}

const DEFAULT_PROGRESS_DEADLINE_MS = 10 * 60_000;

function canaryOf(flags: GatedFlagValues): CanarySpec | undefined {
  if (flags.canary !== undefined) {
    const text = flags.canary.trim();
    if (/^\d+$/.test(text) && Number(text) >= 1) return {kind: 'count', count: Number(text)};
    const percent = /^(\d+)%$/.exec(text);
    if (percent && Number(percent[1]) >= 1 && Number(percent[1]) <= 100) return {kind: 'percent', percent: Number(percent[1])};
    throw new UsageError(`invalid --canary "${flags.canary}": want a node count (2) or a percentage (10%)`);
  }
  if (flags['canary-nodes'] !== undefined) {
    const nodes = flags['canary-nodes']
      .split(',')
      .map((n) => n.trim())
      .filter((n) => n !== '');
    if (nodes.length === 0) throw new UsageError('--canary-nodes needs at least one node name');
    return {kind: 'nodes', nodes};
  }
  if (flags['canary-selector'] !== undefined) return {kind: 'selector', selector: flags['canary-selector']};
  return undefined;
}

/** The strategy file's fields, then the flags over them. */
export async function gatedStrategyOf(flags: GatedFlagValues): Promise<GatedStrategy> {
  let file: Partial<GatedStrategy> = {};
  if (flags.strategy !== undefined) {
    const {checkDocumentShape, isStackOverflow, MAX_MANIFEST_BYTES, readBoundedFile, tooDeepMessage} = await import('./cluster/bounded-input.js');
    const text = await readBoundedFile(flags.strategy, {what: `--strategy file "${flags.strategy}"`, maxBytes: MAX_MANIFEST_BYTES});
    const {load} = await import('js-yaml');
    let doc: unknown;
    try {
      doc = load(text);
    } catch (error) {
      if (isStackOverflow(error)) throw new InputError(tooDeepMessage(flags.strategy), {cause: error});
      const mark = (error as {mark?: {line: number}}).mark;
      const reason = (error as {reason?: string}).reason ?? (error as Error).message;
      throw new InputError(`${flags.strategy}${mark ? `:${mark.line + 1}` : ''}: ${reason}`);
    }
    checkDocumentShape(doc, text.length, flags.strategy);
    const parsed = strategyFromDocument(doc, (value) => parseDuration(value, 'duration'));
    if ('problem' in parsed) {
      const line = strategyLine(text, parsed.problem.path);
      throw new InputError(`${flags.strategy}${line ? `:${line}` : ''}: ${parsed.problem.message}`);
    }
    file = parsed.strategy;
  }
  const canary = canaryOf(flags) ?? file.canary;
  return {
    ...(canary ? {canary} : {}),
    canaryBakeMs: flags['canary-bake'] ?? file.canaryBakeMs ?? 0,
    waves: file.waves ?? [],
    bakeMs: flags.bake ?? file.bakeMs ?? 0,
    approve: flags.approve || (file.approve ?? false),
    maxRestarts: flags['max-restarts'] ?? file.maxRestarts ?? 0,
    progressDeadlineMs: flags['progress-deadline'] ?? file.progressDeadlineMs ?? DEFAULT_PROGRESS_DEADLINE_MS,
    onFailure: flags['on-failure'] ?? file.onFailure ?? 'pause',
  };
}

export interface GatedRun {
  readonly mode: 'step' | 'promote' | 'abort';
  readonly name: string;
  readonly flags: GatedFlagValues & {
    readonly kubeconfig?: string | undefined;
    readonly context?: string | undefined;
    readonly namespace?: string | undefined;
    readonly 'request-timeout'?: number | undefined;
    readonly timeout?: number | undefined;
    readonly 'max-unavailable'?: number | string | undefined;
    readonly output?: OutputFormat;
  };
}

/** Runs the gated rollout service and prints its progress (stdout in text mode, stderr under -o json|yaml). */
export async function runGatedCommand(run: GatedRun): Promise<void> {
  const [{openLiveCluster}, gated, step, view, {colorEnabled}, {renderDocument}] = await Promise.all([
    import('./cluster/open-source.js'),
    import('./services/gated-rollout.js'),
    import('./services/step.js'),
    import('./output/gated-text.js'),
    import('./output/color.js'),
    import('./output/document.js'),
  ]);
  const strategy = run.mode === 'step' ? await gatedStrategyOf(run.flags) : undefined;
  const live = await openLiveCluster(run.flags, run.mode);
  const ref = {namespace: live.namespace, name: run.name};
  const output = run.flags.output ?? 'text';
  const out = isDocumentFormat(output) ? process.stderr : process.stdout;
  const color = colorEnabled(out.isTTY, process.env);
  const interrupt = stopAtSafePoint(out);
  // Every stage transition and gate failure is also an Event on the DaemonSet (docs/gated/detached.md).
  const events = await import('./services/rollout-events.js');
  const recorded = events.gatedRunEvents(
    new events.RolloutEventRecorder((await import('./cluster/live/objects.js')).liveEventSink(live), ref, (line) => process.stderr.write(`${line}\n`)),
    run.mode,
  );
  if (run.mode !== 'step') {
    const note = (await import('./detach-command.js')).detachedJobNote(await live.source.readDaemonSet(ref), run.mode, live.client.serverNow());
    if (note !== undefined) out.write(`${note}\n`);
  }
  const options = {
    cluster: step.stepClusterOf(live),
    source: live.source,
    writer: live.writer,
    ref,
    ...(run.flags['max-unavailable'] !== undefined ? {maxUnavailable: run.flags['max-unavailable']} : {}),
    timeoutMs: run.flags.timeout ?? 5 * 60_000,
    onEvent: (event: Parameters<typeof view.renderGatedEvent>[0]) => {
      const line = view.renderGatedEvent(event, ref, color);
      if (line !== undefined) out.write(`${line}\n`);
      recorded.progress(event);
    },
    signal: interrupt.signal,
  };
  try {
    if (run.mode === 'abort') {
      const undone = await gated.abortGatedRollout(options);
      recorded.aborted(undone);
      const summary = `Gated rollout aborted: daemonset ${ref.namespace}/${ref.name} is back on revision ${undone.toRevision}${undone.nodes.length > 0 ? ` (stepped back: ${undone.nodes.join(', ')})` : ''}; it stays paused.`;
      if (isDocumentFormat(output)) process.stdout.write(await renderDocument({kind: 'GatedRolloutAbort', daemonSet: ref, ...undone}, output));
      else process.stdout.write(`${summary}\n`);
      return;
    }
    const result = await gated.runGatedRollout({...options, ...(strategy ? {strategy} : {}), promote: run.mode === 'promote'});
    recorded.ended(result);
    if (isDocumentFormat(output)) process.stdout.write(await renderDocument(result, output));
    else process.stdout.write(`${view.renderGatedSummary(result, ref)}\n`);
  } finally {
    interrupt.dispose();
    await recorded.flush();
  }
}

/**
 * A plain `step` on a DaemonSet whose gated rollout is under way would step nodes outside the current stage:
 * refused, with the commands that continue or end the gated rollout. (--dry-run only looks, and is let through.)
 */
export async function refuseIfGated(
  live: {source: {readDaemonSet(ref: {namespace: string; name: string}): Promise<DaemonSet>}},
  ref: {namespace: string; name: string},
): Promise<void> {
  const {gatedProgressOf} = await import('./core/index.js');
  const progress = gatedProgressOf(await live.source.readDaemonSet(ref), 0);
  if (!progress) return;
  const name = `${ref.name} -n ${ref.namespace}`;
  throw new InputError(
    `daemonset ${ref.namespace}/${ref.name} has a gated rollout under way (stage ${progress.stage}/${progress.stages} ${progress.name}, ${progress.phase}): a plain step would touch nodes outside the stage; rerun the gated step, or kubectl ds-rollout promote ${name} / abort ${name}`,
  );
}
