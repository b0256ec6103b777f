// `kubectl ds-rollout dashboard NAME`: the interactive terminal dashboard, or (no terminal, CI, -o json) the status.
// Only @oclif/core and the flag modules load at start-up; the service loads the cluster client, and Ink only when
// it will draw.
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../cli/base-command.js';
import {clusterFlags, daemonSetArg, fleetFlags, isFleet, outputFlagOf} from '../../cli/flags.js';

export default class Dashboard extends BaseCommand {
  static override summary = 'Watch and drive a DaemonSet rollout on one screen.';
  protected static override drawsScreen = true;

  static override description = `An interactive terminal dashboard following the cluster through watches: budgets, every node by state, the next wave, the selected node's pods and the revision history. Keys step, pause, resume, undo, promote and abort, each after a confirmation (? lists them; --readonly disables them). --contexts or --all-contexts opens on the fleet: a row per cluster, each followed live; enter opens that cluster's screen, esc comes back. Without a terminal it prints the status as \`ds-rollout status\` does, with its exit codes.`;

  static override examples = [
    {description: 'Watch and drive the fluentd rollout', command: 'kubectl ds-rollout dashboard fluentd -n kube-system'},
    {description: 'Look without being able to change anything', command: 'kubectl ds-rollout dashboard fluentd -n kube-system --readonly'},
    {
      description: 'Several clusters, a row each, followed live (enter opens one)',
      command: "kubectl ds-rollout dashboard fluentd -n kube-system --contexts 'prod-*'",
    },
    {
      description: 'In a script: one JSON document per change until the rollout ends',
      command: 'kubectl ds-rollout dashboard fluentd -n kube-system -o json --watch',
    },
  ];

  static override args = {
    name: daemonSetArg,
  };

  static override flags = {
    ...clusterFlags,
    ...fleetFlags,
    readonly: Flags.boolean({summary: 'Disable the keys that change the cluster.'}),
    watch: Flags.boolean({char: 'w', summary: 'No terminal: print every change until done.'}),
    output: outputFlagOf(['text', 'json', 'yaml']),
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Dashboard);
    const options = {
      ...flags,
      // -o offers only these three here.
      output: flags.output as 'text' | 'json' | 'yaml',
      name: args.name,
      stdout: process.stdout,
      stderr: process.stderr,
      stdin: process.stdin,
      env: process.env,
    };
    if (isFleet(flags)) {
      const {fleetDashboardService} = await import('../../cli/fleet-dashboard-app.js');
      process.exitCode = await fleetDashboardService(options, this.helpCommand());
      return;
    }
    const {dashboardService} = await import('../../cli/dashboard-app.js');
    process.exitCode = await dashboardService(options);
  }
}
