// `kubectl ds-rollout version`: this plugin's version, and the API server's when one answers quickly.
import * as Flags from '@oclif/core/flags';
import {BaseCommand} from '../../cli/base-command.js';
import {contextFlag, kubeconfigFlag, requestTimeoutFlagDefaulting} from '../../cli/flags.js';

export default class Version extends BaseCommand {
  static override summary = "Print the plugin's version, and the cluster's.";

  static override description = `Like \`kubectl version\`: this plugin and the Node.js it runs on, and unless --client the API server's (GET /version, 5s --request-timeout). An unreachable cluster, or no kubeconfig, is one warning on stderr and exit 0.`;

  static override examples = [
    {description: 'Both versions', command: 'kubectl ds-rollout version'},
    {description: 'Only the plugin, contacting no cluster', command: 'kubectl ds-rollout version --client'},
    {description: 'For scripts', command: 'kubectl ds-rollout version -o json'},
  ];

  static override flags = {
    client: Flags.boolean({summary: 'Print the plugin version only; contact no cluster.'}),
    output: Flags.option({char: 'o', options: ['text', 'json', 'yaml'] as const, default: 'text' as const, summary: 'Output format.'})(),
    context: contextFlag,
    kubeconfig: kubeconfigFlag,
    'request-timeout': requestTimeoutFlagDefaulting(5),
  };

  async run(): Promise<void> {
    const {flags} = await this.parse(Version);
    const {pluginVersion, serverVersion, renderVersionText, versionDocument} = await import('../../services/version.js');
    const client = pluginVersion(this.config.version);
    let server;
    if (!flags.client) {
      const found = await serverVersion(flags);
      if ('warning' in found) process.stderr.write(`warning: ${found.warning}\n`);
      else server = found;
    }
    if (flags.output === 'text') process.stdout.write(renderVersionText(client, server));
    else if (flags.output === 'json') process.stdout.write(`${JSON.stringify(versionDocument(client, server), null, 2)}\n`);
    else process.stdout.write((await import('js-yaml')).dump(versionDocument(client, server), {noRefs: true, lineWidth: -1}));
  }
}
