// What `status`, `ds-plan` and `history` do with --contexts or --all-contexts: refuse what a fleet cannot mean, open
// a session per context, run the fleet service, print one table with a CONTEXT column and a count line (or the
// document keyed by context), and exit with the worst context's code. Loaded lazily by those commands.
import {UsageError} from '../platform/errors.js';
import {isDocumentFormat, type OutputFormat} from './flags.js';
import type {ContextResult, FleetDocument} from '../output/fleet-text.js';
import type {SessionOptions} from '../cluster/session.js';

export interface FleetCommandFlags extends SessionOptions {
  readonly contexts?: readonly string[] | undefined;
  readonly 'all-contexts'?: boolean | undefined;
  readonly output: OutputFormat;
}

/** NAME, which every context is asked for: without it a fleet would be a table of tables. */
function requireName(name: string | undefined, usage: string): string {
  if (name === undefined) throw new UsageError(`--contexts and --all-contexts need NAME (the DaemonSet to ask every cluster for); see '${usage} --help'`);
  return name;
}

async function openFleet(flags: FleetCommandFlags) {
  const {openFleetSessions} = await import('../cluster/session.js');
  const contexts = flags.contexts?.map((word) => word.trim()).filter((word) => word !== '');
  return openFleetSessions(flags, {...(contexts === undefined ? {} : {contexts}), all: flags['all-contexts'] === true});
}

/** Prints the table (text, wide) or the document, and sets the exit code: the worst context's. */
async function printFleet<T>(
  flags: FleetCommandFlags,
  what: {readonly kind: string; readonly name: string},
  results: readonly ContextResult<T>[],
  text: (results: readonly ContextResult<T>[], options: {color: boolean; width?: number; wide?: boolean}) => string,
  document: (result: T) => unknown,
  /** More of the document, beside the counts (`status`: the fleet rollouts). */
  extra?: Pick<FleetDocument<unknown>, 'fleetRollouts'>,
): Promise<void> {
  const {fleetExitCode} = await import('../services/fleet.js');
  const exitCode = fleetExitCode(results);
  if (isDocumentFormat(flags.output)) {
    const [{fleetDocument}, {renderDocument}] = await Promise.all([import('../output/fleet-text.js'), import('../output/document.js')]);
    process.stdout.write(await renderDocument(fleetDocument(what.kind, what.name, results, exitCode, document, extra), flags.output));
  } else {
    const {colorEnabled} = await import('../output/color.js');
    const width = process.stdout.isTTY ? process.stdout.columns : undefined;
    process.stdout.write(text(results, {color: colorEnabled(process.stdout.isTTY, process.env), ...(width ? {width} : {}), wide: flags.output === 'wide'}));
  }
  process.exitCode = exitCode;
}

export interface StatusFleetFlags extends FleetCommandFlags {
  readonly 'all-namespaces': boolean;
  readonly selector?: string | undefined;
  readonly filename?: string | undefined;
  readonly watch?: boolean | undefined;
  readonly timeout?: number | undefined;
}

/** `status NAME --contexts ...`: one look at each cluster (the dashboard is where a fleet is followed live). */
export async function statusFleet(name: string | undefined, flags: StatusFleetFlags, usage: string): Promise<void> {
  if (flags.watch) throw new UsageError('--contexts looks once at every cluster: drop -w (or use --watch=false)');
  if (flags['all-namespaces'] || flags.selector !== undefined || flags.filename !== undefined) {
    throw new UsageError('--contexts and --all-contexts ask for one DaemonSet by NAME: they cannot be used with -A, -l or -f');
  }
  const daemonSet = requireName(name, usage);
  const [{fleetStatus}, text] = await Promise.all([import('../services/fleet.js'), import('../output/fleet-text.js')]);
  const {results, fleets} = await fleetStatus(await openFleet(flags), {name: daemonSet, ...(flags.timeout ? {timeoutMs: flags.timeout} : {})});
  await printFleet(
    flags,
    {kind: 'DaemonSetRolloutStatusFleet', name: daemonSet},
    results,
    (rows, options) => text.renderStatusFleetText(rows, options, fleets),
    ({report, fleetRollout}) => ({...report, ...(fleetRollout === undefined ? {} : {fleetRollout: text.fleetPartDocument(fleetRollout)})}),
    {fleetRollouts: fleets.map((standing) => text.fleetStandingDocument(standing))},
  );
}

export interface PlanFleetFlags extends FleetCommandFlags {
  readonly filename?: string | undefined;
  readonly 'kube-version'?: number | undefined;
  readonly 'pod-start'?: number | undefined;
}

/** `ds-plan NAME --contexts ...`: each cluster's plan, on its own controller version (-f: the manifest's, on each). */
export async function planFleet(name: string | undefined, flags: PlanFleetFlags, usage: string): Promise<void> {
  if (flags.filename !== undefined) return planManifestFleet(name, {...flags, filename: flags.filename});
  const daemonSet = requireName(name, usage);
  const [{fleetPlan}, {renderPlanFleetText}, {toPlanDocument}] = await Promise.all([
    import('../services/fleet.js'),
    import('../output/fleet-text.js'),
    import('../output/plan-json.js'),
  ]);
  const results = await fleetPlan(await openFleet(flags), {
    name: daemonSet,
    ...(flags['kube-version'] === undefined ? {} : {kubeVersion: flags['kube-version']}),
    ...(flags['pod-start'] === undefined ? {} : {podStartMs: flags['pod-start']}),
  });
  await printFleet(flags, {kind: 'DaemonSetRolloutPlanFleet', name: daemonSet}, results, renderPlanFleetText, toPlanDocument);
}

/** `ds-plan -f MANIFEST --contexts ...`: the manifest planned on every cluster, each checked by its own API server. */
async function planManifestFleet(name: string | undefined, flags: PlanFleetFlags & {readonly filename: string}): Promise<void> {
  const [service, {fleetPlanManifest}, {renderPlanManifestFleetText}, {planManifestDocument}] = await Promise.all([
    import('../services/plan.js'),
    import('../services/fleet-manifest.js'),
    import('../output/fleet-manifest-text.js'),
    import('../output/manifest-text.js'),
  ]);
  const manifest = await service.readManifest(flags.filename, name);
  const namespace = service.manifestNamespace(manifest, flags.namespace);
  const daemonSet = name ?? manifest.metadata.name ?? '';
  const results = await fleetPlanManifest(await openFleet({...flags, ...(namespace === undefined ? {} : {namespace})}), {
    manifest,
    manifestPath: flags.filename,
    name: daemonSet,
    ...(flags['kube-version'] === undefined ? {} : {kubeVersion: flags['kube-version']}),
    ...(flags['pod-start'] === undefined ? {} : {podStartMs: flags['pod-start']}),
  });
  await printFleet(flags, {kind: 'DaemonSetRolloutPlanFleet', name: daemonSet}, results, renderPlanManifestFleetText, planManifestDocument);
}

export interface HistoryFleetFlags extends FleetCommandFlags {
  readonly revision?: unknown;
  readonly diff?: unknown;
}

/** `history NAME --contexts ...`: each cluster's revisions, the current one's images and pods. */
export async function historyFleet(name: string | undefined, flags: HistoryFleetFlags, usage: string): Promise<void> {
  if (flags.revision !== undefined || flags.diff !== undefined)
    throw new UsageError('--revision and --diff read one cluster: they cannot be used with --contexts');
  const daemonSet = requireName(name, usage);
  const [{fleetHistory}, {renderHistoryFleetText}] = await Promise.all([import('../services/fleet.js'), import('../output/fleet-text.js')]);
  const results = await fleetHistory(await openFleet(flags), {name: daemonSet});
  await printFleet(flags, {kind: 'DaemonSetHistoryFleet', name: daemonSet}, results, renderHistoryFleetText, (report) => report);
}
