// What `fleet rollout`, `fleet status`, `fleet promote` and `fleet abort` share (docs/commands/fleet.md): the plan
// from the flags (or, for the last three, from the clusters' records), a session per context, the fleet service
// run, its progress printed a line per event, and where the fleet stands at the end (a table, or -o json|yaml).
// Loaded lazily by those commands.
import {DsRolloutError, InputError, UsageError} from '../platform/errors.js';
import {isDocumentFormat, type OutputFormat} from './flags.js';
import type {GatedFlagValues} from './gated-command.js';
import type {FleetSession, LiveSession, SessionOptions} from '../cluster/session.js';
import type {FleetDetach, FleetDriveOptions, FleetRolloutResult} from '../services/fleet-rollout.js';
import type {FleetPlan, FleetRelease, StrategyFile} from '../core/index.js';

export interface FleetRolloutFlags extends SessionOptions, GatedFlagValues {
  readonly contexts?: readonly string[] | undefined;
  readonly 'cluster-waves'?: string | undefined;
  readonly image?: readonly string[] | undefined;
  readonly filename?: string | undefined;
  readonly detach?: boolean | undefined;
  readonly wait?: boolean | undefined;
  readonly 'job-image'?: string | undefined;
  readonly timeout?: number | undefined;
  readonly yes?: boolean | undefined;
  readonly restart?: boolean | undefined;
  readonly output: OutputFormat;
}

export interface FleetRun {
  readonly mode: 'rollout' | 'status' | 'promote' | 'abort';
  readonly name: string;
  readonly flags: FleetRolloutFlags;
  /** The plugin's version: a detached Job's default image. */
  readonly version: string;
}

/**
 * The release of `fleet rollout`: --image, or -f's manifest (read as `ds-plan -f` reads it, bounded; it must be
 * this DaemonSet, in this namespace, and valid as a DaemonSet). The namespace is the manifest's when it names one.
 */
async function releaseOfFlags(run: FleetRun, contextNamespace: string): Promise<{release: FleetRelease; namespace: string}> {
  const core = await import('../core/index.js');
  const {filename, image} = run.flags;
  if (filename !== undefined && (image?.length ?? 0) > 0) throw new UsageError('--image and -f both give the release: give one of them');
  if (filename === undefined) return {release: core.fleetReleaseOf(image ?? []), namespace: contextNamespace};
  const service = await import('../services/plan.js');
  const manifest = await service.readManifest(filename, run.name);
  const namespace = service.manifestNamespace(manifest, run.flags.namespace) ?? contextNamespace;
  const errors = core.validateDaemonSet(core.prepareDaemonSetCreate({...manifest, metadata: {...manifest.metadata, namespace}}));
  if (errors.length > 0) throw new InputError(`manifest "${filename}": ${core.formatInvalid('daemonset', `${namespace}/${run.name}`, errors)}`);
  return {release: core.fleetTemplateReleaseOf(manifest.spec.template), namespace};
}

/** The clusters in waves: --cluster-waves over the contexts in their order, or the strategy file's named waves. */
async function wavesOfFlags(
  run: FleetRun,
  contexts: readonly string[],
  file: StrategyFile | undefined,
): Promise<Pick<FleetPlan, 'contexts' | 'waves' | 'waveNames'>> {
  const core = await import('../core/index.js');
  if (file?.clusterWaves === undefined) return {contexts, waves: core.clusterWavesOf(run.flags['cluster-waves'], contexts.length)};
  if (run.flags['cluster-waves'] !== undefined)
    throw new UsageError(`--cluster-waves and the clusterWaves of --strategy file "${run.flags.strategy}" both give the waves: give one of them`);
  return core.namedClusterWavesOf(file.clusterWaves, contexts);
}

/** The plan `fleet rollout` asks for, from its flags alone: bad input is refused before any cluster is asked. */
async function planOfFlags(run: FleetRun, contexts: readonly string[], contextNamespace: string): Promise<FleetPlan> {
  const core = await import('../core/index.js');
  const {gatedStrategyOf, strategyFileOf} = await import('./gated-command.js');
  try {
    const {release, namespace} = await releaseOfFlags(run, contextNamespace);
    const file = run.flags.strategy === undefined ? undefined : await strategyFileOf(run.flags.strategy);
    const waves = await wavesOfFlags(run, contexts, file);
    const plan: FleetPlan = {namespace, name: run.name, ...waves, release, strategy: await gatedStrategyOf(run.flags, file)};
    const tooLarge = core.fleetRecordTooLarge(plan);
    if (tooLarge !== undefined) throw new InputError(tooLarge);
    return plan;
  } catch (error) {
    if (error instanceof DsRolloutError) throw error;
    throw new UsageError((error as Error).message);
  }
}

/** --contexts, each opened (nothing contacted yet), in the order given. */
async function openMembers(flags: FleetRolloutFlags): Promise<FleetSession[]> {
  const contexts = flags.contexts?.map((word) => word.trim()).filter((word) => word !== '');
  if (contexts === undefined || contexts.length === 0) throw new UsageError('a fleet command needs --contexts A,B,... (the clusters, in order)');
  const {openFleetSessions} = await import('../cluster/session.js');
  return openFleetSessions(flags, {contexts});
}

/** A fleet rollout changes clusters: asked on a terminal, refused without one unless --yes. */
async function confirmFleet(run: FleetRun, contexts: readonly string[]): Promise<void> {
  if (run.flags.yes || run.mode === 'status') return;
  if (!process.stdin.isTTY) throw new UsageError(`refusing to ${run.mode} without confirmation: there is no terminal to ask on; pass --yes`);
  const {createInterface} = await import('node:readline/promises');
  const rl = createInterface({input: process.stdin, output: process.stderr});
  try {
    const what = {rollout: 'Roll out', promote: 'Promote', abort: 'Abort'}[run.mode];
    const answer = (await rl.question(`${what} the fleet rollout of ${run.name} on ${contexts.join(', ')}? [y/N] `)).trim().toLowerCase();
    if (!/^y(es)?$/.test(answer)) throw new UsageError(`${run.mode}: not confirmed; nothing was changed`);
  } finally {
    rl.close();
  }
}

/** Each cluster's gated rollout handed to a Job in it: the fleet's strategy, as a strategy file the Job mounts. */
async function detacher(run: FleetRun): Promise<FleetDetach> {
  const [core, {detachRollout, jobFailed}, {detachClusterOf}, {dump}] = await Promise.all([
    import('../core/index.js'),
    import('../services/detach.js'),
    import('./detach-command.js'),
    import('js-yaml'),
  ]);
  return async (session: LiveSession, command, plan) => {
    const ref = {namespace: plan.namespace, name: plan.name};
    // Flags when they can say it (the Job needs no file then), else the strategy file the Job mounts (node waves,
    // the metric gate): the ConfigMap and --strategy of `step --strategy FILE --detach`.
    const args = core.strategyArgsOf(plan.strategy);
    const document = args === undefined ? core.strategyDocumentOf(plan.strategy) : undefined;
    const cluster = await detachClusterOf(session);
    const result = await detachRollout({
      cluster: {...cluster, writer: session.writer},
      ref,
      command,
      argv: command === 'step' ? [plan.name, '--until-complete', ...(args ?? [])] : [plan.name],
      image: run.flags['job-image'] ?? core.releaseImage(run.version),
      ...(command === 'step' && document !== undefined ? {strategy: dump(document)} : {}),
      // Its metric gate through the service proxy: the Job's RBAC lets it reach that Service (a promote: the record's).
      ...(command === 'step' && (plan.strategy.metrics?.length ?? 0) > 0 && plan.strategy.prometheus !== undefined
        ? {prometheus: plan.strategy.prometheus}
        : {}),
      yes: true,
      // A rerun gives a cluster whose Job failed (its rollout not failed) a fresh Job: docs/commands/fleet.md#rerun-another-machine-one-driver.
      retryFailed: true,
    });
    const failed = async () => {
      const job = await cluster.read('Job', plan.namespace, result.job);
      if (job !== undefined && !jobFailed(job)) return undefined;
      const how = job === undefined ? 'was deleted' : `failed (kubectl logs job/${result.job} -n ${plan.namespace})`;
      return `Job ${plan.namespace}/${result.job} ${how} before its rollout ended; rerun the same command to start a fresh Job`;
    };
    return {job: result.job, created: result.created, failed};
  };
}

async function driveOptions(
  run: FleetRun,
  plan: FleetPlan,
  members: readonly FleetSession[],
  out: NodeJS.WriteStream,
  signal: AbortSignal,
): Promise<FleetDriveOptions> {
  const [{renderFleetEvent}, {colorEnabled}, {prometheusOpener}, podWatch] = await Promise.all([
    import('../output/fleet-rollout-text.js'),
    import('../output/color.js'),
    import('../services/metric-gate.js'),
    import('../cluster/live/pod-watch.js'),
  ]);
  const color = colorEnabled(out.isTTY, process.env);
  const ref = {namespace: plan.namespace, name: plan.name};
  const detached = run.flags.detach !== false && run.flags.wait !== true;
  const killAtWave = Number(process.env['DS_ROLLOUT_TEST_KILL_AT_FLEET_WAVE'] ?? 0);
  const killAtStart = process.env['DS_ROLLOUT_TEST_KILL_AT_FLEET_START'];
  return {
    members,
    timeoutMs: run.flags.timeout ?? 5 * 60_000,
    ...(detached ? {detach: await detacher(run)} : {}),
    gated: (session) => ({
      prometheus: prometheusOpener(session.live.client, run.flags['request-timeout']),
      neighbours: () => podWatch.followAllPods(session.live.client),
    }),
    onEvent: (event) => {
      // Tests of a driver killed between waves choose the point: SIGKILL as this wave (1-based) is about to start.
      if (event.kind === 'wave' && killAtWave > 0 && event.wave + 1 >= killAtWave) process.kill(process.pid, 'SIGKILL');
      // ... or as this context has been started (its record and release written), its gated rollout not begun.
      if (event.kind === 'started' && event.context === killAtStart) process.kill(process.pid, 'SIGKILL');
      const line = renderFleetEvent(event, ref, color);
      if (line !== undefined) out.write(`${line}\n`);
    },
    signal,
    ...(run.flags.restart ? {restart: true} : {}),
  };
}

function namespaceOf(members: readonly FleetSession[]): string {
  const first = members.find((m): m is FleetSession & {session: LiveSession} => 'session' in m);
  if (first === undefined) throw new InputError(`no context of ${members.map((m) => m.context).join(', ')} could be opened`);
  return first.session.namespace;
}

async function printResult(result: FleetRolloutResult, output: OutputFormat): Promise<void> {
  if (isDocumentFormat(output)) {
    process.stdout.write(await (await import('../output/document.js')).renderDocument(result, output));
    return;
  }
  const [{renderFleetRolloutText}, {colorEnabled}] = await Promise.all([import('../output/fleet-rollout-text.js'), import('../output/color.js')]);
  const width = process.stdout.isTTY ? process.stdout.columns : undefined;
  process.stdout.write(renderFleetRolloutText(result, {color: colorEnabled(process.stdout.isTTY, process.env), ...(width ? {width} : {})}));
}

/** The plan's contexts that were not asked for are opened too: the fleet is every cluster of its plan. */
async function withPlanMembers(flags: FleetRolloutFlags, plan: FleetPlan, members: FleetSession[]): Promise<FleetSession[]> {
  const missing = plan.contexts.filter((context) => !members.some((m) => m.context === context));
  if (missing.length === 0) return members;
  const {openFleetSessions} = await import('../cluster/session.js');
  return [...members, ...(await openFleetSessions(flags, {contexts: missing}))];
}

/** Runs one fleet command to its end; the exit code is the error's it throws (one line), 0 otherwise. */
export async function runFleetCommand(run: FleetRun): Promise<void> {
  let members = await openMembers(run.flags);
  const [fleet, {stopAtSafePoint}] = await Promise.all([import('../services/fleet-rollout.js'), import('./interrupt.js')]);
  const out = isDocumentFormat(run.flags.output) ? process.stderr : process.stdout;
  const interrupt = stopAtSafePoint(out);
  try {
    const namespace = namespaceOf(members);
    const ref = {namespace, name: run.name};
    const plan =
      run.mode === 'rollout'
        ? await planOfFlags(
            run,
            members.map((m) => m.context),
            namespace,
          )
        : await fleet.recordedPlanOf(members, ref);
    members = await withPlanMembers(run.flags, plan, members);
    if (run.mode === 'status') {
      await printResult(await fleet.fleetRolloutStatus(members, plan), run.flags.output);
      return;
    }
    await confirmFleet(run, plan.contexts);
    const options = await driveOptions(run, plan, members, out, interrupt.signal);
    const result =
      run.mode === 'abort' ? await fleet.abortFleet(options, plan) : await fleet.driveFleet(options, plan, run.mode === 'promote' ? 'promote' : 'rollout');
    await printResult(result, run.flags.output);
  } finally {
    interrupt.dispose();
    for (const member of members) if ('session' in member) member.session.close();
  }
}
