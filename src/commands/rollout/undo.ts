// `kubectl ds-rollout undo NAME`: parse flags, preview with the undo service, confirm, apply. Heavy modules load inside run().
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../base-command.js';
import {daemonSetArg, dryRunFlag, isDocumentFormat, liveClusterFlags, nowFlag, outputFlag} from '../../flags.js';

export default class Undo extends BaseCommand {
  static override summary = 'Roll a DaemonSet back to an earlier revision, showing first what will change.';

  static override description = `Does what \`kubectl rollout undo\` does: the target is --to-revision, or the second-highest revision; when the template already matches it, nothing is sent ("skipped rollback"); otherwise it sends the same strategic merge patch, whose body is the revision's own data (the whole template replaced). It also sets the DaemonSet's kubernetes.io/change-cause annotation ("ds-rollout undo to revision N") in the same patch, which carries the resourceVersion it was computed from; a concurrent change makes it read and decide again.

Before anything changes it shows the template diff, which nodes will restart their daemon pod (planned with the same rules as \`kubectl ds-plan\`), and the renumbering: the controller gives the restored revision the next number ("revision 2 becomes revision 4").

On a terminal it asks for confirmation unless --yes. Without a terminal (a script, CI) it refuses unless --yes is given, so that a pipeline never rolls back by accident: pass --yes to act like kubectl, or --dry-run to only look.

Exit status: 0 rolled back, skipped, or dry run; 1 usage or input error (unknown revision, no earlier revision, no confirmation); 2 the cluster cannot be reached or refuses.`;

  static override examples = [
    {description: 'Preview going back to the previous revision (nothing is changed):', command: 'kubectl ds-rollout undo fluentd -n kube-system --dry-run'},
    {description: 'Go back to the previous revision, after confirming:', command: 'kubectl ds-rollout undo fluentd -n kube-system'},
    {description: 'Go back to revision 3 from a script:', command: 'kubectl ds-rollout undo fluentd -n kube-system --to-revision 3 --yes'},
  ];

  static override args = {
    name: daemonSetArg,
  };

  static override flags = {
    ...liveClusterFlags,
    'to-revision': Flags.integer({summary: 'The revision to roll back to; 0 (the default) means the one before the highest.', helpValue: 'N', default: 0}),
    'dry-run': dryRunFlag,
    yes: Flags.boolean({char: 'y', summary: 'Do not ask for confirmation.'}),
    now: nowFlag,
    output: outputFlag,
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Undo);
    const [{openLiveCluster}, undo, {colorEnabled}, view, errors] = await Promise.all([
      import('../../cluster/open-source.js'),
      import('../../services/undo.js'),
      import('../../output/color.js'),
      import('../../output/undo-text.js'),
      import('../../errors.js'),
    ]);
    const live = await openLiveCluster(flags, 'undo');
    const ref = {namespace: live.namespace, name: args.name};
    const preview = await undo.previewUndo({source: live.source, ref, toRevision: flags['to-revision'], now: flags.now ?? Date.now()});
    const refusal = (await import('../../gated-command.js')).gatedRefusal(preview.daemonSet, ref, 'undo');
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
      if (flags['dry-run'] === 'server') await undo.applyUndo(live.writer, preview, {dryRun: true});
      if (json) await print({applied: false, dryRun: true});
      else
        process.stdout.write(
          `\ndaemonset.apps/${ref.name} rolled back (${flags['dry-run'] === 'server' ? 'server dry run' : 'dry run'}: nothing was changed)\n`,
        );
      return;
    }
    const {clusterLabel} = await import('../../output/format.js');
    if (ask && !(await confirm(`\nRoll back ${ref.namespace}/${ref.name} to revision ${preview.to.revision} on ${clusterLabel(live)}? [y/N] `))) {
      throw new errors.InputError('rollback cancelled: nothing was changed');
    }
    const result = await undo.applyUndo(live.writer, preview);
    if (json) await print({applied: result.applied, dryRun: false});
    else if (!result.applied) process.stdout.write(`\n${view.skippedLine(preview)}\n`);
    else process.stdout.write(`\ndaemonset.apps/${ref.name} rolled back\n`);
  }
}

/** One line from the terminal; yes only for y/yes. */
async function confirm(question: string): Promise<boolean> {
  const {createInterface} = await import('node:readline/promises');
  const rl = createInterface({input: process.stdin, output: process.stderr});
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
