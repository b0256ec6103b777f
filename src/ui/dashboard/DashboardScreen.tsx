// The whole screen for one view model: no state, no effects. Memoised, so a view model that did not change
// (the container keeps the same object) costs nothing.
import {Box} from 'ink';
import {memo} from 'react';
import {BudgetGauges} from './BudgetGauges.js';
import {Footer} from './Footer.js';
import {GatesPanel} from './GatesPanel.js';
import {Header} from './Header.js';
import {HelpOverlay} from './HelpOverlay.js';
import {NodeDetail} from './NodeDetail.js';
import {NodeList} from './NodeList.js';
import {RevisionPane} from './RevisionPane.js';
import {StatusLine} from './StatusLine.js';
import type {Theme} from './theme.js';
import type {DashboardViewModel} from './view-model.js';

export interface DashboardScreenProps {
  readonly vm: DashboardViewModel;
  readonly theme: Theme;
}

function Body({vm, theme}: DashboardScreenProps) {
  if (vm.help) return <HelpOverlay pane={vm.help} theme={theme} />;
  const side = (
    <>
      {vm.detail ? <NodeDetail pane={vm.detail} theme={theme} /> : null}
      {vm.revisions ? <RevisionPane pane={vm.revisions} theme={theme} /> : null}
    </>
  );
  if (vm.split) {
    return (
      <Box flexDirection="row" height={vm.bodyHeight}>
        {vm.nodes ? <NodeList pane={vm.nodes} theme={theme} /> : null}
        <Box width={1} flexShrink={0} />
        <Box flexDirection="column">{side}</Box>
      </Box>
    );
  }
  return (
    <Box flexDirection="column" height={vm.bodyHeight}>
      {vm.nodes ? <NodeList pane={vm.nodes} theme={theme} /> : null}
      {side}
    </Box>
  );
}

function Screen({vm, theme}: DashboardScreenProps) {
  return (
    <Box flexDirection="column" width={vm.columns} height={vm.height}>
      <Header header={vm.header} theme={theme} />
      <BudgetGauges gauges={vm.gauges} theme={theme} />
      {vm.gates ? <GatesPanel gates={vm.gates} theme={theme} /> : null}
      <Box height={vm.bodyHeight} flexShrink={0}>
        <Body vm={vm} theme={theme} />
      </Box>
      <StatusLine line={vm.status} theme={theme} />
      <Footer line={vm.footer} theme={theme} />
    </Box>
  );
}

export const DashboardScreen = memo(Screen);
