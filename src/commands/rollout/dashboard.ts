// `kubectl ds-rollout dashboard NAME`: the interactive terminal dashboard, or (no terminal, CI, -o json) the status.
// Only @oclif/core and the flag modules load at start-up; the service loads the cluster client, and Ink only when
// it will draw.
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../base-command.js';
import {clusterFlags, daemonSetArg, outputFlagOf} from '../../flags.js';

export default class Dashboard extends BaseCommand {
  static override summary = 'Watch and drive a DaemonSet rollout on one screen.';

  static override description = `An interactive terminal dashboard for one DaemonSet, following the cluster through watches (no polling):

  * the header: DaemonSet, namespace, context, strategy, the current and update revisions with their images, paused or not;
  * budget gauges: unavailable in use / maxUnavailable, surge in use / maxSurge, updated / desired, and an ETA from the pace observed;
  * every node coloured by state (updated, updating, old, surging, missing, misscheduled, not eligible, blocked with the reason), the next wave marked; on large clusters a compact grid and a filterable list;
  * the selected node's pods, hashes and readiness and why it blocks; the revision history and diffs.

Keys: arrows or j/k move, enter shows the node, s steps one wave, p pauses, r resumes, u undoes (after showing the diff), P promotes and a aborts a gated rollout, d toggles the diff pane, tab moves to the revisions, / filters by name or state, ? helps, q quits. Every key that changes the cluster asks for confirmation first; --readonly disables them.

Outside a terminal (stdout or stdin not a TTY, CI set, or -o json|yaml) no screen is drawn: the status is printed once as \`ds-rollout status\` prints it, or with --watch every change until the rollout completes or is stuck, with status's exit codes (0 complete, 3 stuck, 4 progressing). NO_COLOR turns colours off.`;

  static override examples = [
    {description: 'Watch and drive the fluentd rollout:', command: 'kubectl ds-rollout dashboard fluentd -n kube-system'},
    {description: 'Look without being able to change anything:', command: 'kubectl ds-rollout dashboard fluentd -n kube-system --readonly'},
    {
      description: 'The simulated demo cluster (started with `kubectl ds-rollout sim`):',
      command: 'kubectl ds-rollout dashboard fluentd -n kube-system --kubeconfig sim.kubeconfig',
    },
    {
      description: 'In a script: the status as JSON, one document per change until the rollout ends:',
      command: 'kubectl ds-rollout dashboard fluentd -n kube-system -o json --watch',
    },
  ];

  static override args = {
    name: daemonSetArg,
  };

  static override flags = {
    ...clusterFlags,
    readonly: Flags.boolean({summary: 'Disable the keys that change the cluster (step, pause, resume, undo, promote, abort).'}),
    watch: Flags.boolean({char: 'w', summary: 'Without a terminal: print the status on every change until the rollout completes or is stuck.'}),
    output: outputFlagOf(['text', 'json', 'yaml']),
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Dashboard);
    const {dashboardService} = await import('../../dashboard-app.js');
    process.exitCode = await dashboardService({
      ...flags,
      // -o offers only these three here.
      output: flags.output as 'text' | 'json' | 'yaml',
      name: args.name,
      stdout: process.stdout,
      stderr: process.stderr,
      stdin: process.stdin,
      env: process.env,
    });
  }
}
