// Small formatters shared by the text renderers. Counts and lists are written as the core's messages write them.
export {formatCount, formatList, plural} from '../core/index.js';

/** Like formatDuration, with tenths under a minute (`2.1s`): for measured durations, where 2s and 2.4s differ. */
export function formatMeasuredDuration(seconds: number): string {
  return seconds < 60 ? `${Number(Math.max(0, seconds).toFixed(1))}s` : formatDuration(seconds);
}

/** A duration in seconds as `0s`, `45s`, `2m30s`, `2h13m`, `3d4h` (two units at most: it is a rough offset). */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  const units: Array<[string, number]> = [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ];
  const index = units.findIndex(([, size]) => s >= size);
  const [bigName, bigSize] = units[index]!;
  const [smallName, smallSize] = units[index + 1]!;
  const big = Math.floor(s / bigSize);
  const small = Math.floor((s - big * bigSize) / smallSize);
  return small > 0 ? `${big}${bigName}${small}${smallName}` : `${big}${bigName}`;
}

/** The first line of a live command's text output: which cluster it read (the session's label). */
export function clusterHeader(label: string): string {
  return `Cluster: ${label}\n`;
}
