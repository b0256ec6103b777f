// Every key, every node state with its glyph, and how filters and the ETA work.
import {Box} from 'ink';
import {Lines, SegmentLine} from './SegmentLine.js';
import type {Theme} from './theme.js';
import type {TextPaneVm} from './view-model.js';

export interface HelpOverlayProps {
  readonly pane: TextPaneVm;
  readonly theme: Theme;
}

export function HelpOverlay({pane, theme}: HelpOverlayProps) {
  return (
    <Box flexDirection="column" width={pane.width} height={pane.height} flexShrink={0}>
      <SegmentLine line={pane.title} theme={theme} />
      <Lines lines={pane.lines} theme={theme} />
    </Box>
  );
}
