import {render} from 'ink-testing-library';
import {afterEach, describe, expect, test} from 'vitest';
import {BudgetGauges} from '../../src/ui/dashboard/BudgetGauges.js';
import {Dashboard} from '../../src/ui/dashboard/Dashboard.js';
import {DashboardScreen} from '../../src/ui/dashboard/DashboardScreen.js';
import {initialDashboardState} from '../../src/ui/dashboard/dashboard-state.js';
import {Footer} from '../../src/ui/dashboard/Footer.js';
import {Header} from '../../src/ui/dashboard/Header.js';
import {HelpOverlay} from '../../src/ui/dashboard/HelpOverlay.js';
import {NodeDetail} from '../../src/ui/dashboard/NodeDetail.js';
import {NodeGrid} from '../../src/ui/dashboard/NodeGrid.js';
import {NodeList} from '../../src/ui/dashboard/NodeList.js';
import {RevisionPane} from '../../src/ui/dashboard/RevisionPane.js';
import {StatusLine} from '../../src/ui/dashboard/StatusLine.js';
import {diffRevisionTemplates} from '../../src/ui/dashboard/revision-diff.js';
import {DEFAULT_THEME} from '../../src/ui/dashboard/theme.js';
import {type DashboardViewModel, toDashboardViewModel} from '../../src/ui/dashboard/view-model.js';
import {CONTEXT, FakeActions, FakeFeed, handMadeState, NOW, plain, scenarioState, snapshotOf} from './fixtures.js';
import {KEYS, press, type Rendered, tick, waitForText} from './render-helpers.js';

const theme = DEFAULT_THEME;
const SIZE = {columns: 100, rows: 30};

function vmOf(state = handMadeState(), ui = initialDashboardState(), size = SIZE): DashboardViewModel {
  return toDashboardViewModel({...snapshotOf(state), context: CONTEXT, diff: diffRevisionTemplates}, ui, size, NOW);
}

const mounted: Rendered[] = [];
function mount(tree: Parameters<typeof render>[0]): Rendered {
  const rendered = render(tree);
  mounted.push(rendered);
  return rendered;
}

afterEach(() => {
  for (const r of mounted.splice(0)) r.unmount();
});

describe('leaves render their part of the view model', () => {
  const vm = vmOf(handMadeState(), {...initialDashboardState(), cursor: 1, showDiff: true});

  test('Header', () => {
    expect(plain(mount(<Header header={vm.header} theme={theme} />).lastFrame())).toBe(
      ['DaemonSet kube-system/fluentd  rollout stuck  ● live  RollingUpdate  context ds-rollout-sim', 'revision 1 (fluentd:v1) → 2 (fluentd:v2)'].join('\n'),
    );
  });

  test('BudgetGauges', () => {
    const frame = plain(mount(<BudgetGauges gauges={vm.gauges} theme={theme} />).lastFrame());
    expect(frame).toMatch(/^unavail █████ 1\/1 {2}surge ░░░░░ 0\/0 {2}updated ███░░ 2\/4 {2}ETA — stuck\nNext sync: nothing to do {2}· {2}✖ pod fluentd-b/);
  });

  test('NodeList: title, legend, header, rows; the selected row marked', () => {
    const frame = plain(mount(<NodeList pane={vm.nodes!} theme={theme} />).lastFrame());
    const lines = frame.split('\n');
    expect(lines[0]).toBe('Nodes 5');
    expect(lines[1]).toBe('● updated 1  ○ old 2  ✖ blocked 1  · not eligible 1');
    expect(lines[2]).toMatch(/^ {4}NODE {3}STATE {8}WAVE {2}POD {7}HASH {7}RDY\/AV {2}REASON/);
    expect(lines[4]).toMatch(/^› ✖ node-b blocked/);
    expect(lines).toHaveLength(vm.nodes!.height);
  });

  test('NodeGrid', () => {
    const grid = vmOf(scenarioState('demo'), initialDashboardState(), {columns: 80, rows: 24}).nodes!.grid!;
    expect(plain(mount(<NodeGrid rows={grid.rows} theme={theme} />).lastFrame())).toBe('●●●●●●·▸○○○○▸○○○○○○○');
  });

  test('NodeDetail', () => {
    const detail = vmOf(handMadeState(), {...initialDashboardState(), cursor: 1}).detail!;
    const frame = plain(mount(<NodeDetail pane={detail} theme={theme} />).lastFrame());
    expect(frame.split('\n').slice(0, 3)).toEqual([
      'node-b  ✖ holds the rollout back  ·  no wave',
      'eligible: runs the daemon',
      '✖ blocks: pod fluentd-b on node-b is not ready (CrashLoopBackOff)',
    ]);
  });

  test('RevisionPane', () => {
    const frame = plain(mount(<RevisionPane pane={vm.revisions!} theme={theme} />).lastFrame());
    expect(frame).toContain('Revisions 2  tab to choose');
    expect(frame).toContain('Diff revision 1 → 2 (current -> update)');
    expect(frame).toContain('+  main: fluentd:v2');
  });

  test('StatusLine and Footer', () => {
    expect(plain(mount(<StatusLine line={vm.status} theme={theme} />).lastFrame())).toBe('? for help');
    expect(plain(mount(<Footer line={vm.footer} theme={theme} />).lastFrame())).toBe(
      '↑↓ move  enter detail  s step  p pause  r resume  u undo  d diff  tab revs  / filter  ? help  q quit',
    );
  });

  test('HelpOverlay', () => {
    const help = vmOf(handMadeState(), {...initialDashboardState(), mode: 'help'}).help!;
    expect(plain(mount(<HelpOverlay pane={help} theme={theme} />).lastFrame())).toContain('u         undo  (asks y/n first)');
  });

  test.each([
    {columns: 100, rows: 30},
    {columns: 80, rows: 24},
    {columns: 50, rows: 12},
  ])('DashboardScreen fills $columns x $rows less one line, no line wider than the terminal', (size) => {
    const screen = vmOf(scenarioState('demo'), initialDashboardState(), size);
    const frame = plain(mount(<DashboardScreen vm={screen} theme={theme} />).lastFrame());
    const lines = frame.split('\n');
    expect(lines).toHaveLength(size.rows - 1);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(size.columns);
  });
});

describe('Dashboard (container) with a fake feed and fake actions', () => {
  function start(options: {readonly?: boolean; actions?: FakeActions; feed?: FakeFeed; redrawIntervalMs?: number} = {}) {
    const feed = options.feed ?? new FakeFeed(snapshotOf(handMadeState()));
    const actions = options.actions ?? new FakeActions();
    const frames: DashboardViewModel[] = [];
    let quits = 0;
    const rendered = mount(
      <Dashboard
        feed={feed}
        actions={actions}
        context={CONTEXT}
        readonly={options.readonly}
        size={SIZE}
        clock={() => NOW}
        redrawIntervalMs={options.redrawIntervalMs ?? 0}
        onFrame={(vm) => frames.push(vm)}
        onQuit={() => quits++}
      />,
    );
    return {rendered, feed, actions, frames, quits: () => quits};
  }

  test('says it is connecting until the first snapshot, then shows the rollout', async () => {
    const feed = new FakeFeed();
    const {rendered} = start({feed});
    expect(plain(rendered.lastFrame())).toBe('Connecting to DaemonSet kube-system/fluentd (context ds-rollout-sim)…');
    feed.push(snapshotOf(handMadeState()));
    const frame = await waitForText(rendered, 'rollout stuck');
    expect(frame.split('\n')).toHaveLength(SIZE.rows - 1);
  });

  test('j / arrows move the selection and the detail follows', async () => {
    const {rendered} = start();
    await waitForText(rendered, 'node-a  ● updated and available');
    await press(rendered, 'j');
    await waitForText(rendered, 'node-b  ✖ holds the rollout back');
    await press(rendered, KEYS.down, KEYS.down, KEYS.up);
    await waitForText(rendered, 'node-c  ○ old revision');
  });

  test('keys that arrive in one chunk act one by one, each in the mode the last one left', async () => {
    const {rendered} = start();
    await waitForText(rendered, 'Nodes 5');
    rendered.stdin.write('jjj');
    await waitForText(rendered, 'node-d  ○ old revision');
    rendered.stdin.write('/old');
    await waitForText(rendered, 'filter "old": 2 of 5');
  });

  test('/ filters by state; esc clears it', async () => {
    const {rendered} = start();
    await waitForText(rendered, 'Nodes 5');
    await press(rendered, '/', 'old');
    await waitForText(rendered, 'filter "old": 2 of 5');
    await press(rendered, KEYS.enter);
    const frame = await waitForText(rendered, '? for help');
    expect(frame).not.toContain('node-a updated');
    expect(frame).toContain('node-c old');
    await press(rendered, KEYS.escape);
    await waitForText(rendered, 'node-a updated');
  });

  test('p asks, y pauses, the result shows in the status line', async () => {
    const actions = new FakeActions({pause: {message: 'paused kube-system/fluentd (maxUnavailable 1 saved)'}});
    const {rendered} = start({actions});
    await waitForText(rendered, 'Nodes 5');
    await press(rendered, 'p');
    await waitForText(rendered, 'Pause the rollout of kube-system/fluentd?');
    expect(actions.calls).toEqual([]);
    await press(rendered, 'y');
    await waitForText(rendered, 'paused kube-system/fluentd (maxUnavailable 1 saved)');
    expect(actions.calls).toEqual([{action: 'pause'}]);
  });

  test('P and a ask first, then promote or abort the gated rollout', async () => {
    const actions = new FakeActions({
      promote: {message: 'gated rollout complete: every stage passed'},
      abort: {message: 'gated rollout aborted: back on revision 1'},
    });
    const {rendered} = start({actions});
    await waitForText(rendered, 'Nodes 5');
    await press(rendered, 'P');
    await waitForText(rendered, 'Promote the gated rollout of kube-system/fluentd?');
    expect(actions.calls).toEqual([]);
    await press(rendered, 'y');
    await waitForText(rendered, 'gated rollout complete: every stage passed');
    await press(rendered, 'a');
    await waitForText(rendered, 'Abort the gated rollout of kube-system/fluentd?');
    await press(rendered, 'n');
    expect(actions.calls).toEqual([{action: 'promote'}]);
    await press(rendered, 'a');
    await press(rendered, 'y');
    await waitForText(rendered, 'gated rollout aborted: back on revision 1');
    expect(actions.calls).toEqual([{action: 'promote'}, {action: 'abort'}]);
  });

  test('a step shows its progress in the status line while it runs, then the result', async () => {
    const actions = new FakeActions({step: {message: 'wave 1 landed in 12s: replaced 1 pod (node-c); 1 node still runs an old pod'}});
    let release = () => {};
    actions.stepGate = new Promise((resolve) => (release = resolve));
    actions.stepProgress = ['Wave 1/~2: delete 1 old pod of daemonset kube-system/fluentd', 'deleted pod fluentd-c on node-c'];
    const {rendered} = start({actions});
    await waitForText(rendered, 'Nodes 5');
    await press(rendered, 's', 'y');
    await waitForText(rendered, 'deleted pod fluentd-c on node-c');
    // One action at a time: another key only says so.
    await press(rendered, 'p');
    await waitForText(rendered, 'Stepping one wave… wait for it to finish');
    release();
    await waitForText(rendered, 'wave 1 landed in 12s: replaced 1 pod (node-c); 1 node still runs an old pod');
    expect(actions.calls).toEqual([{action: 'step'}]);
  });

  test('n cancels: nothing is called', async () => {
    const {rendered, actions} = start();
    await waitForText(rendered, 'Nodes 5');
    await press(rendered, 's');
    await waitForText(rendered, 'Step one wave of kube-system/fluentd?');
    await press(rendered, 'n');
    await waitForText(rendered, 'step cancelled');
    expect(actions.calls).toEqual([]);
  });

  test('an action error shows in the status line and the dashboard goes on', async () => {
    const actions = new FakeActions({}, {resume: 'daemonsets.apps "fluentd" is forbidden'});
    const {rendered} = start({actions});
    await waitForText(rendered, 'Nodes 5');
    await press(rendered, 'r', 'y');
    await waitForText(rendered, 'resume failed: daemonsets.apps "fluentd" is forbidden');
    await press(rendered, 'j');
    await waitForText(rendered, 'node-b  ✖ holds the rollout back');
  });

  test('--readonly: mutating keys only say so', async () => {
    const {rendered, actions} = start({readonly: true});
    await waitForText(rendered, 'read-only');
    for (const key of ['s', 'p', 'r', 'u']) await press(rendered, key);
    await waitForText(rendered, 'read-only (--readonly): undo is disabled');
    expect(actions.calls).toEqual([]);
  });

  test('u previews the undo in the diff pane, asks, and undoes on y', async () => {
    const actions = new FakeActions({
      'undo-preview': {message: 'Pods go back to fluentd:v1.', diff: ['-  main: fluentd:v2', '+  main: fluentd:v1']},
      undo: {message: 'rolled back to revision 1 (now revision 3)'},
    });
    const {rendered} = start({actions});
    await waitForText(rendered, 'Nodes 5');
    await press(rendered, 'u');
    const prompt = await waitForText(rendered, 'Pods go back to fluentd:v1.  [y/n]');
    expect(prompt).toContain('Diff revision 2 → 1 (undo would apply)');
    expect(prompt).toContain('+  main: fluentd:v1');
    await press(rendered, 'y');
    await waitForText(rendered, 'rolled back to revision 1 (now revision 3)');
    expect(actions.calls).toEqual([
      {action: 'undo', request: {preview: true}},
      {action: 'undo', request: {preview: false}},
    ]);
  });

  test('undo to a revision chosen in the revision pane', async () => {
    const {rendered, actions} = start();
    await waitForText(rendered, 'Nodes 5');
    await press(rendered, KEYS.tab, 'j', 'u');
    await waitForText(rendered, 'Undo kube-system/fluentd to revision 1');
    expect(actions.calls[0]).toEqual({action: 'undo', request: {preview: true, toRevision: 1}});
  });

  test('keys that arrive before the next frame (j then u in one chunk) undo to the row j chose', async () => {
    const {rendered, actions} = start();
    await waitForText(rendered, 'Nodes 5');
    await press(rendered, KEYS.tab, 'ju');
    await waitForText(rendered, 'Undo kube-system/fluentd to revision 1');
    expect(actions.calls[0]).toEqual({action: 'undo', request: {preview: true, toRevision: 1}});
  });

  test('? shows help, ? closes it', async () => {
    const {rendered} = start();
    await waitForText(rendered, 'Nodes 5');
    await press(rendered, '?');
    await waitForText(rendered, 'Node states');
    await press(rendered, '?');
    await waitForText(rendered, 'Nodes 5');
  });

  test('q quits and unsubscribes', async () => {
    const {rendered, feed, quits} = start();
    await waitForText(rendered, 'Nodes 5');
    expect(feed.subscribers).toBe(1);
    await press(rendered, 'q');
    await tick(20);
    expect(quits()).toBe(1);
    expect(feed.subscribers).toBe(0);
  });

  test('a reconnecting feed shows in the header', async () => {
    const {rendered, feed} = start();
    await waitForText(rendered, '● live');
    feed.push(snapshotOf(handMadeState(), {connection: 'reconnecting'}));
    await waitForText(rendered, '◌ reconnecting…');
  });

  test('bursts of snapshots are coalesced; a snapshot that changes nothing redraws nothing', async () => {
    const {rendered, feed, frames} = start({redrawIntervalMs: 150});
    await waitForText(rendered, 'rollout stuck');
    expect(frames).toHaveLength(1);
    const outputs = rendered.frames.length;
    // Equal content, new objects: no view model reaches the screen, Ink writes nothing.
    for (let i = 0; i < 5; i++) feed.push(snapshotOf(handMadeState()));
    await tick(400);
    expect(frames).toHaveLength(1);
    expect(rendered.frames.length).toBe(outputs);
    // Twenty changes in a burst: one redraw, with the latest.
    for (let i = 0; i < 20; i++) feed.push(snapshotOf(handMadeState({healthy: i % 2 === 1})));
    await tick(400);
    expect(frames).toHaveLength(2);
    await waitForText(rendered, 'rollout in progress');
  });
});
