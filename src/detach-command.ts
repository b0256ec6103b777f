// What `step ... --detach` and `promote --detach` share: the gated rollout handed to a Job (services/detach.ts),
// its manifests printed for a dry run, or a line naming the Job. Loaded lazily by those commands.
import {readFile} from 'node:fs/promises';
import {type DaemonSet, gatedProgressOf} from './core/index.js';
import {InputError} from './errors.js';
import {isDocumentFormat, type OutputFormat} from './flags.js';
import type {SourceOptions} from './cluster/open-source.js';
import type {GatedFlagValues} from './gated-command.js';

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
  const [{openLiveCluster}, {detachRollout}, core, {createObject}] = await Promise.all([
    import('./cluster/open-source.js'),
    import('./services/detach.js'),
    import('./core/index.js'),
    import('./cluster/live/objects.js'),
  ]);
  // The Job would fail on a strategy file or flags that do not parse: refused here, with the cluster untouched.
  if (run.command === 'step') await (await import('./gated-command.js')).gatedStrategyOf(run.flags);
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
  const live = await openLiveCluster(run.flags, run.command);
  const ref = {namespace: live.namespace, name: run.name};
  const dryRun = run.flags['dry-run'] === undefined || run.flags['dry-run'] === 'none' ? undefined : run.flags['dry-run'];
  const output = run.flags.output ?? 'text';
  try {
    const result = await detachRollout({
      cluster: {
        readDaemonSet: (r) => live.source.readDaemonSet(r),
        create: (manifest, options) => createObject(live.client, manifest, options),
        writer: live.writer,
      },
      ref,
      command: run.command,
      argv: run.argv,
      image: run.flags.image ?? core.releaseImage(run.version),
      ...(strategy !== undefined ? {strategy} : {}),
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
      const {RolloutEventRecorder} = await import('./services/rollout-events.js');
      const recorder = new RolloutEventRecorder((await import('./cluster/live/objects.js')).liveEventSink(live), ref, (line) =>
        process.stderr.write(`${line}\n`),
      );
      recorder.record({kind: 'detached', job: result.job, created: result.created});
      await recorder.flush();
    }
  } finally {
    live.client.close();
  }
}

/**
 * In a detached Job's pod (DS_ROLLOUT_DETACHED_TEMPLATE set): true, after saying why on stdout, when the rollout
 * the Job was made for is over, so that a restarted pod ends the Job instead of starting something new.
 */
export async function detachedRunIsOver(flags: SourceOptions, name: string): Promise<boolean> {
  const {DETACHED_TEMPLATE_ENV, detachedRolloutOver} = await import('./core/index.js');
  const template = process.env[DETACHED_TEMPLATE_ENV];
  if (template === undefined || template === '') return false;
  const {openLiveCluster} = await import('./cluster/open-source.js');
  const live = await openLiveCluster(flags);
  try {
    const over = detachedRolloutOver(await live.source.readDaemonSet({namespace: live.namespace, name}), template);
    if (over !== undefined) process.stdout.write(`${over[0]!.toUpperCase()}${over.slice(1)}.\n`);
    return over !== undefined;
  } finally {
    live.client.close();
  }
}

/**
 * `promote` and `abort` from a terminal while a Job drives (or drove) the rollout: one line naming it, and what
 * becomes of it, so that nobody wonders which of the two is in charge.
 */
export function detachedJobNote(ds: DaemonSet, mode: 'promote' | 'abort', now: number): string | undefined {
  const progress = gatedProgressOf(ds, now);
  const job = progress?.job;
  if (job === undefined) return undefined;
  // Stopped for approval, the Job has ended; otherwise its driver may still run (or be restarted).
  const ended = progress!.phase === 'awaiting-approval';
  return mode === 'abort'
    ? ended
      ? `Job ${job} drove this gated rollout until its approval point; a restart of it finds the rollout over.`
      : `Job ${job} drives this gated rollout: it stops at its next step, and its restarts find the rollout over.`
    : `Job ${job} drove this gated rollout until its approval point: promote continues it here (promote --detach runs the rest in a Job).`;
}
