import {describe, expect, test} from 'vitest';
import {syntheticCluster} from '../../bench/synthetic-cluster.js';
import {observePodTimings, planRollout, type ClusterState} from '../../src/core/index.js';
import {formatDuration} from '../../src/output/format.js';
import {type DashboardState, initialDashboardState} from '../../src/ui/dashboard/dashboard-state.js';
import {diffRevisionTemplates} from '../../src/ui/dashboard/revision-diff.js';
import {type Line, lineText, width} from '../../src/ui/dashboard/text.js';
import {
  chooseRevisionDiff,
  type DashboardInput,
  type DashboardViewModel,
  etaText,
  previousRevision,
  toDashboardViewModel,
} from '../../src/ui/dashboard/view-model.js';
import {CONTEXT, handMadeState, NOW, planOf, scenarioState, snapshotOf} from './fixtures.js';

const SIZES = [
  {columns: 80, rows: 24},
  {columns: 120, rows: 40},
  {columns: 200, rows: 60},
  {columns: 50, rows: 12},
];

const states: Record<string, ClusterState> = {
  demo: scenarioState('demo'),
  'hand-made stuck': handMadeState(),
  'synthetic 5,000 nodes': syntheticCluster(5000),
};

function inputOf(state: ClusterState, extra: Partial<DashboardInput> = {}): DashboardInput {
  return {...snapshotOf(state), context: CONTEXT, diff: diffRevisionTemplates, ...extra};
}

function ui(overrides: Partial<DashboardState> = {}): DashboardState {
  return {...initialDashboardState(), ...overrides};
}

function allLines(vm: DashboardViewModel): Line[] {
  return [
    ...vm.header.lines,
    ...vm.gauges.lines,
    ...(vm.nodes
      ? [vm.nodes.title, ...(vm.nodes.grid?.rows ?? []), ...(vm.nodes.legend ? [vm.nodes.legend] : []), vm.nodes.header, ...vm.nodes.rows.map((r) => r.line)]
      : []),
    ...(vm.detail ? [vm.detail.title, ...vm.detail.lines] : []),
    ...(vm.revisions ? [vm.revisions.title, ...vm.revisions.lines] : []),
    ...(vm.help ? [vm.help.title, ...vm.help.lines] : []),
    vm.status,
    vm.footer,
  ];
}

function text(lines: readonly Line[]): string {
  return lines.map(lineText).join('\n');
}

const UI_VARIANTS: Array<{name: string; state: Partial<DashboardState>}> = [
  {name: 'default', state: {}},
  {name: 'cursor far down', state: {cursor: 2500}},
  {name: 'diff pane', state: {showDiff: true}},
  {name: 'expanded detail', state: {expanded: true}},
  {name: 'help', state: {mode: 'help'}},
  {name: 'filter old', state: {filter: 'old'}},
  {name: 'revisions focused', state: {focus: 'revisions', showDiff: true}},
];

describe.each(Object.entries(states))('%s', (_name, state) => {
  const input = inputOf(state);
  describe.each(SIZES)('at $columns x $rows', (size) => {
    test.each(UI_VARIANTS)('$name: everything fits its box', ({state: overrides}) => {
      const vm = toDashboardViewModel(input, ui(overrides), size, NOW);
      for (const line of allLines(vm)) expect(width(lineText(line)), lineText(line)).toBeLessThanOrEqual(vm.columns);
      if (vm.nodes) {
        for (const row of vm.nodes.rows) expect(width(lineText(row.line))).toBeLessThanOrEqual(vm.nodes.width);
        expect(vm.nodes.rows.length).toBeLessThanOrEqual(vm.nodes.listRows);
        // The selected node is always in the window.
        if (vm.nodes.total > 0) expect(vm.nodes.rows.some((r) => r.selected)).toBe(true);
      }
      for (const pane of [vm.detail, vm.revisions, vm.help]) {
        if (!pane) continue;
        expect(pane.lines.length + 1).toBeLessThanOrEqual(pane.height);
        for (const line of [pane.title, ...pane.lines]) expect(width(lineText(line))).toBeLessThanOrEqual(pane.width);
      }
    });
  });

  test('the same input gives an equal view model, made of plain data', () => {
    const a = toDashboardViewModel(input, ui(), {columns: 120, rows: 40}, NOW);
    const b = toDashboardViewModel(input, ui(), {columns: 120, rows: 40}, NOW);
    expect(a).toEqual(b);
    expect(JSON.parse(JSON.stringify(a))).toEqual(a);
  });
});

describe('header', () => {
  test('DaemonSet, progress, connection, strategy, context; revisions with their images', () => {
    const vm = toDashboardViewModel(inputOf(states.demo!), ui(), {columns: 160, rows: 48}, NOW);
    expect(lineText(vm.header.lines[0]!)).toBe('DaemonSet kube-system/fluentd  rollout in progress  ● live  RollingUpdate  context ds-rollout-sim');
    expect(lineText(vm.header.lines[1]!)).toBe('revision 1 (fluent/fluentd:v1.16.2) → 2 (fluent/fluentd:v1.17.0)');
  });

  test('paused: said in the header with the budgets resume restores, and the ETA waits', () => {
    const vm = toDashboardViewModel(
      inputOf(states.demo!, {paused: {by: 'ds-rollout', maxUnavailable: 2, maxSurge: 0}, pace: 3}),
      ui(),
      {columns: 160, rows: 48},
      NOW,
    );
    expect(vm.header.paused).toBe(true);
    expect(text(vm.header.lines)).toContain('rollout paused');
    expect(text(vm.header.lines)).toContain('PAUSED by ds-rollout (resume restores maxUnavailable 2, maxSurge 0)');
    expect(vm.gauges.eta).toBe('ETA — paused');
  });

  test("un-paused by someone else: the core's warning is flagged in the header", () => {
    const demo = states.demo!;
    const ds = demo.daemonSet;
    const record = JSON.stringify({type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: 0}, pausedAt: '2026-11-21T11:00:00Z'});
    const stale = {...demo, daemonSet: {...ds, metadata: {...ds.metadata, annotations: {...ds.metadata.annotations, 'ds-rollout.io/paused-strategy': record}}}};
    const vm = toDashboardViewModel(inputOf(stale), ui(), {columns: 200, rows: 48}, NOW);
    expect(text(vm.header.lines)).toContain('UN-PAUSED by someone else: a stale pause record is left (p pauses again)');
    expect(text(toDashboardViewModel(inputOf(demo), ui(), {columns: 200, rows: 48}, NOW).header.lines)).not.toContain('UN-PAUSED');
  });

  test('a gated rollout: its stage and bake countdown in the header', () => {
    const input = inputOf(states.demo!, {paused: {by: 'ds-rollout', maxUnavailable: 2, maxSurge: 0}});
    const plan = {...input.plan, gated: {stage: 1, stages: 3, name: 'canary', phase: 'baking' as const, bakeLeftSeconds: 250, failures: []}};
    const vm = toDashboardViewModel({...input, plan}, ui(), {columns: 200, rows: 48}, NOW);
    expect(text(vm.header.lines)).toContain('gated rollout: stage 1/3 canary, baking, 4m10s left');
  });

  test('a gated rollout with readings: a gates panel under the gauges, the body shorter by as much', () => {
    const input = inputOf(states.demo!, {paused: {by: 'ds-rollout', maxUnavailable: 2, maxSurge: 0}});
    const readings = [
      {gate: 'pod' as const, name: 'pods', value: '0 of 1 new pods failing', bound: '0 (restarts at most 0)', verdict: 'pass' as const},
      {gate: 'node' as const, name: 'nodes', value: '1 of 1 in trouble', bound: '0', verdict: 'fail' as const},
      {gate: 'neighbour' as const, name: 'neighbours', value: "0 of 1 on the stage's nodes, 0 of 18 elsewhere", bound: 'at most 0', verdict: 'pass' as const},
    ];
    const gated = {stage: 1, stages: 2, name: 'canary', phase: 'failed' as const, failures: []};
    const without = toDashboardViewModel({...input, plan: {...input.plan, gated}}, ui(), {columns: 120, rows: 40}, NOW);
    const vm = toDashboardViewModel({...input, plan: {...input.plan, gated: {...gated, readings}}}, ui(), {columns: 120, rows: 40}, NOW);
    expect(without.gates).toBeUndefined();
    expect(vm.gates!.lines.map(lineText)).toEqual([
      'Gates of stage 1/2 canary',
      '  pass pods        0 of 1 new pods failing  (bound 0 (restarts at most 0))',
      '  FAIL nodes       1 of 1 in trouble  (bound 0)',
      "  pass neighbours  0 of 1 on the stage's nodes, 0 of 18 elsewhere  (bound at most 0)",
    ]);
    expect(vm.bodyHeight).toBe(without.bodyHeight - 4);
    expect(vm.gates!.lines.find((line) => lineText(line).includes('FAIL'))!.some((s) => s.token === 'error')).toBe(true);
    // A minimal screen has no room for it.
    expect(toDashboardViewModel({...input, plan: {...input.plan, gated: {...gated, readings}}}, ui(), {columns: 50, rows: 12}, NOW).gates).toBeUndefined();
  });

  test('reconnecting: in the header and the status line', () => {
    const vm = toDashboardViewModel(inputOf(states.demo!, {connection: 'reconnecting'}), ui(), {columns: 160, rows: 48}, NOW);
    expect(text(vm.header.lines)).toContain('◌ reconnecting…');
    expect(lineText(vm.status)).toBe('Connection lost: re-listing and watching again…');
  });

  test('without revision entries the header falls back to hashes', () => {
    const {revisions: _none, ...withoutRevisions} = snapshotOf(handMadeState());
    const vm = toDashboardViewModel({...withoutRevisions, context: CONTEXT}, ui(), {columns: 160, rows: 48}, NOW);
    expect(lineText(vm.header.lines[1]!)).toBe('revision 1 (oldhash) → 2 (newhash)');
  });

  test('minimal: one line', () => {
    const vm = toDashboardViewModel(inputOf(states.demo!), ui(), {columns: 50, rows: 12}, NOW);
    expect(vm.header.lines).toHaveLength(1);
  });
});

describe('gauges', () => {
  test('a stuck rollout: the budget is used up, the blocker is named', () => {
    const vm = toDashboardViewModel(inputOf(handMadeState()), ui(), {columns: 160, rows: 48}, NOW);
    expect(vm.gauges.items).toEqual([
      {label: 'unavailable', used: 1, max: 1, full: true},
      {label: 'surge', used: 0, max: 0, full: false},
      {label: 'updated', used: 2, max: 4, full: false},
    ]);
    expect(lineText(vm.gauges.lines[0]!)).toMatch(/^unavailable █+ 1\/1 {3}surge ░+ 0\/0 {3}updated █+░+ 2\/4 \(50%\) {3}ETA — stuck$/);
    expect(lineText(vm.gauges.lines[1]!)).toBe('Next sync: nothing to do  ·  ✖ pod fluentd-b on node-b is not ready (CrashLoopBackOff) (+1 more)');
  });

  test('in progress: the next sync and the waves left', () => {
    const vm = toDashboardViewModel(inputOf(handMadeState({healthy: true})), ui(), {columns: 160, rows: 48}, NOW);
    expect(lineText(vm.gauges.lines[1]!)).toMatch(/^Next sync: delete 1 on node-c {2}· {2}\d+ waves to go {2}· {2}! 1 warning$/);
  });

  test('with the status verdict: a pod still starting is "in progress", not stuck, and the outlook says why', () => {
    const verdict = {verdict: 'progressing' as const, detail: '1 pod is starting'};
    const vm = toDashboardViewModel(inputOf(handMadeState(), {verdict, pace: 2}), ui(), {columns: 160, rows: 48}, NOW);
    expect(lineText(vm.header.lines[0]!)).toContain('rollout in progress');
    expect(lineText(vm.gauges.lines[1]!)).toBe('Next sync: nothing to do  ·  1 pod is starting');
    expect(vm.gauges.eta).toBe('ETA ~1m at 2.0 nodes/min');
  });

  test('with the status verdict: stuck and complete', () => {
    const stuck = toDashboardViewModel(
      inputOf(handMadeState({healthy: true}), {verdict: {verdict: 'stuck', detail: 'x'}, pace: 2}),
      ui(),
      {columns: 160, rows: 48},
      NOW,
    );
    expect(lineText(stuck.header.lines[0]!)).toContain('rollout stuck');
    expect(stuck.gauges.eta).toBe('ETA — stuck');
    const complete = toDashboardViewModel(
      inputOf(scenarioState('large', {nodes: 3}), {verdict: {verdict: 'complete', detail: ''}}),
      ui(),
      {columns: 160, rows: 48},
      NOW,
    );
    expect(lineText(complete.header.lines[0]!)).toContain('rollout complete');
    expect(lineText(complete.gauges.lines[1]!)).toBe('Every node runs revision 1.');
  });

  test('OnDelete has no budgets', () => {
    const state = handMadeState();
    const onDelete = {...state, daemonSet: {...state.daemonSet, spec: {...state.daemonSet.spec, updateStrategy: {type: 'OnDelete'}}}};
    const vm = toDashboardViewModel(inputOf(onDelete), ui(), {columns: 160, rows: 48}, NOW);
    expect(vm.gauges.items[0]).toMatchObject({label: 'unavailable', max: undefined});
    expect(lineText(vm.gauges.lines[0]!)).toContain('unavailable 1 (no budget)');
  });

  const plan = planOf(handMadeState({healthy: true, maxUnavailable: 2}));
  test.each([
    {name: 'no pace yet', pace: undefined, paused: false, want: 'ETA — no progress observed yet'},
    {name: 'two nodes left at 1 per minute', pace: 1, paused: false, want: 'ETA ~2m at 1.0 nodes/min'},
    {name: 'fast', pace: 30, paused: false, want: 'ETA ~4s at 30 nodes/min'},
    {name: 'paused', pace: 1, paused: true, want: 'ETA — paused'},
  ])('ETA: $name', ({pace, paused, want}) => {
    expect(etaText(plan, paused, pace, 'progressing').text).toBe(want);
  });

  test("ETA before any pace: the plan's, from the pod starts observed; once there is a pace, the pace's", () => {
    const state = handMadeState({healthy: true, maxUnavailable: 2});
    const timed = planRollout(state, {now: NOW, timings: observePodTimings(state, {now: NOW, podStartMs: 5000})});
    expect(timed.timing?.etaSeconds).toBeGreaterThan(0);
    const planned = etaText(timed, false, undefined, 'progressing');
    expect(planned.text).toBe(`ETA ~${formatDuration(timed.timing!.etaSeconds!)} planned`);
    expect(etaText(timed, false, 1, 'progressing').text).toBe('ETA ~2m at 1.0 nodes/min');
  });

  test('ETA of a complete rollout', () => {
    expect(etaText(planOf(scenarioState('large', {nodes: 5})), false, undefined, 'complete').text).toBe('done');
  });
});

describe('nodes', () => {
  const input = inputOf(handMadeState());
  const size = {columns: 160, rows: 48};

  test('a row per node: glyph, name, state, wave, pod, hash, readiness, reason (cut to the pane)', () => {
    const vm = toDashboardViewModel(input, ui({cursor: 1}), size, NOW);
    expect(vm.nodes!.rows.map((r) => lineText(r.line).trimEnd())).toEqual([
      '  ● node-a updated      -     fluentd-a newhash    yes/yes',
      '› ✖ node-b blocked      -     fluentd-b newhash    no/no   pod fluentd-b on node-b is n…',
      '  ○ node-c old          -     fluentd-c oldhash    yes/yes',
      '  ○ node-d old          -     fluentd-d oldhash    yes/yes',
      '  · node-e not eligible -     -                            taint gpu=true:NoSchedule is…',
    ]);
    expect(vm.nodes!.rows[1]!.line.find((s) => s.text.startsWith('blocked'))?.token).toBe('blocked');
    expect(lineText(vm.nodes!.legend!)).toBe('● updated 1  ○ old 2  ✖ blocked 1  · not eligible 1');
  });

  test('the next wave is marked in the list and in the legend', () => {
    const vm = toDashboardViewModel(inputOf(handMadeState({healthy: true})), ui(), size, NOW);
    const row = vm.nodes!.rows.find((r) => r.name === 'node-c')!;
    expect(lineText(row.line)).toMatch(/^ {2}▸ node-c old {10}next/);
    expect(lineText(vm.nodes!.legend!)).toContain('▸ next wave 1');
  });

  test.each([
    {filter: 'old', want: ['node-c', 'node-d']},
    {filter: 'block', want: ['node-b']},
    {filter: 'node-e', want: ['node-e']},
    {filter: 'not', want: ['node-e']},
    {filter: 'upd', want: ['node-a', 'node-b']}, // node-b is updating (and blocked)
    {filter: 'node old', want: ['node-c', 'node-d']},
    {filter: 'zzz', want: []},
  ])('filter "$filter"', ({filter, want}) => {
    const vm = toDashboardViewModel(input, ui({filter}), size, NOW);
    expect(vm.nodes!.rows.map((r) => r.name)).toEqual(want);
    expect(vm.nav.nodes).toBe(want.length);
    expect(lineText(vm.nodes!.title)).toContain(`filter "${filter}": ${want.length} of 5`);
  });

  test('a next sync that does nothing marks no node "next": wave 1 waits for a pod still terminating', () => {
    const state = handMadeState({healthy: true});
    const terminating = state.pods.map((pod) =>
      pod.metadata.name === 'fluentd-c'
        ? {...pod, metadata: {...pod.metadata, deletionTimestamp: new Date(NOW - 2_000).toISOString(), deletionGracePeriodSeconds: 30}}
        : pod,
    );
    const vm = toDashboardViewModel(inputOf({...state, pods: terminating}), ui(), size, NOW);
    expect(lineText(vm.gauges.lines[1]!)).toMatch(/^Next sync: nothing to do/);
    const rows = vm.nodes!.rows.map((r) => lineText(r.line));
    expect(rows.join('\n')).not.toContain('▸');
    expect(rows.find((line) => line.includes('node-c'))).toMatch(/node-c +\S+ +1 /);
    expect(lineText(vm.nodes!.legend!)).not.toContain('next wave');
    expect(toDashboardViewModel(inputOf({...state, pods: terminating}), ui({filter: 'next'}), size, NOW).nodes!.rows).toEqual([]);
  });

  test('next and wave:N filters', () => {
    const healthy = inputOf(handMadeState({healthy: true}));
    expect(toDashboardViewModel(healthy, ui({filter: 'next'}), size, NOW).nodes!.rows.map((r) => r.name)).toEqual(['node-c']);
    expect(toDashboardViewModel(healthy, ui({filter: 'wave:3'}), size, NOW).nodes!.rows.map((r) => r.name)).toEqual(['node-d']);
  });

  test('the cursor is clamped to the list', () => {
    const vm = toDashboardViewModel(input, ui({cursor: 99}), size, NOW);
    expect(vm.nodes!.selected).toBe('node-e');
  });

  test('5,000 nodes: a grid where one cell stands for several nodes, and a window of the list around the cursor', () => {
    const vm = toDashboardViewModel(inputOf(states['synthetic 5,000 nodes']!), ui({cursor: 2500}), {columns: 200, rows: 60}, NOW);
    const grid = vm.nodes!.grid!;
    expect(grid.nodesPerCell).toBe(3);
    const cells = grid.rows.reduce((sum, row) => sum + width(lineText(row)), 0);
    expect(cells).toBe(Math.ceil(5000 / 3));
    const selectedCells = grid.rows.flat().filter((s) => s.token === 'selected');
    expect(selectedCells).toEqual([{text: expect.stringMatching(/^.$/u), token: 'selected'}]);
    expect(vm.nodes!.selected).toBe('node-2500');
    expect(vm.nodes!.rows.length).toBe(vm.nodes!.listRows);
    expect(vm.nodes!.first).toBe(2500 - Math.floor(vm.nodes!.listRows / 2));
    expect(lineText(vm.nodes!.title)).toBe('Nodes 5,000  (grid: 1 cell = 3 nodes)');
  });

  test('no nodes at all', () => {
    const state = {...handMadeState(), nodes: [], pods: []};
    const vm = toDashboardViewModel(inputOf(state), ui(), size, NOW);
    expect(vm.nodes!.rows).toEqual([]);
    expect(lineText(vm.detail!.lines[0]!)).toBe('No node matches the filter.');
  });
});

describe('node detail', () => {
  const size = {columns: 160, rows: 48};

  test('a blocked node: why it blocks (wrapped, never cut), its pods with revision, hash, readiness and problem', () => {
    const vm = toDashboardViewModel(inputOf(handMadeState()), ui({cursor: 1}), size, NOW);
    expect(vm.detail!.node).toBe('node-b');
    expect(lineText(vm.detail!.title)).toBe('node-b  ✖ holds the rollout back  ·  no wave');
    expect(vm.detail!.lines.map(lineText)).toEqual([
      'eligible: runs the daemon',
      '✖ blocks: pod fluentd-b on node-b is not ready (CrashLoopBackOff)',
      '✖ blocks: 1 node that never becomes available uses the whole',
      '  maxUnavailable budget (1): 2 old pods wait',
      '● fluentd-b  rev 2 newhash (update)  ready no  available no  Running',
      '  CrashLoopBackOff',
    ]);
  });

  test('a node the DaemonSet cannot run on', () => {
    const vm = toDashboardViewModel(inputOf(handMadeState()), ui({cursor: 4}), size, NOW);
    expect(vm.detail!.lines.map(lineText)).toEqual([
      'not eligible: taint gpu=true:NoSchedule is not tolerated',
      '! taint gpu=true:NoSchedule is not tolerated: no daemon pod will be',
      '  created on that node',
      'no daemon pod',
    ]);
  });

  test('what the next sync does to the node', () => {
    const vm = toDashboardViewModel(inputOf(handMadeState({healthy: true})), ui({cursor: 2}), size, NOW);
    expect(vm.detail!.lines.map(lineText)).toContain('next sync: delete fluentd-c (outdated)');
  });

  test('enter: the detail takes the whole body', () => {
    const vm = toDashboardViewModel(inputOf(handMadeState()), ui({cursor: 1, expanded: true}), {columns: 80, rows: 24}, NOW);
    expect(vm.takeover).toBe('detail');
    expect(vm.nodes).toBeUndefined();
    expect(vm.detail!.height).toBe(vm.bodyHeight);
  });
});

describe('revisions', () => {
  const state = handMadeState();
  const plan = planOf(state);
  const entries = snapshotOf(state).revisions!;

  test('history newest first with roles; the diff of current -> update', () => {
    const vm = toDashboardViewModel(inputOf(state), ui({showDiff: true}), {columns: 160, rows: 48}, NOW);
    const lines = vm.revisions!.lines.map((l) => lineText(l).trimEnd());
    expect(lines.slice(0, 2)).toEqual(['   2   update         newhash    1h     fluentd:v2', '   1   current        oldhash    1h     fluentd:v1']);
    expect(lines).toContain('Diff revision 1 → 2 (current -> update)');
    expect(lines).toContain('-  main: fluentd:v1');
    expect(lines).toContain('+  main: fluentd:v2');
    expect(vm.revisions!.diff).toMatchObject({from: 1, to: 2});
    const removed = vm.revisions!.lines.find((l) => lineText(l) === '-  main: fluentd:v1')!;
    expect(removed[0]!.token).toBe('diff-remove');
  });

  test.each([
    {name: 'default: current -> update', ui: {}, want: {from: 1, to: 2, why: 'current -> update'}},
    {name: 'two marked: older -> newer', ui: {marked: [2, 1]}, want: {from: 1, to: 2, why: 'marked'}},
    {name: 'one marked: it -> update', ui: {marked: [1]}, want: {from: 1, to: 2, why: 'marked -> update'}},
    {
      name: 'undo to the previous revision',
      ui: {mode: 'confirm' as const, confirm: {action: 'undo' as const}},
      want: {from: 2, to: 1, why: 'undo would apply'},
    },
    {
      name: 'undo to a chosen revision',
      ui: {mode: 'confirm' as const, confirm: {action: 'undo' as const, toRevision: 1}},
      want: {from: 2, to: 1, why: 'undo would apply'},
    },
  ])('chooseRevisionDiff: $name', ({ui: overrides, want}) => {
    expect(chooseRevisionDiff(plan, entries, ui(overrides))).toEqual(want);
  });

  test('previousRevision is the newest older than the update revision', () => {
    expect(previousRevision(plan, entries)).toBe(1);
    expect(previousRevision(plan, entries.slice(1))).toBeUndefined();
  });

  test('a complete rollout compares the previous revision with the current one', () => {
    const complete = scenarioState('large', {nodes: 3});
    expect(chooseRevisionDiff(planOf(complete), snapshotOf(complete).revisions!, ui())).toBeUndefined();
  });

  test('the undo prompt opens the diff pane with the preview the handler returned', () => {
    const vm = toDashboardViewModel(
      inputOf(state),
      ui({
        mode: 'confirm',
        confirm: {action: 'undo', preview: {message: 'Pods go back to fluentd:v1.', diff: ['-    image: fluentd:v2', '+    image: fluentd:v1']}},
      }),
      {columns: 80, rows: 24},
      NOW,
    );
    expect(vm.revisions).toBeDefined();
    expect(vm.revisions!.lines.map(lineText)).toContain('+    image: fluentd:v1');
    // Cut to 80 columns from the middle: the [y/n] stays.
    expect(lineText(vm.status)).toBe('Undo kube-system/fluentd to revision 1 (fluentd:v1)? Pods go back to flu…  [y/n]');
  });

  test('focused: the cursor row is highlighted and the container learns its revision', () => {
    const vm = toDashboardViewModel(inputOf(state), ui({focus: 'revisions', revisionCursor: 1}), {columns: 160, rows: 48}, NOW);
    expect(vm.nav.revisionOrder).toEqual([2, 1]);
    expect(vm.revisions!.lines[1]!.every((s) => s.token === 'selected')).toBe(true);
    expect(lineText(vm.revisions!.title)).toContain('enter mark two to diff');
  });
});

describe('status line, footer, help', () => {
  const input = inputOf(handMadeState({healthy: true}));
  const size = {columns: 160, rows: 48};
  const at = new Date(2026, 10, 21, 12, 3, 4).getTime();

  test.each([
    {name: 'idle', ui: {}, want: '? for help'},
    {name: 'typing a filter', ui: {mode: 'filter' as const, filter: 'nod'}, want: /^\/nod▏ {2}5 match · name, state/},
    {
      name: 'step prompt',
      ui: {mode: 'confirm' as const, confirm: {action: 'step' as const}},
      want: 'Step one wave of kube-system/fluentd? (the next sync deletes 1 and creates 0 pods)  [y/n]',
    },
    {
      name: 'pause prompt',
      ui: {mode: 'confirm' as const, confirm: {action: 'pause' as const}},
      want: 'Pause the rollout of kube-system/fluentd? (no more old pods are replaced until resume)  [y/n]',
    },
    {name: 'resume prompt', ui: {mode: 'confirm' as const, confirm: {action: 'resume' as const}}, want: 'Resume the rollout of kube-system/fluentd?  [y/n]'},
    {
      name: 'undo prompt while the preview runs',
      ui: {mode: 'confirm' as const, confirm: {action: 'undo' as const}, running: {id: 1, action: 'undo' as const, preview: true}},
      want: 'Undo: working out what would change…',
    },
    {name: 'an action result', ui: {status: {kind: 'success' as const, text: 'paused', at}}, want: '12:03:04 paused'},
    {name: 'an error', ui: {status: {kind: 'error' as const, text: 'pause failed: forbidden'}}, want: 'pause failed: forbidden'},
  ])('$name', ({ui: overrides, want}) => {
    const vm = toDashboardViewModel(input, ui(overrides), size, NOW);
    if (typeof want === 'string') expect(lineText(vm.status)).toBe(want);
    else expect(lineText(vm.status)).toMatch(want);
  });

  test('paused: the step prompt lists the pods and nodes the wave deletes (core planStepWave), or why none can go', () => {
    const confirm = ui({mode: 'confirm' as const, confirm: {action: 'step' as const}});
    const deletions = ['a', 'b', 'c', 'd'].map((n) => ({pod: `fluentd-${n}`, node: `node-${n}`}));
    expect(lineText(toDashboardViewModel({...input, step: {deletions}}, confirm, size, NOW).status)).toBe(
      'Step one wave of kube-system/fluentd? (deletes fluentd-a on node-a, fluentd-b on node-b, fluentd-c on node-c and 1 more)  [y/n]',
    );
    expect(
      lineText(toDashboardViewModel({...input, step: {deletions: [], blocked: 'the budget (maxUnavailable 1) is in use: node-d'}}, confirm, size, NOW).status),
    ).toBe('Step one wave of kube-system/fluentd? (nothing to delete now: the budget (maxUnavailable 1) is in use: node-d)  [y/n]');
  });

  test('live, every prompt names the context and the server it acts on', () => {
    const live = {...input, context: {...input.context, kubeContext: 'prod-eu', server: 'https://10.0.0.1:6443'}};
    const where = 'kube-system/fluentd on context prod-eu (https://10.0.0.1:6443)';
    const prompt = (action: 'step' | 'pause' | 'resume') =>
      lineText(toDashboardViewModel(live, ui({mode: 'confirm' as const, confirm: {action}}), size, NOW).status);
    expect(prompt('step')).toBe(`Step one wave of ${where}? (the next sync deletes 1 and creates 0 pods)  [y/n]`);
    expect(prompt('pause')).toBe(`Pause the rollout of ${where}? (no more old pods are replaced until resume)  [y/n]`);
    expect(prompt('resume')).toBe(`Resume the rollout of ${where}?  [y/n]`);
  });

  test('a feed error shows when nothing else does', () => {
    const vm = toDashboardViewModel({...input, error: 'watch pods: forbidden'}, ui(), size, NOW);
    expect(lineText(vm.status)).toBe('watch pods: forbidden');
  });

  test('the footer lists the keys; --readonly greys the mutating ones', () => {
    const vm = toDashboardViewModel(input, ui(), size, NOW);
    expect(lineText(vm.footer)).toBe('↑↓ j k move  enter details  s step one wave  p pause  r resume  u undo  d diff  tab revisions  / filter  ? help  q quit');
    const ro = toDashboardViewModel(input, ui({readonly: true}), size, NOW);
    expect(lineText(ro.footer)).toMatch(/ read-only$/);
    expect(ro.footer.find((s) => s.text === 'p')?.token).toBe('muted');
    expect(ro.footer.find((s) => s.text === 'd')?.token).toBe('key');
  });

  test.each([
    {columns: 100, want: '↑↓ move  enter detail  s step  p pause  r resume  u undo  d diff  tab revs  / filter  ? help  q quit'},
    {columns: 50, want: '↑↓ enter s p r u d tab / ? q'},
  ])('narrower terminals get shorter labels, then keys only ($columns columns)', ({columns, want}) => {
    expect(lineText(toDashboardViewModel(input, ui(), {columns, rows: 24}, NOW).footer)).toBe(want);
  });

  test('keys only, read-only', () => {
    expect(lineText(toDashboardViewModel(input, ui({readonly: true}), {columns: 50, rows: 12}, NOW).footer)).toBe('↑↓ enter s p r u d tab / ? q read-only');
  });

  test('help: every key and every node state', () => {
    const vm = toDashboardViewModel(input, ui({mode: 'help'}), {columns: 120, rows: 40}, NOW);
    const help = vm.help!.lines.map(lineText).join('\n');
    for (const word of [
      'step one wave',
      'pause',
      'resume',
      'undo',
      'filter',
      '(asks y/n first)',
      'updated, not yet available',
      'holds the rollout back',
      'next wave',
    ]) {
      expect(help).toContain(word);
    }
    expect(vm.nodes).toBeUndefined();
  });
});
