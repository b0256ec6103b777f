// The bundled entry of both plugins (build/bundle.mjs): every command class is imported here, so oclif finds
// them in memory instead of importing files. That is what lets one bundle file (and the single executable,
// which can `require` nothing but Node's built-ins) hold the CLI. Mirrors oclif's own `run` (main.ts): version
// and help flags first, a topic alone shows its help, anything else runs the command.
import type {Command} from '@oclif/core/command';
import {Config, Plugin} from '@oclif/core/config';
import {flush} from '@oclif/core/flush';
import {handle} from '@oclif/core/handle';
import type * as Interfaces from '@oclif/core/interfaces';
import {format} from 'node:util';
import Plan from './commands/plan.js';
import Abort from './commands/rollout/abort.js';
import Completion from './commands/rollout/completion.js';
import Dashboard from './commands/rollout/dashboard.js';
import FleetAbort from './commands/rollout/fleet/abort.js';
import FleetPromote from './commands/rollout/fleet/promote.js';
import FleetRollout from './commands/rollout/fleet/rollout.js';
import FleetStatus from './commands/rollout/fleet/status.js';
import History from './commands/rollout/history.js';
import Options from './commands/rollout/options.js';
import Pause from './commands/rollout/pause.js';
import Promote from './commands/rollout/promote.js';
import Resume from './commands/rollout/resume.js';
import SimKubelets from './commands/rollout/sim/kubelets.js';
import SimStart from './commands/rollout/sim/start.js';
import SimStop from './commands/rollout/sim/stop.js';
import Status from './commands/rollout/status.js';
import Step from './commands/rollout/step.js';
import Undo from './commands/rollout/undo.js';
import Version from './commands/rollout/version.js';
import {DsRolloutError, UsageError} from './platform/errors.js';
import {truncate} from './cli/flags.js';
import KubectlHelp from './cli/help.js';
import {nearest} from './cli/suggest.js';

/** Command ids as oclif names them (topic:command); the same set oclif.manifest.json lists. */
export const COMMANDS: Readonly<Record<string, Command.Class>> = {
  plan: Plan,
  'rollout:abort': Abort,
  'rollout:completion': Completion,
  'rollout:dashboard': Dashboard,
  'rollout:fleet:abort': FleetAbort,
  'rollout:fleet:promote': FleetPromote,
  'rollout:fleet:rollout': FleetRollout,
  'rollout:fleet:status': FleetStatus,
  'rollout:history': History,
  'rollout:options': Options,
  'rollout:pause': Pause,
  'rollout:promote': Promote,
  'rollout:resume': Resume,
  'rollout:sim:kubelets': SimKubelets,
  'rollout:sim:start': SimStart,
  'rollout:sim:stop': SimStop,
  'rollout:status': Status,
  'rollout:step': Step,
  'rollout:undo': Undo,
  'rollout:version': Version,
};

export type PluginName = 'plan' | 'rollout';

export interface PackageInfo {
  /** Where the package (or the executable) lives: oclif's root. */
  readonly root: string;
  /** package.json's name, version, type and oclif sections, built into the bundle. */
  readonly pjson: Interfaces.PJSON;
}

async function loadConfig(info: PackageInfo): Promise<Config> {
  // The commands are in memory: tell oclif so (explicit strategy, cache filled) rather than let it read
  // oclif.manifest.json and import ./dist/commands.
  const pjson = {...info.pjson, oclif: {...info.pjson.oclif, commands: {strategy: 'explicit', target: './dist/cli.mjs', identifier: 'COMMANDS'}}};
  const plugin = new Plugin({root: info.root, isRoot: true, pjson: pjson as Interfaces.PJSON, ignoreManifest: true});
  (plugin as unknown as {commandCache: Record<string, Command.Class>}).commandCache = {...COMMANDS};
  await plugin.load();
  // No plugins of plugins: nothing installed by users (`ds plugins install`) or for development is looked for.
  return Config.load({root: info.root, pjson: pjson as Interfaces.PJSON, plugins: new Map([[plugin.name, plugin]]), userPlugins: false, devPlugins: false});
}

const HELP_FLAGS = new Set(['--help', '-h']);

/** The help class, its lines kept instead of printed (oclif's `log` prints each with console.log, formatted). */
class CapturedHelp extends KubectlHelp {
  text = '';

  protected override log(...args: string[]): void {
    this.text += `${format(...args)}\n`;
  }
}

/**
 * What `WORDS --help` prints, for every command and topic, keyed by plugin and WORDS (`''`, `step`, `sim start`):
 * the help class's own output for the same arguments runPlugin gives it. build/bundle.mjs writes these into the
 * bundle's entry, which prints them without loading oclif (test/cli/help.test.ts compares both ways).
 */
export async function renderHelpTexts(info: PackageInfo): Promise<Record<PluginName, Record<string, string>>> {
  process.env.KUBECTL_DS_INVOKED_AS ??= 'kubectl';
  const config = await loadConfig(info);
  const texts: Record<PluginName, Record<string, string>> = {plan: {}, rollout: {}};
  for (const id of [...config.commandIDs, ...config.topics.map((topic) => topic.name)]) {
    const [plugin, ...words] = id.split(':') as [PluginName, ...string[]];
    const help = new CapturedHelp(config);
    await help.showHelp([plugin, ...words]);
    texts[plugin][words.join(' ')] = help.text;
  }
  return texts;
}

/** `kubectl ds-plan ARGS` (plugin "plan") or `kubectl ds-rollout ARGS` (plugin "rollout"). */
export async function runPlugin(plugin: PluginName, args: readonly string[], info: PackageInfo): Promise<void> {
  process.env.KUBECTL_DS_INVOKED_AS ??= 'kubectl';
  try {
    if (args[0] === '__complete') {
      const {complete} = await import('./cli/completion/complete.js');
      await complete(plugin, args.slice(1), COMMANDS);
      return;
    }
    // kubectl's `help [COMMAND]`: the same as `[COMMAND] --help`.
    const argv = args[0] === 'help' ? [plugin, ...args.slice(1), '--help'] : [plugin, ...args];
    const config = await loadConfig(info);
    if (args[0] === '--version') {
      await config.runCommand('rollout:version', ['--client']);
      return;
    }
    const [id, ...rest] = idAndArgs(config, argv);
    if (config.findCommand(id) === undefined) {
      // The deepest topic the words name (`rollout sim`), then the word that is none of its commands.
      let topicWords = 1;
      while (topicWords < argv.length && config.findTopic(argv.slice(0, topicWords + 1).join(':')) !== undefined) topicWords++;
      const typed = argv[topicWords];
      if (typed !== undefined && !typed.startsWith('-')) throw unknownCommand(config, argv.slice(0, topicWords).join(':'), typed);
    }
    const beforeDashes = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length);
    if (beforeDashes.some((arg) => HELP_FLAGS.has(arg)) || (config.findCommand(id) === undefined && config.findTopic(id) !== undefined)) {
      await new KubectlHelp(config).showHelp(argv.filter((arg) => !HELP_FLAGS.has(arg)));
      return;
    }
    await config.runCommand(id, rest);
  } catch (error) {
    // Commands print their own failures (BaseCommand.catch); this is for what fails before one runs.
    if (error instanceof DsRolloutError) {
      process.stderr.write(`error: ${error.message}\n`);
      process.exitCode = error.exitCode;
    } else await handle(error as Error);
  } finally {
    flush();
    endOnceWritten();
  }
}

/**
 * The command is done: if something still holds the process open (a connection to a frozen proxy that a timed-out
 * request gave up on, which no agent closes), end it once stdout and stderr are written out. Unref'd: a process
 * that ends by itself ends as soon as it would have.
 */
function endOnceWritten(): void {
  const check = setInterval(() => {
    if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit();
  }, 100);
  check.unref();
}

/**
 * cobra's unknown command, on one line: the word that names no command of the topic (`rollout`, `rollout:sim`),
 * and the nearest of its commands when one is close. The one place this is said: oclif's command_not_found hook
 * is not used, as the bundle (and the single executable) loads no files oclif would find hooks in.
 */
function unknownCommand(config: Config, topic: string, typed: string): UsageError {
  const parent = `kubectl ds-${topic.split(':').join(' ')}`;
  const words = config.commandIDs
    .concat(config.topics.map((t) => t.name))
    .filter((id) => id.startsWith(`${topic}:`))
    .map((id) => id.slice(topic.length + 1))
    .filter((word) => !word.includes(':'));
  const suggestion = nearest(typed, [...new Set(words)]);
  const help = `'${parent} --help'`;
  const shown = truncate(typed, 40);
  return new UsageError(
    suggestion
      ? `unknown command "${shown}" for "${parent}". Did you mean ${suggestion}? (see ${help})`
      : `unknown command "${shown}" for "${parent}"; see ${help}`,
  );
}

/** The longest known command id that the leading words spell (`rollout sim start` is rollout:sim:start). */
function idAndArgs(config: Config, argv: readonly string[]): [string, ...string[]] {
  for (let words = argv.length; words > 1; words--) {
    const id = argv.slice(0, words).join(':');
    if (config.findCommand(id) !== undefined) return [id, ...argv.slice(words)];
  }
  return [argv[0]!, ...argv.slice(1)];
}
