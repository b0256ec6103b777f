// `kubectl ds-rollout completion bash|zsh|fish`: a completion script for the two binaries run directly.
import * as Args from '@oclif/core/args';
import {BaseCommand} from '../../cli/base-command.js';

export default class Completion extends BaseCommand {
  static override summary = 'Print a completion script for the plugin binaries.';

  static override description = `Through kubectl 1.26 and later no script is needed: kubectl runs the kubectl_complete-ds_plan and kubectl_complete-ds_rollout executables that come with the plugins. This script is for calling kubectl-ds_plan and kubectl-ds_rollout directly.`;

  static override examples = [
    {description: 'bash, for this shell', command: 'source <(kubectl ds-rollout completion bash)'},
    {description: 'zsh (after compinit)', command: 'source <(kubectl ds-rollout completion zsh)'},
    {description: 'fish', command: 'kubectl ds-rollout completion fish > ~/.config/fish/completions/ds.fish'},
  ];

  static override args = {
    shell: Args.string({required: true, options: ['bash', 'zsh', 'fish'], description: 'The shell: bash, zsh or fish.'}),
  };

  async run(): Promise<void> {
    const {args} = await this.parse(Completion);
    const {completionScript} = await import('../../output/completion-scripts.js');
    process.stdout.write(completionScript(args.shell as 'bash' | 'zsh' | 'fish'));
  }
}
