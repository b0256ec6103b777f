import {describe, expect, test} from 'vitest';
import {computeLayout, determineCompactionLevel, type LayoutInput} from '../../src/ui/dashboard/layout.js';

describe('determineCompactionLevel', () => {
  test.each([
    {rows: 24, columns: 80, level: 'compact'},
    {rows: 40, columns: 120, level: 'full'},
    {rows: 60, columns: 200, level: 'full'},
    {rows: 48, columns: 160, level: 'full'},
    {rows: 50, columns: 100, level: 'compact'},
    {rows: 30, columns: 200, level: 'compact'},
    {rows: 12, columns: 50, level: 'minimal'},
    {rows: 24, columns: 60, level: 'minimal'},
    {rows: 17, columns: 200, level: 'minimal'},
  ])('$columns x $rows -> $level', ({rows, columns, level}) => {
    expect(determineCompactionLevel(rows, columns)).toBe(level);
  });
});

const base: LayoutInput = {nodeCount: 20, revisionCount: 2, showDiff: false, expanded: false, help: false};
const sizes = [
  {columns: 80, rows: 24},
  {columns: 120, rows: 40},
  {columns: 160, rows: 48},
  {columns: 200, rows: 60},
  {columns: 50, rows: 12},
];
const variants: Array<{name: string; input: LayoutInput}> = [
  {name: '20 nodes', input: base},
  {name: '5,000 nodes', input: {...base, nodeCount: 5000}},
  {name: '5,000 nodes with the diff', input: {...base, nodeCount: 5000, showDiff: true, revisionCount: 10}},
  {name: 'expanded detail', input: {...base, expanded: true}},
  {name: 'help', input: {...base, help: true}},
  {name: 'no nodes', input: {...base, nodeCount: 0}},
];

describe.each(sizes)('computeLayout at $columns x $rows', (size) => {
  test.each(variants)('$name: the panes add up to the screen, one line short of the terminal', ({input}) => {
    const layout = computeLayout(size, input);
    expect(layout.height).toBe(size.rows - 1);
    expect(layout.headerLines + layout.gaugeLines + layout.bodyHeight + 2).toBe(layout.height);
    if (layout.takeover === 'none') {
      const nodePane = 1 + (layout.grid?.height ?? 0) + layout.legendLines + 1 + layout.listRows;
      expect(nodePane).toBe(layout.nodes.height);
      const side = (layout.detail?.height ?? 0) + (layout.revisions?.height ?? 0);
      if (layout.split) {
        expect(layout.nodes.height).toBe(layout.bodyHeight);
        expect(side).toBe(layout.bodyHeight);
        expect(layout.nodes.width + 1 + (layout.detail?.width ?? 0)).toBe(size.columns);
      } else {
        expect(layout.nodes.height + side).toBe(layout.bodyHeight);
      }
    } else {
      expect(layout.nodes.height).toBe(0);
    }
    if (layout.grid) {
      // Every node has a cell, and the grid does not use more rows than it needs.
      expect(layout.grid.height * layout.grid.width * layout.grid.nodesPerCell).toBeGreaterThanOrEqual(input.nodeCount);
      expect((layout.grid.height - 1) * layout.grid.width * layout.grid.nodesPerCell).toBeLessThan(input.nodeCount);
    }
  });
});

describe('what each level shows', () => {
  test('full: nodes left, detail and revisions right; a grid only when the list cannot hold every node', () => {
    const small = computeLayout({columns: 160, rows: 48}, base);
    expect(small).toMatchObject({level: 'full', split: true});
    expect(small.grid).toBeUndefined();
    const large = computeLayout({columns: 200, rows: 60}, {...base, nodeCount: 5000});
    expect(large.grid).toMatchObject({width: 110, nodesPerCell: 3});
  });

  test('compact: the diff replaces the detail pane', () => {
    expect(computeLayout({columns: 80, rows: 24}, base).detail).toBeDefined();
    const diff = computeLayout({columns: 80, rows: 24}, {...base, showDiff: true});
    expect(diff.detail).toBeUndefined();
    expect(diff.revisions).toBeDefined();
  });

  test('minimal: the list alone; the diff and the detail take the whole body', () => {
    const list = computeLayout({columns: 50, rows: 12}, base);
    expect(list).toMatchObject({level: 'minimal', legendLines: 0, takeover: 'none'});
    expect(list.grid).toBeUndefined();
    expect(computeLayout({columns: 50, rows: 12}, {...base, showDiff: true}).takeover).toBe('revisions');
    expect(computeLayout({columns: 50, rows: 12}, {...base, expanded: true}).takeover).toBe('detail');
  });

  test('absurdly small terminals still get a screen', () => {
    const layout = computeLayout({columns: 10, rows: 3}, base);
    expect(layout.columns).toBe(40);
    expect(layout.bodyHeight).toBeGreaterThanOrEqual(1);
  });
});
