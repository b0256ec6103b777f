// `kubectl ds-rollout status NAME`: parse flags, call the status service (once, or following watches), render,
// exit with the verdict's code. Heavy modules load inside run().
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../cli/base-command.js';
import {clusterFlags, durationFlag, fleetFlags, isFleet, nowFlag, optionalDaemonSetArg, outputFlagOf} from '../../cli/flags.js';

export default class Status extends BaseCommand {
  static override summary = 'Where a rollout stands, node by node, and whether it can finish.';

  static override description = `Prints what \`kubectl rollout status\` prints, then the verdict (complete, progressing, paused or stuck) and every node with its state and why (above 40 nodes, counts per state), following watches until the rollout ends; --watch=false looks once. Without NAME, one row per DaemonSet of the namespace (-A: of all), at once; -w follows the table. --contexts: NAME on several clusters at once, a row each, and where a fleet rollout stands. Exit 0 complete, 1 bad input, 2 cluster unreachable, 3 stuck, 4 still progressing, 5 paused.`;

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
    ...fleetFlags,
    'all-namespaces': Flags.boolean({char: 'A', summary: 'Every DaemonSet of every namespace.'}),
    selector: Flags.string({char: 'l', summary: 'The DaemonSets matching this selector, in turn.', helpValue: 'SELECTOR'}),
    filename: Flags.string({char: 'f', summary: 'The DaemonSets a manifest names (- for stdin), in turn.', helpValue: 'FILE'}),
    watch: Flags.boolean({
      char: 'w',
      allowNo: true,
      summary: 'Follow until done (default with NAME; =false: once).',
    }),
    timeout: durationFlag('timeout', {
      summary: 'Give up after this long (exit 4; 0: no limit).',
    }),
    'stuck-after': durationFlag('stuck-after', {summary: 'End once stuck this long (exit 3; default 10s).'}),
    now: nowFlag,
    output: outputFlagOf(['text', 'wide', 'json', 'yaml', 'name', 'jsonpath']),
    'all-nodes': Flags.boolean({summary: 'List every node, also in large clusters.'}),
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Status);
    if (isFleet(flags)) return (await import('../../cli/fleet-command.js')).statusFleet(args.name, flags, this.helpCommand());
    const {kind, watch} = (await import('../../cli/status-request.js')).statusRequest(args.name, flags);
    const [{openSession}, {colorEnabled}, {clusterHeader}, {StatusOutput}, status] = await Promise.all([
      import('../../cluster/session.js'),
      import('../../output/color.js'),
      import('../../output/format.js'),
      import('../../cli/status-output.js'),
      import('../../services/status.js'),
    ]);
    const session = await openSession(flags);
    try {
      const header = session.label === undefined ? undefined : clusterHeader(session.label);
      const out = new StatusOutput(header, flags.output, colorEnabled(process.stdout.isTTY, process.env));
      const options = {watch, timeoutMs: flags.timeout, stuckAfterMs: flags['stuck-after']};
      const namespace = flags['all-namespaces'] ? undefined : session.namespace;
      if (kind === 'list') {
        const list = await import('../../services/status-all.js');
        const onReport = await out.listRedraw(flags.output === 'wide');
        const run = await status.boundedLook(watch, flags.timeout, list.runStatusList(session, {...options, namespace, onReport}));
        if (!watch) await out.list(run.report, flags.output === 'wide');
        await out.finish(run.report, run.failure);
        process.exitCode = run.exitCode;
        return;
      }
      if (kind === 'one') {
        const ref = session.daemonSet(args.name, flags.namespace, this.helpCommand());
        const run = await status.boundedLook(watch, flags.timeout, status.runStatus(session, {ref, ...options, onReport: await out.progress()}));
        // A watch has already printed kubectl's line and the verdict as they changed: print them once.
        await out.report(run.report, {watch, allNodes: flags['all-nodes']});
        await out.finish(run.report, run.failure);
        process.exitCode = run.exitCode;
        return;
      }
      // -l and -f name DaemonSets as kubectl rollout status reads them.
      const refs =
        flags.filename !== undefined
          ? await status.manifestDaemonSets(flags.filename, flags.namespace, session.namespace)
          : await status.boundedLook(watch, flags.timeout, status.selectDaemonSets(session.objects, namespace, flags.selector!));
      if (refs.length === 0) {
        // kubectl's words when a selector matches nothing; not an error.
        process.stderr.write(namespace === undefined ? 'No resources found\n' : `No resources found in ${namespace} namespace.\n`);
        return;
      }
      const {reports, exitCode} = await status.runStatusOfEach(session, {
        refs,
        ...options,
        onReport: await out.progress(),
        onRun: async (run) => {
          await out.report(run.report, {watch, allNodes: flags['all-nodes']});
          if (run.failure !== undefined) process.stderr.write(`error: ${run.failure}\n`);
        },
      });
      // -l and -f print a List, however many matched (as kubectl get -l does), so scripts read one shape.
      await out.finish({kind: 'List', items: reports} as {readonly kind: string}, undefined);
      process.exitCode = exitCode;
    } finally {
      // A request still waiting on a frozen server must not keep the finished command alive.
      session.close();
    }
  }
}
