// `kubectl ds-rollout sim start`: runs a simulated cluster in the foreground until Ctrl-C.
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../../base-command.js';
import {integerFlag} from '../../../flags.js';

export default class SimStart extends BaseCommand {
  static override summary = 'Run a simulated cluster (API server, kubelets, DaemonSet controller) in the foreground.';

  static override description = `Starts a Kubernetes-API-compatible server on 127.0.0.1 with simulated kubelets and the DaemonSet controller (the same reconcile core ds-plan uses), loads a scenario, writes a kubeconfig with its own context and runs until Ctrl-C. Use kubectl and this plugin against it from another terminal.

Scenarios:
  demo   20 nodes; kube-system/fluentd in the middle of a rolling update (maxUnavailable 2, minReadySeconds 10), one node tainted dedicated=gpu:NoSchedule, one NotReady node, one node where the new fluentd pods crash; monitoring/node-exporter complete.
  empty  3 nodes, no DaemonSets.
  large  5,000 nodes (--nodes to change) with kube-system/fluentd complete on all of them.

With --snapshot FILE (or - for stdin) the cluster is loaded from what \`kubectl get nodes,pods,daemonsets,controllerrevisions -A -o yaml\` (or -o json) printed, the same file ds-plan --snapshot reads: other kinds are ignored, namespaces are created, objects keep their uids and generations, and every timestamp moves by one amount so the dump's newest one falls at the simulated cluster's start (a pod 3h old in the dump is 3h old here). The controller and kubelets then run on it, so a rollout can be rehearsed on the shape of production. Nothing contacts the real cluster.

It serves HTTPS with a certificate authority of its own and demands a bearer token; the kubeconfig carries both. Nothing outside this process is touched; the kubeconfig is removed on exit unless you named it with --kubeconfig.`;

  static override examples = [
    {description: 'The demo, at real speed:', command: 'kubectl ds-rollout sim start'},
    {
      description: 'A large cluster, ten times faster than real time, on a fixed port:',
      command: 'kubectl ds-rollout sim start --scenario large --nodes 5000 --speed 10 --port 6443',
    },
    {
      description: 'Then, in another terminal:',
      command: 'export KUBECONFIG=/tmp/ds-rollout-sim-6443.kubeconfig; kubectl get ds -A; kubectl ds-plan fluentd -n kube-system',
    },
    {
      description: 'Rehearse on a copy of your cluster (pods of images with bad-tag crash):',
      command:
        'kubectl get nodes,pods,daemonsets,controllerrevisions -A -o json > cluster.json\nkubectl ds-rollout sim start --snapshot cluster.json --speed 10 --fail-image bad-tag',
    },
    {
      description: 'Make new pods of an image crash everywhere:',
      command: 'kubectl ds-rollout sim start --scenario empty --fail-image bad-tag --fail-mode crash',
    },
  ];

  static override flags = {
    scenario: Flags.string({summary: 'What to load: demo (the default), empty or large.', helpValue: 'NAME', exclusive: ['snapshot']}),
    nodes: integerFlag('nodes', {summary: 'Number of nodes (demo: 20, empty: 3, large: 5000).', min: 0, max: 100_000, exclusive: ['snapshot']}),
    snapshot: Flags.string({
      summary: 'Load this dump of a cluster (kubectl get nodes,pods,daemonsets,controllerrevisions -A -o yaml|json; - reads stdin) instead of a scenario.',
      helpValue: 'FILE',
    }),
    port: integerFlag('port', {summary: 'Port on 127.0.0.1 (default: a free one).', helpValue: 'PORT', min: 0, max: 65535}),
    kubeconfig: Flags.string({summary: 'Write the kubeconfig here (default: a file in the temp directory, removed on exit).', helpValue: 'FILE'}),
    speed: Flags.string({summary: 'Simulated seconds per real second (kubelet start-up, minReadySeconds, graceful deletion).', default: '1', helpValue: 'X'}),
    tls: Flags.boolean({
      summary: 'Serve HTTPS with a CA of its own and demand the bearer token the kubeconfig carries (--no-tls: plain http, no authentication).',
      default: true,
      allowNo: true,
    }),
    'fail-image': Flags.string({summary: 'Pods with an image containing this text fail to start.', helpValue: 'TEXT'}),
    'fail-node': Flags.string({summary: 'Pods on this node fail to start (with --fail-image: only those pods).', helpValue: 'NODE'}),
    'fail-mode': Flags.string({
      summary: 'How they fail: crash (CrashLoopBackOff), image-pull (ImagePullBackOff) or never-ready.',
      default: 'crash',
      helpValue: 'MODE',
    }),
  };

  async run(): Promise<void> {
    const {flags} = await this.parse(SimStart);
    const {startSim} = await import('../../../services/sim.js');
    const scenario = flags.scenario ?? 'demo';
    const sim = await startSim({
      scenario,
      ...(flags.snapshot !== undefined ? {snapshot: flags.snapshot} : {}),
      speed: Number(flags.speed),
      ...(flags.nodes !== undefined ? {nodes: flags.nodes} : {}),
      ...(flags.port !== undefined ? {port: flags.port} : {}),
      ...(flags.kubeconfig !== undefined ? {kubeconfig: flags.kubeconfig} : {}),
      ...(flags['fail-image'] !== undefined ? {failImage: flags['fail-image']} : {}),
      ...(flags['fail-node'] !== undefined ? {failNode: flags['fail-node']} : {}),
      failMode: flags['fail-mode'],
      tls: flags.tls,
    });
    const focus = sim.focus;
    const lines = [
      `Simulated cluster "${flags.snapshot !== undefined ? (flags.snapshot === '-' ? '<stdin>' : flags.snapshot) : scenario}" running at ${sim.cluster.url} (speed ${flags.speed}x)`,
      `  ${sim.description}`,
      `Kubeconfig: ${sim.kubeconfigPath} (context ds-rollout-sim)`,
      '',
      'In another terminal:',
      `  export KUBECONFIG=${sim.kubeconfigPath}`,
      '  kubectl get nodes',
      ...(focus
        ? [
            `  kubectl ds-plan ${focus.name} -n ${focus.namespace}`,
            `  kubectl ds-rollout status ${focus.name} -n ${focus.namespace} --watch`,
            `  kubectl ds-rollout dashboard ${focus.name} -n ${focus.namespace}`,
          ]
        : ['  kubectl apply -f your-daemonset.yaml']),
      '',
      'Press Ctrl-C to stop.',
    ];
    this.log(lines.join('\n'));
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await sim.stop();
    this.log('Simulated cluster stopped.');
  }
}
