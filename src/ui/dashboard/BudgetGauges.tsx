// Unavailable and surge budgets in use, updated / desired, the ETA, and the outlook (next sync, first blocker).
import {Box} from 'ink';
import {Lines} from './SegmentLine.js';
import type {Theme} from './theme.js';
import type {DashboardViewModel} from './view-model.js';

export interface BudgetGaugesProps {
  readonly gauges: DashboardViewModel['gauges'];
  readonly theme: Theme;
}

export function BudgetGauges({gauges, theme}: BudgetGaugesProps) {
  return (
    <Box flexDirection="column" flexShrink={0}>
      <Lines lines={gauges.lines} theme={theme} />
    </Box>
  );
}
