// The gates panel: each gate's reading for the stage under way of a gated rollout.
import type {GatedProgress} from '../../../core/index.js';
import {fitLine, type Line, seg, width} from '../text.js';

const VERDICT_MARKS = {pass: ['ok', 'pass'], fail: ['error', 'FAIL'], inconclusive: ['warn', '??'], pending: ['muted', '...']} as const;

/**
 * The gates panel of a gated rollout: a title naming the stage, then one line per gate (its verdict, name, value
 * and bound), cut to `columns`. Empty without readings (no gated rollout, or none judged yet).
 */
export function gatesPanelLines(gated: GatedProgress | undefined, columns: number): Line[] {
  const readings = gated?.readings ?? [];
  if (!gated || readings.length === 0) return [];
  const nameWidth = Math.max(...readings.map((r) => width(r.name)));
  const fitTo = (line: Line) => (Number.isFinite(columns) ? fitLine(line, columns) : line);
  return [
    fitTo([seg(`Gates of stage ${gated.stage}/${gated.stages} ${gated.name}`, 'title')]),
    ...readings.map((reading) => {
      const [token, mark] = VERDICT_MARKS[reading.verdict];
      return fitTo([
        seg(`  ${mark.padEnd(4)} `, token),
        seg(`${reading.name.padEnd(nameWidth)}  `, 'text'),
        seg(reading.value, reading.verdict === 'fail' ? 'error' : 'text'),
        seg(`  (bound ${reading.bound})`, 'muted'),
      ]);
    }),
  ];
}
