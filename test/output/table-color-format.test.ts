import {describe, expect, test} from 'vitest';
import {colorEnabled, palette, stripAnsi, visibleLength} from '../../src/output/color.js';
import {formatCount, formatDuration, formatList, plural} from '../../src/output/format.js';
import {renderTable} from '../../src/output/table.js';

describe('renderTable', () => {
  test('aligns columns two spaces apart and trims trailing spaces', () => {
    expect(
      renderTable(
        [
          ['a', 'long value', ''],
          ['bbb', 'x', 'z'],
        ],
        {header: ['K', 'VALUE', 'LAST']},
      ),
    ).toEqual(['K    VALUE       LAST', 'a    long value', 'bbb  x           z']);
  });

  test('measures cells without their colour codes', () => {
    const c = palette(true);
    const rows = renderTable([
      [c.green('ok'), 'x'],
      ['failed', 'y'],
    ]);
    expect(rows.map(stripAnsi)).toEqual(['ok      x', 'failed  y']);
  });

  test('right-aligns, indents, and accepts ragged rows', () => {
    expect(
      renderTable(
        [
          ['1', 'a'],
          ['10', 'b', 'extra'],
        ],
        {indent: '  ', alignRight: [0]},
      ),
    ).toEqual(['   1  a', '  10  b  extra']);
  });

  test('an empty table has no lines', () => {
    expect(renderTable([])).toEqual([]);
  });
});

describe('color', () => {
  test('off: every style is the identity', () => {
    const c = palette(false);
    expect([c.bold('a'), c.dim('b'), c.red('c'), c.green('d'), c.yellow('e'), c.cyan('f')]).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  test('on: SGR codes that close themselves, nothing around an empty string', () => {
    const c = palette(true);
    expect(c.red('x')).toBe('\u001B[31mx\u001B[39m');
    expect(c.bold('')).toBe('');
    expect(visibleLength(c.bold(c.green('héllo')))).toBe(5);
  });

  test.each([
    {name: 'a terminal', isTTY: true, env: {}, expected: true},
    {name: 'a pipe', isTTY: false, env: {}, expected: false},
    {name: 'NO_COLOR on a terminal', isTTY: true, env: {NO_COLOR: '1'}, expected: false},
    {name: 'an empty NO_COLOR', isTTY: true, env: {NO_COLOR: ''}, expected: true},
    {name: 'FORCE_COLOR on a pipe', isTTY: false, env: {FORCE_COLOR: '1'}, expected: true},
    {name: 'FORCE_COLOR=0 on a terminal', isTTY: true, env: {FORCE_COLOR: '0'}, expected: false},
    {name: 'NO_COLOR beats FORCE_COLOR', isTTY: false, env: {FORCE_COLOR: '1', NO_COLOR: '1'}, expected: false},
  ])('colour for $name: $expected', ({isTTY, env, expected}) => {
    expect(colorEnabled(isTTY, env)).toBe(expected);
  });
});

describe('format', () => {
  test.each([
    [0, '0s'],
    [0.4, '0s'],
    [45, '45s'],
    [60, '1m'],
    [150, '2m30s'],
    [3600, '1h'],
    [7980, '2h13m'],
    [7999, '2h13m'],
    [90_061, '1d1h'],
  ])('formatDuration(%s) = %s', (seconds, expected) => {
    expect(formatDuration(seconds)).toBe(expected);
  });

  test('counts, lists and plurals', () => {
    expect(formatCount(9990)).toBe('9,990');
    expect(formatList(['a', 'b', 'c', 'd', 'e'], 3)).toBe('a, b, c and 2 more');
    expect(formatList(['a', 'b'], 3)).toBe('a, b');
    expect(plural(1, 'node')).toBe('1 node');
    expect(plural(1200, 'node')).toBe('1,200 nodes');
  });
});
