// `kubectl ds-rollout history NAME`: parse flags, call the history service, render. Heavy modules load inside run().
import {BaseCommand} from '../../cli/base-command.js';
import {clusterFlags, fleetFlags, isDocumentFormat, isFleet, nowFlag, optionalDaemonSetArg, outputFlag, revisionFlag} from '../../cli/flags.js';
import type {Revision} from '../../core/index.js';

export default class History extends BaseCommand {
  static override summary = "List a DaemonSet's revisions, show one, or diff two.";

  static override description = `Lists the revisions \`kubectl rollout history\` lists, with hash, age, change-cause, images, how many pods run each and which is current. --revision N prints one revision's pod template; --diff A B the template diff from A to B, images first. An undo renumbers the restored revision to the highest number. Exit 0 on success, 1 for bad input or an unknown revision, 2 when the cluster cannot be reached.`;

  static override examples = [
    {description: 'The revisions, with images and pod counts', command: 'kubectl ds-rollout history fluentd -n kube-system'},
    {description: 'What revision 2 runs', command: 'kubectl ds-rollout history fluentd -n kube-system --revision 2'},
    {description: 'What changed from revision 1 to revision 2', command: 'kubectl ds-rollout history fluentd -n kube-system --diff 1 2'},
    {description: 'Which revision every cluster of the kubeconfig runs', command: 'kubectl ds-rollout history fluentd -n kube-system --all-contexts'},
  ];

  static override args = {
    name: {...optionalDaemonSetArg, description: 'NAME or ds/NAME (optional with a --snapshot holding one DaemonSet).'},
  };

  static override flags = {
    ...clusterFlags,
    ...fleetFlags,
    revision: revisionFlag('revision', {summary: "Print this revision's pod template.", min: 1})(),
    diff: revisionFlag('diff', {summary: 'The template diff from revision A to B.', helpValue: 'A B', min: 1})({multiple: true, delimiter: ','}),
    now: nowFlag,
    output: outputFlag,
  };

  async run(): Promise<void> {
    const {args, flags} = await this.parse(History);
    if (isFleet(flags)) return (await import('../../cli/fleet-command.js')).historyFleet(args.name, flags, this.helpCommand());
    const {UsageError} = await import('../../platform/errors.js');
    if (flags.diff !== undefined && flags.diff.length !== 2) throw new UsageError('--diff takes two revisions: --diff A B');
    if (flags.diff !== undefined && flags.revision !== undefined) throw new UsageError('--revision and --diff cannot be used together');

    const [{openSession}, history, {colorEnabled}] = await Promise.all([
      import('../../cluster/session.js'),
      import('../../services/history.js'),
      import('../../output/color.js'),
    ]);
    const session = await openSession(flags);
    const ref = session.daemonSet(args.name, flags.namespace, this.helpCommand());
    const result = await history.historyService(session, {ref}).finally(() => session.close());
    const {report} = result;
    const output = flags.output;
    const print = async <T extends {kind: string}>(document: T, text: () => Promise<string>, header = true) => {
      if (isDocumentFormat(output)) return void process.stdout.write(await (await import('../../output/document.js')).renderDocument(document, output));
      if (header && session.label !== undefined) process.stdout.write((await import('../../output/format.js')).clusterHeader(session.label));
      process.stdout.write(await text());
    };
    const color = colorEnabled(process.stdout.isTTY, process.env);
    const diffs = () => import('../../output/revision-diff.js');

    if (flags.revision !== undefined) {
      const {entry, template} = history.revisionOf(result, flags.revision);
      const head = `daemonset.apps/${ref.name} with revision #${entry.revision} (${entry.hash}${entry.current ? ', current' : ''})`;
      return print(
        {kind: 'DaemonSetRevision', daemonSet: report.daemonSet, ...entry, template},
        async () => `${head}\n${(await diffs()).templateYaml(template, true)}`,
      );
    }
    if (flags.diff !== undefined) {
      const [a, b] = flags.diff as [Revision, Revision];
      const {from, to} = history.diffSidesOf(result, a, b);
      const {renderTemplateDiff} = await diffs();
      const document = {kind: 'DaemonSetRevisionDiff', daemonSet: report.daemonSet, from: a, to: b, diff: renderTemplateDiff(from, to, {color: false})};
      // The diff names its revisions itself: no cluster header above it.
      const text = async () => renderTemplateDiff(from, to, {color}) || `revisions ${a} and ${b} have the same template\n`;
      return print(document, text, false);
    }
    return print(report, async () => (await import('../../output/history-text.js')).renderHistoryText(report, {color}));
  }
}
