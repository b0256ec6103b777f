// The node pane: title, optional grid, legend, and the scrollable list window (selected row inverted).
import {Box} from 'ink';
import {NodeGrid} from './NodeGrid.js';
import {SegmentLine} from './SegmentLine.js';
import type {Theme} from './theme.js';
import type {NodePaneVm} from './view-model.js';

export interface NodeListProps {
  readonly pane: NodePaneVm;
  readonly theme: Theme;
}

export function NodeList({pane, theme}: NodeListProps) {
  return (
    <Box flexDirection="column" width={pane.width} height={pane.height} flexShrink={0}>
      <SegmentLine line={pane.title} theme={theme} />
      {pane.grid ? <NodeGrid rows={pane.grid.rows} theme={theme} /> : null}
      {pane.legend ? <SegmentLine line={pane.legend} theme={theme} /> : null}
      <SegmentLine line={pane.header} theme={theme} />
      {pane.rows.length === 0 ? <SegmentLine line={[{text: '  no node to show', token: 'muted'}]} theme={theme} /> : null}
      {pane.rows.map((row) => (
        <SegmentLine key={row.name} line={row.line} theme={theme} inverse={row.selected} />
      ))}
    </Box>
  );
}
