import {CommandHelp, Help} from '@oclif/core';

// oclif prints usage as `$ ds plan ...` and lists commands as `rollout step`; when run as a kubectl plugin
// the user typed `kubectl ds-plan ...` or `kubectl ds-rollout step ...`. Both rewrites apply only then.
const invokedByKubectl = (): boolean => Boolean(process.env.KUBECTL_DS_INVOKED_AS);

class KubectlCommandHelp extends CommandHelp {
  protected override usage(): string {
    const usage = super.usage();
    if (!invokedByKubectl()) return usage;
    return usage.replace(/\$ ds (\S+)/g, (_match, first: string) => `$ kubectl ds-${first}`);
  }
}

export default class KubectlHelp extends Help {
  protected override CommandHelpClass = KubectlCommandHelp;

  protected override log(...args: string[]): void {
    if (!invokedByKubectl()) return super.log(...args);
    // Topic listings: `$ ds rollout COMMAND` and `  rollout step   Replace ...` (padding kept, so columns stay aligned).
    super.log(
      ...args.map((text) =>
        text
          .replace(/\$ ds rollout\b/g, '$ kubectl ds-rollout')
          .replace(/^( {2})rollout (\S+)/gm, (_m, indent: string, name: string) => `${indent}${name}${' '.repeat(8)}`),
      ),
    );
  }
}
