// `kubectl ds-plan NAME`: parse flags, call the plan service, render. Only @oclif/core and the flag/base modules
// (which import nothing else) load at start-up; everything else is imported inside run() to keep --help fast.
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../cli/base-command.js';
import {
  clusterFlags,
  durationFlag,
  filenameFlag,
  fleetFlags,
  isDocumentFormat,
  isFleet,
  kubeVersionFlag,
  nowFlag,
  optionalDaemonSetArg,
  outputFlag,
} from '../cli/flags.js';

export default class Plan extends BaseCommand {
  static override summary = 'Preview what the DaemonSet controller does next, wave by wave.';

  static override description = `Applies the upstream DaemonSet controller's own rules (eligibility, budgets, rolling update) to a DaemonSet, its nodes, pods and revisions: where the rollout stands, what one controller sync does next, the waves to completion and what blocks them. Nothing is changed. Live by default (--contexts: several clusters, a row each); -f plans a new manifest (its diff and warnings); --snapshot reads a kubectl dump offline. Exit 0 for a plan, 1 for bad input, 2 when the cluster cannot be reached.`;

  static override examples = [
    {description: "The rollout in progress on the current context's cluster", command: 'kubectl ds-plan fluentd -n kube-system'},
    {
      description: 'Before kubectl apply: the diff, the warnings and every wave',
      command: 'kubectl get ds fluentd -n kube-system -o yaml > fluentd.yaml\nkubectl ds-plan -f fluentd.yaml',
    },
    {
      description: 'Offline, from a dump of the cluster (nothing is contacted)',
      command: 'kubectl get nodes,pods,ds,controllerrevisions -A -o yaml > cluster.yaml\nkubectl ds-plan fluentd -n kube-system --snapshot cluster.yaml',
    },
    {description: 'Fail a CI job when the rollout would not converge', command: 'kubectl ds-plan fluentd -n kube-system -o json | jq -e .converges'},
  ];

  static override args = {
    name: {...optionalDaemonSetArg, description: 'NAME or ds/NAME (taken from -f MANIFEST, or a --snapshot holding one DaemonSet, when omitted).'},
  };

  static override flags = {
    ...clusterFlags,
    ...fleetFlags,
    filename: filenameFlag,
    now: nowFlag,
    'kube-version': kubeVersionFlag,
    'pod-start': durationFlag('pod-start', {
      summary: "A new pod's time to Ready, for wave times.",
    }),
    output: outputFlag,
    'all-nodes': Flags.boolean({
      summary: 'List every node, also in large clusters.',
    }),
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Plan);
    if (isFleet(flags)) return (await import('../cli/fleet-command.js')).planFleet(args.name, flags, this.helpCommand());
    if (flags.filename === '-' && flags.snapshot === '-') {
      const {UsageError} = await import('../platform/errors.js');
      throw new UsageError('-f - and --snapshot - cannot both read stdin');
    }
    const [{openSession}, service, {takeEarlyPlan}] = await Promise.all([
      import('../cluster/session.js'),
      import('../services/plan.js'),
      import('../cli/early-plan.js'),
    ]);
    // The reads the bundle's entry sent while this command loaded, when they are the ones these flags ask for.
    const early = takeEarlyPlan(args.name, flags);
    const manifest = flags.filename === undefined ? undefined : await service.readManifest(flags.filename, args.name);
    const session = early ? await early : await openSession(manifest ? {...flags, namespace: service.manifestNamespace(manifest, flags.namespace)} : flags);
    const ref = manifest
      ? {namespace: session.namespace, name: args.name ?? manifest.metadata.name ?? ''}
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
      const document = (update ? (await import('../output/manifest-text.js')).planManifestDocument(update) : toPlanDocument(plan)) as {kind: string};
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
