// `kubectl ds-plan NAME`: parse flags, call the plan service, render. Only @oclif/core and the flag/base modules
// (which import nothing else) load at start-up; everything else is imported inside run() to keep --help fast.
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../base-command.js';
import {clusterFlags, durationFlag, filenameFlag, isDocumentFormat, kubeVersionFlag, nowFlag, optionalDaemonSetArg, outputFlag} from '../flags.js';

export default class Plan extends BaseCommand {
  static override summary = 'Preview what the DaemonSet controller does next and how the whole rollout unfolds.';

  static override description = `Reads the DaemonSet, every node, the pods and the ControllerRevisions, and applies the upstream DaemonSet controller's own rules (eligibility, budgets, rolling update) to answer:

  * where the rollout stands: revisions, budgets, and every node with its pods;
  * what ONE controller sync would create and delete next (manage, then the rolling update on the state after it);
  * the waves from here to completion, assuming deletions finish at once and new pods become available after minReadySeconds;
  * what blocks it: unavailable pods using the whole budget, taints the template does not tolerate, and so on.

Nothing is changed. Where the controller picks arbitrarily, the plan picks by node name and says so.

The rules are those of the controller of the cluster's Kubernetes version (read from the server's /version; --kube-version offline, else the newest modelled): 1.20 has the pre-1.21 rolling update and no maxSurge. The plan says which version it modelled, and warns when the server is outside the modelled range.

Live (the default), it reads the cluster of the current kubeconfig context in a few large pages (four requests for a 5,000-node cluster). With -f MANIFEST it plans the rollout of that new version of the DaemonSet instead of the stored one: the manifest is defaulted as the API server would, the template diff against the current revision is shown, and so are the warnings worth reading before applying it (the rollout cannot start because unavailable pods use the budget; a hostPort with maxSurge > 0 leaves surge pods Pending; a selector, nodeSelector, affinity or toleration change takes the daemon off nodes; OnDelete does nothing until pods are deleted). A selector change is refused, as the API server would refuse it.

With --snapshot the cluster is read from a file that kubectl printed and nothing is contacted, so the plan can run in CI. With --now the output is fully deterministic.

-o json and -o yaml follow the plan contract (fields are only ever added).

Exit status: 0 for a plan, 1 for a usage or input error, 2 when the cluster cannot be reached or refuses.`;

  static override examples = [
    {
      description: 'Plan the rollout in progress on the cluster of the current context:',
      command: 'kubectl ds-plan fluentd -n kube-system',
    },
    {
      description: 'Before `kubectl apply -f fluentd.yaml`: the diff, the warnings and every wave of the rollout it starts:',
      command: 'kubectl ds-plan -f fluentd.yaml',
    },
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
      command: 'kubectl ds-plan fluentd -n kube-system --snapshot cluster.yaml -o json | jq -e .converges',
    },
    {
      description: 'Read the snapshot from stdin:',
      command: 'kubectl get nodes,pods,daemonsets,controllerrevisions -A -o json | kubectl ds-plan node-exporter -n monitoring --snapshot -',
    },
  ];

  static override args = {
    name: {...optionalDaemonSetArg, description: 'NAME or ds/NAME (taken from -f MANIFEST, or a --snapshot holding one DaemonSet, when omitted).'},
  };

  static override flags = {
    ...clusterFlags,
    filename: filenameFlag,
    now: nowFlag,
    'kube-version': kubeVersionFlag,
    'pod-start': durationFlag('pod-start', {
      summary: "How long a new pod takes from creation to Ready, for the wave times (default: the median of this DaemonSet's recent pods, or 10s without any).",
    }),
    output: outputFlag,
    'all-nodes': Flags.boolean({
      summary: 'In the text output, list every node, also in large clusters (by default only nodes that still need something are listed above 40 nodes).',
    }),
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Plan);
    if (flags.filename === '-' && flags.snapshot === '-') {
      const {UsageError} = await import('../errors.js');
      throw new UsageError('-f - and --snapshot - cannot both read stdin');
    }
    const [{openSession}, service] = await Promise.all([import('../session.js'), import('../services/plan.js')]);
    const manifest = flags.filename === undefined ? undefined : await service.readManifest(flags.filename, args.name);
    const session = await openSession(manifest ? {...flags, namespace: service.manifestNamespace(manifest, flags.namespace)} : flags);
    const ref = manifest
      ? {namespace: session.namespace, name: args.name ?? manifest.metadata.name}
      : session.daemonSet(args.name, flags.namespace, this.helpCommand());
    const {live} = session;
    const kubeVersion = flags['kube-version'];
    const podStart = flags['pod-start'] !== undefined ? {podStartMs: flags['pod-start']} : {};
    const base = {source: session.source, clock: session.clock, ref, ...(kubeVersion === undefined ? {} : {kubeVersion}), ...podStart};
    const serverDryRun = live
      ? (sent: typeof manifest & {}, current: (typeof manifest & {}) | undefined) => live.writer.dryRunDaemonSet(ref, sent, current)
      : undefined;
    const update = manifest ? await service.planUpdate({...base, manifest, manifestPath: flags.filename!, ...(serverDryRun ? {serverDryRun} : {})}) : undefined;
    const {plan, daemonSet} = update ?? (await service.planDaemonSet(base));

    if (isDocumentFormat(flags.output)) {
      // The plan contract's document (with -f grown by one field, update).
      const [{toPlanDocument}, {renderDocument}] = await Promise.all([import('../output/plan-json.js'), import('../output/document.js')]);
      // The manifest's renderer (and the YAML library under its diff) is loaded only for -f.
      const updateField = update ? {update: (await import('../output/manifest-text.js')).manifestDocument(update)} : {};
      const document = {...toPlanDocument(plan), ...updateField} as {kind: string};
      process.stdout.write(await renderDocument(document, flags.output));
      return;
    }
    const [{renderPlanText}, {colorEnabled}] = await Promise.all([import('../output/plan-text.js'), import('../output/color.js')]);
    const color = colorEnabled(process.stdout.isTTY, process.env);
    const width = process.stdout.isTTY ? process.stdout.columns : undefined;
    if (session.label !== undefined) process.stdout.write((await import('../output/format.js')).clusterHeader(session.label));
    if (update) {
      const {renderManifestPreamble} = await import('../output/manifest-text.js');
      process.stdout.write(renderManifestPreamble(update, {color, width}));
    }
    const rollingUpdate = daemonSet.spec.updateStrategy?.rollingUpdate;
    process.stdout.write(
      renderPlanText(plan, {
        color,
        width,
        allNodes: flags['all-nodes'],
        spec: {maxUnavailable: rollingUpdate?.maxUnavailable, maxSurge: rollingUpdate?.maxSurge},
      }),
    );
  }
}
