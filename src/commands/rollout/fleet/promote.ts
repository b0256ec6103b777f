// `kubectl ds-rollout fleet promote NAME --contexts ...`: the wave waiting for approval goes on, then the fleet. Heavy modules load inside run().
import {BaseCommand} from '../../../cli/base-command.js';
import {daemonSetArg} from '../../../cli/flags.js';
import {fleetDetachFlags, fleetDriverFlags, fleetMemberFlags} from '../../../cli/fleet-rollout-flags.js';

export default class FleetPromote extends BaseCommand {
  static override summary = 'Continue a fleet rollout that waits for approval.';

  static override description = `A fleet rollout started with --approve stops in each cluster after its canary's bake. fleet promote promotes the clusters of the wave that waits (as promote does in each), then drives the fleet on with its recorded plan: the later waves stop for approval again. Exit as fleet rollout; 1 when no wave waits for approval.`;

  static override examples = [{description: 'The canaries look right: go on', command: 'kubectl ds-rollout fleet promote agent --contexts a --yes'}];

  static override args = {name: daemonSetArg};

  static override flags = {...fleetMemberFlags, ...fleetDriverFlags, ...fleetDetachFlags};

  async run(): Promise<void> {
    const {args, flags} = await this.parse(FleetPromote);
    const {runFleetCommand} = await import('../../../cli/fleet-rollout-command.js');
    await runFleetCommand({mode: 'promote', name: args.name, flags, version: this.config.version});
  }
}
