// `kubectl ds-rollout fleet abort NAME --contexts ...`: every cluster a fleet rollout touched back on its own origin. Heavy modules load inside run().
import {BaseCommand} from '../../../cli/base-command.js';
import {daemonSetArg} from '../../../cli/flags.js';
import {fleetDriverFlags, fleetMemberFlags} from '../../../cli/fleet-rollout-flags.js';

export default class FleetAbort extends BaseCommand {
  static override summary = 'Roll every cluster a fleet rollout touched back.';

  static override description = `Each cluster the fleet rollout touched goes back to its own origin (the revision its own gated rollout started from, never another cluster's), as abort does there, in this process; clusters it never touched are left alone. Its record then says aborted, so a rerun of fleet rollout does not start it again. Exit 0 every touched cluster is back, 1 bad input, 2 a cluster cannot be read, 3 one did not come back (run it again).`;

  static override examples = [{description: 'Take the release back everywhere it went', command: 'kubectl ds-rollout fleet abort agent --contexts a --yes'}];

  static override args = {name: daemonSetArg};

  static override flags = {...fleetMemberFlags, ...fleetDriverFlags};

  async run(): Promise<void> {
    const {args, flags} = await this.parse(FleetAbort);
    const {runFleetCommand} = await import('../../../cli/fleet-rollout-command.js');
    await runFleetCommand({mode: 'abort', name: args.name, flags, version: this.config.version});
  }
}
