// `kubectl ds-rollout fleet status NAME --contexts A,B,C`: where a fleet rollout stands, per cluster. Heavy modules load inside run().
import {BaseCommand} from '../../../cli/base-command.js';
import {daemonSetArg} from '../../../cli/flags.js';
import {fleetMemberFlags} from '../../../cli/fleet-rollout-flags.js';

export default class FleetStatus extends BaseCommand {
  static override summary = 'Where a fleet rollout stands, cluster by cluster.';

  static override description = `Reads the fleet rollout's record from the clusters of --contexts (each holds the whole plan, so any of them will do; the plan's other clusters are read too) and prints each cluster's wave and phase, and the fleet's. Exit 0 it was read, 1 no fleet rollout is recorded there, 2 no cluster could be read.`;

  static override examples = [{description: 'Where the fleet rollout of fluentd stands', command: 'kubectl ds-rollout fleet status agent --contexts a'}];

  static override args = {name: daemonSetArg};

  static override flags = {...fleetMemberFlags};

  async run(): Promise<void> {
    const {args, flags} = await this.parse(FleetStatus);
    const {runFleetCommand} = await import('../../../cli/fleet-rollout-command.js');
    await runFleetCommand({mode: 'status', name: args.name, flags, version: this.config.version});
  }
}
