// `kubectl ds-rollout abort NAME`: roll a gated rollout back by hand. Heavy modules load inside run().
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../base-command.js';
import {daemonSetArg, durationFlag, liveClusterFlags, outputFlag} from '../../flags.js';

export default class Abort extends BaseCommand {
  static override summary = 'Roll a gated rollout back: the previous template, and only the nodes that got the new one stepped back.';

  static override description = `What --on-failure undo does, by hand: the template goes back to the previous revision (as \`kubectl ds-rollout undo\`), then the nodes that run the new revision, and no other, are stepped back within the budget. The DaemonSet stays paused; the record in ds-rollout.io/gated-rollout says aborted.

Needs RBAC: as step and undo.

Exit status: 0 rolled back; 1 usage or input error (no gated rollout to abort, no confirmation); 2 the cluster cannot be reached or refuses; 3 a node did not come back within --timeout; 130 interrupted.`;

  static override examples = [{description: 'Roll back a canary that looks wrong:', command: 'kubectl ds-rollout abort fluentd -n kube-system --yes'}];

  static override args = {name: daemonSetArg};

  static override flags = {
    ...liveClusterFlags,
    timeout: durationFlag('timeout', {summary: 'How long the nodes stepped back may take to become available (0: no limit; default 5m).'}),
    yes: Flags.boolean({char: 'y', summary: 'Do not ask for confirmation (needed: abort deletes pods).'}),
    output: outputFlag,
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Abort);
    if (!flags.yes) {
      const {UsageError} = await import('../../errors.js');
      throw new UsageError('abort deletes the new pods: pass --yes');
    }
    const {runGatedCommand} = await import('../../gated-command.js');
    await runGatedCommand({mode: 'abort', name: args.name, flags});
  }
}
