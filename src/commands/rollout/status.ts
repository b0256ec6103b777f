// `kubectl ds-rollout status NAME`: parse flags, call the status service (once, or following watches), render,
// exit with the verdict's code. Heavy modules load inside run().
import {Flags} from '@oclif/core';
import {BaseCommand} from '../../base-command.js';
import {clusterFlags, daemonSetArg, durationFlag, nowFlag, outputFlag} from '../../flags.js';

export default class Status extends BaseCommand {
  static override summary = 'Say where a DaemonSet rollout stands, node by node, and whether it can finish.';

  static override description = `Prints what \`kubectl rollout status\` prints, computed from the status the controller wrote, then the verdict and why: every node that is not updated yet, with the reason (waiting for its wave, new pod starting, or blocked: node NotReady or cordoned, pod Pending / CrashLoopBackOff / ImagePullBackOff, stuck Terminating), from the same plan as \`kubectl ds-plan\`.

The verdict is "complete" (every node that should run the daemon runs one updated, available pod, and the controller agrees), "progressing" (something is in flight: the controller's next sync has work, pods are starting, terminating or waiting out minReadySeconds), "paused" (paused by \`ds-rollout pause\`: old pods wait for \`ds-rollout step\` or \`resume\`) or "stuck" (nothing can move without a change: a crashing new pod and a NotReady node using the budget, a pod stuck Terminating, OnDelete).

With --watch it follows the rollout through watches (no polling) until it completes, has been stuck for --stuck-after, or --timeout ends. Works for OnDelete DaemonSets too (kubectl refuses them).

Exit status:
  0  the rollout is complete
  1  usage or input error (bad flags, unknown DaemonSet)
  2  the cluster cannot be reached or refuses (RBAC); with --watch also when it stops answering (connection refused, or no answer within --request-timeout, each tried 4 times)
  3  the rollout is stuck: no progress is possible without a change
  4  the rollout is still progressing: at the --timeout, or now (without --watch)
  5  the rollout is paused by ds-rollout pause (with --watch: once nothing is in flight for --stuck-after)`;

  static override examples = [
    {description: 'Where the fluentd rollout stands, and why each node is not done yet:', command: 'kubectl ds-rollout status fluentd -n kube-system'},
    {
      description: 'In CI: wait up to 10 minutes; fail fast (exit 3) once it has been stuck for a minute:',
      command: 'kubectl ds-rollout status fluentd -n kube-system --watch --timeout 10m --stuck-after 1m',
    },
    {
      description: 'The per-node verdict as JSON:',
      command: 'kubectl ds-rollout status node-exporter -n monitoring -o json | jq \'.nodes[] | select(.state == "blocked")\'',
    },
    {description: 'From a snapshot (nothing is contacted):', command: 'kubectl ds-rollout status fluentd -n kube-system --snapshot cluster.yaml'},
  ];

  static override args = {
    name: daemonSetArg,
  };

  static override flags = {
    ...clusterFlags,
    watch: Flags.boolean({char: 'w', summary: 'Follow the rollout until it completes, is stuck, or --timeout ends.'}),
    timeout: durationFlag('timeout', {summary: 'With --watch: give up after this long (exit 4); 0, the default, waits without limit.'}),
    'stuck-after': durationFlag('stuck-after', {summary: 'With --watch: end once the rollout has been stuck this long (exit 3). Default 10s.'}),
    now: nowFlag,
    output: outputFlag,
    'all-nodes': Flags.boolean({summary: 'In the text output, list updated nodes too, also in large clusters.'}),
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Status);
    const {UsageError} = await import('../../errors.js');
    if (flags.watch && flags.snapshot !== undefined) throw new UsageError('--watch follows a live cluster; it cannot be used with --snapshot');
    if (flags.watch && flags.now !== undefined) throw new UsageError('--now fixes one instant; it cannot be used with --watch');
    if (!flags.watch && (flags.timeout !== undefined || flags['stuck-after'] !== undefined)) throw new UsageError('--timeout and --stuck-after need --watch');

    const [{openClusterSource}, status, {colorEnabled}] = await Promise.all([
      import('../../cluster/open-source.js'),
      import('../../services/status.js'),
      import('../../output/color.js'),
    ]);
    const {source, namespace, live} = await openClusterSource(flags);
    const ref = {namespace, name: args.name};
    const color = colorEnabled(process.stdout.isTTY, process.env);

    const text = flags.output === 'text';
    const {renderStatusProgress} = await import('../../output/status-text.js');
    const {report, exitCode, failure} = await status
      .runStatus({
        source,
        ref,
        now: flags.now ?? (live ? () => live.client.serverNow() : Date.now),
        follow: flags.watch ? (handlers) => live!.watch(ref, handlers) : undefined,
        timeoutMs: flags.timeout,
        stuckAfterMs: flags['stuck-after'],
        onReport: text ? (update) => process.stdout.write(renderStatusProgress(update, {color})) : undefined,
      })
      // A request still waiting on a frozen server must not keep the finished command alive.
      .finally(() => live?.client.close());
    if (flags.watch && text) process.stdout.write('\n');

    if (flags.output === 'json') process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else if (flags.output === 'yaml') process.stdout.write((await import('js-yaml')).dump(report, {noRefs: true, lineWidth: -1}));
    else {
      const {renderStatusText} = await import('../../output/status-text.js');
      // A watch has already printed kubectl's line and the verdict as they changed: print them once.
      process.stdout.write(
        renderStatusText(report, {
          color,
          width: process.stdout.isTTY ? process.stdout.columns : undefined,
          allNodes: flags['all-nodes'],
          headline: !flags.watch,
        }),
      );
    }
    if (failure !== undefined) process.stderr.write(`error: ${failure}\n`);
    process.exitCode = exitCode;
  }
}
