// Revision history (newest first, current and update marked) and the diff of two revisions.
import {Box} from 'ink';
import {Lines, SegmentLine} from './SegmentLine.js';
import type {Theme} from './theme.js';
import type {RevisionPaneVm} from './view-model.js';

export interface RevisionPaneProps {
  readonly pane: RevisionPaneVm;
  readonly theme: Theme;
}

export function RevisionPane({pane, theme}: RevisionPaneProps) {
  return (
    <Box flexDirection="column" width={pane.width} height={pane.height} flexShrink={0}>
      <SegmentLine line={pane.title} theme={theme} />
      <Lines lines={pane.lines} theme={theme} />
    </Box>
  );
}
