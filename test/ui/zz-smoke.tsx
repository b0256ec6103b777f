import {renderToString} from 'ink';
import {DashboardScreen} from '/work/main/src/ui/dashboard/DashboardScreen.js';
import {initialDashboardState} from '/work/main/src/ui/dashboard/dashboard-state.js';
import {diffRevisionTemplates} from '/work/main/src/ui/dashboard/revision-diff.js';
import {DEFAULT_THEME} from '/work/main/src/ui/dashboard/theme.js';
import {toDashboardViewModel} from '/work/main/src/ui/dashboard/view-model.js';
import {syntheticCluster} from '/work/main/bench/synthetic-cluster.js';
import {CONTEXT, NOW, scenarioState, snapshotOf} from '/work/main/test/ui/fixtures.js';
const [cols, rows, scen, nodes] = process.argv.slice(2);
const state = scen === 'synthetic' ? syntheticCluster(Number(nodes)) : scenarioState((scen ?? 'demo') as 'demo', nodes ? {nodes: Number(nodes)} : {});
const snap = snapshotOf(state);
const ui = {...initialDashboardState(), showDiff: process.env.DIFF === '1', mode: (process.env.HELP ? 'help' : 'normal') as 'normal', cursor: Number(process.env.CURSOR ?? 0)};
const t0 = performance.now();
const vm = toDashboardViewModel({...snap, context: CONTEXT, diff: diffRevisionTemplates, pace: 2}, ui, {columns: Number(cols), rows: Number(rows)}, NOW);
const t1 = performance.now();
const out = renderToString(<DashboardScreen vm={vm} theme={DEFAULT_THEME} />, {columns: Number(cols)});
const t2 = performance.now();
console.log(out);
console.error(`vm ${(t1 - t0).toFixed(1)}ms render ${(t2 - t1).toFixed(1)}ms lines ${out.split('\n').length}`);
for (let i = 0; i < 5; i++) {
  const a = performance.now();
  const v = toDashboardViewModel({...snap, context: CONTEXT, diff: diffRevisionTemplates, pace: 2}, {...ui, cursor: ui.cursor + i}, {columns: Number(cols), rows: Number(rows)}, NOW);
  const b = performance.now();
  renderToString(<DashboardScreen vm={v} theme={DEFAULT_THEME} />, {columns: Number(cols)});
  const c = performance.now();
  console.error(`vm ${(b - a).toFixed(1)}ms render ${(c - b).toFixed(1)}ms`);
}
