// A cell per node (or per group of nodes on large clusters), coloured by state; the next wave marked.
import {Box} from 'ink';
import {Lines} from './SegmentLine.js';
import type {Line} from './text.js';
import type {Theme} from './theme.js';

export interface NodeGridProps {
  readonly rows: readonly Line[];
  readonly theme: Theme;
}

export function NodeGrid({rows, theme}: NodeGridProps) {
  return (
    <Box flexDirection="column" flexShrink={0}>
      <Lines lines={rows} theme={theme} />
    </Box>
  );
}
