// DS_ROLLOUT_TIMINGS=1: where a command's time went, as one line on stderr when it ends (start-up, then each phase a
// service marks). Marks cost next to nothing, so they stay in; the line is the benchmark's profile breakdown.
const PREFIX = 'ds-rollout:';

/** Ends the phase `name` (it began where the previous mark, or start-up, ended). */
export function markPhase(name: string): void {
  performance.mark(`${PREFIX}${name}`);
}

/** `start-up 90 ms, read 340 ms, plan 100 ms, output 20 ms (total 550 ms)`: the phases marked so far, then `last`. */
export function timingsLine(last: string): string {
  markPhase(last);
  let previous = 0;
  const phases = performance
    .getEntriesByType('mark')
    .filter((entry) => entry.name.startsWith(PREFIX))
    .map((entry) => {
      const ms = entry.startTime - previous;
      previous = entry.startTime;
      return `${entry.name.slice(PREFIX.length)} ${ms.toFixed(0)} ms`;
    });
  return `timings: ${phases.join(', ')} (total ${previous.toFixed(0)} ms since the process started)`;
}
