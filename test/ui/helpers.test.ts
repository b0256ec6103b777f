// The small pure pieces under the view model: pace, text fitting, theme, revision entries and diffs.
import {describe, expect, test} from 'vitest';
import {observedPace, type ProgressSample, recordProgress} from '../../src/ui/dashboard/pace.js';
import {diffRevisionTemplates, compactImages} from '../../src/ui/dashboard/revision-diff.js';
import {toRevisionEntries} from '../../src/services/dashboard/revision-entries.js';
import {fit, fitLine, lineText, mergeSegments, seg, truncate, wrapLine} from '../../src/ui/dashboard/text.js';
import {DEFAULT_THEME, themeFor} from '../../src/ui/dashboard/theme.js';
import {handMadeState} from './fixtures.js';

const MIN = 60_000;

describe('pace', () => {
  test('updated pods per minute over the window', () => {
    let samples: ProgressSample[] = [];
    samples = recordProgress(samples, {at: 0, updated: 10});
    samples = recordProgress(samples, {at: MIN, updated: 12});
    samples = recordProgress(samples, {at: 2 * MIN, updated: 16});
    expect(observedPace(samples, 2 * MIN)).toBe(3);
  });

  test('an unchanged count adds no sample; the pace falls while nothing moves', () => {
    let samples = recordProgress([], {at: 0, updated: 0});
    samples = recordProgress(samples, {at: MIN, updated: 4});
    expect(recordProgress(samples, {at: 1.5 * MIN, updated: 4})).toEqual(samples);
    expect(observedPace(samples, MIN)).toBe(4);
    expect(observedPace(samples, 4 * MIN)).toBe(1);
  });

  test('no pace before progress is seen', () => {
    expect(observedPace([], 0)).toBeUndefined();
    expect(observedPace(recordProgress([], {at: 0, updated: 3}), MIN)).toBeUndefined();
  });

  test('a count that goes down (an undo) starts over; old samples leave the window', () => {
    const samples = [
      {at: 0, updated: 1},
      {at: MIN, updated: 5},
    ];
    expect(recordProgress(samples, {at: 2 * MIN, updated: 2})).toEqual([{at: 2 * MIN, updated: 2}]);
    expect(recordProgress(samples, {at: 5.5 * MIN, updated: 6})).toEqual([
      {at: MIN, updated: 5},
      {at: 5.5 * MIN, updated: 6},
    ]);
  });
});

describe('text', () => {
  test.each([
    {text: 'worker-01', size: 12, want: 'worker-01   '},
    {text: 'worker-01', size: 9, want: 'worker-01'},
    {text: 'worker-001', size: 9, want: 'worker-0…'},
    {text: 'abc', size: 0, want: ''},
  ])('fit($text, $size)', ({text, size, want}) => {
    expect(fit(text, size)).toBe(want);
  });

  test('truncate counts glyphs as one column', () => {
    expect(truncate('●●●●', 3)).toBe('●●…');
  });

  test('fitLine cuts across segments and keeps their tokens', () => {
    expect(fitLine([seg('abc', 'ok'), seg('defg', 'error'), seg('h')], 5)).toEqual([seg('abc', 'ok'), seg('d…', 'error')]);
  });

  test('mergeSegments joins neighbours with one token', () => {
    expect(mergeSegments([seg('a', 'old'), seg('b', 'old'), seg('c', 'updated'), seg('', 'old')])).toEqual([seg('ab', 'old'), seg('c', 'updated')]);
  });

  test('wrapLine breaks at spaces, indents continuations, keeps tokens', () => {
    const lines = wrapLine([seg('blocks: ', 'error'), seg('pod fluentd-b on node-b is not ready', 'text')], 20);
    expect(lines.map(lineText)).toEqual(['blocks: pod', '  fluentd-b on', '  node-b is not', '  ready']);
    expect(lines[0]![0]).toEqual(seg('blocks: ', 'error'));
  });
});

describe('theme', () => {
  test('colours by default', () => {
    expect(themeFor({}).updated).toEqual({color: 'green'});
    expect(themeFor({NO_COLOR: ''}).blocked.color).toBe('red');
  });

  test('NO_COLOR: no colour anywhere; inverse, bold and dim stay', () => {
    const theme = themeFor({NO_COLOR: '1'});
    for (const style of Object.values(theme)) expect(style.color).toBeUndefined();
    expect(theme.selected).toEqual({inverse: true});
    expect(theme.blocked).toEqual({bold: true});
    expect(theme.muted).toEqual({dimColor: true});
    expect(Object.keys(theme).sort()).toEqual(Object.keys(DEFAULT_THEME).sort());
  });
});

describe('revisions', () => {
  const state = handMadeState();

  test('only the DaemonSet own revisions, oldest first, with their templates', () => {
    const foreign = {...state.revisions[0]!, metadata: {...state.revisions[0]!.metadata, name: 'other-x', ownerReferences: []}};
    const entries = toRevisionEntries(state.daemonSet, [state.revisions[1]!, foreign, state.revisions[0]!]);
    expect(entries.map((e) => [e.revision, e.hash, e.name, compactImages(e.template)])).toEqual([
      [1, 'oldhash', 'fluentd-oldhash', 'fluentd:v1'],
      [2, 'newhash', 'fluentd-newhash', 'fluentd:v2'],
    ]);
  });

  test('images of several containers are named', () => {
    expect(
      compactImages({
        spec: {
          containers: [
            {name: 'a', image: 'x:1'},
            {name: 'b', image: 'y:2'},
          ],
        },
      }),
    ).toBe('a=x:1, b=y:2');
    expect(compactImages(undefined)).toBe('');
  });

  test('the diff of two revisions; nothing for equal templates', () => {
    const [v1, v2] = toRevisionEntries(state.daemonSet, state.revisions);
    expect(diffRevisionTemplates(v1!, v2!).filter((l) => /^[-+]/.test(l))).toEqual(['-  main: fluentd:v1', '+  main: fluentd:v2']);
    expect(diffRevisionTemplates(v2!, v2!)).toEqual([]);
  });
});
