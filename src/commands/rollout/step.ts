// `kubectl ds-rollout step NAME`: parse flags, confirm on a terminal, run the step service, print its progress.
// Heavy modules load inside run().
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../base-command.js';
import {daemonSetArg, dryRunFlag, isDocumentFormat, durationFlag, intOrPercentFlag, liveClusterFlags, outputFlag} from '../../flags.js';
import {gatedFlags, isGated} from '../../gated-flags.js';
import {detachFlags} from '../../detach-flags.js';

export default class Step extends BaseCommand {
  static override summary = 'Replace the next wave of old pods of a paused DaemonSet.';

  static override description = `Waits until it is available; asks first (else --yes). Exit 0 landed, 3 failed.`;

  static override examples = [
    {description: 'Show the next wave, change nothing', command: 'kubectl ds-rollout step fluentd -n kube-system --dry-run'},
    {
      description: 'A gated rollout: 2 canary nodes first, rolled back if a gate fails',
      command: 'kubectl ds-rollout step agent --until-complete --canary 2 --on-failure undo',
    },
  ];

  static override args = {
    name: daemonSetArg,
  };

  static override flags = {
    ...liveClusterFlags,
    'max-unavailable': intOrPercentFlag('max-unavailable', {
      summary: 'The budget (default: the recorded one).',
    }),
    nodes: Flags.string({summary: 'Only these nodes may go next.', helpValue: 'NODE,...'}),
    selector: Flags.string({char: 'l', summary: 'Only nodes with these labels may go next.', helpValue: 'SELECTOR'}),
    'until-complete': Flags.boolean({summary: 'Repeat waves until no old pod is left.'}),
    timeout: durationFlag('timeout', {summary: 'Time a wave may take (0: none; default 5m).'}),
    controller: Flags.boolean({summary: 'Let the controller run one surge wave.'}),
    'dry-run': dryRunFlag,
    force: Flags.boolean({summary: 'Take the step lease over from another step.'}),
    yes: Flags.boolean({char: 'y', summary: 'Do not ask (needed without a terminal).'}),
    output: outputFlag,
    ...gatedFlags,
    ...detachFlags,
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Step);
    const errors = await import('../../errors.js');
    const dryRun = flags['dry-run'] !== 'none';
    if (isGated(flags)) {
      // A gated rollout (docs/gated-rollouts.md): its own service, which steps each stage with the step service.
      if (flags.detach) {
        if (flags.controller || flags.nodes !== undefined || flags.selector !== undefined) {
          throw new errors.UsageError('a gated rollout (--canary, --strategy, ...) chooses its own nodes: it takes no --controller, --nodes or --selector');
        }
        if (!flags.yes && !dryRun)
          throw new errors.UsageError('a detached gated rollout runs its stages unattended: pass --yes (or --dry-run=client -o yaml to see the Job)');
        const {runDetachCommand} = await import('../../detach-command.js');
        return runDetachCommand({command: 'step', name: args.name, argv: this.argv, version: this.config.version, yes: true, flags});
      }
      if (flags.controller || flags.nodes !== undefined || flags.selector !== undefined || dryRun) {
        throw new errors.UsageError(
          'a gated rollout (--canary, --strategy, ...) chooses its own nodes: it takes no --controller, --nodes, --selector or --dry-run',
        );
      }
      if (!flags.yes) throw new errors.UsageError('a gated rollout runs its stages unattended: pass --yes');
      if (await (await import('../../detach-command.js')).detachedRunIsOver(flags, args.name)) return;
      const {runGatedCommand} = await import('../../gated-command.js');
      return runGatedCommand({mode: 'step', name: args.name, flags});
    }
    if (flags.detach) throw new errors.UsageError('--detach runs a gated rollout in the cluster: give its stages (--canary, --canary-nodes, --strategy, ...)');
    if (flags.controller && (flags['max-unavailable'] !== undefined || flags.nodes !== undefined || flags.selector !== undefined)) {
      throw new errors.UsageError('--controller runs the recorded strategy as the controller does: it takes no --max-unavailable, --nodes or --selector');
    }
    const nodes =
      flags.nodes === undefined
        ? undefined
        : flags.nodes
            .split(',')
            .map((n) => n.trim())
            .filter((n) => n !== '');
    if (nodes !== undefined && nodes.length === 0) throw new errors.UsageError('--nodes needs at least one node name');
    const ask = !flags.yes && !dryRun;
    if (ask && !process.stdin.isTTY) {
      throw new errors.UsageError('refusing to delete pods without confirmation: there is no terminal to ask on; pass --yes, or --dry-run to only look');
    }
    const [{openLiveCluster}, step, view, {colorEnabled}, core, {clusterLabel}] = await Promise.all([
      import('../../cluster/open-source.js'),
      import('../../services/step.js'),
      import('../../output/step-text.js'),
      import('../../output/color.js'),
      import('../../core/index.js'),
      import('../../output/format.js'),
    ]);
    let selector;
    if (flags.selector !== undefined) {
      try {
        selector = core.parseLabelSelector(flags.selector);
      } catch (error) {
        throw new errors.UsageError(`--selector: ${(error as Error).message}`);
      }
    }
    const live = await openLiveCluster(flags, 'step');
    const ref = {namespace: live.namespace, name: args.name};
    await (await import('../../gated-command.js')).refuseIfGated(live, ref);
    const text = flags.output === 'text';
    // Progress is for people: on stdout in text mode, on stderr when stdout carries a document.
    const out = text ? process.stdout : process.stderr;
    const color = colorEnabled(out.isTTY, process.env);

    // The first Ctrl-C stops at a safe point (with --controller: after pausing again); a second one exits now.
    const interrupt = (await import('../../interrupt.js')).stopAtSafePoint(out);
    try {
      const result = await step.stepDaemonSet({
        cluster: step.stepClusterOf(live),
        ref,
        ...(flags['max-unavailable'] !== undefined ? {maxUnavailable: flags['max-unavailable']} : {}),
        ...(nodes ? {nodes} : {}),
        ...(selector ? {selector} : {}),
        untilComplete: flags['until-complete'],
        timeoutMs: flags.timeout ?? 5 * 60_000,
        dryRun,
        controller: flags.controller,
        force: flags.force,
        ...(ask ? {confirm: (request) => confirm(request, `${ref.namespace}/${ref.name} on ${clusterLabel(live)}`, out)} : {}),
        onEvent: (event) => {
          const line = view.renderStepEvent(event, ref, color);
          if (line !== undefined) out.write(`${line}\n`);
        },
        signal: interrupt.signal,
      });
      if (flags['dry-run'] === 'server') {
        const {sendServerDryRun} = await import('../../services/step-dry-run.js');
        const sent = await sendServerDryRun(live.writer, ref, result);
        if (sent.deletions > 0) {
          out.write(
            `The API server accepted the ${sent.deletions === 1 ? 'deletion' : `${sent.deletions} deletions`} (server dry run: nothing was deleted).\n`,
          );
        }
        if (sent.patches > 0) out.write('The API server accepted the resume for the controller wave (server dry run: nothing was changed).\n');
      }
      if (flags.output === 'text') {
        const summary = view.renderStepSummary(result, nodes !== undefined || selector !== undefined, color);
        if (summary) process.stdout.write(`${summary}\n`);
      } else if (isDocumentFormat(flags.output)) {
        process.stdout.write(await (await import('../../output/document.js')).renderDocument(result, flags.output));
      }
    } finally {
      interrupt.dispose();
      // A request still waiting on a frozen server (no --request-timeout) must not keep the finished step alive.
      live.client.close();
    }
  }
}

/** Asks on the terminal: y (this wave), a (this and every later wave), anything else stops. */
async function confirm(
  request: {number: number; deletions: number; controller: boolean},
  where: string,
  out: NodeJS.WriteStream,
): Promise<'yes' | 'no' | 'all'> {
  const {createInterface} = await import('node:readline/promises');
  const rl = createInterface({input: process.stdin, output: out, terminal: false});
  const what = request.controller
    ? `Let the controller run wave ${request.number} of ${where}`
    : `Delete ${request.deletions === 1 ? 'this pod' : `these ${request.deletions} pods`} of ${where}`;
  try {
    const answer = (await rl.question(`${what}? [y/N/a(ll waves)] `)).trim().toLowerCase();
    return answer === 'a' || answer === 'all' ? 'all' : /^y(es)?$/.test(answer) ? 'yes' : 'no';
  } finally {
    rl.close();
  }
}
