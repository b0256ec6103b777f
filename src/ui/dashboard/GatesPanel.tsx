// Each gate's reading for the stage under way (panels/gates.ts gatesPanelLines): no state, no logic.
import {Box} from 'ink';
import {Lines} from './SegmentLine.js';
import type {Theme} from './theme.js';
import type {DashboardViewModel} from './view-model.js';

export interface GatesPanelProps {
  readonly gates: NonNullable<DashboardViewModel['gates']>;
  readonly theme: Theme;
}

export function GatesPanel({gates, theme}: GatesPanelProps) {
  return (
    <Box flexDirection="column" flexShrink={0}>
      <Lines lines={gates.lines} theme={theme} />
    </Box>
  );
}
