// `kubectl ds-rollout sim kubelets`: plays the kubelets of N nodes against any API server (e.g. a real
// kube-apiserver with no nodes of its own) until Ctrl-C.
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../../cli/base-command.js';
import {connectionFlags, contextFlag, failureFlags, integerFlagDefaulting, kubeconfigFlag} from '../../../cli/flags.js';
import {InputError} from '../../../platform/errors.js';

export default class SimKubelets extends BaseCommand {
  static override summary = 'Play the kubelets of N nodes against any API server, until Ctrl-C.';

  static override description = `Registers nodes sim-node-1..N (Ready, with capacity), renews their leases, runs the pods bound to them to Running and Ready after a delay and finishes their graceful deletions. It binds nothing: the cluster's scheduler does. Pods whose image contains --fail-image (or on --fail-node) fail as --fail-mode says (crash by default; node-not-ready stops the node's lease renewals while the pod runs, so the cluster's node lifecycle controller marks the node Unknown and taints it). Pods of an --exec-image image run COMMAND here, with a service account token and in-cluster env; its exit is the container's.`;

  static override examples = [
    {
      description: 'Eight nodes for a control plane started by scripts/real-cluster/up.sh',
      command: 'kubectl ds-rollout sim kubelets --kubeconfig /tmp/rc/kubeconfig --nodes 8',
    },
  ];

  static override flags = {
    kubeconfig: kubeconfigFlag,
    context: contextFlag,
    ...connectionFlags,
    nodes: integerFlagDefaulting('nodes', {summary: 'Number of nodes.', default: 3, min: 0, max: 100_000}),
    prefix: Flags.string({summary: 'Node name prefix.', default: 'sim-node-', helpValue: 'TEXT'}),
    'start-delay': integerFlagDefaulting('start-delay', {summary: 'Milliseconds from binding to Ready.', default: 1000, helpValue: 'MS', min: 0}),
    'stop-delay': integerFlagDefaulting('stop-delay', {summary: 'Milliseconds a deleted pod takes to stop.', default: 500, helpValue: 'MS', min: 0}),
    ...failureFlags,
    'exec-image': Flags.string({
      summary: 'Pods of IMAGE run COMMAND here as their container. Repeatable.',
      helpValue: 'IMAGE=COMMAND',
      multiple: true,
    }),
  };

  async run(): Promise<void> {
    const {flags} = await this.parse(SimKubelets);
    if (flags.nodes < 1) throw new InputError('--nodes must be at least 1');
    const {resolveKubeconfig} = await import('../../../cluster/live/kubeconfig.js');
    const {Credentials} = await import('../../../cluster/live/credentials.js');
    const {TransportKubeConfig} = await import('../../../cluster/live/client-node.js');
    const {KubeletAgent} = await import('../../../sim/kubelet-agent.js');
    const {kubeconfigOptions} = await import('../../../cluster/open-source.js');
    const {failureRules} = await import('../../../services/sim.js');
    const failures = failureRules({
      ...(flags['fail-image'] !== undefined ? {failImage: flags['fail-image']} : {}),
      ...(flags['fail-node'] !== undefined ? {failNode: flags['fail-node']} : {}),
      failMode: flags['fail-mode'],
    });
    const resolved = resolveKubeconfig(kubeconfigOptions(flags));
    const nodes = Array.from({length: flags.nodes}, (_, i) => `${flags.prefix}${i + 1}`);
    let exec;
    if (flags['exec-image'] !== undefined && flags['exec-image'].length > 0) {
      const {parseExecImage} = await import('../../../sim/exec-image.js');
      let images;
      try {
        images = flags['exec-image'].map(parseExecImage);
      } catch (error) {
        throw new InputError((error as Error).message);
      }
      const {readFileSync, mkdtempSync} = await import('node:fs');
      const {tmpdir} = await import('node:os');
      const {join} = await import('node:path');
      const url = new URL(resolved.server);
      const ca =
        resolved.cluster.certificateAuthorityData ?? (resolved.cluster.certificateAuthority ? readFileSync(resolved.cluster.certificateAuthority) : undefined);
      exec = {
        images,
        host: url.hostname,
        port: url.port || (url.protocol === 'https:' ? '443' : '80'),
        caCert: ca?.toString('utf8') ?? '',
        dir: mkdtempSync(join(tmpdir(), 'ds-rollout-exec-')),
      };
    }
    const agent = new KubeletAgent(new TransportKubeConfig(new Credentials(resolved), resolved.server), {
      nodes,
      startDelayMs: flags['start-delay'],
      stopDelayMs: flags['stop-delay'],
      onError: (error) => this.logToStderr(`kubelets: ${String((error as Error).message ?? error).split('\n')[0]}`),
      failures,
      ...(exec ? {exec} : {}),
    });
    this.log(`Playing the kubelets of ${nodes.length} nodes (${nodes[0]}..${nodes.at(-1)}) on ${resolved.server} (context ${resolved.context})`);
    await agent.start();
    this.log('Nodes registered; running until Ctrl-C.');
    await new Promise<void>((resolve) => {
      const done = () => resolve();
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
    });
    agent.stop();
  }
}
