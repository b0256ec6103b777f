// Aligned text columns, kubectl style: upper-case header, two spaces between columns, no borders.
import {visibleLength} from './color.js';

export interface TableOptions {
  readonly header?: readonly string[];
  /** Prefix of every line. */
  readonly indent?: string;
  /** Spaces between columns. */
  readonly gap?: number;
  /** Columns to right-align (by index). */
  readonly alignRight?: readonly number[];
}

/** The table's lines, trailing spaces removed. Cells may contain ANSI colour. */
export function renderTable(rows: readonly (readonly string[])[], options: TableOptions = {}): string[] {
  const all = options.header ? [options.header, ...rows] : rows;
  const columns = Math.max(0, ...all.map((row) => row.length));
  const widths = Array.from({length: columns}, (_, column) => Math.max(0, ...all.map((row) => visibleLength(row[column] ?? ''))));
  const gap = ' '.repeat(options.gap ?? 2);
  const right = new Set(options.alignRight ?? []);
  return all.map((row) => {
    const cells = widths.map((width, column) => {
      const cell = row[column] ?? '';
      const padding = ' '.repeat(width - visibleLength(cell));
      return right.has(column) ? padding + cell : cell + padding;
    });
    return `${options.indent ?? ''}${cells.join(gap)}`.trimEnd();
  });
}
