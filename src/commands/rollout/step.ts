// `kubectl ds-rollout step NAME`: parse flags, confirm on a terminal, run the step service, print its progress.
// Heavy modules load inside run().
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../base-command.js';
import {daemonSetArg, dryRunFlag, isDocumentFormat, durationFlag, intOrPercentFlag, liveClusterFlags, outputFlag} from '../../flags.js';
import {gatedFlags, isGated} from '../../gated-flags.js';

export default class Step extends BaseCommand {
  static override summary = 'Replace the next wave of old pods of a paused DaemonSet, and wait until it is available.';

  static override description = `On a DaemonSet paused with \`ds-rollout pause\`, computes the next wave with the controller's own rolling-update rule (the same code as ds-plan and the controller): the recorded maxUnavailable (or --max-unavailable) scaled against the nodes that should run the daemon, minus what is unavailable already (missing pods, terminating pods, new pods not yet available, old pods not ready: counted exactly as the controller counts them). Unavailable old pods in scope go whatever the budget, as the controller does.

It shows the wave and, on a terminal, asks before deleting (y: this wave, a: all waves, N: stop); without a terminal it needs --yes. Each deletion is decided again on a fresh read and sent with the pod's uid and resourceVersion as preconditions: a pod that changed meanwhile is never deleted blindly, and only pods of the wave shown are ever deleted, so a node going NotReady can make a wave smaller, never larger. It then waits, following the cluster through watches, until the controller's replacements of the pods that were available are Ready and Available for minReadySeconds, or --timeout (a node whose old pod was unavailable already, say on a NotReady node, gets its replacement too but stays counted against the budget until it is available). A wave that deleted something is recorded in the DaemonSet's own annotation ds-rollout.io/step ({"step":3,"of":8,"at":...}; the total is an estimate) and in the pause record's step count; step never sets kubernetes.io/change-cause (the next revision would inherit it). A dry run, a declined or refused step, and a wave that deleted nothing record nothing.

While it changes things, a step holds a lease on the DaemonSet (annotation ds-rollout.io/step-lease: holder, acquire and renew times on the server's clock), renewed every 7.5s and lapsing 30s after the last renewal (or at once when its process on this host is gone); it is given back at the end. A second step that finds the lease held refuses (exit 2) naming the holder; --force takes it over, and the step that lost it stops at its next check (exit 2).

Every wait follows the cluster through watches; when the cluster stops answering (connection refused, or no answer within --request-timeout, each tried 4 times), the step says so in one line naming the server and exits 2 instead of waiting for --timeout.

--nodes and --selector choose which nodes go next (a canary): the budget still counts unavailability over the whole DaemonSet. --until-complete repeats waves until no old pod is left in scope, stopping at the first wave that does not become available.

If the template changes during a step (someone applies a new version), or the DaemonSet is resumed, the step stops and says so. Killed at any moment, the DaemonSet stays paused; run step again and it continues from what it finds, within the budget.

A recorded strategy with maxSurge > 0 cannot surge while paused (the controller would delete the second pod of a node): --controller resumes the recorded strategy for one wave, waits until the wave's nodes run an available new pod, and pauses again (also on Ctrl-C). During that wave the DaemonSet is not paused: if the process is killed then, \`ds-rollout pause\` again is the recovery (status shows it as not paused).

Gated rollouts (--canary N|P%, --canary-nodes, --canary-selector, --canary-bake, --bake, --approve, --on-failure, --max-restarts, --progress-deadline, --strategy FILE): the rollout in stages, a canary then waves, each baked and judged by a health gate over its new pods (lost Ready, restarts, CrashLoopBackOff, image pull errors, Pending or not Ready past the progress deadline). The stage is kept in the annotation ds-rollout.io/gated-rollout: rerun the same command to continue. A failed gate exits 3, paused, or with --on-failure undo rolled back on the nodes that got the new revision. See README "Gated rollouts".

Needs RBAC: get, list, watch and patch daemonsets; list and watch pods, nodes and controllerrevisions; delete pods.

Exit status: 0 the wave (or every wave) landed, or nothing to do; 1 usage or input error (not paused, unknown node, no confirmation); 2 the cluster cannot be reached, stopped answering, or refuses, or another step holds the lease; 3 a wave did not become available within --timeout, no wave can start because unavailable pods hold the budget, or the DaemonSet changed under the step; 130 interrupted.`;

  static override examples = [
    {
      description: 'A gated rollout: 2 canary nodes baked 10 minutes, then the rest, rolled back if a new pod fails:',
      command: 'kubectl ds-rollout step fluentd -n kube-system --until-complete --canary 2 --canary-bake 10m --on-failure undo --yes',
    },
    {description: 'Show the next wave, change nothing:', command: 'kubectl ds-rollout step fluentd -n kube-system --dry-run'},
    {description: 'Replace the next wave (the recorded budget), asking first:', command: 'kubectl ds-rollout step fluentd -n kube-system'},
    {
      description: 'A canary: two chosen nodes first, from a script:',
      command: 'kubectl ds-rollout step fluentd -n kube-system --nodes worker-03,worker-04 --yes',
    },
    {
      description: 'Nodes chosen by label, three at a time:',
      command: 'kubectl ds-rollout step fluentd -n kube-system --selector pool=canary --max-unavailable 3 --yes',
    },
    {
      description: 'The rest of the rollout, wave by wave, each given 10 minutes:',
      command: 'kubectl ds-rollout step fluentd -n kube-system --until-complete --timeout 10m --yes',
    },
    {
      description: 'One surge wave run by the controller itself (recorded maxSurge > 0):',
      command: 'kubectl ds-rollout step node-exporter -n monitoring --controller --yes',
    },
  ];

  static override args = {
    name: daemonSetArg,
  };

  static override flags = {
    ...liveClusterFlags,
    'max-unavailable': intOrPercentFlag('max-unavailable', {
      summary: 'The budget of this step instead of the recorded one (scaled against the nodes that should run the daemon).',
    }),
    nodes: Flags.string({summary: 'Only these nodes (comma-separated) may go next.', helpValue: 'NODE,...'}),
    selector: Flags.string({char: 'l', summary: 'Only nodes with these labels may go next (a label selector, e.g. pool=canary).', helpValue: 'SELECTOR'}),
    'until-complete': Flags.boolean({summary: 'Repeat waves until no old pod is left (in scope); stop at the first wave that does not become available.'}),
    timeout: durationFlag('timeout', {summary: 'How long one wave may take to become available, or wait for budget (0: no limit; default 5m).'}),
    controller: Flags.boolean({summary: 'For a recorded maxSurge > 0: let the controller run one surge wave, then pause again.'}),
    'dry-run': dryRunFlag,
    force: Flags.boolean({summary: 'Take the step lease over from another step that still holds it (that step stops).'}),
    yes: Flags.boolean({char: 'y', summary: 'Do not ask for confirmation (needed without a terminal).'}),
    output: outputFlag,
    ...gatedFlags,
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Step);
    const errors = await import('../../errors.js');
    const dryRun = flags['dry-run'] !== 'none';
    if (isGated(flags)) {
      // A gated rollout (README "Gated rollouts"): its own service, which steps each stage with the step service.
      if (flags.controller || flags.nodes !== undefined || flags.selector !== undefined || dryRun) {
        throw new errors.UsageError(
          'a gated rollout (--canary, --strategy, ...) chooses its own nodes: it takes no --controller, --nodes, --selector or --dry-run',
        );
      }
      if (!flags.yes) throw new errors.UsageError('a gated rollout runs its stages unattended: pass --yes');
      const {runGatedCommand} = await import('../../gated-command.js');
      return runGatedCommand({mode: 'step', name: args.name, flags});
    }
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
  const rl = createInterface({input: process.stdin, output: out});
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
