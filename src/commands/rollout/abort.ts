// `kubectl ds-rollout abort NAME`: roll a gated rollout back by hand. Heavy modules load inside run().
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../cli/base-command.js';
import {daemonSetArg, dryRunFlag, durationFlag, intOrPercentFlag, liveClusterFlags, outputFlag} from '../../cli/flags.js';

export default class Abort extends BaseCommand {
  static override summary = 'Roll a gated rollout back onto the revision it started from.';

  static override description = `What --on-failure undo does, by hand: the template goes back to the revision the rollout started from (kept in its record), then every node running another revision is stepped back within the budget. The record says aborting until every node is back, then aborted; running abort again continues it, never re-targets. Exit 0 back, 1 bad input, 2 unreachable, 3 stopped (no budget or --timeout): run it again.`;

  static override examples = [
    {description: 'Roll back a canary that looks wrong', command: 'kubectl ds-rollout abort fluentd -n kube-system --yes'},
    {description: 'Finish an abort that stopped for want of budget', command: 'kubectl ds-rollout abort fluentd -n kube-system --max-unavailable 3 --yes'},
  ];

  static override args = {name: daemonSetArg};

  static override flags = {
    ...liveClusterFlags,
    'max-unavailable': intOrPercentFlag('max-unavailable', {summary: "The budget of the abort (default: the rollout's).", min: 1}),
    timeout: durationFlag('timeout', {summary: 'Time the nodes may take (0: none; default 5m).'}),
    'dry-run': dryRunFlag,
    yes: Flags.boolean({char: 'y', summary: 'Do not ask (needed without a terminal).'}),
    output: outputFlag,
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Abort);
    const {confirmGated, runGatedCommand} = await import('../../cli/gated-command.js');
    const run = {mode: 'abort', name: args.name, flags} as const;
    await confirmGated(run);
    await runGatedCommand(run);
  }
}
