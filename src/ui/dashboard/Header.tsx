// DaemonSet, namespace, context, strategy, progress, connection; revisions with images; paused or not.
import {Box} from 'ink';
import {Lines} from './SegmentLine.js';
import type {Theme} from './theme.js';
import type {DashboardViewModel} from './view-model.js';

export interface HeaderProps {
  readonly header: DashboardViewModel['header'];
  readonly theme: Theme;
}

export function Header({header, theme}: HeaderProps) {
  return (
    <Box flexDirection="column" flexShrink={0}>
      <Lines lines={header.lines} theme={theme} />
    </Box>
  );
}
