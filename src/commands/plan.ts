// `kubectl ds-plan NAME`: parse flags, call the plan service, render. Only @oclif/core and the flag/base modules
// (which import nothing else) load at start-up; everything else is imported inside run() to keep --help fast.
import {Args, Flags} from '@oclif/core';
import {BaseCommand} from '../base-command.js';
import {clusterFlags, filenameFlag, nowFlag, outputFlag} from '../flags.js';

export default class Plan extends BaseCommand {
  static override summary = "Preview what the DaemonSet controller does next and how the whole rollout unfolds.";

  static override description = `Reads the DaemonSet, every node, the pods and the ControllerRevisions, and applies the upstream DaemonSet controller's own rules (eligibility, budgets, rolling update) to answer:

  * where the rollout stands: revisions, budgets, and every node with its pods;
  * what ONE controller sync would create and delete next (manage, then the rolling update on the state after it);
  * the waves from here to completion, assuming deletions finish at once and new pods become available after minReadySeconds;
  * what blocks it: unavailable pods using the whole budget, taints the template does not tolerate, and so on.

Nothing is changed. Where the controller picks arbitrarily, the plan picks by node name and says so.

With --snapshot the cluster is read from a file that kubectl printed and nothing is contacted, so the plan can run in CI. With --now the output is fully deterministic.

-o json and -o yaml follow the plan contract (fields are only ever added).

Exit status: 0 for a plan, 1 for a usage or input error, 2 when the cluster cannot be reached or refuses.`;

  static override examples = [
    {
      description: 'Try the bundled example, a fluentd rollout in progress on 12 nodes:',
      command: 'kubectl ds-plan fluentd -n kube-system --snapshot examples/rollout-in-progress.yaml --now 2026-11-21T12:00:00Z',
    },
    {
      description:
        'Plan from a snapshot of your cluster, taken with `kubectl get nodes,pods,daemonsets,controllerrevisions -A -o yaml > cluster.yaml` (nothing is contacted):',
      command: 'kubectl ds-plan fluentd -n kube-system --snapshot cluster.yaml',
    },
    {
      description: 'Fail a CI job when the rollout would get stuck:',
      command: "kubectl ds-plan fluentd -n kube-system --snapshot cluster.yaml -o json | jq -e .converges",
    },
    {
      description: 'Read the snapshot from stdin:',
      command: 'kubectl get nodes,pods,daemonsets,controllerrevisions -A -o json | kubectl ds-plan node-exporter -n monitoring --snapshot -',
    },
  ];

  static override args = {
    name: Args.string({required: true, description: 'Name of the DaemonSet.'}),
  };

  static override flags = {
    ...clusterFlags,
    filename: filenameFlag,
    now: nowFlag,
    output: outputFlag,
    'all-nodes': Flags.boolean({summary: 'In the text output, list every node, also in large clusters (by default only nodes that still need something are listed above 40 nodes).'}),
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Plan);
    if (flags.filename !== undefined) {
      const {UsageError} = await import('../errors.js');
      throw new UsageError('-f/--filename is not available yet: plan the stored DaemonSet (use --snapshot)');
    }
    const [{openClusterSource}, {planDaemonSet}] = await Promise.all([import('../cluster/open-source.js'), import('../services/plan.js')]);
    const {source, namespace} = await openClusterSource(flags);
    const {plan, daemonSet} = await planDaemonSet({source, ref: {namespace, name: args.name}, now: flags.now ?? Date.now()});

    if (flags.output === 'json') {
      const {renderPlanJson} = await import('../output/plan-json.js');
      process.stdout.write(renderPlanJson(plan));
    } else if (flags.output === 'yaml') {
      const {renderPlanYaml} = await import('../output/plan-yaml.js');
      process.stdout.write(renderPlanYaml(plan));
    } else {
      const [{renderPlanText}, {colorEnabled}] = await Promise.all([import('../output/plan-text.js'), import('../output/color.js')]);
      const rollingUpdate = daemonSet.spec.updateStrategy?.rollingUpdate;
      process.stdout.write(
        renderPlanText(plan, {
          color: colorEnabled(process.stdout.isTTY, process.env),
          width: process.stdout.isTTY ? process.stdout.columns : undefined,
          allNodes: flags['all-nodes'],
          spec: {maxUnavailable: rollingUpdate?.maxUnavailable, maxSurge: rollingUpdate?.maxSurge},
        }),
      );
    }
  }
}
