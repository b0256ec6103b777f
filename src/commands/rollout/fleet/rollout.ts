// `kubectl ds-rollout fleet rollout NAME --contexts A,B,C --image C=IMG` (or `-f MANIFEST`): one release to several clusters in waves,
// each cluster's wave a gated rollout. Heavy modules load inside run().
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../../cli/base-command.js';
import {daemonSetArg} from '../../../cli/flags.js';
import {fleetDetachFlags, fleetDriverFlags, fleetMemberFlags} from '../../../cli/fleet-rollout-flags.js';
import {gatedFlags} from '../../../cli/gated-flags.js';

export default class FleetRollout extends BaseCommand {
  static override summary = 'Roll a release out to several clusters, wave by wave.';

  static override description = `Each wave: paused, released, a gated rollout (a Job there by default); the next once all completed and baked. Rerun to continue. Exit 0 done or awaiting promote, 3 failed.`;

  static override examples = [
    {
      description: "Cluster a, then b, then c: an image, or a manifest's whole pod template",
      command:
        'kubectl ds-rollout fleet rollout agent --contexts a,b,c --image app=agent:2 -y\nkubectl ds-rollout fleet rollout agent --contexts a,b,c -f agent.yaml -y',
    },
  ];

  static override args = {name: daemonSetArg};

  static override flags = {
    ...fleetMemberFlags,
    'cluster-waves': Flags.string({summary: 'Waves of clusters: counts, percentages.', helpValue: '1,25%,100%'}),
    image: Flags.string({summary: 'The release: a container, its image.', helpValue: 'CONTAINER=IMAGE', multiple: true}),
    filename: Flags.string({char: 'f', summary: "The release: a manifest's pod template.", helpValue: 'MANIFEST'}),
    restart: Flags.boolean({summary: 'Start this plan again after fleet abort.'}),
    ...fleetDriverFlags,
    ...fleetDetachFlags,
    ...gatedFlags,
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(FleetRollout);
    const {runFleetCommand} = await import('../../../cli/fleet-rollout-command.js');
    await runFleetCommand({mode: 'rollout', name: args.name, flags, version: this.config.version});
  }
}
