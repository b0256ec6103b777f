// `kubectl ds-rollout options`: the connection flags every command takes, as `kubectl options` lists kubectl's
// global flags. Each command's --help leaves them out and points here.
import {BaseCommand} from '../../cli/base-command.js';
import {liveClusterFlags, snapshotFlag} from '../../cli/flags.js';

export default class Options extends BaseCommand {
  static override summary = 'List the connection flags every command takes.';

  static override description = `kubectl passes none of its global flags to a plugin, so ds-plan and every ds-rollout command define them again, with kubectl's names and meanings. They choose the cluster, the credentials and the namespace; commands that read the cluster also take --snapshot.`;

  static override examples = [
    {description: 'The connection flags:', command: 'kubectl ds-rollout options'},
    {description: 'Use one with any command:', command: 'kubectl ds-rollout status fluentd -n kube-system --context prod'},
  ];

  async run(): Promise<void> {
    await this.parse(Options);
    const {renderFlags} = await import('../../cli/help.js');
    const flags = Object.entries({...liveClusterFlags, snapshot: snapshotFlag});
    process.stdout.write(`The following flags can be passed to any command that contacts a cluster:\n\n${renderFlags(flags)}\n`);
  }
}
