// `kubectl ds-rollout resume NAME`: parse flags, call the resume service, print. Heavy modules load inside run().
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../cli/base-command.js';
import {daemonSetArg, dryRunFlag, isDocumentFormat, intOrPercentFlag, liveClusterFlags, outputFlag} from '../../cli/flags.js';

export default class Resume extends BaseCommand {
  static override summary = 'Resume a paused rollout: restore its RollingUpdate settings.';

  static override description = `Restores the RollingUpdate settings \`ds-rollout pause\` recorded and removes the record, in one patch with a resourceVersion precondition; the controller then carries on. A DaemonSet ds-rollout did not pause is refused unless --force with --max-unavailable (and --max-surge); during a gated rollout, use promote or abort (--force ends it as abandoned). Exit status: 0 resumed, 1 bad input or not paused, 2 cluster unreachable.`;

  static override examples = [
    {
      description: 'Hand a paused rollout back to the controller with the recorded budget',
      command: 'kubectl ds-rollout pause fluentd -n kube-system\nkubectl ds-rollout resume fluentd -n kube-system',
    },
    {description: 'Switch a hand-made OnDelete DaemonSet to RollingUpdate', command: 'kubectl ds-rollout resume agent --force --max-unavailable 1'},
  ];

  static override args = {
    name: daemonSetArg,
  };

  static override flags = {
    ...liveClusterFlags,
    force: Flags.boolean({summary: 'Resume anyway (ends a gated rollout as abandoned).'}),
    'max-unavailable': intOrPercentFlag('max-unavailable', {summary: 'With --force: maxUnavailable.'}),
    'max-surge': intOrPercentFlag('max-surge', {summary: 'With --force: maxSurge (default 0).'}),
    'dry-run': dryRunFlag,
    output: outputFlag,
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Resume);
    const maxUnavailable = flags['max-unavailable'];
    if (!flags.force && (maxUnavailable !== undefined || flags['max-surge'] !== undefined)) {
      const {UsageError} = await import('../../platform/errors.js');
      throw new UsageError('--max-unavailable and --max-surge replace the recorded strategy only with --force');
    }
    if (flags.force && maxUnavailable === undefined && flags['max-surge'] !== undefined) {
      const {UsageError} = await import('../../platform/errors.js');
      throw new UsageError('--force needs the strategy to resume with: --max-unavailable N [--max-surge M]');
    }
    const [{openLiveSession}, {resumeDaemonSet}] = await Promise.all([import('../../cluster/session.js'), import('../../services/resume.js')]);
    const session = await openLiveSession(flags, 'resume');
    const result = await resumeDaemonSet(session, {
      ref: {namespace: session.namespace, name: args.name},
      ...(flags.force && maxUnavailable !== undefined
        ? {force: {maxUnavailable, ...(flags['max-surge'] !== undefined ? {maxSurge: flags['max-surge']} : {})}}
        : {}),
      ...(flags['dry-run'] === 'none' ? {} : {dryRun: flags['dry-run']}),
      ...(flags.force ? {abandonGated: true} : {}),
    });
    if (result.abandoned && !result.dryRun) {
      // The rollout this resume ended gets its closing event, as every ended gated rollout does.
      const [{RolloutEventRecorder}, {liveEventSink}] = await Promise.all([
        import('../../services/rollout-events.js'),
        import('../../cluster/live/objects.js'),
      ]);
      const recorder = new RolloutEventRecorder(liveEventSink(session.live), result.daemonSet, (line) => process.stderr.write(`${line}\n`));
      recorder.record({kind: 'abandoned', stage: result.abandoned.stage, phase: result.abandoned.phase});
      await recorder.flush();
    }
    if (flags.output === 'text') {
      const [{renderResumeText}, {colorEnabled}] = await Promise.all([import('../../output/step-text.js'), import('../../output/color.js')]);
      process.stdout.write(renderResumeText(result, colorEnabled(process.stdout.isTTY, process.env)));
    } else if (isDocumentFormat(flags.output)) {
      const {renderDocument} = await import('../../output/document.js');
      process.stdout.write(await renderDocument({kind: 'DaemonSetResume', ...result}, flags.output));
    }
  }
}
