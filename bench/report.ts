export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function report(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Starts each timed run with a clean heap (node --expose-gc), so one run's garbage is not billed to the next. */
export function collectGarbage(): void {
  (globalThis as {gc?: () => void}).gc?.();
}
