// `kubectl ds-rollout resume NAME`: parse flags, call the resume service, print. Heavy modules load inside run().
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../base-command.js';
import {daemonSetArg, dryRunFlag, isDocumentFormat, intOrPercentFlag, liveClusterFlags, outputFlag} from '../../flags.js';

export default class Resume extends BaseCommand {
  static override summary = 'Resume a DaemonSet paused by ds-rollout: restore its RollingUpdate settings.';

  static override description = `Restores the RollingUpdate settings recorded by \`ds-rollout pause\` (annotation ds-rollout.io/paused-strategy) and removes the record, in one patch sent with the resourceVersion it was computed from. The controller then carries on with the rollout under its own rules.

A DaemonSet whose gated rollout is under way (ds-rollout.io/gated-rollout) is refused, naming promote and abort: resuming would hand every node to the controller outside the rollout's stages. --force resumes it anyway and ends the gated rollout (its record says abandoned).

A DaemonSet that ds-rollout did not pause (OnDelete by its own choice, or a record that cannot be read) is refused, unless --force with an explicit strategy: --max-unavailable (and --max-surge). A DaemonSet that runs RollingUpdate already is "not paused" (exit 1); if it still carries a leftover record (for example after \`step --controller\` was killed), only the record is removed.

Needs RBAC: get and patch daemonsets.

Exit status: 0 resumed; 1 usage or input error (not paused, not paused by ds-rollout, invalid strategy); 2 the cluster cannot be reached or refuses.`;

  static override examples = [
    {description: 'Hand the rollout back to the controller with the recorded budget:', command: 'kubectl ds-rollout resume fluentd -n kube-system'},
    {
      description: 'Switch a hand-made OnDelete DaemonSet to RollingUpdate, one node at a time:',
      command: 'kubectl ds-rollout resume node-exporter -n monitoring --force --max-unavailable 1',
    },
    {
      description: 'Resume with a surge strategy instead of the recorded one:',
      command: 'kubectl ds-rollout resume fluentd -n kube-system --force --max-unavailable 0 --max-surge 10%',
    },
  ];

  static override args = {
    name: daemonSetArg,
  };

  static override flags = {
    ...liveClusterFlags,
    force: Flags.boolean({
      summary:
        'Resume with the strategy given by --max-unavailable/--max-surge, also a DaemonSet ds-rollout did not pause; end a gated rollout under way (its record says abandoned).',
    }),
    'max-unavailable': intOrPercentFlag('max-unavailable', {summary: 'With --force: maxUnavailable of the RollingUpdate strategy.'}),
    'max-surge': intOrPercentFlag('max-surge', {summary: 'With --force: maxSurge of the RollingUpdate strategy (default 0).'}),
    'dry-run': dryRunFlag,
    output: outputFlag,
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Resume);
    const maxUnavailable = flags['max-unavailable'];
    if (!flags.force && (maxUnavailable !== undefined || flags['max-surge'] !== undefined)) {
      const {UsageError} = await import('../../errors.js');
      throw new UsageError('--max-unavailable and --max-surge replace the recorded strategy only with --force');
    }
    if (flags.force && maxUnavailable === undefined && flags['max-surge'] !== undefined) {
      const {UsageError} = await import('../../errors.js');
      throw new UsageError('--force needs the strategy to resume with: --max-unavailable N [--max-surge M]');
    }
    const [{openLiveCluster}, {resumeDaemonSet}] = await Promise.all([import('../../cluster/open-source.js'), import('../../services/resume.js')]);
    const live = await openLiveCluster(flags, 'resume');
    const result = await resumeDaemonSet({
      writer: live.writer,
      ref: {namespace: live.namespace, name: args.name},
      ...(flags.force && maxUnavailable !== undefined
        ? {force: {maxUnavailable, ...(flags['max-surge'] !== undefined ? {maxSurge: flags['max-surge']} : {})}}
        : {}),
      ...(flags['dry-run'] === 'none' ? {} : {dryRun: flags['dry-run']}),
      ...(flags.force ? {abandonGated: true} : {}),
    });
    if (flags.output === 'text') {
      const [{renderResumeText}, {colorEnabled}] = await Promise.all([import('../../output/step-text.js'), import('../../output/color.js')]);
      process.stdout.write(renderResumeText(result, colorEnabled(process.stdout.isTTY, process.env)));
    } else if (isDocumentFormat(flags.output)) {
      const {renderDocument} = await import('../../output/document.js');
      process.stdout.write(await renderDocument({kind: 'DaemonSetResume', ...result}, flags.output));
    }
  }
}
