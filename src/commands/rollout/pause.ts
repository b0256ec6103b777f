// `kubectl ds-rollout pause NAME`: parse flags, call the pause service, print. Heavy modules load inside run().
import {BaseCommand} from '../../base-command.js';
import {daemonSetArg, dryRunFlag, isDocumentFormat, liveClusterFlags, outputFlag} from '../../flags.js';

export default class Pause extends BaseCommand {
  static override summary = 'Pause a DaemonSet rollout: no more pods are replaced until step or resume.';

  static override description = `\`kubectl rollout pause\` refuses DaemonSets. This records the DaemonSet's RollingUpdate settings (maxUnavailable, maxSurge) in the annotation ds-rollout.io/paused-strategy and switches updateStrategy to OnDelete, in one patch sent with the resourceVersion it was computed from. The template is not touched, so no pod restarts and no revision is created; the controller simply stops replacing old pods.

Caveat: while paused, the controller still creates pods from the current template on nodes that join, and replaces pods that are deleted (by anyone) with it.

Pausing a DaemonSet that ds-rollout already paused changes nothing. A DaemonSet that is OnDelete by its own choice is refused (there is nothing to pause; step it with --max-unavailable). ds-plan, status and the dashboard show "paused by ds-rollout" with the recorded budget.

Needs RBAC: get and patch daemonsets.

Exit status: 0 paused or already paused; 1 usage or input error (unknown DaemonSet, OnDelete not set by ds-rollout); 2 the cluster cannot be reached or refuses.`;

  static override examples = [
    {description: 'Pause a rollout:', command: 'kubectl ds-rollout pause fluentd -n kube-system'},
    {description: 'See what would be recorded, change nothing:', command: 'kubectl ds-rollout pause fluentd -n kube-system --dry-run'},
    {
      description: 'Then replace one wave of old pods at a time, or hand the rollout back:',
      command: 'kubectl ds-rollout step fluentd -n kube-system; kubectl ds-rollout resume fluentd -n kube-system',
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
    const [{openLiveSession}, {pauseDaemonSet}] = await Promise.all([import('../../session.js'), import('../../services/pause.js')]);
    const session = await openLiveSession(flags, 'pause');
    const result = await pauseDaemonSet(session, {
      ref: {namespace: session.namespace, name: args.name},
      ...(flags['dry-run'] === 'none' ? {} : {dryRun: flags['dry-run']}),
    });
    if (flags.output === 'text') {
      const [{renderPauseText}, {colorEnabled}] = await Promise.all([import('../../output/step-text.js'), import('../../output/color.js')]);
      process.stdout.write(renderPauseText(result, colorEnabled(process.stdout.isTTY, process.env)));
    } else if (isDocumentFormat(flags.output)) {
      const {renderDocument} = await import('../../output/document.js');
      process.stdout.write(await renderDocument({kind: 'DaemonSetPause', ...result}, flags.output));
    }
  }
}
