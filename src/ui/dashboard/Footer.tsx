// The keys (mutating ones greyed out with --readonly).
import {SegmentLine} from './SegmentLine.js';
import type {Line} from './text.js';
import type {Theme} from './theme.js';

export interface FooterProps {
  readonly line: Line;
  readonly theme: Theme;
}

export function Footer({line, theme}: FooterProps) {
  return <SegmentLine line={line} theme={theme} />;
}
