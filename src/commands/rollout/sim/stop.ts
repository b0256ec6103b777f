// `kubectl ds-rollout sim stop [NAME|PORT]`: stops a simulated cluster that `sim start --detach` started.
import * as Args from '@oclif/core/args';
import {BaseCommand} from '../../../cli/base-command.js';

export default class SimStop extends BaseCommand {
  static override summary = 'Stop a simulated cluster started with sim start --detach.';

  static override description = `Stops the detached simulated cluster of that name (sim start --name; default the scenario) or port, as Ctrl-C stops one in the foreground, and waits until it has exited. Without NAME, the only one running.`;

  static override examples = [
    {
      description: 'Start an empty cluster in the background, then stop it by name (or by its port)',
      command: 'kubectl ds-rollout sim start --detach --scenario empty --name scratch\nkubectl ds-rollout sim stop scratch',
    },
  ];

  static override args = {
    which: Args.string({description: 'The name or port of the cluster.', required: false}),
  };

  async run(): Promise<void> {
    const {args} = await this.parse(SimStop);
    const {findDetachedSim, stopDetachedSim} = await import('../../../services/sim.js');
    const sim = await findDetachedSim(args.which);
    await stopDetachedSim(sim);
    this.log(`Simulated cluster "${sim.name}" (port ${sim.port}) stopped.`);
  }
}
