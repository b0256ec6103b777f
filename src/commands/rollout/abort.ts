// `kubectl ds-rollout abort NAME`: roll a gated rollout back by hand. Heavy modules load inside run().
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../base-command.js';
import {daemonSetArg, durationFlag, liveClusterFlags, outputFlag} from '../../flags.js';

export default class Abort extends BaseCommand {
  static override summary = 'Roll back a gated rollout on the nodes it reached.';

  static override description = `What --on-failure undo does, by hand: the template goes back to the previous revision, then only the nodes that run the new one are stepped back, within the budget. The DaemonSet stays paused and the gated-rollout record says aborted. Exit 0 rolled back, 1 bad input or no confirmation, 2 cluster unreachable, 3 a node did not come back within --timeout.`;

  static override examples = [{description: 'Roll back a canary that looks wrong', command: 'kubectl ds-rollout abort fluentd -n kube-system --yes'}];

  static override args = {name: daemonSetArg};

  static override flags = {
    ...liveClusterFlags,
    timeout: durationFlag('timeout', {summary: 'Time the nodes may take (0: none; default 5m).'}),
    yes: Flags.boolean({char: 'y', summary: 'Do not ask (needed: abort deletes pods).'}),
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
