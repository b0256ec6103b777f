// `kubectl ds-rollout pause NAME`: parse flags, call the pause service, print. Heavy modules load inside run().
import {BaseCommand} from '../../cli/base-command.js';
import {daemonSetArg, dryRunFlag, isDocumentFormat, liveClusterFlags, outputFlag} from '../../cli/flags.js';

export default class Pause extends BaseCommand {
  static override summary = 'Pause a rollout: no pod is replaced until step or resume.';

  static override description = `\`kubectl rollout pause\` refuses DaemonSets. This records the RollingUpdate settings in the annotation ds-rollout.io/paused-strategy and switches updateStrategy to OnDelete, in one patch with a resourceVersion precondition; no pod restarts. While paused the controller still creates pods on nodes that join and replaces deleted pods. Exit status: 0 paused, 1 bad input or already paused (as kubectl says it), 2 cluster unreachable.`;

  static override examples = [
    {description: 'See what would be recorded, change nothing', command: 'kubectl ds-rollout pause fluentd -n kube-system --dry-run'},
    {description: 'Pause a rollout', command: 'kubectl ds-rollout pause fluentd -n kube-system'},
    {
      description: 'Then one wave at a time, or hand the rollout back',
      command: 'kubectl ds-rollout step fluentd -n kube-system --yes\nkubectl ds-rollout resume fluentd -n kube-system',
    },
  ];

  static override args = {
    name: daemonSetArg,
  };

  static override flags = {
    ...liveClusterFlags,
    'dry-run': dryRunFlag,
    output: outputFlag,
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Pause);
    const [{openLiveSession}, {pauseDaemonSet}] = await Promise.all([import('../../cluster/session.js'), import('../../services/pause.js')]);
    const session = await openLiveSession(flags, 'pause');
    const result = await pauseDaemonSet(session, {
      ref: {namespace: session.namespace, name: args.name},
      ...(flags['dry-run'] === 'none' ? {} : {dryRun: flags['dry-run']}),
    });
    if (result.outcome === 'already-paused') {
      // kubectl rollout pause of a paused Deployment: an error naming the resource, exit 1.
      const [{InputError}, {alreadyPausedMessage}] = await Promise.all([import('../../platform/errors.js'), import('../../services/pause.js')]);
      throw new InputError(alreadyPausedMessage(result.daemonSet));
    }
    if (flags.output === 'text') {
      const [{renderPauseText}, {colorEnabled}] = await Promise.all([import('../../output/step-text.js'), import('../../output/color.js')]);
      process.stdout.write(renderPauseText(result, colorEnabled(process.stdout.isTTY, process.env)));
    } else if (isDocumentFormat(flags.output)) {
      const {renderDocument} = await import('../../output/document.js');
      process.stdout.write(await renderDocument({kind: 'DaemonSetPause', ...result}, flags.output));
    }
  }
}
