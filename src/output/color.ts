// A tiny ANSI helper: every style is the identity when colour is off, so renderers never branch on it.

export interface Palette {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

function style(open: number, close: number): (text: string) => string {
  return (text) => (text === '' ? text : `\u001B[${open}m${text}\u001B[${close}m`);
}

const identity = (text: string): string => text;

export function palette(enabled: boolean): Palette {
  if (!enabled) return {enabled, bold: identity, dim: identity, red: identity, green: identity, yellow: identity, cyan: identity};
  return {enabled, bold: style(1, 22), dim: style(2, 22), red: style(31, 39), green: style(32, 39), yellow: style(33, 39), cyan: style(36, 39)};
}

/**
 * Colour only for a terminal, never when NO_COLOR is set (https://no-color.org); FORCE_COLOR turns it on
 * without a terminal (tests, `less -R`).
 */
export function colorEnabled(isTTY: boolean | undefined, env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  return isTTY === true;
}

const ANSI = /\u001B\[[0-9;]*m/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/** Width on screen, ignoring escape sequences (every character counts as one column). */
export function visibleLength(text: string): number {
  return [...stripAnsi(text)].length;
}

// Our own colours, the only escape sequences a command prints (the dashboard, which draws the screen, is exempt).
const OWN_STYLE = /^\u001B\[(?:1|2|22|31|32|33|36|39)m/;
// C0 controls but newline and tab, DEL, C1 controls, and the bidirectional overrides that reorder what is shown.
const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
const UNSAFE_ALL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

function escapeCharacter(ch: string): string {
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` safe to print on a terminal: every control character (ESC, CR, BEL, backspace, ...) that came from input
 * or the cluster is written as an escape (`\x1b`), so that no name, annotation or message can clear, rewrite or
 * reorder the screen. Newlines, tabs and this program's own colours are kept.
 */
export function escapeControlCharacters(text: string): string {
  if (!UNSAFE.test(text)) return text;
  return text.replace(UNSAFE_ALL, (ch, offset: number) => (ch === '\u001B' && OWN_STYLE.test(text.slice(offset, offset + 5)) ? ch : escapeCharacter(ch)));
}

/** The longest word (a run without spaces: a value, a path) an error line shows whole. */
export const MAX_ECHOED_WORD = 200;

/**
 * `text` with every quoted value or word longer than `max` cut: its start, an ellipsis and its length
 * (`"xxxx..." (5000 characters)`), so that a pasted file or a runaway argument cannot flood the terminal.
 */
export function cutLongWords(text: string, max = MAX_ECHOED_WORD): string {
  if (text.length <= max) return text;
  const keep = Math.floor(max / 2);
  return text.replace(new RegExp(`"([^"]{${max + 1},})"|\\S{${max + 1},}`, 'g'), (word, quoted: string | undefined) =>
    quoted === undefined ? `${word.slice(0, keep)}... (${word.length} characters)` : `"${quoted.slice(0, keep)}..." (${quoted.length} characters)`,
  );
}
