// `kubectl ds-rollout status NAME`: parse flags, call the status service (once, or following watches), render,
// exit with the verdict's code. Heavy modules load inside run().
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../base-command.js';
import type {RolloutStatusReport} from '../../core/index.js';
import {clusterFlags, durationFlag, nowFlag, optionalDaemonSetArg, outputFlagOf} from '../../flags.js';

export default class Status extends BaseCommand {
  static override summary = 'Where a rollout stands, node by node, and whether it can finish.';

  static override description = `Prints what \`kubectl rollout status\` prints, then the verdict (complete, progressing, paused or stuck) and every node not updated yet with the reason, following watches until the rollout ends; --watch=false looks once. Without NAME, one row per DaemonSet of the namespace (-A: of all). Exit 0 complete, 1 bad input, 2 cluster unreachable, 3 stuck, 4 still progressing, 5 paused.`;

  static override examples = [
    {description: 'Follow the rollout until it completes, and why each node is not done', command: 'kubectl ds-rollout status ds/fluentd -n kube-system'},
    {description: 'In CI: wait up to 10 minutes, fail once stuck for a minute', command: 'kubectl ds-rollout status fluentd --timeout 10m --stuck-after 1m'},
    {description: 'Every DaemonSet of the cluster at a glance', command: 'kubectl ds-rollout status -A'},
  ];

  static override args = {
    name: {...optionalDaemonSetArg, description: 'NAME or ds/NAME; without it, every DaemonSet of the namespace (or of all namespaces with -A).'},
  };

  static override flags = {
    ...clusterFlags,
    'all-namespaces': Flags.boolean({char: 'A', summary: 'Every DaemonSet of every namespace.'}),
    selector: Flags.string({char: 'l', summary: 'The DaemonSets matching this selector, in turn.', helpValue: 'SELECTOR'}),
    filename: Flags.string({char: 'f', summary: 'The DaemonSets a manifest names (- for stdin), in turn.', helpValue: 'FILE'}),
    watch: Flags.boolean({
      char: 'w',
      allowNo: true,
      summary: 'Follow until done (live default; =false: once).',
    }),
    timeout: durationFlag('timeout', {
      summary: 'Give up after this long (exit 4; 0: no limit).',
    }),
    'stuck-after': durationFlag('stuck-after', {summary: 'End once stuck this long (exit 3; default 10s).'}),
    now: nowFlag,
    output: outputFlagOf(['text', 'wide', 'json', 'yaml', 'name', 'jsonpath']),
    'all-nodes': Flags.boolean({summary: 'List updated nodes too.'}),
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Status);
    const {UsageError} = await import('../../errors.js');
    if (flags.watch && flags.snapshot !== undefined) throw new UsageError('--watch follows a live cluster; it cannot be used with --snapshot');
    if (flags.watch && flags.now !== undefined) throw new UsageError('--now fixes one instant; it cannot be used with --watch');
    if (flags['all-namespaces'] && args.name !== undefined) throw new UsageError('a DaemonSet cannot be named across all namespaces: drop -A, or NAME');
    // kubectl's refusals, in its words.
    if (flags.selector !== undefined && args.name !== undefined) {
      throw new UsageError('selectors and the all flag cannot be used when passing resource/name arguments');
    }
    if (flags.filename !== undefined && args.name !== undefined) {
      throw new UsageError('when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well');
    }
    if (flags.filename !== undefined && (flags.selector !== undefined || flags['all-namespaces'])) {
      throw new UsageError('-f names the DaemonSets itself: it cannot be used with -l or -A');
    }
    if (flags.filename === '-' && flags.snapshot === '-') throw new UsageError('-f - and --snapshot - cannot both read stdin');
    const selecting = flags.selector !== undefined || flags.filename !== undefined;
    // As kubectl rollout status: watch unless told not to; a snapshot or --now is one instant.
    const watch = flags.watch ?? (flags.snapshot === undefined && flags.now === undefined);
    const [{openSession}, {colorEnabled}, {clusterHeader}, {StatusOutput}] = await Promise.all([
      import('../../session.js'),
      import('../../output/color.js'),
      import('../../output/format.js'),
      import('../../status-output.js'),
    ]);
    const session = await openSession(flags);
    try {
      const out = new StatusOutput(
        session.label === undefined ? undefined : clusterHeader(session.label),
        flags.output,
        colorEnabled(process.stdout.isTTY, process.env),
      );
      const options = {watch, timeoutMs: flags.timeout, stuckAfterMs: flags['stuck-after']};
      if (args.name === undefined && !selecting) {
        const list = await import('../../services/status-all.js');
        const namespace = flags['all-namespaces'] ? undefined : session.namespace;
        const run = await bounded(
          watch,
          flags.timeout,
          list.runStatusList(session, {...options, namespace, onReport: await out.listRedraw(flags.output === 'wide')}),
        );
        if (!watch) await out.list(run.report, flags.output === 'wide');
        await out.finish(run.report, run.failure);
        process.exitCode = run.exitCode;
        return;
      }
      const status = await import('../../services/status.js');
      if (!selecting) {
        const ref = session.daemonSet(args.name, flags.namespace, this.helpCommand());
        const run = await bounded(watch, flags.timeout, status.runStatus(session, {ref, ...options, onReport: await out.progress()}));
        // A watch has already printed kubectl's line and the verdict as they changed: print them once.
        await out.report(run.report, {watch, allNodes: flags['all-nodes']});
        await out.finish(run.report, run.failure);
        process.exitCode = run.exitCode;
        return;
      }
      // -l and -f name DaemonSets as kubectl rollout status reads them: each is followed in turn, as kubectl does.
      const refs =
        flags.filename !== undefined
          ? await status.manifestDaemonSets(flags.filename, flags.namespace, session.namespace)
          : await bounded(
              watch,
              flags.timeout,
              status.selectDaemonSets(session.objects, flags['all-namespaces'] ? undefined : session.namespace, flags.selector!),
            );
      if (refs.length === 0) {
        // kubectl's words when a selector matches nothing; not an error.
        process.stderr.write(flags['all-namespaces'] ? 'No resources found\n' : `No resources found in ${session.namespace} namespace.\n`);
        return;
      }
      const reports: RolloutStatusReport[] = [];
      let exitCode = 0;
      for (const ref of refs) {
        const run = await bounded(watch, flags.timeout, status.runStatus(session, {ref, ...options, onReport: await out.progress()}));
        await out.report(run.report, {watch, allNodes: flags['all-nodes']});
        reports.push(run.report);
        if (run.failure !== undefined) process.stderr.write(`error: ${run.failure}\n`);
        // Watching, kubectl stops at the first rollout that does not finish; one look reports each, the worst verdict wins.
        exitCode = run.exitCode;
        if (watch && run.exitCode !== 0) break;
      }
      // -l and -f print a List, however many matched (as kubectl get -l does), so scripts read one shape.
      await out.finish({kind: 'List', items: reports} as {readonly kind: string}, undefined);
      if (!watch && reports.length > 1) {
        const {worstVerdict} = await import('../../services/status-all.js');
        exitCode = status.STATUS_EXIT[worstVerdict(reports.map((report) => report.verdict))];
      }
      process.exitCode = exitCode;
    } finally {
      // A request still waiting on a frozen server must not keep the finished command alive.
      session.close();
    }
  }
}

/** Without --watch, --timeout bounds the one look (a slow or hung cluster). */
async function bounded<T>(watch: boolean, limit: number | undefined, work: Promise<T>): Promise<T> {
  if (watch || !limit) return work;
  const {ClusterUnreachableError} = await import('../../errors.js');
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ClusterUnreachableError(`timed out after ${limit / 1000}s waiting for the cluster to answer`)), limit);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
