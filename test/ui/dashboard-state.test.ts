import {describe, expect, test} from 'vitest';
import {atOutermostLayer, type DashboardAction, dashboardReducer, type DashboardState, initialDashboardState} from '../../src/ui/dashboard/dashboard-state.js';

const T = 1_790_000_000_000;
const limits = {nodes: 20, revisions: 3, page: 5};

function run(actions: DashboardAction[], start: DashboardState = initialDashboardState()): DashboardState {
  return actions.reduce(dashboardReducer, start);
}

describe('moving', () => {
  const cases: Array<{name: string; actions: DashboardAction[]; cursor: number}> = [
    {name: 'down one', actions: [{type: 'move', by: 'line', direction: 1, limits}], cursor: 1},
    {name: 'never above the first node', actions: [{type: 'move', by: 'line', direction: -1, limits}], cursor: 0},
    {name: 'a page', actions: [{type: 'move', by: 'page', direction: 1, limits}], cursor: 5},
    {name: 'to the last node', actions: [{type: 'move', by: 'edge', direction: 1, limits}], cursor: 19},
    {
      name: 'never past the last node',
      actions: [
        {type: 'move', by: 'edge', direction: 1, limits},
        {type: 'move', by: 'line', direction: 1, limits},
      ],
      cursor: 19,
    },
    {
      name: 'back to the first',
      actions: [
        {type: 'move', by: 'page', direction: 1, limits},
        {type: 'move', by: 'edge', direction: -1, limits},
      ],
      cursor: 0,
    },
    {name: 'without limits (before the first plan) stays at 0 going up', actions: [{type: 'move', by: 'line', direction: -1}], cursor: 0},
  ];
  test.each(cases)('$name', ({actions, cursor}) => {
    expect(run(actions).cursor).toBe(cursor);
  });

  test('with the revision pane focused, the revision cursor moves instead', () => {
    const state = run([{type: 'switch-focus'}, {type: 'move', by: 'line', direction: 1, limits}, {type: 'move', by: 'edge', direction: 1, limits}]);
    expect(state).toMatchObject({focus: 'revisions', revisionCursor: 2, cursor: 0});
  });
});

describe('selecting, panes and help', () => {
  test('enter expands the node detail and enter again closes it', () => {
    expect(run([{type: 'select'}]).expanded).toBe(true);
    expect(run([{type: 'select'}, {type: 'select'}]).expanded).toBe(false);
  });

  test('enter in the revision pane marks up to two revisions and shows the diff', () => {
    const state = run([{type: 'switch-focus'}, {type: 'select', revision: 3}, {type: 'select', revision: 2}, {type: 'select', revision: 1}]);
    expect(state.marked).toEqual([2, 1]);
    expect(state.showDiff).toBe(true);
    expect(run([{type: 'select', revision: 1}], state).marked).toEqual([2]);
  });

  test('esc peels one layer at a time', () => {
    let state = run([
      {type: 'filter-start'},
      {type: 'filter-input', text: 'old'},
      {type: 'filter-accept'},
      {type: 'switch-focus'},
      {type: 'select', revision: 1},
    ]);
    state = dashboardReducer(state, {type: 'close'});
    expect(state.marked).toEqual([]);
    state = dashboardReducer(state, {type: 'close'});
    expect(state.focus).toBe('nodes');
    state = dashboardReducer(state, {type: 'close'});
    expect(state.filter).toBe('');
  });

  test('the outermost layer (esc goes back to the fleet from there): nothing open, no prompt, no action running', () => {
    const initial = initialDashboardState();
    expect(atOutermostLayer(initial)).toBe(true);
    expect(atOutermostLayer(dashboardReducer(initial, {type: 'select'}))).toBe(false);
    expect(atOutermostLayer(run([{type: 'filter-start'}, {type: 'filter-input', text: 'x'}, {type: 'filter-accept'}]))).toBe(false);
    expect(atOutermostLayer(run([{type: 'switch-focus'}]))).toBe(false);
    const stepping = run([{type: 'request', action: 'step'}, {type: 'confirm'}]);
    expect([stepping.running?.action, atOutermostLayer(stepping)]).toEqual(['step', false]);
    expect(atOutermostLayer(dashboardReducer(stepping, {type: 'action-done', id: stepping.running!.id, message: 'done'}))).toBe(true);
  });

  test('d toggles the diff; ? toggles help', () => {
    expect(run([{type: 'toggle-diff'}]).showDiff).toBe(true);
    expect(run([{type: 'toggle-help'}]).mode).toBe('help');
    expect(run([{type: 'toggle-help'}, {type: 'toggle-help'}]).mode).toBe('normal');
    expect(run([{type: 'toggle-help'}, {type: 'close'}]).mode).toBe('normal');
  });
});

describe('filter', () => {
  test('typing filters at once and resets the cursor', () => {
    const state = run([
      {type: 'move', by: 'page', direction: 1, limits},
      {type: 'filter-start'},
      {type: 'filter-input', text: 'wor'},
      {type: 'filter-input', text: 'k'},
    ]);
    expect(state).toMatchObject({mode: 'filter', filter: 'work', cursor: 0});
  });

  test('backspace, then enter keeps the filter (trimmed)', () => {
    const state = run([
      {type: 'filter-start'},
      {type: 'filter-input', text: 'old '},
      {type: 'filter-input', text: 'x'},
      {type: 'filter-backspace'},
      {type: 'filter-accept'},
    ]);
    expect(state).toMatchObject({mode: 'normal', filter: 'old'});
  });

  test('esc restores the filter from before', () => {
    const kept = run([{type: 'filter-start'}, {type: 'filter-input', text: 'old'}, {type: 'filter-accept'}]);
    const state = run([{type: 'filter-start'}, {type: 'filter-input', text: 'xyz'}, {type: 'filter-cancel'}], kept);
    expect(state).toMatchObject({mode: 'normal', filter: 'old'});
  });

  test('typing outside filter mode changes nothing', () => {
    expect(run([{type: 'filter-input', text: 'a'}]).filter).toBe('');
  });
});

describe('actions', () => {
  const kinds = ['step', 'pause', 'resume'] as const;

  test.each(kinds)('%s asks first, runs on y, and shows the result', (kind) => {
    let state = run([{type: 'request', action: kind, now: T}]);
    expect(state).toMatchObject({mode: 'confirm', confirm: {action: kind}});
    expect(state.running).toBeUndefined();
    state = dashboardReducer(state, {type: 'confirm', now: T});
    expect(state).toMatchObject({mode: 'normal', running: {id: 1, action: kind, preview: false}});
    state = dashboardReducer(state, {type: 'action-done', id: 1, message: `${kind} ok`, now: T + 1});
    expect(state.running).toBeUndefined();
    expect(state.status).toEqual({kind: 'success', text: `${kind} ok`, at: T + 1});
  });

  test.each(kinds)('%s cancelled with n runs nothing', (kind) => {
    const state = run([
      {type: 'request', action: kind, now: T},
      {type: 'cancel', now: T},
    ]);
    expect(state).toMatchObject({mode: 'normal', status: {kind: 'info', text: `${kind} cancelled`}});
    expect(state.running).toBeUndefined();
  });

  test('a running step reports progress in the status line; late lines are dropped', () => {
    let state = run([{type: 'request', action: 'step'}, {type: 'confirm'}, {type: 'progress', id: 1, text: 'deleted pod fluentd-x on worker-09', now: T}]);
    expect(state.status).toEqual({kind: 'info', text: 'deleted pod fluentd-x on worker-09', at: T});
    state = run(
      [
        {type: 'action-done', id: 1, message: 'wave 3 landed'},
        {type: 'progress', id: 1, text: 'late'},
      ],
      state,
    );
    expect(state.status?.text).toBe('wave 3 landed');
  });

  test('a failure shows the error', () => {
    const state = run([{type: 'request', action: 'pause'}, {type: 'confirm'}, {type: 'action-failed', id: 1, error: 'forbidden', now: T}]);
    expect(state.status).toEqual({kind: 'error', text: 'pause failed: forbidden', at: T});
  });

  test('an answer for another request is ignored', () => {
    const state = run([{type: 'request', action: 'pause'}, {type: 'confirm'}, {type: 'action-done', id: 99, message: 'stale'}]);
    expect(state.running?.id).toBe(1);
  });

  test('one action at a time', () => {
    const state = run([{type: 'request', action: 'pause'}, {type: 'confirm'}, {type: 'request', action: 'step', now: T}]);
    expect(state.mode).toBe('normal');
    expect(state.status?.text).toMatch(/Pausing… wait for it to finish/);
  });

  test.each(['step', 'pause', 'resume', 'undo'] as const)('--readonly: %s only says it is disabled', (kind) => {
    const state = run([{type: 'request', action: kind, now: T}], initialDashboardState({readonly: true}));
    expect(state.mode).toBe('normal');
    expect(state.running).toBeUndefined();
    expect(state.status).toEqual({kind: 'info', text: `read-only (--readonly): ${kind} is disabled`, at: T});
  });

  test('undo previews first (diff pane open), then asks, then runs for real', () => {
    let state = run([{type: 'request', action: 'undo', toRevision: 1, now: T}]);
    expect(state).toMatchObject({mode: 'confirm', showDiff: true, running: {id: 1, action: 'undo', preview: true, toRevision: 1}});
    // y before the preview answered does nothing
    expect(dashboardReducer(state, {type: 'confirm'})).toBe(state);
    state = dashboardReducer(state, {type: 'action-done', id: 1, message: 'would roll back to revision 1', diff: ['-a', '+b']});
    expect(state.confirm?.preview).toEqual({message: 'would roll back to revision 1', diff: ['-a', '+b']});
    state = dashboardReducer(state, {type: 'confirm', now: T});
    expect(state.running).toEqual({id: 2, action: 'undo', preview: false, toRevision: 1});
  });

  test('a failed undo preview closes the prompt with the error', () => {
    const state = run([
      {type: 'request', action: 'undo'},
      {type: 'action-failed', id: 1, error: 'no previous revision', now: T},
    ]);
    expect(state).toMatchObject({mode: 'normal', status: {kind: 'error', text: 'undo: no previous revision'}});
    expect(state.confirm).toBeUndefined();
  });

  test('cancelling during the undo preview drops it', () => {
    const state = run([{type: 'request', action: 'undo'}, {type: 'cancel'}, {type: 'action-done', id: 1, message: 'late'}]);
    expect(state.running).toBeUndefined();
    expect(state.status?.text).toBe('undo cancelled');
  });

  test('q sets quit', () => {
    expect(run([{type: 'quit'}]).quit).toBe(true);
  });

  test('the reducer never mutates its input', () => {
    const start = Object.freeze(initialDashboardState());
    expect(() => run([{type: 'move', by: 'line', direction: 1, limits}, {type: 'request', action: 'undo'}, {type: 'toggle-help'}], start)).not.toThrow();
  });
});
