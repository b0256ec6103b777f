import {execFile} from 'node:child_process';

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Another build of the project to time in the same rounds (DS_ROLLOUT_BENCH_BASELINE: a checkout with `npm run build`
 * done, e.g. a `git worktree` of an older commit): same-minute figures of two versions on a shared machine.
 */
export function baselineCheckout(): string | undefined {
  return process.env['DS_ROLLOUT_BENCH_BASELINE'] || undefined;
}

/** `(goal 1.2x: ok)` or `(goal 1.2x: OVER)`: a ratio beside its goal. */
export function verdict(ratio: number, goal: number): string {
  return `(goal ${goal}x: ${ratio <= goal ? 'ok' : 'OVER'})`;
}

export function report(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Starts each timed run with a clean heap (node --expose-gc), so one run's garbage is not billed to the next. */
export function collectGarbage(): void {
  (globalThis as {gc?: () => void}).gc?.();
}

export interface ChildRun {
  readonly ms: number;
  readonly stderr: string;
}

/**
 * Runs a child asynchronously (a blocking spawn would starve a cluster served by this process), its time measured
 * from spawn to exit.
 */
export function runChild(file: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    execFile(file, [...args], {env, maxBuffer: 512 * 1024 * 1024}, (error, _stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')} failed: ${stderr || error.message}`));
      else resolve({ms: performance.now() - t0, stderr});
    });
  });
}

/** Medians of paired runs: each round runs every command once, in an order that rotates from round to round. */
export async function pairedMedians(commands: readonly (() => Promise<ChildRun>)[], rounds: number): Promise<number[]> {
  const times = commands.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < commands.length; k++) {
      const i = (k + round) % commands.length;
      times[i]!.push((await commands[i]!()).ms);
    }
  }
  return times.map(median);
}

/**
 * The median of each phase over runs of a command with DS_ROLLOUT_TIMINGS=1 (src/platform/timings.ts), as
 * `start-up 60 ms, read 380 ms, ...`.
 */
export async function phaseBreakdown(run: () => Promise<ChildRun>, runs: number): Promise<string> {
  const phases = new Map<string, number[]>();
  for (let i = 0; i < runs; i++) {
    const line = (await run()).stderr.split('\n').find((text) => text.startsWith('timings: ')) ?? '';
    for (const [, name, ms] of line.matchAll(/(?:timings: |, )([\w-]+) (\d+) ms/g)) phases.set(name!, [...(phases.get(name!) ?? []), Number(ms)]);
  }
  return [...phases].map(([name, values]) => `${name} ${median(values).toFixed(0)} ms`).join(', ');
}
