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

// Marks this program's own escape sequences once output is filtered (markOwnStyles): a random word in private-use
// characters that no input can know, so that the filter keeps exactly these and shows every other one escaped.
let ownStyleMark = '';

/** From now on, every style the palette writes carries a mark that escapeControlCharacters keeps and removes. */
export function markOwnStyles(): string {
  if (ownStyleMark === '') ownStyleMark = `\uE000${globalThis.crypto.randomUUID().replaceAll('-', '')}\uE001`;
  return ownStyleMark;
}

function style(open: number, close: number): (text: string) => string {
  return (text) => (text === '' ? text : `${ownStyleMark}\u001B[${open}m${text}${ownStyleMark}\u001B[${close}m`);
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

const ANSI = /(?:\uE000[0-9a-f]*\uE001)?\u001B\[[0-9;]*m/g;

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
 * or the cluster is written as an escape (`\x1b`), so that no name, annotation or message can clear, rewrite,
 * hide, colour or reorder the screen. Newlines and tabs are kept, and this program's own colours: those that carry
 * `ownStyleMark` (markOwnStyles), which is removed.
 */
export function escapeControlCharacters(text: string, ownStyleMark?: string): string {
  if (!UNSAFE.test(text)) return text;
  const own = (offset: number) =>
    ownStyleMark !== undefined && text.startsWith(ownStyleMark, offset - ownStyleMark.length) && OWN_STYLE.test(text.slice(offset, offset + 5));
  const escaped = text.replace(UNSAFE_ALL, (ch, offset: number) => (ch === '\u001B' && own(offset) ? ch : escapeCharacter(ch)));
  return ownStyleMark === undefined ? escaped : escaped.replaceAll(ownStyleMark, '');
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
