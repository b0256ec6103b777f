import {CommandHelp, Help} from '@oclif/core';

// oclif prints usage as `$ ds plan ...`; when run as a kubectl plugin the user typed `kubectl ds-plan ...`.
class KubectlCommandHelp extends CommandHelp {
  protected override usage(): string {
    const usage = super.usage();
    if (!process.env.KUBECTL_DS_INVOKED_AS) return usage;
    return usage.replace(/\$ ds (\S+)/g, (_match, first: string) => `$ kubectl ds-${first}`);
  }
}

export default class KubectlHelp extends Help {
  protected override CommandHelpClass = KubectlCommandHelp;
}
