// The rollout's observed pace (updated pods per minute) from samples the container takes as snapshots arrive.
// An ETA from what the cluster actually did, not from the plan's optimistic model.

export interface ProgressSample {
  /** ms since the epoch. */
  readonly at: number;
  readonly updated: number;
}

/** How far back the pace looks: long enough to smooth waves, short enough to follow a pause. */
export const PACE_WINDOW_MS = 5 * 60_000;

/** Appends a sample (when the count changed) and drops those older than the window; returns a new array. */
export function recordProgress(samples: readonly ProgressSample[], sample: ProgressSample, windowMs = PACE_WINDOW_MS): ProgressSample[] {
  const last = samples[samples.length - 1];
  // A count that went down (an undo, a new rollout) starts a new measurement.
  const kept = last !== undefined && sample.updated < last.updated ? [] : samples.filter((s) => s.at >= sample.at - windowMs);
  const tail = kept[kept.length - 1];
  if (tail !== undefined && tail.updated === sample.updated) return kept;
  return [...kept, sample];
}

/**
 * Updated pods per minute between the oldest sample in the window and `now`, or undefined before two samples
 * show progress. Measuring up to `now` (not the last sample) lets the pace fall while nothing moves.
 */
export function observedPace(samples: readonly ProgressSample[], now: number): number | undefined {
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (first === undefined || last === undefined || last.updated <= first.updated) return undefined;
  const minutes = (Math.max(now, last.at) - first.at) / 60_000;
  if (minutes <= 0) return undefined;
  return (last.updated - first.updated) / minutes;
}
