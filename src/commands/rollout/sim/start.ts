// `kubectl ds-rollout sim start`: runs a simulated cluster in the foreground until Ctrl-C.
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../../base-command.js';
import {integerFlag} from '../../../flags.js';

export default class SimStart extends BaseCommand {
  static override summary = 'Run a simulated cluster in the foreground, until Ctrl-C.';

  static override description = `Serves a Kubernetes-compatible API on 127.0.0.1 with simulated kubelets and the DaemonSet controller (the reconcile core ds-plan uses), loads a scenario (demo: 20 nodes mid-rollout; empty; large: 5,000 nodes) or a kubectl dump (--snapshot), writes a kubeconfig and runs until Ctrl-C. Nothing outside this process is touched.`;

  static override examples = [
    {description: 'The demo, at real speed; then use kubectl from another terminal', command: 'kubectl ds-rollout sim start'},
    {
      description: 'A large cluster, ten times faster than real time, on a fixed port',
      command: 'kubectl ds-rollout sim start --scenario large --speed 10 --port 6443',
    },
    {
      description: 'Rehearse on a copy of your cluster (pods of images with bad-tag crash)',
      command:
        'kubectl get nodes,pods,ds,controllerrevisions -A -o json > cluster.json\nkubectl ds-rollout sim start --snapshot cluster.json --fail-image bad-tag',
    },
  ];

  static override flags = {
    scenario: Flags.string({summary: 'demo (the default), empty or large.', helpValue: 'NAME', exclusive: ['snapshot']}),
    nodes: integerFlag('nodes', {summary: 'Number of nodes (demo 20, empty 3, large 5000).', min: 0, max: 100_000, exclusive: ['snapshot']}),
    snapshot: Flags.string({
      summary: 'Load a kubectl dump instead (- for stdin).',
      helpValue: 'FILE',
    }),
    port: integerFlag('port', {summary: 'Port on 127.0.0.1 (default: a free one).', helpValue: 'PORT', min: 0, max: 65535}),
    kubeconfig: Flags.string({summary: 'Write the kubeconfig here (kept on exit).', helpValue: 'FILE'}),
    speed: Flags.string({summary: 'Simulated seconds per real second.', default: '1', helpValue: 'X'}),
    tls: Flags.boolean({
      summary: 'HTTPS and a token (--no-tls: plain http).',
      default: true,
      allowNo: true,
    }),
    'fail-image': Flags.string({summary: 'Pods whose image contains this text fail.', helpValue: 'TEXT'}),
    'fail-node': Flags.string({summary: 'Pods on this node fail to start.', helpValue: 'NODE'}),
    'fail-mode': Flags.string({
      summary: 'crash, image-pull or never-ready.',
      default: 'crash',
      helpValue: 'MODE',
    }),
    'exec-image': Flags.string({
      summary: "Pods of IMAGE run COMMAND here as their container (this release's image runs this plugin). Repeatable.",
      helpValue: 'IMAGE=COMMAND',
      multiple: true,
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
      ...(flags['exec-image'] !== undefined ? {execImages: flags['exec-image']} : {}),
      // A detached rollout's Job (its default image this release's) runs this plugin, as the image's entrypoint would.
      plugin: {image: (await import('../../../core/index.js')).releaseImage(this.config.version), command: pluginCommand()},
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

/** How to run this plugin again: node and its script, or the standalone executable alone. */
function pluginCommand(): string[] {
  const script = process.argv[1];
  return script !== undefined && script !== process.execPath ? [process.execPath, script] : [process.execPath];
}
