// The fleet screen for one view model: the title and count line, a row per cluster (padded to the rows the screen
// has), or the help; then the status and key lines. No state, no effects.
import {Box} from 'ink';
import {memo} from 'react';
import {Lines, SegmentLine} from './SegmentLine.js';
import type {FleetViewModel} from './fleet-view-model.js';
import type {Theme} from './theme.js';

export interface FleetScreenProps {
  readonly vm: FleetViewModel;
  readonly theme: Theme;
}

function Screen({vm, theme}: FleetScreenProps) {
  return (
    <Box flexDirection="column" width={vm.columns} height={vm.height}>
      <Lines lines={vm.header} theme={theme} />
      <Box flexDirection="column" height={vm.table.listRows + 1} flexShrink={0}>
        {vm.help ? (
          <Lines lines={vm.help} theme={theme} />
        ) : (
          <>
            <SegmentLine line={vm.table.header} theme={theme} />
            {vm.table.rows.map((row) => (
              <SegmentLine key={row.context} line={row.line} theme={theme} inverse={row.selected} />
            ))}
          </>
        )}
      </Box>
      <SegmentLine line={vm.status} theme={theme} />
      <SegmentLine line={vm.footer} theme={theme} />
    </Box>
  );
}

export const FleetScreen = memo(Screen);
