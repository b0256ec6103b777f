// What `step ... --detach` and `promote --detach` share: the gated rollout handed to a Job (services/detach.ts),
// its manifests printed for a dry run, or a line naming the Job. Loaded lazily by those commands.
import {readFile} from 'node:fs/promises';
import {DsRolloutError, InputError} from '../platform/errors.js';
import {isDocumentFormat, type OutputFormat} from './flags.js';
import type {SourceOptions} from '../cluster/open-source.js';
import type {DetachCluster} from '../services/detach.js';
import type {GatedFlagValues} from './gated-command.js';
import type {LiveSession} from '../cluster/session.js';

export interface DetachRun {
  readonly command: 'step' | 'promote';
  readonly name: string;
  /** The command's own argv (oclif's `this.argv`). */
  readonly argv: readonly string[];
  /** The plugin's version: the default image's tag. */
  readonly version: string;
  readonly yes: boolean;
  readonly flags: SourceOptions &
    GatedFlagValues & {
      readonly image?: string | undefined;
      readonly strategy?: string | undefined;
      readonly 'dry-run'?: 'none' | 'client' | 'server';
      readonly output?: OutputFormat;
    };
}

export async function runDetachCommand(run: DetachRun): Promise<void> {
  const [{openLiveSession}, {detachRollout}, core] = await Promise.all([
    import('../cluster/session.js'),
    import('../services/detach.js'),
    import('../core/index.js'),
  ]);
  // The Job would fail on a strategy file or flags that do not parse: refused here, with the cluster untouched.
  // Its metric gate's Prometheus: through the service proxy, the Job's RBAC lets it reach that Service.
  const prometheus = run.command === 'step' ? (await (await import('./gated-command.js')).gatedStrategyOf(run.flags)).prometheus : undefined;
  let strategy: string | undefined;
  if (run.flags.strategy !== undefined) {
    try {
      strategy = await readFile(run.flags.strategy, 'utf8');
    } catch (error) {
      throw new InputError(
        `--strategy ${run.flags.strategy}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
      );
    }
  }
  const session = await openLiveSession(run.flags, run.command);
  const {live} = session;
  const ref = {namespace: session.namespace, name: run.name};
  const dryRun = run.flags['dry-run'] === undefined || run.flags['dry-run'] === 'none' ? undefined : run.flags['dry-run'];
  const output = run.flags.output ?? 'text';
  try {
    const result = await detachRollout({
      cluster: {...(await detachClusterOf(session)), writer: session.writer},
      ref,
      command: run.command,
      argv: run.argv,
      image: run.flags.image ?? core.releaseImage(run.version),
      ...(strategy !== undefined ? {strategy} : {}),
      ...(prometheus !== undefined ? {prometheus} : {}),
      yes: run.yes,
      ...(dryRun ? {dryRun} : {}),
    });
    if (output === 'yaml') {
      // Several objects, as GitOps repositories keep them: one YAML document each.
      const {dump} = await import('js-yaml');
      process.stdout.write(result.manifests.map((m) => `---\n${dump(m, {noRefs: true, lineWidth: -1})}`).join(''));
    } else if (isDocumentFormat(output)) {
      const list = {apiVersion: 'v1', kind: 'List', items: result.manifests};
      if (output === 'json') process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
      else if (output === 'name') process.stdout.write(result.manifests.map((m) => `${m.kind.toLowerCase()}/${m.metadata.name}\n`).join(''));
      else throw new InputError(`-o ${output}: --detach prints json, yaml or name`);
    } else {
      const where = `daemonset ${ref.namespace}/${ref.name}`;
      const follow = `Follow it from anywhere: kubectl ds-rollout status ${ref.name} -n ${ref.namespace}; kubectl logs -f job/${result.job} -n ${ref.namespace}; kubectl describe ds ${ref.name} -n ${ref.namespace}`;
      if (dryRun === 'client') {
        process.stdout.write(
          `Would create ${result.manifests.map((m) => `${m.kind} ${m.metadata.name}`).join(', ')} to run the gated rollout of ${where} in the cluster (dry run: nothing was sent; -o yaml prints them).\n`,
        );
      } else if (dryRun === 'server') {
        process.stdout.write(
          `The API server accepted ${result.manifests.length} objects for Job ${ref.namespace}/${result.job} (server dry run: nothing was created).\n`,
        );
      } else if (result.created) {
        process.stdout.write(`Job ${ref.namespace}/${result.job} created: it runs the gated rollout of ${where} in the cluster.\n${follow}\n`);
      } else {
        process.stdout.write(`Job ${ref.namespace}/${result.job} already drives the gated rollout of ${where}: nothing new was created.\n${follow}\n`);
      }
    }
    if (dryRun === undefined) {
      const {RolloutEventRecorder} = await import('../services/rollout-events.js');
      const recorder = new RolloutEventRecorder((await import('../cluster/live/objects.js')).liveEventSink(live), ref, (line) =>
        process.stderr.write(`${line}\n`),
      );
      recorder.record({kind: 'detached', job: result.job, created: result.created});
      await recorder.flush();
    }
  } finally {
    session.close();
  }
}

export async function detachClusterOf({live}: Pick<LiveSession, 'live'>): Promise<Omit<DetachCluster, 'writer'>> {
  const objects = await import('../cluster/live/objects.js');
  return {
    readDaemonSet: (r) => live.source.readDaemonSet(r),
    create: (manifest, options) => objects.createObject(live.client, manifest, options),
    read: (kind, namespace, name) => objects.readObject(live.client, kind, namespace, name),
    patch: (kind, namespace, name, body) => objects.patchObject(live.client, kind, namespace, name, body),
    list: (kind, namespace, selector) => objects.listObjects(live.client, kind, namespace, selector),
    delete: (kind, namespace, name, preconditions) => objects.deleteObject(live.client, kind, namespace, name, preconditions),
  };
}

/** A rollout run by a Job that ended other than complete: exit 3, as a failed gate. */
class DetachedRolloutFailed extends DsRolloutError {
  readonly exitCode = 3;
}

/**
 * Runs `drive` (the gated rollout) as the command would, and, in a detached Job's pod (DS_ROLLOUT_DETACHED_TEMPLATE
 * set), makes the Job's end tell the truth: a pod started after its rollout completed exits 0 without driving; a
 * rollout that failed, was aborted or rolled back (found before, or after a drive) fails the Job at once
 * (failDetachedJob) and exits non-zero, so the Job ends Failed and is not run again. The driver and these checks
 * share one session: one connection, one clock.
 */
export async function runDetachedDriver(
  flags: SourceOptions,
  name: string,
  drive: (session?: LiveSession) => Promise<void>,
  purpose: 'step' | 'promote',
): Promise<void> {
  const core = await import('../core/index.js');
  const template = process.env[core.DETACHED_TEMPLATE_ENV];
  if (template === undefined || template === '') return drive();
  const job = process.env[core.DETACHED_JOB_ENV];
  const {openLiveSession} = await import('../cluster/session.js');
  const session = await openLiveSession(flags, purpose);
  const {live} = session;
  const ref = {namespace: session.namespace, name};
  const endOf = async () => core.detachedRolloutEnd(await live.source.readDaemonSet(ref), template);
  const failJob = async (message: string): Promise<string> => {
    if (job === undefined || job === '') return message;
    const {failDetachedJob} = await import('../services/detach.js');
    await failDetachedJob(await detachClusterOf(session), session.namespace, job);
    return `${message}; Job ${job} fails`;
  };
  try {
    const before = await endOf();
    if (before.kind === 'complete') {
      process.stdout.write(`${capitalized(before.message)}.\n`);
      return;
    }
    if (before.kind === 'failed') throw new DetachedRolloutFailed(await failJob(before.message));
    let failure: unknown;
    try {
      await drive(session);
    } catch (error) {
      failure = error;
    }
    const after = await endOf().catch(() => undefined);
    if (after?.kind === 'failed') {
      const message = await failJob(after.message);
      throw failure ?? new DetachedRolloutFailed(message);
    }
    if (failure !== undefined) throw failure;
  } finally {
    session.close();
  }
}

const capitalized = (text: string) => `${text[0]!.toUpperCase()}${text.slice(1)}`;
