// The colour vocabulary of the view model. The view model says what a piece of text IS; theme.ts says how
// that looks (and that it looks plain under NO_COLOR).
import type {NodeToken} from './node-tokens.js';

export type ColorToken =
  | NodeToken
  | 'text'
  | 'muted'
  | 'title'
  | 'accent'
  | 'ok'
  | 'warn'
  | 'error'
  | 'key'
  | 'selected'
  | 'diff-add'
  | 'diff-remove'
  | 'diff-hunk'
  | 'gauge-used'
  | 'gauge-full'
  | 'gauge-free';
