import {CommandHelp, Help} from '@oclif/core/help';

// oclif prints usage as `$ ds plan ...` and lists commands as `rollout step`; when run as a kubectl plugin
// the user typed `kubectl ds-plan ...` or `kubectl ds-rollout step ...`. Both rewrites apply only then.
const invokedByKubectl = (): boolean => Boolean(process.env.KUBECTL_DS_INVOKED_AS);

/**
 * oclif renders every help text as an EJS template; these texts hold none, so they are printed as written (and
 * the template engine is never compiled: it was a fifth of `--help`'s time).
 */
function plainTextRender(formatter: {render: (text: string) => string}): void {
  const render = formatter.render;
  formatter.render = (text) => (text.includes('<%') ? render(text) : text);
}

class KubectlCommandHelp extends CommandHelp {
  constructor(...args: ConstructorParameters<typeof CommandHelp>) {
    super(...args);
    plainTextRender(this);
  }

  protected override usage(): string {
    const usage = super.usage();
    if (!invokedByKubectl()) return usage;
    return usage.replace(/\$ ds (\S+)/g, (_match, first: string) => `$ kubectl ds-${first}`);
  }
}

export default class KubectlHelp extends Help {
  protected override CommandHelpClass = KubectlCommandHelp;

  constructor(...args: ConstructorParameters<typeof Help>) {
    super(...args);
    plainTextRender(this);
  }

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
