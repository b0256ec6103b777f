// The one place errors are printed. Services and adapters throw typed errors (src/platform/errors.ts); this turns any of
// them, and oclif's own parse errors, into ONE stderr line and the contract's exit code, with stdout left empty.
// Lives outside src/commands so that oclif does not take it for a command. Imports nothing but @oclif/core and the
// dependency-free colour helpers.
import {Command} from '@oclif/core/command';
import type * as Interfaces from '@oclif/core/interfaces';
import {type DaemonSetArgMark, FALSE_WORDS, isDaemonSetType, notDaemonSetTypeError, TRUE_WORDS} from './flags.js';
import {withoutUrlUserinfo} from '../platform/errors.js';
import {cutLongWords, escapeControlCharacters, markOwnStyles, stripAnsi} from '../output/color.js';
import {nearest} from './suggest.js';
import {markPhase, timingsLine} from '../platform/timings.js';

interface FailureLike {
  readonly message?: unknown;
  readonly name?: unknown;
  readonly stack?: unknown;
  readonly exitCode?: unknown;
  readonly oclif?: {readonly exit?: unknown};
  readonly args?: ReadonlyArray<{readonly name?: string}>;
}

export interface Failure {
  readonly line: string;
  readonly exitCode: number;
}

// oclif's parse errors are multi-line and title-cased; kubectl's are one lower-case line.

/** The stderr line (without `error: `) and the exit code for anything `run()` threw. Exported for tests. */
export function describeFailure(error: unknown, helpCommand: string, flagNames: readonly string[] = []): Failure {
  const {line, exitCode} = describeRawFailure(error, helpCommand, flagNames);
  // Messages quote input and the cluster's answers: nothing in them may drive the terminal, flood it, or show the
  // password of a URL they quote (a proxy-url, a server).
  return {line: cutLongWords(escapeControlCharacters(withoutUrlUserinfo(line))), exitCode};
}

function describeRawFailure(error: unknown, helpCommand: string, flagNames: readonly string[]): Failure {
  const failure = (typeof error === 'object' && error !== null ? error : {message: String(error)}) as FailureLike;
  const message = String(failure.message ?? '');
  // Our own errors have no colour: an escape sequence in one came from input and is shown, escaped.
  const raw = typeof failure.exitCode === 'number' ? message : stripAnsi(message);

  // Our own errors carry their exit code and already read as one line.
  if (typeof failure.exitCode === 'number') return {line: unwrapFlagParsing(raw), exitCode: failure.exitCode};

  if (failure.oclif !== undefined || failure.name === 'CLIError') {
    const exit = typeof failure.oclif?.exit === 'number' ? failure.oclif.exit : 1;
    return {line: `${usageLine(raw, failure, flagNames)}; see '${helpCommand} --help'`, exitCode: exit};
  }
  // Anything else is a bug in this program: say so rather than pretend it is the user's input.
  return {line: `internal error: ${oneLine(raw) || String(failure.name ?? 'unknown')} (set DEBUG=1 for details)`, exitCode: 1};
}

function unwrapFlagParsing(message: string): string {
  // oclif rewrites errors thrown by a flag's parse() as "Parsing --x \n\t<message>\nSee more help with --help".
  const parsing = /^Parsing --[\w-]+\s*\n\t([\s\S]*?)(?:\nSee more help with --help)?$/.exec(message);
  return oneLine(parsing ? parsing[1]! : message);
}

function usageLine(message: string, failure: FailureLike, flagNames: readonly string[]): string {
  const text = unwrapFlagParsing(message.replace(/\nSee more help with --help\s*$/, ''));
  if (/^Missing \d+ required args?/.test(text)) {
    // Upper case, as the usage line prints arguments (`kubectl ds-plan NAME`).
    const names = (failure.args ?? []).flatMap((arg) => (arg.name ? [arg.name.toUpperCase()] : []));
    return names.length > 0 ? `missing required argument ${names.join(', ')}` : 'missing required argument';
  }
  const unknown = /^Nonexistent flags?: (.*)$/.exec(text);
  if (unknown) {
    const typed = unknown[1]!.split(',')[0]!.trim();
    const suggestion = typed.startsWith('--') ? nearest(typed.slice(2).split('=')[0]!, flagNames) : undefined;
    return `unknown flag: ${unknown[1]}${suggestion ? ` (did you mean --${suggestion}?)` : ''}`;
  }
  const failed = /^The following errors? occurred:;\s*(.*)$/.exec(text);
  return lowerFirst(failed ? failed[1]! : text);
}

function oneLine(text: string): string {
  return text
    .split('\n')
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .join('; ');
}

function lowerFirst(text: string): string {
  return text.replace(/^[A-Z](?![A-Z])/, (first) => first.toLowerCase());
}

export abstract class BaseCommand extends Command {
  /** How the user invoked this command, for the `see '... --help'` hint. */
  protected helpCommand(): string {
    const words = (this.id ?? '').split(':');
    return process.env.KUBECTL_DS_INVOKED_AS ? `kubectl ds-${words.join(' ')}` : `${this.config.bin} ${words.join(' ')}`;
  }

  /** Whether this command draws the screen itself (the dashboard): its output is not filtered. */
  protected static drawsScreen = false;

  public override async init(): Promise<void> {
    markPhase('start-up');
    await super.init();
    if (!(this.constructor as typeof BaseCommand).drawsScreen) escapeTerminalOutput();
    // `kubectl ds-plan ... | head` closes the pipe early: that is the reader's choice, not an error.
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }

  /** kubectl's (pflag's) spellings oclif lacks, rewritten before oclif parses: see normalizeArgv. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- oclif's own FlagOutput/ArgOutput, which it does not export
  protected override async parse<F extends Record<string, any>, B extends Record<string, any>, A extends Record<string, any>>(
    options?: Interfaces.Input<F, B, A>,
    argv: string[] = this.argv,
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    const flags = (options?.flags ?? {}) as Record<string, FlagShape>;
    const takesDaemonSet = Object.values((options?.args ?? {}) as Record<string, DaemonSetArgMark>).some((arg) => arg.daemonSetName === true);
    const normalized = normalizeArgv(argv, flags);
    return super.parse(options, takesDaemonSet ? joinTypeAndName(normalized, flags) : normalized);
  }

  protected override async finally(error: Error | undefined): Promise<void> {
    if (process.env.DS_ROLLOUT_TIMINGS) process.stderr.write(`${timingsLine(error ? 'failed' : 'output')}\n`);
    return super.finally(error);
  }

  protected override async catch(error: Error): Promise<void> {
    const flags = (this.constructor as {flags?: Record<string, unknown>}).flags ?? {};
    const {line, exitCode} = describeFailure(error, this.helpCommand(), Object.keys(flags));
    process.stderr.write(`error: ${line}\n`);
    if (process.env.DEBUG && error?.stack) process.stderr.write(`${error.stack}\n`);
    // Returning (rather than rethrowing) keeps oclif's handler from printing a second, multi-line copy.
    process.exitCode = exitCode;
  }
}

let escaping = false;
/** `status -w` redrawing its table in place on a terminal, written alone: up N lines, clear below. */
const REDRAW = /^\u001B\[\d+F\u001B\[J$/;

/**
 * Every later write to stdout and stderr with its control characters escaped (escapeControlCharacters): the one
 * place that covers every renderer, whatever it quotes from input or the cluster. JSON and YAML output escape them
 * already; text output quotes names, change-causes and messages as they are.
 */
function escapeTerminalOutput(): void {
  if (escaping) return;
  escaping = true;
  const ownStyleMark = markOwnStyles();
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) =>
      write(typeof chunk === 'string' && !REDRAW.test(chunk) ? escapeControlCharacters(chunk, ownStyleMark) : chunk, ...rest)) as typeof stream.write;
  }
}

interface FlagShape {
  readonly type?: string;
  readonly char?: string;
  readonly allowNo?: boolean;
  readonly bareValue?: string;
  readonly multiple?: boolean;
}

/**
 * Rewrites pflag spellings oclif does not take: `--watch=false` and `-w=false` (a boolean with a value: `--no-watch`
 * when the flag has one, else nothing, the default), `--watch=true` (`--watch`), and a bare flag that has a bareValue (`--dry-run`: kubectl's
 * client dry run). Tokens after `--` are left alone. Exported for tests.
 */
export function normalizeArgv(argv: readonly string[], flags: Readonly<Record<string, FlagShape>>): string[] {
  const byChar = new Map(Object.entries(flags).flatMap(([name, flag]) => (flag.char ? [[flag.char, name] as const] : [])));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const bare = token.startsWith('--') ? flags[token.slice(2)]?.bareValue : undefined;
    if (bare !== undefined) {
      out.push(`${token}=${bare}`);
      continue;
    }
    const match = /^(?:--([\w-]+)|-(\w))=(.*)$/s.exec(token);
    const name = match ? (match[1] ?? byChar.get(match[2]!)) : undefined;
    const flag = name === undefined ? undefined : flags[name];
    if (match && flag?.type === 'boolean') {
      const value = match[3]!;
      if (TRUE_WORDS.has(value)) out.push(`--${name}`);
      else if (FALSE_WORDS.has(value)) {
        if (flag.allowNo) out.push(`--no-${name}`);
      } else throw new BooleanValueError(`invalid argument "${value.slice(0, 40)}" for "${token.split('=')[0]}" flag: want true or false`);
      continue;
    }
    out.push(token);
  }
  return out;
}

/**
 * kubectl's `TYPE NAME [NAME...]` (`status daemonset agent`, `ds daemonset.apps agent`) to `TYPE/NAME` words, which
 * the DaemonSet argument parses. As kubectl reads them: with a second word the first is always a TYPE (another type
 * is a one-line error); a DaemonSet TYPE alone is the whole collection, that is no NAME. A single other word is NAME.
 * Flag values (`-n ds`) are not words. Exported for tests.
 */
export function joinTypeAndName(argv: readonly string[], flags: Readonly<Record<string, FlagShape>>): string[] {
  const byChar = new Map(Object.entries(flags).flatMap(([name, flag]) => (flag.char ? [[flag.char, name] as const] : [])));
  const words: number[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') {
      for (let rest = i + 1; rest < argv.length; rest++) words.push(rest);
      break;
    }
    if (token.length > 1 && token.startsWith('-')) {
      const long = token.startsWith('--') ? token.slice(2).split('=')[0]! : undefined;
      const name = long ?? byChar.get(token[1]!);
      // `--no-watch` is the negation oclif defines for a boolean with allowNo (normalizeArgv writes `--watch=false` so).
      const negated = name?.startsWith('no-') && flags[name.slice(3)]?.allowNo ? flags[name.slice(3)] : undefined;
      const flag = name === undefined ? undefined : (flags[name] ?? negated);
      // An unknown flag: which words are its values is unknown, so leave the words to oclif, which names the flag.
      if (flag === undefined) return [...argv];
      // The next token is this flag's value when the flag takes one and was not written `--flag=value` or `-nVALUE`;
      // a flag taking several values (oclif's `multiple`) takes every word up to the next flag.
      const inline = token.includes('=') || (long === undefined && token.length > 2);
      if (flag.type === 'boolean' || flag.bareValue !== undefined || inline) continue;
      i++;
      while (flag.multiple && i + 1 < argv.length && !argv[i + 1]!.startsWith('-')) i++;
      continue;
    }
    words.push(i);
  }
  const [first, ...names] = words;
  if (first === undefined || argv[first]!.includes('/')) return [...argv];
  const type = argv[first]!;
  if (names.length === 0) return isDaemonSetType(type) ? argv.filter((_token, index) => index !== first) : [...argv];
  if (!isDaemonSetType(type)) throw notDaemonSetTypeError(type);
  return argv.flatMap((token, index) => (index === first ? [] : names.includes(index) ? [`${type}/${token}`] : [token]));
}

class BooleanValueError extends Error {
  readonly exitCode = 1;
}
