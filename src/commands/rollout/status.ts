// `kubectl ds-rollout status NAME`: parse flags, call the status service (once, or following watches), render,
// exit with the verdict's code. Heavy modules load inside run().
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../base-command.js';
import {clusterFlags, durationFlag, isDocumentFormat, nowFlag, optionalDaemonSetArg, outputFlagOf} from '../../flags.js';

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
    const {UsageError, ClusterUnreachableError} = await import('../../errors.js');
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

    const [{openClusterSource}, {colorEnabled}, {clusterHeader}] = await Promise.all([
      import('../../cluster/open-source.js'),
      import('../../output/color.js'),
      import('../../output/format.js'),
    ]);
    const opened = await openClusterSource(flags);
    const {source, live} = opened;
    const color = colorEnabled(process.stdout.isTTY, process.env);
    const text = flags.output === 'text' || flags.output === 'wide';
    const now = flags.now ?? (live ? () => live.client.serverNow() : Date.now);
    // Text names the cluster first, once there is something to show (an error leaves stdout empty).
    let headerShown = !text || live === undefined;
    const write = (output: string) => {
      if (!headerShown) process.stdout.write(clusterHeader(live!));
      headerShown = true;
      process.stdout.write(output);
    };
    // Without --watch, --timeout bounds the one look (a slow or hung cluster).
    const bounded = <T>(work: Promise<T>): Promise<T> => {
      const limit = flags.timeout;
      if (watch || !limit) return work;
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new ClusterUnreachableError(`timed out after ${limit / 1000}s waiting for the cluster to answer`)), limit);
      });
      return Promise.race([work, expired]).finally(() => clearTimeout(timer));
    };

    if (args.name === undefined && !selecting) {
      const list = await import('../../services/status-all.js');
      const {renderStatusListText} = await import('../../output/status-list-text.js');
      const namespace = flags['all-namespaces'] ? undefined : opened.namespace;
      const tty = process.stdout.isTTY === true;
      const width = tty ? process.stdout.columns : undefined;
      const render = (report: Parameters<typeof renderStatusListText>[0]) => renderStatusListText(report, {color, wide: flags.output === 'wide', width});
      let report;
      let failure: string | undefined;
      if (watch) {
        let shownLines = 0;
        const result = await list.watchStatusList({
          follow: (handlers) => live!.watchObjects(namespace, handlers),
          namespace,
          now: now as () => number,
          timeoutMs: flags.timeout,
          stuckAfterMs: flags['stuck-after'] ?? 10_000,
          onReport: text
            ? (update) => {
                const table = render(update);
                // On a terminal the table is redrawn in place; in a pipe each change is printed after a blank line.
                if (tty && shownLines > 0) write(`\u001B[${shownLines}F\u001B[J`);
                else if (shownLines > 0) write('\n');
                write(table);
                shownLines = table.split('\n').length - 1;
              }
            : undefined,
        });
        if (result.report === undefined) throw new ClusterUnreachableError(`timed out after ${(flags.timeout ?? 0) / 1000}s before the cluster answered`);
        report = result.report;
        if (result.outcome === 'timeout') failure = `timed out after ${(flags.timeout ?? 0) / 1000}s waiting for every DaemonSet to finish its rollout`;
      } else {
        report = await bounded(list.readStatusList({source: opened.objects, namespace, now}));
        if (text) write(render(report));
      }
      if (isDocumentFormat(flags.output)) process.stdout.write(await (await import('../../output/document.js')).renderDocument(report, flags.output));
      if (failure !== undefined) process.stderr.write(`error: ${failure}\n`);
      process.exitCode = list.statusListExit(report);
      live?.client.close();
      return;
    }

    const status = await import('../../services/status.js');
    const {chooseDaemonSet} = await import('../../cluster/open-source.js');
    // -l and -f name DaemonSets as kubectl rollout status reads them: each is followed in turn, as kubectl does.
    const refs = selecting
      ? flags.filename !== undefined
        ? await status.manifestDaemonSets(flags.filename, flags.namespace, opened.namespace)
        : await bounded(status.selectDaemonSets(opened.objects, flags['all-namespaces'] ? undefined : opened.namespace, flags.selector!))
      : [chooseDaemonSet(opened, args.name, flags.namespace, this.helpCommand())];
    if (refs.length === 0) {
      // kubectl's words when a selector matches nothing; not an error.
      process.stderr.write(flags['all-namespaces'] ? 'No resources found\n' : `No resources found in ${opened.namespace} namespace.\n`);
      live?.client.close();
      return;
    }
    const {renderStatusProgress, renderStatusText} = await import('../../output/status-text.js');
    const reports: Array<Awaited<ReturnType<typeof status.runStatus>>['report']> = [];
    let exitCode = 0;
    try {
      for (const ref of refs) {
        const run = await bounded(
          status.runStatus({
            source,
            ref,
            now,
            follow: watch ? (handlers) => live!.watch(ref, handlers) : undefined,
            timeoutMs: flags.timeout,
            stuckAfterMs: flags['stuck-after'],
            onReport: text ? (update) => write(renderStatusProgress(update, {color})) : undefined,
          }),
        );
        if (watch && text) write('\n');
        reports.push(run.report);
        if (text) {
          // A watch has already printed kubectl's line and the verdict as they changed: print them once.
          write(
            renderStatusText(run.report, {
              color,
              width: process.stdout.isTTY ? process.stdout.columns : undefined,
              allNodes: flags['all-nodes'],
              headline: !watch,
            }),
          );
        }
        if (run.failure !== undefined) process.stderr.write(`error: ${run.failure}\n`);
        // Watching, kubectl stops at the first rollout that does not finish; one look reports each, the worst verdict wins.
        exitCode = run.exitCode;
        if (watch && run.exitCode !== 0) break;
      }
    } finally {
      // A request still waiting on a frozen server must not keep the finished command alive.
      live?.client.close();
    }
    if (isDocumentFormat(flags.output)) {
      const {renderDocument} = await import('../../output/document.js');
      // -l and -f print a List, however many matched (as kubectl get -l does), so scripts read one shape.
      process.stdout.write(await renderDocument(selecting ? {kind: 'List', items: reports} : reports[0]!, flags.output));
    }
    if (!watch && reports.length > 1) {
      const {worstVerdict} = await import('../../services/status-all.js');
      exitCode = status.STATUS_EXIT[worstVerdict(reports.map((report) => report.verdict))];
    }
    process.exitCode = exitCode;
  }
}
