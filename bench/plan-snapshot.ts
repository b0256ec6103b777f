// `kubectl-ds_plan --snapshot` on a 5,000-node dump (what `kubectl get ... -o json` prints), against a bare
// `JSON.parse` of the same file in a fresh `node` (the floor: start Node, read the file, parse it), paired runs in
// the same minute. Limit (issue 14): 2x; goal (issue 29): 1.5x. The phases of the plan's own run follow (src/platform/timings.ts).
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {baselineCheckout, pairedMedians, phaseBreakdown, report, runChild, verdict} from './report.js';
import {largeDump} from './sim-snapshot.js';

const ROOT = join(import.meta.dirname, '..');
const PLAN = join(ROOT, 'bin', 'kubectl-ds_plan');

/** `ds-plan --snapshot` at 5,000 nodes / JSON.parse of the file (issue 29; the limit of issue 14 was 2x). */
const SNAPSHOT_GOAL = 1.5;

export async function benchPlanSnapshot(nodes = 5000, baseline = baselineCheckout()): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ds-rollout-bench-'));
  try {
    const path = join(dir, 'cluster.json');
    const text = JSON.stringify(await largeDump(nodes), null, 4);
    await writeFile(path, text);
    const env = {PATH: process.env['PATH'] ?? '', HOME: dir};
    const node = process.execPath;
    const plan = () => runChild(node, [PLAN, 'fluentd', '-n', 'kube-system', '--snapshot', path, '-o', 'json'], env);
    const parse = () => runChild(node, ['-e', `JSON.parse(require('node:fs').readFileSync(${JSON.stringify(path)}, 'utf8'))`], env);
    const before = baseline
      ? () => runChild(node, [join(baseline, 'bin', 'kubectl-ds_plan'), 'fluentd', '-n', 'kube-system', '--snapshot', path, '-o', 'json'], env)
      : undefined;
    await plan(); // warm the file cache
    const [ours, floor, beforeMs] = await pairedMedians([plan, parse, ...(before ? [before] : [])], 7);
    const ratio = ours! / floor!;
    report(
      `plan  kubectl-ds_plan --snapshot, ${nodes} nodes (${(text.length / 2 ** 20).toFixed(0)} MiB JSON): ${ours!.toFixed(0)} ms; node -e JSON.parse of the file: ${floor!.toFixed(0)} ms; ${ratio.toFixed(2)}x ${verdict(ratio, SNAPSHOT_GOAL)}`,
    );
    if (beforeMs !== undefined) report(`plan  baseline ${baseline} in the same rounds: ${beforeMs.toFixed(0)} ms, ${(beforeMs / floor!).toFixed(2)}x`);
    report(
      `plan  --snapshot phases: ${await phaseBreakdown(() => runChild(node, [PLAN, 'fluentd', '-n', 'kube-system', '--snapshot', path, '-o', 'json'], {...env, DS_ROLLOUT_TIMINGS: '1'}), 5)}`,
    );
  } finally {
    await rm(dir, {recursive: true, force: true});
  }
}
