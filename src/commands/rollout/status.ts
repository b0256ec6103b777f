// `kubectl ds-rollout status NAME`: parse flags, call the status service (once, or following watches), render,
// exit with the verdict's code. Heavy modules load inside run().
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../base-command.js';
import type {RolloutStatusReport} from '../../core/index.js';
import {clusterFlags, durationFlag, isDocumentFormat, nowFlag, type OutputFormat, optionalDaemonSetArg, outputFlagOf} from '../../flags.js';
import type {StatusListView} from '../../output/status-list-text.js';

export default class Status extends BaseCommand {
  static override summary = 'Say where a DaemonSet rollout stands, node by node, and whether it can finish.';

  static override description = `Prints what \`kubectl rollout status\` prints, computed from the status the controller wrote, then the verdict and why: every node that is not updated yet, with the reason (waiting for its wave, new pod starting, or blocked: node NotReady or cordoned, pod Pending / CrashLoopBackOff / ImagePullBackOff, stuck Terminating), from the same plan as \`kubectl ds-plan\`.

The verdict is "complete" (every node that should run the daemon runs one updated, available pod, and the controller agrees), "progressing" (something is in flight: the controller's next sync has work, pods are starting, terminating or waiting out minReadySeconds), "paused" (paused by \`ds-rollout pause\`: old pods wait for \`ds-rollout step\` or \`resume\`) or "stuck" (nothing can move without a change: a crashing new pod and a NotReady node using the budget, a pod stuck Terminating, OnDelete).

Like \`kubectl rollout status\`, it follows the rollout through watches (no polling) until it completes, has been stuck for --stuck-after, or --timeout ends; --watch=false looks once (so do --snapshot and --now). Works for OnDelete DaemonSets too (kubectl refuses them).

Without NAME it shows every DaemonSet of the namespace (-A: of every namespace) in one table: verdict, revisions (current->update), budget use and the first blocker, read with one list request per resource however many DaemonSets there are. Watching, the table is redrawn on every change until every DaemonSet is complete (or nothing has progressed for --stuck-after, or --timeout). The exit status is the worst verdict: stuck, then paused, then progressing.

Exit status:
  0  the rollout is complete
  1  usage or input error (bad flags, unknown DaemonSet)
  2  the cluster cannot be reached or refuses (RBAC); with --watch also when it stops answering (connection refused, or no answer within --request-timeout, each tried 4 times)
  3  the rollout is stuck: no progress is possible without a change
  4  the rollout is still progressing: at the --timeout, or now (--watch=false)
  5  the rollout is paused by ds-rollout pause (watching: once nothing is in flight for --stuck-after)`;

  static override examples = [
    {
      description: 'Follow the fluentd rollout until it completes, and why each node is not done yet:',
      command: 'kubectl ds-rollout status ds/fluentd -n kube-system',
    },
    {description: 'Where it stands now, without waiting:', command: 'kubectl ds-rollout status fluentd -n kube-system --watch=false'},
    {description: 'Every DaemonSet of the cluster at a glance, kept live (during a cluster upgrade):', command: 'kubectl ds-rollout status -A'},
    {
      description: 'In CI: wait up to 10 minutes; fail fast (exit 3) once it has been stuck for a minute:',
      command: 'kubectl ds-rollout status fluentd -n kube-system --timeout 10m --stuck-after 1m',
    },
    {
      description: 'The per-node verdict as JSON:',
      command: 'kubectl ds-rollout status node-exporter -n monitoring --watch=false -o json | jq \'.nodes[] | select(.state == "blocked")\'',
    },
    {description: 'Just the verdict:', command: "kubectl ds-rollout status fluentd -n kube-system --watch=false -o jsonpath='{.verdict}'"},
    {description: 'From a snapshot (nothing is contacted):', command: 'kubectl ds-rollout status fluentd -n kube-system --snapshot cluster.yaml'},
  ];

  static override args = {
    name: {...optionalDaemonSetArg, description: 'NAME or ds/NAME; without it, every DaemonSet of the namespace (or of all namespaces with -A).'},
  };

  static override flags = {
    ...clusterFlags,
    'all-namespaces': Flags.boolean({char: 'A', summary: 'Every DaemonSet of every namespace, one row each.'}),
    watch: Flags.boolean({
      char: 'w',
      allowNo: true,
      summary: 'Follow the rollout until it completes, is stuck, or --timeout ends (the default on a live cluster; --watch=false looks once).',
    }),
    timeout: durationFlag('timeout', {
      summary: 'Give up after this long (exit 4); 0, the default, waits without limit. Without --watch it bounds the one look.',
    }),
    'stuck-after': durationFlag('stuck-after', {summary: 'While watching: end once the rollout has been stuck this long (exit 3). Default 10s.'}),
    now: nowFlag,
    output: outputFlagOf(['text', 'wide', 'json', 'yaml', 'name', 'jsonpath']),
    'all-nodes': Flags.boolean({summary: 'In the text output, list updated nodes too, also in large clusters.'}),
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Status);
    const {UsageError} = await import('../../errors.js');
    if (flags.watch && flags.snapshot !== undefined) throw new UsageError('--watch follows a live cluster; it cannot be used with --snapshot');
    if (flags.watch && flags.now !== undefined) throw new UsageError('--now fixes one instant; it cannot be used with --watch');
    if (flags['all-namespaces'] && args.name !== undefined) throw new UsageError('a DaemonSet cannot be named across all namespaces: drop -A, or NAME');
    // As kubectl rollout status: watch unless told not to; a snapshot or --now is one instant.
    const watch = flags.watch ?? (flags.snapshot === undefined && flags.now === undefined);
    const [{openSession}, {colorEnabled}, {clusterHeader}] = await Promise.all([
      import('../../session.js'),
      import('../../output/color.js'),
      import('../../output/format.js'),
    ]);
    const session = await openSession(flags);
    try {
      const out = new StatusOutput(
        session.label === undefined ? undefined : clusterHeader(session.label),
        flags.output,
        colorEnabled(process.stdout.isTTY, process.env),
      );
      const options = {watch, timeoutMs: flags.timeout, stuckAfterMs: flags['stuck-after']};
      if (args.name === undefined) {
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
      const ref = session.daemonSet(args.name, flags.namespace, this.helpCommand());
      const run = await bounded(
        watch,
        flags.timeout,
        (await import('../../services/status.js')).runStatus(session, {ref, ...options, onReport: await out.progress()}),
      );
      // A watch has already printed kubectl's line and the verdict as they changed: print them once.
      await out.report(run.report, {watch, allNodes: flags['all-nodes']});
      await out.finish(run.report, run.failure);
      process.exitCode = run.exitCode;
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

/** What `status` writes: text names the cluster first, once there is something to show (an error leaves stdout empty). */
class StatusOutput {
  private headerShown: boolean;
  private shownLines = 0;

  constructor(
    private readonly header: string | undefined,
    private readonly format: OutputFormat,
    private readonly color: boolean,
  ) {
    this.headerShown = isDocumentFormat(format) || header === undefined;
  }

  private write(output: string): void {
    if (!this.headerShown) process.stdout.write(this.header!);
    this.headerShown = true;
    process.stdout.write(output);
  }

  private get text(): boolean {
    return !isDocumentFormat(this.format);
  }

  /** Kubectl's line and the verdict as they change (text only). */
  async progress(): Promise<((report: RolloutStatusReport) => void) | undefined> {
    if (!this.text) return undefined;
    const {renderStatusProgress} = await import('../../output/status-text.js');
    return (report) => this.write(renderStatusProgress(report, {color: this.color}));
  }

  async report(report: RolloutStatusReport, options: {watch: boolean; allNodes: boolean}): Promise<void> {
    if (!this.text) return;
    if (options.watch) this.write('\n');
    const {renderStatusText} = await import('../../output/status-text.js');
    this.write(
      renderStatusText(report, {
        color: this.color,
        width: process.stdout.isTTY ? process.stdout.columns : undefined,
        allNodes: options.allNodes,
        headline: !options.watch,
      }),
    );
  }

  /** The table, redrawn on every change: in place on a terminal, after a blank line in a pipe (text only). */
  async listRedraw(wide: boolean): Promise<((report: StatusListView) => void) | undefined> {
    if (!this.text) return undefined;
    const render = await this.listRenderer(wide);
    const tty = process.stdout.isTTY === true;
    return (report) => {
      const table = render(report);
      if (tty && this.shownLines > 0) this.write(`\u001B[${this.shownLines}F\u001B[J`);
      else if (this.shownLines > 0) this.write('\n');
      this.write(table);
      this.shownLines = table.split('\n').length - 1;
    };
  }

  async list(report: StatusListView, wide: boolean): Promise<void> {
    if (this.text) this.write((await this.listRenderer(wide))(report));
  }

  private async listRenderer(wide: boolean): Promise<(report: StatusListView) => string> {
    const {renderStatusListText} = await import('../../output/status-list-text.js');
    const width = process.stdout.isTTY ? process.stdout.columns : undefined;
    return (report) => renderStatusListText(report, {color: this.color, wide, width});
  }

  /** The document (-o json|yaml|name|jsonpath), and why a watch ended short, on stderr. */
  async finish(document: {readonly kind: string} | undefined, failure: string | undefined): Promise<void> {
    if (document !== undefined && isDocumentFormat(this.format)) {
      process.stdout.write(await (await import('../../output/document.js')).renderDocument(document, this.format));
    }
    if (failure !== undefined) process.stderr.write(`error: ${failure}\n`);
  }
}
