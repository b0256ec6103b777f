// The fleet screen's pure parts: a row per cluster from the fleet feed's members, the view model fitted to a
// terminal, the keys and the reducer (drill in, back).
import {describe, expect, test} from 'vitest';
import type {FleetMemberView, FleetSnapshot} from '../../src/services/dashboard/fleet-feed.js';
import {fleetKeyToAction, fleetReducer, initialFleetState} from '../../src/ui/dashboard/fleet-state.js';
import {drilledLine, fleetRowOf, toFleetViewModel} from '../../src/ui/dashboard/fleet-view-model.js';
import {lineText} from '../../src/ui/dashboard/text.js';
import {handMadeState, snapshotOf} from './fixtures.js';

// Every pod on the new revision: the rollout is complete.
const done = handMadeState({healthy: true});
const complete = snapshotOf({
  ...done,
  pods: done.pods.map((pod) => ({...pod, metadata: {...pod.metadata, labels: {...pod.metadata.labels, 'controller-revision-hash': 'newhash'}}})),
});
const stuck = snapshotOf(handMadeState());

const MEMBERS: FleetMemberView[] = [
  {context: 'staging', server: 'https://10.0.0.1:6443', phase: 'following', snapshot: complete},
  {context: 'prod-east', phase: 'following', snapshot: stuck},
  {context: 'prod-west', phase: 'connecting'},
  {
    context: 'prod-down',
    phase: 'failed',
    state: 'unreachable',
    failure: {reason: 'Unreachable', message: 'cannot reach the cluster at https://10.0.3.4:6443: connection refused'},
    retrying: true,
  },
];
const FLEET: FleetSnapshot = {members: MEMBERS};
const INPUT = {snapshot: FLEET, name: 'fluentd', namespace: 'kube-system'};

describe('fleetRowOf: a cluster in the words of status --contexts', () => {
  test('a followed cluster: its verdict, revisions, updated pods, budget use and first blocker', () => {
    expect(fleetRowOf(MEMBERS[0]!)).toMatchObject({state: 'complete', stateToken: 'ok', revision: '2', updated: '4/4', budget: '-', note: ''});
    const row = fleetRowOf(MEMBERS[1]!);
    expect(row).toMatchObject({context: 'prod-east', state: 'stuck', stateToken: 'error', revision: '1->2', updated: '2/4', budget: '1/1 unavailable'});
    expect(row.note).toMatch(/fluentd-b/);
    expect(row.closed).toBeUndefined();
  });

  test("the feed's trouble outranks the blocker, and a reconnecting cluster shows so", () => {
    const row = fleetRowOf({context: 'x', phase: 'following', snapshot: {...stuck, connection: 'reconnecting', error: 'not answering; still trying'}});
    expect(row).toMatchObject({glyph: {text: '○', token: 'warn'}, note: 'not answering; still trying', noteToken: 'warn'});
  });

  test('connecting and failed clusters are rows with dashes, and say why Enter opens nothing', () => {
    expect(fleetRowOf(MEMBERS[2]!)).toMatchObject({state: 'connecting', revision: '-', closed: 'still connecting: nothing to show yet'});
    expect(fleetRowOf(MEMBERS[3]!)).toMatchObject({
      state: 'unreachable',
      stateToken: 'error',
      budget: '-',
      note: expect.stringContaining('connection refused') as string,
      closed: 'unreachable: no screen to open (asked again shortly)',
    });
  });
});

describe('toFleetViewModel', () => {
  const text = (vm: ReturnType<typeof toFleetViewModel>) => [
    ...vm.header.map(lineText),
    lineText(vm.table.header),
    ...vm.table.rows.map((row) => lineText(row.line)),
    lineText(vm.status),
    lineText(vm.footer),
  ];

  test('a title, the count line, a row per cluster in the order asked, the selected row marked', () => {
    const lines = text(toFleetViewModel(INPUT, initialFleetState(), {columns: 120, rows: 20}));
    expect(lines[0]).toBe('DaemonSet kube-system/fluentd  on 4 clusters, each followed live');
    expect(lines[1]).toBe('4 clusters: 1 complete, 1 stuck, 1 unreachable, 1 connecting');
    expect(lines.slice(2, 7)).toEqual([
      '    CONTEXT    STATE        REVISION  UPDATED  BUDGET           BLOCKER',
      '› ● staging    complete     2         4/4      -                ',
      '  ● prod-east  stuck        1->2      2/4      1/1 unavailable  pod fluentd-b on node-b is not ready (CrashLoopBackOff)',
      '  … prod-west  connecting   -         -        -                ',
      '  ✖ prod-down  unreachable  -         -        -                cannot reach the cluster at https://10.0.3.4:6443: conn…',
    ]);
    expect(lines[7]).toBe("enter opens staging's screen; esc there comes back here");
    expect(lines[8]).toBe('↑↓ j k move  enter open  ? help  q quit');
  });

  test('fits the width: every line at most the columns, the last column cut', () => {
    const vm = toFleetViewModel(INPUT, initialFleetState(), {columns: 60, rows: 20});
    for (const line of text(vm)) expect([...line].length).toBeLessThanOrEqual(60);
    expect(lineText(vm.table.rows[3]!.line)).toMatch(/…$/);
  });

  test('a short screen shows a window of rows that keeps the cursor in view', () => {
    const vm = toFleetViewModel(INPUT, {...initialFleetState(), cursor: 3}, {columns: 100, rows: 8});
    expect(vm.table.listRows).toBe(2);
    expect(vm.table.rows.map((row) => [row.context, row.selected])).toEqual([
      ['prod-west', false],
      ['prod-down', true],
    ]);
    expect(lineText(vm.status)).toBe('prod-down: unreachable: no screen to open (asked again shortly)');
    expect(vm.nav).toMatchObject({rows: 4, contexts: ['staging', 'prod-east', 'prod-west', 'prod-down']});
  });

  test('help replaces the rows; a notice takes the status line', () => {
    const vm = toFleetViewModel(INPUT, {...initialFleetState(), help: true, notice: {text: 'prod-down: no'}}, {columns: 100, rows: 20});
    expect(vm.help?.map(lineText)).toContain("enter   open the cluster's screen");
    expect(lineText(vm.status)).toBe('prod-down: no');
  });

  test("the line above a cluster's screen: where it is, the fleet's counts, the way back", () => {
    expect(lineText(drilledLine(INPUT, 'prod-east', 200))).toBe('Fleet › prod-east  4 clusters: 1 complete, 1 stuck, 1 unreachable, 1 connecting  esc back');
  });
});

describe('the fleet keys and reducer', () => {
  const key = (input: string, extra: Record<string, boolean> = {}) => fleetKeyToAction(input, extra, {help: false});

  test('keys: moves, enter opens, ? help, q quits; in help only the keys that close it', () => {
    expect(key('j')).toEqual({type: 'move', by: 'line', direction: 1});
    expect(key('', {upArrow: true})).toEqual({type: 'move', by: 'line', direction: -1});
    expect(key('G')).toEqual({type: 'move', by: 'edge', direction: 1});
    expect(key('', {return: true})).toEqual({type: 'open'});
    expect(key('q')).toEqual({type: 'quit'});
    expect(key('c', {ctrl: true})).toEqual({type: 'quit'});
    expect(key('s')).toBeUndefined();
    expect(fleetKeyToAction('j', {}, {help: true})).toBeUndefined();
    expect(fleetKeyToAction('', {escape: true}, {help: true})).toEqual({type: 'toggle-help'});
  });

  test('moves stay within the rows', () => {
    let state = initialFleetState();
    state = fleetReducer(state, {type: 'move', by: 'line', direction: -1, rows: 4});
    expect(state.cursor).toBe(0);
    state = fleetReducer(state, {type: 'move', by: 'edge', direction: 1, rows: 4});
    expect(state.cursor).toBe(3);
    state = fleetReducer(state, {type: 'move', by: 'line', direction: 1, rows: 4});
    expect(state.cursor).toBe(3);
    state = fleetReducer(state, {type: 'move', by: 'page', direction: -1, rows: 4, page: 2});
    expect(state.cursor).toBe(1);
  });

  test('open drills into a followed cluster, back returns; a cluster without a screen leaves a notice instead', () => {
    const opened = fleetReducer(initialFleetState(), {type: 'open', context: 'prod-east'});
    expect(opened.drilled).toBe('prod-east');
    expect(fleetReducer(opened, {type: 'back'}).drilled).toBeUndefined();
    const refused = fleetReducer(initialFleetState(), {type: 'open', context: 'prod-down', why: 'unreachable: no screen to open', now: 5});
    expect(refused.drilled).toBeUndefined();
    expect(refused.notice).toEqual({text: 'prod-down: unreachable: no screen to open', at: 5});
    expect(fleetReducer(refused, {type: 'move', by: 'line', direction: 1, rows: 4}).notice).toBeUndefined();
  });
});
