// Prompts, the filter being typed, and the result or error of the last action.
import {SegmentLine} from './SegmentLine.js';
import type {Line} from './text.js';
import type {Theme} from './theme.js';

export interface StatusLineProps {
  readonly line: Line;
  readonly theme: Theme;
}

export function StatusLine({line, theme}: StatusLineProps) {
  return <SegmentLine line={line} theme={theme} />;
}
