// `kubectl ds-rollout abort NAME`: roll a gated rollout back by hand. Heavy modules load inside run().
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../base-command.js';
import {daemonSetArg, dryRunFlag, durationFlag, intOrPercentFlag, liveClusterFlags, outputFlag} from '../../flags.js';

export default class Abort extends BaseCommand {
  static override summary = 'Roll a gated rollout back: every node onto the revision the rollout started from, within the budget.';

  static override description = `What --on-failure undo does, by hand: the template goes back to the revision the gated rollout started from (kept in its record, so a second abort never picks another one), then every node whose pod runs another revision is stepped back within the budget. Until every node is back the record in ds-rollout.io/gated-rollout says aborting, and running abort again continues it (with a larger --max-unavailable when nodes that are down hold the budget); then it says aborted, and a further abort changes nothing. The DaemonSet stays paused.

Needs RBAC: as step and undo.

Exit status: 0 every node is back (or was); 1 usage or input error (no gated rollout to abort, no confirmation); 2 the cluster cannot be reached or refuses; 3 the abort stopped (no budget, a node did not come back within --timeout): run it again; 130 interrupted.`;

  static override examples = [
    {description: 'Roll back a canary that looks wrong:', command: 'kubectl ds-rollout abort fluentd -n kube-system --yes'},
    {description: 'Finish an abort that stopped for want of budget:', command: 'kubectl ds-rollout abort fluentd -n kube-system --max-unavailable 3 --yes'},
  ];

  static override args = {name: daemonSetArg};

  static override flags = {
    ...liveClusterFlags,
    'max-unavailable': intOrPercentFlag('max-unavailable', {summary: 'The budget of the abort instead of the one the rollout ran with.'}),
    timeout: durationFlag('timeout', {summary: 'How long the nodes stepped back may take to become available (0: no limit; default 5m).'}),
    'dry-run': dryRunFlag,
    yes: Flags.boolean({char: 'y', summary: 'Do not ask for confirmation (needed without a terminal: abort deletes pods).'}),
    output: outputFlag,
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Abort);
    const {confirmGated, runGatedCommand} = await import('../../gated-command.js');
    const run = {mode: 'abort', name: args.name, flags} as const;
    await confirmGated(run);
    await runGatedCommand(run);
  }
}
