import {renderToString} from 'ink';
import {DashboardScreen} from '/work/main/src/ui/dashboard/DashboardScreen.js';
import {initialDashboardState} from '/work/main/src/ui/dashboard/dashboard-state.js';
import {DEFAULT_THEME} from '/work/main/src/ui/dashboard/theme.js';
import {toDashboardViewModel} from '/work/main/src/ui/dashboard/view-model.js';
import {syntheticCluster} from '/work/main/bench/synthetic-cluster.js';
import {planRollout} from '/work/main/src/core/index.js';
import {CONTEXT, NOW} from '/work/main/test/ui/fixtures.js';
const state = syntheticCluster(5000);
const plan = planRollout(state, {now: NOW});
const times: number[] = [];
for (let i = 0; i < 30; i++) {
  const vm = toDashboardViewModel({plan, context: CONTEXT, connection: 'live'}, {...initialDashboardState(), cursor: 2000 + i}, {columns: 200, rows: 60}, NOW);
  const a = performance.now();
  renderToString(<DashboardScreen vm={vm} theme={DEFAULT_THEME} />, {columns: 200});
  times.push(performance.now() - a);
}
times.sort((a, b) => a - b);
console.error('median render', times[15]!.toFixed(1), 'min', times[0]!.toFixed(1));
