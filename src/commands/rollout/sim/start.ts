// `kubectl ds-rollout sim start`: runs a simulated cluster in the foreground until Ctrl-C, or (--detach) in a
// process of its own, returning once the API serves.
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../../cli/base-command.js';
import {failureFlags, integerFlag} from '../../../cli/flags.js';

export default class SimStart extends BaseCommand {
  static override summary = 'Run a simulated cluster, in the foreground or detached.';

  static override description = `Serves a Kubernetes-compatible API on 127.0.0.1 with simulated kubelets and the DaemonSet controller (the reconcile core ds-plan uses), loads a scenario (demo: 20 nodes mid-rollout; empty; large: 5,000 nodes) or a kubectl dump (--snapshot), writes a kubeconfig and runs until Ctrl-C (--detach: in the background, returning once the API serves with the export KUBECONFIG line, for eval).`;

  static override examples = [
    {
      description: 'The demo in the background, ready when this returns; then stop it',
      command: 'eval "$(kubectl ds-rollout sim start --detach)"\nkubectl ds-plan fluentd -n kube-system\nkubectl ds-rollout sim stop demo',
    },
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
    nodes: integerFlag('nodes', {summary: 'Nodes (demo 20, empty 3, large 5000).', min: 0, max: 100_000, exclusive: ['snapshot']}),
    snapshot: Flags.string({
      summary: 'Load a kubectl dump instead (- for stdin).',
      helpValue: 'FILE',
    }),
    port: integerFlag('port', {summary: 'Port on 127.0.0.1 (default: a free one).', helpValue: 'PORT', min: 0, max: 65535}),
    kubeconfig: Flags.string({summary: 'Write (or merge) the kubeconfig here; kept.', helpValue: 'FILE'}),
    'context-name': Flags.string({summary: 'Its context name (default ds-rollout-sim).', helpValue: 'NAME'}),
    speed: Flags.string({summary: 'Simulated seconds per real second.', default: '1', helpValue: 'X'}),
    tls: Flags.boolean({
      summary: 'HTTPS and a token (--no-tls: plain http).',
      default: true,
      allowNo: true,
    }),
    detach: Flags.boolean({char: 'd', summary: 'Run in the background; return once it serves.'}),
    name: Flags.string({summary: 'For sim stop (default: context or scenario).', helpValue: 'NAME'}),
    ...failureFlags,
    'exec-image': Flags.string({
      summary: 'Pods of IMAGE run COMMAND here (repeatable; default: this plugin).',
      helpValue: 'IMAGE=COMMAND',
      multiple: true,
    }),
  };

  async run(): Promise<void> {
    const {flags} = await this.parse(SimStart);
    const detachedName = process.env[DETACHED_NAME];
    if (flags.name !== undefined && !flags.detach && detachedName === undefined) {
      throw new (await import('../../../platform/errors.js')).UsageError('--name names a cluster started with --detach, for sim stop');
    }
    if (flags.detach && detachedName === undefined) {
      await this.detach(flags.name ?? flags['context-name'] ?? (flags.snapshot !== undefined ? 'snapshot' : (flags.scenario ?? 'demo')), flags.snapshot);
      return;
    }
    const {startSim, writeDetachedRecord, removeDetachedRecord} = await import('../../../services/sim.js');
    const scenario = flags.scenario ?? 'demo';
    const sim = await startSim({
      scenario,
      ...(flags.snapshot !== undefined ? {snapshot: flags.snapshot} : {}),
      speed: Number(flags.speed),
      ...(flags.nodes !== undefined ? {nodes: flags.nodes} : {}),
      ...(flags.port !== undefined ? {port: flags.port} : {}),
      ...(flags.kubeconfig !== undefined ? {kubeconfig: flags.kubeconfig} : {}),
      ...(flags['context-name'] !== undefined ? {contextName: flags['context-name']} : {}),
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
      `Kubeconfig: ${sim.kubeconfigPath} (context ${flags['context-name'] ?? 'ds-rollout-sim'})`,
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
    const stopped = new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    const port = Number(new URL(sim.cluster.url).port);
    if (detachedName !== undefined) {
      // Recorded before the parent is told, so that `sim stop` finds it as soon as `sim start --detach` returns.
      await writeDetachedRecord({name: detachedName, pid: process.pid, port, url: sim.cluster.url, kubeconfig: sim.kubeconfigPath});
      process.send?.({kubeconfig: sim.kubeconfigPath, url: sim.cluster.url});
      process.disconnect?.();
    }
    await stopped;
    await sim.stop();
    if (detachedName !== undefined) await removeDetachedRecord(port);
    this.log('Simulated cluster stopped.');
  }

  /**
   * Starts this same command again in a process of its own (its output in a log file) and returns once that one
   * serves: stdout is only the `export KUBECONFIG=...` line, for `eval "$(...)"`; stderr says how to stop it.
   */
  private async detach(name: string, snapshot: string | undefined): Promise<void> {
    const [{spawn}, {openSync, closeSync, readFileSync}, sim, {InputError, UsageError}] = await Promise.all([
      import('node:child_process'),
      import('node:fs'),
      import('../../../services/sim.js'),
      import('../../../platform/errors.js'),
    ]);
    sim.checkSimName(name);
    if (snapshot === '-') throw new UsageError('--detach cannot read --snapshot from stdin: save the dump to a file and name it');
    const same = (await sim.detachedSims()).find((running) => running.name === name);
    if (same !== undefined) {
      throw new InputError(
        `a simulated cluster named "${name}" is already running (port ${same.port}): stop it with kubectl ds-rollout sim stop ${name}, or pass --name`,
      );
    }
    const log = sim.detachedLogPath(name);
    const output = openSync(log, 'w', 0o600);
    // A single executable is its own script; under node, the entry point (bin/kubectl-ds_rollout) comes first.
    const {isSea} = await import('node:sea');
    const entry = isSea() ? [] : [process.argv[1]!];
    const args = this.argv.filter((arg) => !/^(?:--detach|-d)$/.test(arg));
    const child = spawn(process.execPath, [...entry, 'sim', 'start', ...args], {
      detached: true,
      stdio: ['ignore', output, output, 'ipc'],
      env: {...process.env, [DETACHED_NAME]: name},
    });
    closeSync(output);
    const ready = await new Promise<{kubeconfig: string; url: string} | undefined>((resolve) => {
      child.once('message', (message) => resolve(message as {kubeconfig: string; url: string}));
      child.once('exit', () => resolve(undefined));
    });
    if (ready === undefined) {
      // Its error line, as it would have printed it in the foreground.
      const said = readFileSync(log, 'utf8').trim().split('\n').pop() ?? '';
      throw new InputError(said.replace(/^error: /, '') || `the simulated cluster exited before it served (see ${log})`);
    }
    child.unref();
    child.channel?.unref();
    process.stdout.write(`export KUBECONFIG=${ready.kubeconfig}\n`);
    process.stderr.write(
      `Simulated cluster "${name}" serving at ${ready.url} (pid ${child.pid}, log ${log}); stop it with: kubectl ds-rollout sim stop ${name}\n`,
    );
  }
}

/** How to run this plugin again: node and its script, or the standalone executable alone. */
function pluginCommand(): string[] {
  const script = process.argv[1];
  return script !== undefined && script !== process.execPath ? [process.execPath, script] : [process.execPath];
}

/** Set in the environment of the process `--detach` starts: the name it is recorded under. */
const DETACHED_NAME = 'DS_ROLLOUT_SIM_DETACHED_NAME';
