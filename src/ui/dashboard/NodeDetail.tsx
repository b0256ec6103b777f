// The selected node: eligibility, what blocks, what the next sync does to it, its pods with hashes and readiness.
import {Box} from 'ink';
import {Lines, SegmentLine} from './SegmentLine.js';
import type {Theme} from './theme.js';
import type {TextPaneVm} from './view-model.js';

export interface NodeDetailProps {
  readonly pane: TextPaneVm;
  readonly theme: Theme;
}

export function NodeDetail({pane, theme}: NodeDetailProps) {
  return (
    <Box flexDirection="column" width={pane.width} height={pane.height} flexShrink={0}>
      <SegmentLine line={pane.title} theme={theme} />
      <Lines lines={pane.lines} theme={theme} />
    </Box>
  );
}
