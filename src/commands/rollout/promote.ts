// `kubectl ds-rollout promote NAME`: continue a gated rollout stopped for approval. Heavy modules load inside run().
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../base-command.js';
import {daemonSetArg, dryRunFlag, durationFlag, liveClusterFlags, outputFlag} from '../../flags.js';

export default class Promote extends BaseCommand {
  static override summary = 'Continue a gated rollout that waits for approval after its canary.';

  static override description = `A gated rollout started with --approve (\`kubectl ds-rollout step NAME --until-complete --canary 2 --approve --yes\`) stops after the canary's bake, still paused, with the stage recorded in the annotation ds-rollout.io/gated-rollout. promote continues with the next stage and runs the rest of the recorded plan, with the same gates and failure mode. --dry-run shows the next stage and its first wave, or the refusal the real promote would get (with its exit status).

Needs RBAC: as step.

Exit status: 0 every stage passed (or the next approval point was reached); 1 usage or input error (no gated rollout waits for approval, no confirmation); 2 the cluster cannot be reached or refuses; 3 a gate failed, a wave did not become available, or the DaemonSet changed under the rollout; 130 interrupted.`;

  static override examples = [{description: 'Continue after the canary:', command: 'kubectl ds-rollout promote fluentd -n kube-system --yes'}];

  static override args = {name: daemonSetArg};

  static override flags = {
    ...liveClusterFlags,
    timeout: durationFlag('timeout', {summary: 'How long one wave may take to become available, or wait for budget (0: no limit; default 5m).'}),
    'dry-run': dryRunFlag,
    yes: Flags.boolean({char: 'y', summary: 'Do not ask for confirmation (needed without a terminal: promote deletes pods).'}),
    output: outputFlag,
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Promote);
    const {confirmGated, runGatedCommand} = await import('../../gated-command.js');
    const run = {mode: 'promote', name: args.name, flags} as const;
    await confirmGated(run);
    await runGatedCommand(run);
  }
}
