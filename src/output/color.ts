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
