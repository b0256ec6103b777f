// How each colour token of the view model looks. NO_COLOR (https://no-color.org) drops every colour; bold,
// dim and inverse stay, and the glyphs and words on screen carry the meaning on their own.
import type {ColorToken} from './theme-tokens.js';

export interface TokenStyle {
  readonly color?: string;
  readonly bold?: boolean;
  readonly dimColor?: boolean;
  readonly inverse?: boolean;
}

export type Theme = Readonly<Record<ColorToken, TokenStyle>>;

const COLORS: Theme = {
  updated: {color: 'green'},
  updating: {color: 'cyan'},
  surging: {color: 'magenta'},
  old: {color: 'yellow'},
  missing: {color: 'red'},
  blocked: {color: 'red', bold: true},
  misscheduled: {color: 'magenta', bold: true},
  terminating: {color: 'gray'},
  'not-eligible': {color: 'gray', dimColor: true},
  text: {},
  muted: {color: 'gray'},
  title: {bold: true},
  accent: {color: 'cyan'},
  ok: {color: 'green'},
  warn: {color: 'yellow'},
  error: {color: 'red'},
  key: {color: 'cyan', bold: true},
  selected: {inverse: true},
  'diff-add': {color: 'green'},
  'diff-remove': {color: 'red'},
  'diff-hunk': {color: 'cyan'},
  'gauge-used': {color: 'green'},
  'gauge-full': {color: 'red', bold: true},
  'gauge-free': {color: 'gray'},
};

function withoutColor(theme: Theme): Theme {
  const out: Record<string, TokenStyle> = {};
  for (const [token, style] of Object.entries(theme)) {
    const {color: _color, ...rest} = style;
    out[token] = token === 'muted' || token === 'gauge-free' || token === 'not-eligible' ? {...rest, dimColor: true} : rest;
  }
  return out as Theme;
}

export function noColorRequested(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.NO_COLOR !== undefined && env.NO_COLOR !== '';
}

export function themeFor(env: Readonly<Record<string, string | undefined>>): Theme {
  return noColorRequested(env) ? withoutColor(COLORS) : COLORS;
}

export const DEFAULT_THEME: Theme = COLORS;
