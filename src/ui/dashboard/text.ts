// Fitting text into terminal columns. Every character of the dashboard's own text is one column wide (the glyphs
// are chosen so), so lengths are code point counts.
import type {ColorToken} from './theme-tokens.js';

export interface Segment {
  readonly text: string;
  readonly token: ColorToken;
}

export type Line = readonly Segment[];

export function seg(text: string, token: ColorToken = 'text'): Segment {
  return {text, token};
}

export function width(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Cuts to `max` columns, ending in `…` when something was cut. */
export function truncate(text: string, max: number): string {
  if (max <= 0) return '';
  if (width(text) <= max) return text;
  return `${[...text].slice(0, max - 1).join('')}…`;
}

/** Truncates or pads with spaces to exactly `size` columns. */
export function fit(text: string, size: number): string {
  const cut = truncate(text, size);
  return cut + ' '.repeat(Math.max(0, size - width(cut)));
}

export function lineWidth(line: Line): number {
  return line.reduce((sum, s) => sum + width(s.text), 0);
}

/** Cuts a line of segments to `max` columns (the last kept segment ends in `…`). Empty segments are dropped. */
export function fitLine(line: Line, max: number): Line {
  const out: Segment[] = [];
  let used = 0;
  for (const s of line) {
    if (s.text === '') continue;
    const w = width(s.text);
    if (used + w <= max) {
      out.push(s);
      used += w;
      continue;
    }
    const room = max - used;
    if (room > 0) out.push({text: truncate(s.text, room), token: s.token});
    break;
  }
  return out;
}

/** Joins segments that share a token, so the screen has as few Text nodes as possible. */
export function mergeSegments(line: Line): Line {
  const out: Segment[] = [];
  for (const s of line) {
    const last = out[out.length - 1];
    if (last && last.token === s.token) out[out.length - 1] = {text: last.text + s.text, token: s.token};
    else if (s.text !== '') out.push(s);
  }
  return out;
}

/** The plain text of a line (tests, and the text fallback). */
export function lineText(line: Line): string {
  return line.map((s) => s.text).join('');
}

/**
 * Wraps a line of segments at spaces into lines of at most `max` columns; continuation lines start with `indent`
 * spaces. A word longer than a line is cut. Used where the whole text matters (why a node blocks).
 */
export function wrapLine(line: Line, max: number, indent = 2): Line[] {
  if (lineWidth(line) <= max) return [line];
  const out: Segment[][] = [[]];
  let used = 0;
  for (const s of line) {
    for (const word of s.text.split(/(?<= )/)) {
      if (word === '') continue;
      if (used > indent && used + width(word.trimEnd()) > max) {
        out.push([{text: ' '.repeat(indent), token: 'text'}]);
        used = indent;
      }
      out[out.length - 1]!.push({text: word, token: s.token});
      used += width(word);
    }
  }
  return out.map((l) => fitLine(trimEndLine(mergeSegments(l)), max));
}

function trimEndLine(line: Line): Line {
  const last = line[line.length - 1];
  if (!last) return line;
  const text = last.text.trimEnd();
  return text === '' ? line.slice(0, -1) : [...line.slice(0, -1), {text, token: last.token}];
}
