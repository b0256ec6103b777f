// What `step --canary ...`, `promote` and `abort` share: the gated strategy from flags and a strategy file, the
// gated rollout service run against a live cluster, its progress printed. Loaded lazily by those commands.
import {
  canarySizeOf,
  type CanarySpec,
  type DaemonSet,
  type GatedStrategy,
  type MetricQuery,
  type PrometheusTarget,
  type StrategyFile,
  gatedRefusalReason,
  metricQueryOf,
  parseLabelSelector,
  prometheusTargetOf,
  strategyFromDocument,
  strategyLine,
} from '../core/index.js';
import {InputError, UsageError} from '../platform/errors.js';
import {isDocumentFormat, type OutputFormat, parseDuration} from './flags.js';
import {stopAtSafePoint} from './interrupt.js';
import type {LiveSession} from '../cluster/session.js';

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
  readonly 'metric-query'?: string | undefined;
  readonly 'metric-max'?: string | undefined;
  readonly 'metric-min'?: string | undefined;
  readonly 'metric-for'?: number | undefined;
  readonly 'metric-interval'?: number | undefined;
  readonly 'prometheus-url'?: string | undefined;
  readonly 'prometheus-service'?: string | undefined;
  readonly 'prometheus-token-file'?: string | undefined;
  readonly 'prometheus-ca-file'?: string | undefined;
  readonly 'max-neighbour-failures'?: number | undefined;
  readonly 'neighbour-selector'?: string | undefined;
}

const DEFAULT_PROGRESS_DEADLINE_MS = 10 * 60_000;

function canaryOf(flags: GatedFlagValues): CanarySpec | undefined {
  if (flags.canary !== undefined) {
    const size = canarySizeOf(flags.canary);
    if (size) return size;
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

/** --metric-query and its bounds: one more query of the metric gate (named `metric`), or none. */
function metricOfFlags(flags: GatedFlagValues): MetricQuery | undefined {
  const given = (['metric-max', 'metric-min', 'metric-for', 'metric-interval'] as const).find((name) => flags[name] !== undefined);
  if (flags['metric-query'] === undefined) {
    if (given) throw new UsageError(`--${given} goes with --metric-query`);
    return undefined;
  }
  const built = metricQueryOf(
    {
      name: undefined,
      query: flags['metric-query'],
      max: flags['metric-max'],
      min: flags['metric-min'],
      for: flags['metric-for'] === undefined ? undefined : `${flags['metric-for']}ms`,
      interval: flags['metric-interval'] === undefined ? undefined : `${flags['metric-interval']}ms`,
      noData: undefined,
      onError: undefined,
    },
    (value) => parseDuration(value, 'duration'),
  );
  if ('problem' in built) throw new UsageError(`--metric-${built.problem.key === 'query' ? 'query' : built.problem.key}: ${built.problem.message}`);
  return built.metric;
}

/** --prometheus-url or --prometheus-service (with the token and CA files), or none. */
function prometheusOfFlags(flags: GatedFlagValues): PrometheusTarget | undefined {
  const url = flags['prometheus-url'];
  const service = flags['prometheus-service'];
  if (url === undefined && service === undefined) {
    const file = flags['prometheus-token-file'] !== undefined ? 'token' : flags['prometheus-ca-file'] !== undefined ? 'ca' : undefined;
    if (file) throw new UsageError(`--prometheus-${file}-file goes with --prometheus-url`);
    return undefined;
  }
  const built = prometheusTargetOf({url, service, tokenFile: flags['prometheus-token-file'], caFile: flags['prometheus-ca-file']});
  if ('problem' in built) {
    const flag = {url: 'prometheus-url', service: 'prometheus-service', tokenFile: 'prometheus-token-file', caFile: 'prometheus-ca-file'}[built.problem.key];
    throw new UsageError(
      `--${flag ?? built.problem.key}: ${built.problem.message.replace('tokenFile and caFile go with url', '--prometheus-token-file and --prometheus-ca-file go with --prometheus-url')}`,
    );
  }
  return built.prometheus;
}

/** The metric gate's queries (the file's, then the flag's) and where Prometheus is (the flags over the file). */
function metricGateOf(flags: GatedFlagValues, file: Partial<GatedStrategy>): Pick<GatedStrategy, 'metrics' | 'prometheus'> {
  const flag = metricOfFlags(flags);
  const metrics = [...(file.metrics ?? []), ...(flag ? [flag] : [])];
  if (flag && file.metrics?.some((m) => m.name === flag.name))
    throw new UsageError(`--metric-query: the strategy file already has a query named "${flag.name}"`);
  const prometheus = prometheusOfFlags(flags) ?? file.prometheus;
  if (metrics.length > 0 && prometheus === undefined)
    throw new UsageError('the metric gate needs Prometheus: give --prometheus-url or --prometheus-service (or prometheus: in the strategy file)');
  if (metrics.length === 0 && (flags['prometheus-url'] ?? flags['prometheus-service']) !== undefined)
    throw new UsageError(`--prometheus-${flags['prometheus-url'] !== undefined ? 'url' : 'service'} goes with --metric-query (or a strategy file's metrics)`);
  return metrics.length > 0 ? {metrics, ...(prometheus ? {prometheus} : {})} : {};
}

/** `--strategy FILE` read and parsed (docs/gated-rollouts.md#strategy-file); a problem is one line naming its line. */
export async function strategyFileOf(path: string): Promise<StrategyFile> {
  const {checkDocumentShape, isStackOverflow, MAX_MANIFEST_BYTES, readBoundedFile, tooDeepMessage} = await import('../cluster/bounded-input.js');
  const text = await readBoundedFile(path, {what: `--strategy file "${path}"`, maxBytes: MAX_MANIFEST_BYTES});
  const {load} = await import('js-yaml');
  let doc: unknown;
  try {
    doc = load(text);
  } catch (error) {
    if (isStackOverflow(error)) throw new InputError(tooDeepMessage(path), {cause: error});
    const mark = (error as {mark?: {line: number}}).mark;
    const reason = (error as {reason?: string}).reason ?? (error as Error).message;
    throw new InputError(`${path}${mark ? `:${mark.line + 1}` : ''}: ${reason}`);
  }
  checkDocumentShape(doc, text.length, path);
  const parsed = strategyFromDocument(doc, (value) => parseDuration(value, 'duration'));
  if ('problem' in parsed) {
    const line = strategyLine(text, parsed.problem.path);
    throw new InputError(`${path}${line ? `:${line}` : ''}: ${parsed.problem.message}`);
  }
  return parsed;
}

/**
 * The strategy file's fields, then the flags over them (`read`: the file already read, as `fleet rollout` reads
 * it for its cluster waves). A file's `clusterWaves` is the fleet's alone: a single cluster's rollout ignores it.
 */
export async function gatedStrategyOf(flags: GatedFlagValues, read?: StrategyFile): Promise<GatedStrategy> {
  const file: Partial<GatedStrategy> = (read ?? (flags.strategy !== undefined ? await strategyFileOf(flags.strategy) : undefined))?.strategy ?? {};
  const canary = canaryOf(flags) ?? file.canary;
  const neighbourSelector = flags['neighbour-selector'] ?? file.neighbourSelector;
  if (flags['neighbour-selector'] !== undefined) {
    try {
      parseLabelSelector(flags['neighbour-selector']);
    } catch (error) {
      throw new UsageError(`invalid --neighbour-selector "${flags['neighbour-selector']}": ${(error as Error).message}`);
    }
  }
  const maxNeighbourFailures = flags['max-neighbour-failures'] ?? file.maxNeighbourFailures;
  return {
    ...(canary ? {canary} : {}),
    canaryBakeMs: flags['canary-bake'] ?? file.canaryBakeMs ?? 0,
    waves: file.waves ?? [],
    bakeMs: flags.bake ?? file.bakeMs ?? 0,
    approve: flags.approve || (file.approve ?? false),
    maxRestarts: flags['max-restarts'] ?? file.maxRestarts ?? 0,
    progressDeadlineMs: flags['progress-deadline'] ?? file.progressDeadlineMs ?? DEFAULT_PROGRESS_DEADLINE_MS,
    onFailure: flags['on-failure'] ?? file.onFailure ?? 'pause',
    ...metricGateOf(flags, file),
    ...(maxNeighbourFailures !== undefined ? {maxNeighbourFailures} : {}),
    ...(neighbourSelector !== undefined ? {neighbourSelector} : {}),
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
    readonly 'dry-run'?: 'none' | 'client' | 'server' | undefined;
    readonly yes?: boolean | undefined;
    readonly output?: OutputFormat;
  };
}

/**
 * `promote` and `abort` delete pods: without --yes they ask on a terminal, and refuse without one (as `step`).
 * A dry run changes nothing and needs neither.
 */
export async function confirmGated(run: GatedRun): Promise<void> {
  if (run.flags.yes || (run.flags['dry-run'] ?? 'none') !== 'none') return;
  if (!process.stdin.isTTY) {
    throw new UsageError(`refusing to ${run.mode} without confirmation: there is no terminal to ask on; pass --yes, or --dry-run to only look`);
  }
  // As every prompt: the namespace and the cluster it acts on (docs/conventions.md), from the kubeconfig, before any request.
  const [{kubeconfigOptions}, {resolveKubeconfig}, {clusterLabel}] = await Promise.all([
    import('../cluster/open-source.js'),
    import('../cluster/live/kubeconfig.js'),
    import('../cluster/session.js'),
  ]);
  const config = resolveKubeconfig(kubeconfigOptions(run.flags));
  const {createInterface} = await import('node:readline/promises');
  const rl = createInterface({input: process.stdin, output: process.stderr});
  try {
    const question = `${run.mode === 'abort' ? 'Abort' : 'Promote'} the gated rollout of ${config.namespace}/${run.name} on ${clusterLabel(config)}? [y/N] `;
    const answer = (await rl.question(question)).trim().toLowerCase();
    if (!/^y(es)?$/.test(answer)) throw new UsageError(`${run.mode}: not confirmed; nothing was changed`);
  } finally {
    rl.close();
  }
}

/**
 * Runs the gated rollout service and prints its progress (stdout in text mode, stderr under -o json|yaml), on the
 * session given (a detached driver's, which its owner closes) or on one it opens.
 */
export async function runGatedCommand(run: GatedRun, opened?: LiveSession): Promise<void> {
  const [{openLiveSession}, gated, view, {colorEnabled}, {renderDocument}] = await Promise.all([
    import('../cluster/session.js'),
    import('../services/gated-rollout.js'),
    import('../output/gated-text.js'),
    import('../output/color.js'),
    import('../output/document.js'),
  ]);
  const strategy = run.mode === 'step' ? await gatedStrategyOf(run.flags) : undefined;
  // The one door every command opens: the cluster kubectl would act on, its clock, its writer.
  const session = opened ?? (await openLiveSession(run.flags, run.mode));
  const {live} = session;
  const ref = {namespace: session.namespace, name: run.name};
  const output = run.flags.output ?? 'text';
  const out = isDocumentFormat(output) ? process.stderr : process.stdout;
  const color = colorEnabled(out.isTTY, process.env);
  const interrupt = stopAtSafePoint(out);
  const dryRun = run.flags['dry-run'] ?? 'none';
  // Tests of a driver killed mid-rollout choose the point: SIGKILL right after this many record writes.
  const killAfter = Number(process.env['DS_ROLLOUT_TEST_KILL_AFTER_RECORD_WRITES'] ?? 0);
  let writes = 0;
  // Every stage transition and gate failure is also an Event on the DaemonSet (docs/gated/detached.md); a dry run records none.
  const events = await import('../services/rollout-events.js');
  const podWatch = await import('../cluster/live/pod-watch.js');
  const recorded = events.gatedRunEvents(
    new events.RolloutEventRecorder((await import('../cluster/live/objects.js')).liveEventSink(live), ref, (line) => process.stderr.write(`${line}\n`)),
    run.mode,
  );
  if (run.mode !== 'step') {
    const note = view.detachedJobNote(await live.source.readDaemonSet(ref), run.mode, session.clock.now());
    if (note !== undefined) out.write(`${note}\n`);
  }
  const options = {
    ...(dryRun !== 'none' ? {dryRun} : {}),
    session,
    ref,
    ...(run.flags['max-unavailable'] !== undefined ? {maxUnavailable: run.flags['max-unavailable']} : {}),
    timeoutMs: run.flags.timeout ?? 5 * 60_000,
    onEvent: (event: Parameters<typeof view.renderGatedEvent>[0]) => {
      const line = view.renderGatedEvent(event, ref, color);
      if (line !== undefined) out.write(`${line}\n`);
      if (dryRun === 'none') recorded.progress(event);
    },
    signal: interrupt.signal,
    prometheus: (await import('../services/metric-gate.js')).prometheusOpener(live.client, run.flags['request-timeout']),
    // The neighbour gate follows every pod of the cluster (one LIST and one WATCH), from the first stage on.
    neighbours: () => podWatch.followAllPods(live.client),
    onTransition: () => {
      if (killAfter > 0 && ++writes >= killAfter) process.kill(process.pid, 'SIGKILL');
    },
  };
  try {
    if (run.mode === 'abort') {
      const undone = await gated.abortGatedRollout(options);
      if (isDocumentFormat(output)) process.stdout.write(await renderDocument(undone, output));
      else process.stdout.write(`${view.renderAbortSummary(undone)}\n`);
      return;
    }
    const result = await gated.runGatedRollout({...options, ...(strategy ? {strategy} : {}), promote: run.mode === 'promote'});
    if (dryRun === 'none') recorded.ended(result);
    if (isDocumentFormat(output)) process.stdout.write(await renderDocument(result, output));
    else process.stdout.write(`${view.renderGatedSummary(result, ref)}\n`);
  } finally {
    interrupt.dispose();
    await recorded.flush();
    if (!opened) session.close();
  }
}

/**
 * A plain `step` or an `undo` on a DaemonSet whose gated rollout is under way would work around its record:
 * refused, with the commands that continue or end the gated rollout (their dry runs meet the same refusal).
 */
export function gatedRefusal(ds: DaemonSet, ref: {namespace: string; name: string}, command: 'step' | 'undo'): InputError | undefined {
  const reason = gatedRefusalReason(ds, ref, command);
  return reason === undefined ? undefined : new InputError(reason);
}
