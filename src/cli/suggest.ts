// "Did you mean ...?" for mistyped commands and flags: the nearest known word by edit distance, as cobra suggests.
// Pure and dependency-free: imported by the error printer and the bundled entry (unknown commands) at start-up.

/** Levenshtein distance (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({length: b.length + 1}, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}

/** The nearest candidate within cobra's distance of 2, or one that `typed` is a prefix of; undefined when none is close. */
export function nearest(typed: string, candidates: readonly string[]): string | undefined {
  let best: {word: string; distance: number} | undefined;
  for (const word of candidates) {
    const distance = word.startsWith(typed) && typed.length > 0 ? 0.5 : editDistance(typed.toLowerCase(), word.toLowerCase());
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = {word, distance};
  }
  return best?.word;
}
