// `kubectl ds-rollout step NAME`: parse flags, confirm on a terminal, run the step service, print its progress.
// Heavy modules load inside run().
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../cli/base-command.js';
import {daemonSetArg, dryRunFlag, isDocumentFormat, durationFlag, intOrPercentFlag, liveClusterFlags, outputFlag} from '../../cli/flags.js';
import {gatedFlags} from '../../cli/gated-flags.js';
import {detachFlags} from '../../cli/detach-flags.js';
import type {LiveSession} from '../../cluster/session.js';

export default class Step extends BaseCommand {
  static override summary = 'Replace the next wave of old pods of a paused DaemonSet.';

  static override description = `Waits until it is available; asks first (else --yes). Exit 0 landed (available), 3 failed.`;

  static override examples = [
    {
      // One example of two commands: the help stays within one screen.
      description: "Show the next wave; then a gated rollout's plan, 2 canary nodes first",
      command: ['kubectl ds-rollout step fluentd -n kube-system --dry-run', 'kubectl ds-rollout step fluentd -n kube-system --canary 2 --dry-run'].join('\n'),
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
    const request = (await import('../../cli/step-request.js')).stepRequest(flags, process.stdin.isTTY === true);
    if (request.kind === 'gated-detached') {
      const {runDetachCommand} = await import('../../cli/detach-command.js');
      return runDetachCommand({command: 'step', name: args.name, argv: this.argv, version: this.config.version, yes: true, flags});
    }
    if (request.kind === 'gated') {
      const {runGatedCommand} = await import('../../cli/gated-command.js');
      const drive = (session?: LiveSession) => runGatedCommand({mode: 'step', name: args.name, flags}, session);
      return (await import('../../cli/detach-command.js')).runDetachedDriver(flags, args.name, drive, 'step');
    }
    const [{openLiveSession}, step, view, {colorEnabled}] = await Promise.all([
      import('../../cluster/session.js'),
      import('../../services/step.js'),
      import('../../output/step-text.js'),
      import('../../output/color.js'),
    ]);
    const session = await openLiveSession(flags, 'step');
    const ref = {namespace: session.namespace, name: args.name};
    // Progress is for people: on stdout in text mode, on stderr when stdout carries a document.
    const out = flags.output === 'text' ? process.stdout : process.stderr;
    const color = colorEnabled(out.isTTY, process.env);
    // The first Ctrl-C stops at a safe point (with --controller: after pausing again); a second one exits now.
    const interrupt = (await import('../../cli/interrupt.js')).stopAtSafePoint(out);
    try {
      const {result, serverDryRun} = await step.stepService(session, {
        ref,
        ...(flags['max-unavailable'] !== undefined ? {maxUnavailable: flags['max-unavailable']} : {}),
        ...(request.nodes ? {nodes: request.nodes} : {}),
        ...(request.selector ? {selector: request.selector} : {}),
        untilComplete: flags['until-complete'],
        timeoutMs: flags.timeout ?? 5 * 60_000,
        dryRun: request.dryRun,
        serverDryRun: flags['dry-run'] === 'server',
        controller: flags.controller,
        force: flags.force,
        ...(request.ask ? {confirm: (asked) => confirm(asked, `${ref.namespace}/${ref.name} on ${session.label}`, out)} : {}),
        onEvent: (event) => {
          const line = view.renderStepEvent(event, ref, color);
          if (line !== undefined) out.write(`${line}\n`);
        },
        signal: interrupt.signal,
      });
      const accepted = serverDryRun && view.renderServerDryRun(serverDryRun);
      if (accepted) out.write(`${accepted}\n`);
      if (flags.output === 'text') {
        const summary = view.renderStepSummary(result, request.nodes !== undefined || request.selector !== undefined, color);
        if (summary) process.stdout.write(`${summary}\n`);
      } else if (isDocumentFormat(flags.output)) {
        process.stdout.write(await (await import('../../output/document.js')).renderDocument(result, flags.output));
      }
    } finally {
      interrupt.dispose();
      // A request still waiting on a frozen server (no --request-timeout) must not keep the finished step alive.
      session.close();
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
