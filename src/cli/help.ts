// Help in kubectl's shape: a short description, Examples, the command's own flags, Usage, then a pointer to
// `kubectl ds-rollout options` for the connection flags (kubectl's global flags, which every command takes). The
// reference lives in docs/commands/ (the root help gives its address); help stays within a screen (40 lines, 80 columns; test/cli/help-shape.test.ts).
import type {Command} from '@oclif/core/command';
import {Help} from '@oclif/core/help';
import type * as Interfaces from '@oclif/core/interfaces';
import {CONNECTION_GROUP} from './flags.js';

/** The width every help text is wrapped to, whatever the terminal (help is read in CI logs and docs too). */
export const HELP_WIDTH = 80;

// oclif's ids are `plan`, `rollout:step`; run as a kubectl plugin the user typed `kubectl ds-plan`, `kubectl
// ds-rollout step`. Through bin/run.js (oclif's development entry) they read `ds plan`, `ds rollout step`.
const invokedByKubectl = (): boolean => Boolean(process.env.KUBECTL_DS_INVOKED_AS);

/** What the user types for a command or topic id. */
export function spelled(id: string): string {
  const [plugin, ...rest] = id.split(':');
  return invokedByKubectl() ? ['kubectl', `ds-${plugin}`, ...rest].join(' ') : ['ds', plugin, ...rest].join(' ');
}

const OPTIONS_LINE = 'Use "kubectl ds-rollout options" for the connection flags.';

/** Words of `text` in lines of at most `width` columns, each starting with `indent` (a longer word stands alone). */
export function wrap(text: string, width: number, indent = '', firstIndent = indent): string {
  const lines: string[] = [];
  let line = firstIndent;
  let empty = true;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent;
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    empty = false;
  }
  lines.push(line);
  return lines.join('\n');
}

/** The part of a flag definition help reads (oclif's flag, cached or not). */
export interface FlagForHelp {
  readonly char?: string;
  readonly summary?: string;
  readonly description?: string;
  readonly helpValue?: string | string[];
  readonly helpGroup?: string;
  readonly hidden?: boolean;
  readonly type?: string;
  readonly options?: readonly string[];
  readonly default?: unknown;
  readonly multiple?: boolean;
}

function flagLabel(name: string, flag: FlagForHelp): string {
  const long = `--${name}`;
  let label = flag.char ? `-${flag.char}, ${long}` : `    ${long}`;
  if (flag.type === 'option') {
    const value = Array.isArray(flag.helpValue) ? flag.helpValue.join(' ') : (flag.helpValue ?? flag.options?.join('|') ?? 'VALUE');
    label += `=${value}`;
  }
  return label;
}

function flagText(flag: FlagForHelp): string {
  const text = (flag.summary ?? flag.description ?? '').split('\n')[0]!;
  const value = flag.default;
  const shown = typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  // Defaults the summary does not already state; "none" and "text" say nothing a reader needs.
  if (shown === undefined || shown === '' || /default/i.test(text) || shown === 'text' || shown === 'none') return text;
  return text.endsWith('.') ? `${text.slice(0, -1)} (default ${shown}).` : `${text} (default ${shown})`;
}

/** Flags as two columns: `  -o, --output=FORMAT  Output format...`, the text wrapped under itself. */
export function renderFlags(flags: ReadonlyArray<readonly [string, FlagForHelp]>, width = HELP_WIDTH): string {
  const labels = flags.map(([name, flag]) => `  ${flagLabel(name, flag)}`);
  // The text column: after the longest label, but never so far right that the text gets cramped (a longer label
  // has its text on the next line).
  const column = Math.min(Math.max(...labels.map((label) => label.length)) + 2, 36);
  return flags
    .map(([, flag], index) => {
      const label = labels[index]!;
      const indent = ' '.repeat(column);
      const text = flagText(flag);
      if (label.length + 2 > column) return `${label}\n${wrap(text, width, indent)}`;
      return wrap(text, width, indent, label.padEnd(column));
    })
    .join('\n');
}

/** Examples as kubectl prints them: `  # what it does`, then the command lines (each one runs as written). */
function renderExamples(examples: Command.Example[] | undefined, width: number): string | undefined {
  if (!examples || examples.length === 0) return undefined;
  return examples
    .map((example) => {
      const {description, command} = typeof example === 'string' ? {description: undefined, command: example} : example;
      const lines = command.split('\n').map((line) => `  ${line}`);
      return description ? [wrap(description.replace(/:$/, ''), width, '  # ', '  # '), ...lines].join('\n') : lines.join('\n');
    })
    .join('\n\n');
}

type CachedCommand = Command.Loadable | Command.Cached;

function ownFlags(command: CachedCommand): Array<[string, FlagForHelp]> {
  return Object.entries((command.flags ?? {}) as Record<string, FlagForHelp>).filter(([, flag]) => !flag.hidden && flag.helpGroup !== CONNECTION_GROUP);
}

function takesConnectionFlags(command: CachedCommand): boolean {
  return Object.values((command.flags ?? {}) as Record<string, FlagForHelp>).some((flag) => flag.helpGroup === CONNECTION_GROUP);
}

function usageLine(command: CachedCommand): string {
  const args = Object.values((command.args ?? {}) as Record<string, {name?: string; required?: boolean; hidden?: boolean}>)
    .filter((arg) => !arg.hidden)
    .map((arg, index) => {
      const name = (arg.name ?? Object.keys(command.args ?? {})[index] ?? 'ARG').toUpperCase();
      return arg.required ? name : `[${name}]`;
    });
  const flags = ownFlags(command).length > 0 ? ['[flags]'] : [];
  return [spelled(command.id), ...args, ...flags].join(' ');
}

/** One command's help. */
export function renderCommandHelp(command: CachedCommand, width = HELP_WIDTH): string {
  const sections: string[] = [];
  // One paragraph: the summary, then the description (the reference is in docs/commands/, at the root help's address).
  sections.push(wrap([command.summary, command.description].filter(Boolean).join(' '), width));
  const examples = renderExamples(command.examples as Command.Example[] | undefined, width);
  if (examples) sections.push(`Examples:\n${examples}`);
  // The command's flags, then each group (gated rollout) under its own heading.
  const groups = new Map<string, Array<[string, FlagForHelp]>>();
  for (const entry of ownFlags(command)) {
    const group = entry[1].helpGroup ?? '';
    groups.set(group, [...(groups.get(group) ?? []), entry]);
  }
  for (const [group, flags] of groups) sections.push(`${group === '' ? 'Flags' : `${group} flags`}:\n${renderFlags(flags, width)}`);
  sections.push(`Usage:\n  ${usageLine(command)}`);
  if (takesConnectionFlags(command)) sections.push(OPTIONS_LINE);
  return `${sections.join('\n\n')}\n`;
}

/** A topic's help (`kubectl ds-rollout`, `kubectl ds-rollout sim`): its commands and topics, one line each. */
export function renderTopicHelp(
  topic: {name: string; description?: string},
  entries: ReadonlyArray<{name: string; summary: string}>,
  width = HELP_WIDTH,
): string {
  const column = Math.max(...entries.map((entry) => entry.name.length)) + 4;
  const list = entries.map((entry) => wrap(entry.summary, width, ' '.repeat(column + 2), `  ${entry.name.padEnd(column)}`)).join('\n');
  const sections = [
    wrap(topic.description ?? '', width),
    `Available Commands:\n${list}`,
    `Usage:\n  ${spelled(topic.name)} COMMAND [flags]`,
    `Use "${spelled(topic.name)} COMMAND --help" for more about a command.\n${OPTIONS_LINE}`,
  ];
  return `${sections.join('\n\n')}\n`;
}

export default class KubectlHelp extends Help {
  override async showCommandHelp(command: Command.Loadable): Promise<void> {
    this.log(renderCommandHelp(command).trimEnd());
  }

  override async showTopicHelp(topic: Interfaces.Topic): Promise<void> {
    this.log(renderTopicHelp(topic, this.entriesOf(topic.name)).trimEnd());
  }

  override async showRootHelp(): Promise<void> {
    const root = this.config.topics.find((topic) => !topic.name.includes(':'));
    if (root) await this.showTopicHelp(root);
  }

  /** The commands and sub-topics directly under a topic, with their one-line summaries. */
  private entriesOf(name: string): Array<{name: string; summary: string}> {
    const depth = name.split(':').length + 1;
    const under = (id: string) => id.startsWith(`${name}:`) && id.split(':').length === depth;
    const commands = this.config.commands
      .filter((command) => !command.hidden && under(command.id))
      .map((command) => ({name: command.id.split(':').at(-1)!, summary: (command.summary ?? '').split('\n')[0]!}));
    const topics = this.config.topics
      .filter((topic) => !topic.hidden && under(topic.name))
      .map((topic) => ({name: topic.name.split(':').at(-1)!, summary: (topic.description ?? '').split('\n')[0]!}));
    const unique = [...new Map([...commands, ...topics].map((entry) => [entry.name, entry])).values()];
    return unique.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
