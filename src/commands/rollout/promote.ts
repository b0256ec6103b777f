// `kubectl ds-rollout promote NAME`: continue a gated rollout stopped for approval. Heavy modules load inside run().
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../cli/base-command.js';
import {daemonSetArg, dryRunFlag, durationFlag, liveClusterFlags, outputFlag} from '../../cli/flags.js';
import {detachFlags} from '../../cli/detach-flags.js';

export default class Promote extends BaseCommand {
  static override summary = 'Continue a gated rollout that waits for approval.';

  static override description = `A gated rollout started with --approve stops after the canary's bake, still paused, its stage recorded in the annotation ds-rollout.io/gated-rollout. promote runs the rest of the recorded plan with the same gates and failure mode; --dry-run shows the next stage or the refusal the real promote would get. Exit 0 every stage passed, 1 nothing waits for approval, 2 cluster unreachable, 3 a gate failed or a wave did not land.`;

  static override examples = [{description: 'Continue after the canary', command: 'kubectl ds-rollout promote fluentd -n kube-system --yes'}];

  static override args = {name: daemonSetArg};

  static override flags = {
    ...liveClusterFlags,
    timeout: durationFlag('timeout', {summary: 'Time a wave may take (0: none; default 5m).'}),
    'dry-run': dryRunFlag,
    yes: Flags.boolean({char: 'y', summary: 'Do not ask (needed without a terminal).'}),
    output: outputFlag,
    ...detachFlags,
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Promote);
    if (flags.detach) {
      const {runDetachCommand} = await import('../../cli/detach-command.js');
      // Asked here (or --yes), as promote without --detach; the Job has no terminal, so it always gets --yes.
      await (await import('../../cli/gated-command.js')).confirmGated({mode: 'promote', name: args.name, flags});
      return runDetachCommand({command: 'promote', name: args.name, argv: this.argv, version: this.config.version, yes: true, flags});
    }
    const {confirmGated, runGatedCommand} = await import('../../cli/gated-command.js');
    const run = {mode: 'promote', name: args.name, flags} as const;
    await confirmGated(run);
    await (await import('../../cli/detach-command.js')).runDetachedDriver(flags, args.name, (session) => runGatedCommand(run, session), 'promote');
  }
}
