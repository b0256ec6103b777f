// `kubectl ds-rollout history NAME`: parse flags, call the history service, render. Heavy modules load inside run().
import {BaseCommand} from '../../base-command.js';
import {clusterFlags, isDocumentFormat, nowFlag, optionalDaemonSetArg, outputFlag, revisionFlag} from '../../flags.js';
import type {Revision} from '../../core/index.js';

export default class History extends BaseCommand {
  static override summary = "List a DaemonSet's revisions, show one, or diff two.";

  static override description = `Lists the revisions \`kubectl rollout history\` lists, with hash, age, change-cause, images, how many pods run each and which is current. --revision N prints one revision's pod template; --diff A B the template diff from A to B, images first. An undo renumbers the restored revision to the highest number. Exit 0 on success, 1 for bad input or an unknown revision, 2 when the cluster cannot be reached.`;

  static override examples = [
    {description: 'The revisions, with images and pod counts', command: 'kubectl ds-rollout history fluentd -n kube-system'},
    {description: 'What revision 2 runs', command: 'kubectl ds-rollout history fluentd -n kube-system --revision 2'},
    {description: 'What changed from revision 1 to revision 3', command: 'kubectl ds-rollout history fluentd -n kube-system --diff 1 3'},
  ];

  static override args = {
    name: {...optionalDaemonSetArg, description: 'NAME or ds/NAME (optional with a --snapshot holding one DaemonSet).'},
  };

  static override flags = {
    ...clusterFlags,
    revision: revisionFlag('revision', {summary: "Print this revision's pod template.", min: 1})(),
    diff: revisionFlag('diff', {summary: 'The template diff from revision A to B.', helpValue: 'A B', min: 1})({multiple: true, delimiter: ','}),
    now: nowFlag,
    output: outputFlag,
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(History);
    const {UsageError} = await import('../../errors.js');
    if (flags.diff !== undefined && flags.diff.length !== 2) throw new UsageError('--diff takes two revisions: --diff A B');
    if (flags.diff !== undefined && flags.revision !== undefined) throw new UsageError('--revision and --diff cannot be used together');

    const [{openSession}, history, {colorEnabled}] = await Promise.all([
      import('../../session.js'),
      import('../../services/history.js'),
      import('../../output/color.js'),
    ]);
    const session = await openSession(flags);
    const ref = session.daemonSet(args.name, flags.namespace, this.helpCommand());
    const {report, revisions} = await history.historyService(session, {ref}).finally(() => session.close());
    const color = colorEnabled(process.stdout.isTTY, process.env);
    const output = flags.output;
    const structured = async <T extends {kind: string}>(document: T) => {
      if (!isDocumentFormat(output)) throw new Error('text is not a document format');
      return (await import('../../output/document.js')).renderDocument(document, output);
    };

    if (flags.revision !== undefined) {
      const revision = history.findRevision(revisions, flags.revision);
      const template = history.revisionTemplate(revision);
      const entry = report.revisions.find((r) => r.revision === flags.revision)!;
      if (flags.output !== 'text') {
        process.stdout.write(await structured({kind: 'DaemonSetRevision', daemonSet: report.daemonSet, ...entry, template}));
        return;
      }
      const {templateYaml} = await import('../../output/revision-diff.js');
      if (session.label !== undefined) process.stdout.write((await import('../../output/format.js')).clusterHeader(session.label));
      process.stdout.write(
        `daemonset.apps/${ref.name} with revision #${entry.revision} (${entry.hash}${entry.current ? ', current' : ''})\n${templateYaml(template, true)}`,
      );
      return;
    }

    if (flags.diff !== undefined) {
      const [a, b] = flags.diff as [Revision, Revision];
      const from = history.findRevision(revisions, a);
      const to = history.findRevision(revisions, b);
      const {renderTemplateDiff} = await import('../../output/revision-diff.js');
      const side = (revision: typeof from) => ({
        label: `revision ${revision.revision} (${history.revisionHash(revision)})`,
        template: history.revisionTemplate(revision),
      });
      const diffText = (useColor: boolean) => renderTemplateDiff(side(from), side(to), {color: useColor});
      if (flags.output !== 'text') {
        process.stdout.write(await structured({kind: 'DaemonSetRevisionDiff', daemonSet: report.daemonSet, from: a, to: b, diff: diffText(false)}));
        return;
      }
      process.stdout.write(diffText(color) || `revisions ${a} and ${b} have the same template\n`);
      return;
    }

    if (flags.output !== 'text') {
      process.stdout.write(await structured(report));
      return;
    }
    const {renderHistoryText} = await import('../../output/history-text.js');
    if (session.label !== undefined) process.stdout.write((await import('../../output/format.js')).clusterHeader(session.label));
    process.stdout.write(renderHistoryText(report, {color}));
  }
}
