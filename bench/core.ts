// Benchmark of the reconcile core: planRollout (every wave to convergence) and one syncDaemonSet.
// Targets (issue 2): full plan for 5,000 nodes within 100 ms; 50,000 nodes within 12x the 5,000 time.
import {join} from 'node:path';
import {pathToFileURL} from 'node:url';
import {decodeObject, planRollout, readStoredObjects, syncDaemonSet} from '../src/core/index.js';
import {BENCH_NOW, syntheticCluster} from './synthetic-cluster.js';
import {baselineCheckout, collectGarbage, median, report} from './report.js';

export async function benchCore(): Promise<Record<string, number>> {
  const figures: Record<string, number> = {};
  for (const strategy of [
    {maxUnavailable: 1, maxSurge: 0},
    {maxUnavailable: 0, maxSurge: '10%'},
  ]) {
    const label = strategy.maxSurge === 0 ? 'maxUnavailable=1' : 'maxSurge=10%';
    for (const nodes of [1000, 5000, 50000]) {
      const state = syntheticCluster(nodes, strategy);
      const runs = nodes >= 50000 ? 3 : 7;
      const planTimes: number[] = [];
      let waves = 0;
      for (let i = 0; i < runs; i++) {
        collectGarbage();
        const t0 = performance.now();
        waves = planRollout(state, {now: BENCH_NOW}).waves.length;
        planTimes.push(performance.now() - t0);
      }
      const syncTimes: number[] = [];
      for (let i = 0; i < runs; i++) {
        collectGarbage();
        const t0 = performance.now();
        syncDaemonSet(state, {now: BENCH_NOW});
        syncTimes.push(performance.now() - t0);
      }
      figures[`plan ${label} ${nodes}`] = median(planTimes);
      figures[`sync ${label} ${nodes}`] = median(syncTimes);
      report(
        `core  planRollout ${label.padEnd(16)} ${String(nodes).padStart(6)} nodes: ${median(planTimes).toFixed(1).padStart(8)} ms (${waves} waves)   syncDaemonSet: ${median(syncTimes).toFixed(1)} ms`,
      );
    }
    const ratio = figures[`plan ${label} 50000`]! / figures[`plan ${label} 5000`]!;
    report(
      `core  planRollout ${label}: 50,000 / 5,000 = ${ratio.toFixed(1)}x (target <= 12x); 5,000 nodes ${figures[`plan ${label} 5000`]!.toFixed(1)} ms (target <= 100 ms)`,
    );
  }
  await benchBaselinePlan(figures);
  benchValidation(figures);
  return figures;
}

/**
 * With DS_ROLLOUT_BENCH_BASELINE, the 5,000-node plans of this tree and of the baseline checkout's src (through tsx,
 * in this process), run by turns on the same cluster: a ratio of two medians taken in the same seconds.
 */
async function benchBaselinePlan(figures: Record<string, number>, baseline = baselineCheckout()): Promise<void> {
  if (!baseline) return;
  const theirs = (await import(pathToFileURL(join(baseline, 'src', 'core', 'index.ts')).href)) as {planRollout: typeof planRollout};
  for (const strategy of [
    {maxUnavailable: 1, maxSurge: 0},
    {maxUnavailable: 0, maxSurge: '10%'},
  ]) {
    const label = strategy.maxSurge === 0 ? 'maxUnavailable=1' : 'maxSurge=10%';
    const state = syntheticCluster(5000, strategy);
    const times: [number[], number[]] = [[], []];
    const plans = [planRollout, theirs.planRollout];
    for (let i = 0; i < 15; i++) {
      for (const k of i % 2 ? [1, 0] : [0, 1]) {
        collectGarbage();
        const t0 = performance.now();
        plans[k]!(state, {now: BENCH_NOW});
        times[k]!.push(performance.now() - t0);
      }
    }
    const [ours, before] = times.map(median) as [number, number];
    figures[`plan ${label} 5000 / baseline`] = ours / before;
    report(
      `core  planRollout ${label} 5000 nodes, same rounds: ${ours.toFixed(1)} ms; baseline ${baseline}: ${before.toFixed(1)} ms; ${(ours / before).toFixed(2)}x`,
    );
  }
}

/**
 * The one validation pass over what is read (decode.ts): decoding a pod's types, against the JSON.parse every
 * listed pod costs anyway (the baseline, in the same run), and the whole pass over a snapshot's pods.
 */
function benchValidation(figures: Record<string, number>): void {
  const pods = syntheticCluster(5000).pods;
  const texts = pods.map((pod) => JSON.stringify(pod));
  const items = pods.map((value, i) => ({kind: 'Pod' as const, value, where: `items[${i}]`}));
  const time = (fn: () => void): number => {
    const runs: number[] = [];
    for (let i = 0; i < 7; i++) {
      collectGarbage();
      const t0 = performance.now();
      fn();
      runs.push(performance.now() - t0);
    }
    return median(runs);
  };
  const parse = time(() => {
    for (const text of texts) JSON.parse(text);
  });
  const decode = time(() => {
    for (const text of texts) decodeObject('Pod', JSON.parse(text));
  });
  const pass = time(() => readStoredObjects(items));
  figures['validation decode ratio'] = decode / parse;
  report(
    `core  validation: JSON.parse + decode of ${pods.length} pods ${decode.toFixed(1)} ms = ${(decode / parse).toFixed(2)}x JSON.parse alone (${parse.toFixed(1)} ms); whole pass (types, values, duplicates) ${pass.toFixed(1)} ms`,
  );
}
