// `kubectl ds-rollout undo NAME`: parse flags, preview with the undo service, confirm, apply. Heavy modules load inside run().
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../cli/base-command.js';
import {daemonSetArg, dryRunFlag, isDocumentFormat, liveClusterFlags, nowFlag, outputFlag, revisionFlag} from '../../cli/flags.js';

export default class Undo extends BaseCommand {
  static override summary = 'Roll back to an earlier revision, showing first what changes.';

  static override description = `Does what \`kubectl rollout undo\` does (the target is --to-revision, or the revision before the highest), after showing the template diff, which nodes will restart their pod and the renumbering. One patch with a resourceVersion precondition; the change-cause goes onto the restored ControllerRevision, not the DaemonSet. Without a terminal it needs --yes. Exit 0 rolled back, skipped or dry run; 1 bad input or no confirmation; 2 cluster unreachable.`;

  static override examples = [
    {description: 'Preview going back to the previous revision', command: 'kubectl ds-rollout undo fluentd -n kube-system --dry-run'},
    {description: 'Go back to revision 1 from a script', command: 'kubectl ds-rollout undo fluentd -n kube-system --to-revision 1 --yes'},
  ];

  static override args = {
    name: daemonSetArg,
  };

  static override flags = {
    ...liveClusterFlags,
    'to-revision': revisionFlag('to-revision', {summary: 'The revision (default 0: the previous one).', min: 0})({default: 0}),
    'dry-run': dryRunFlag,
    yes: Flags.boolean({char: 'y', summary: 'Do not ask for confirmation.'}),
    now: nowFlag,
    output: outputFlag,
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Undo);
    const [{openLiveSession}, undo, {colorEnabled}, view, errors] = await Promise.all([
      import('../../cluster/session.js'),
      import('../../services/undo.js'),
      import('../../output/color.js'),
      import('../../output/undo-text.js'),
      import('../../platform/errors.js'),
    ]);
    const session = await openLiveSession(flags, 'undo');
    const ref = {namespace: session.namespace, name: args.name};
    const preview = await undo.previewUndo(session, {ref, toRevision: flags['to-revision']});
    const refusal = (await import('../../cli/gated-command.js')).gatedRefusal(preview.daemonSet, ref, 'undo');
    if (refusal) throw refusal;
    const color = colorEnabled(process.stdout.isTTY, process.env);
    const json = flags.output !== 'text';
    const print = async (outcome: {applied: boolean; dryRun: boolean}) => {
      const document = view.undoDocument(preview, outcome);
      if (isDocumentFormat(flags.output)) process.stdout.write(await (await import('../../output/document.js')).renderDocument(document, flags.output));
    };

    const dryRun = flags['dry-run'] !== 'none';
    if (preview.skipped) {
      if (json) await print({applied: false, dryRun});
      else process.stdout.write(`${view.skippedLine(preview)}\n`);
      return;
    }
    const ask = !flags.yes && !dryRun;
    if (ask && !process.stdin.isTTY) {
      throw new errors.UsageError('refusing to roll back without confirmation: there is no terminal to ask on; pass --yes, or --dry-run to only look');
    }
    if (!json) process.stdout.write(view.renderUndoPreview(preview, {color, width: process.stdout.isTTY ? process.stdout.columns : undefined}));
    if (dryRun) {
      // server: the API server validates and answers the patch (dryRun=All) but stores nothing.
      if (flags['dry-run'] === 'server') await undo.applyUndo(session.writer, preview, {dryRun: true});
      if (json) await print({applied: false, dryRun: true});
      else
        process.stdout.write(
          `\ndaemonset.apps/${ref.name} rolled back (${flags['dry-run'] === 'server' ? 'server dry run' : 'dry run'}: nothing was changed)\n`,
        );
      return;
    }
    if (ask && !(await confirm(`\nRoll back ${ref.namespace}/${ref.name} to revision ${preview.to.revision} on ${session.label}? [y/N] `))) {
      throw new errors.InputError('rollback cancelled: nothing was changed');
    }
    const result = await undo.applyUndo(session.writer, preview, {follow: session.follow(ref)});
    if (json) await print({applied: result.applied, dryRun: false});
    else if (!result.applied) process.stdout.write(`\n${view.skippedLine(preview)}\n`);
    else process.stdout.write(`\ndaemonset.apps/${ref.name} rolled back\n`);
  }
}

/** One line from the terminal; yes only for y/yes. */
async function confirm(question: string): Promise<boolean> {
  const {createInterface} = await import('node:readline/promises');
  const rl = createInterface({input: process.stdin, output: process.stderr, terminal: false});
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
