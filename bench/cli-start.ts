// Start-up of the plugins against Node's own start-up, measured in the same run (paired, interleaved), as
// ratios: the bundled entries' `--help` (goal <= 1.5x `node -e 0`, limit 2x), the standalone executable's
// (npm run package first; limit 2x), and the unbundled tsc output through oclif's loader for reference.
import {execFileSync} from 'node:child_process';
import {existsSync} from 'node:fs';
import {join} from 'node:path';
import {baselineCheckout, median, report, verdict} from './report.js';

const ROOT = join(import.meta.dirname, '..');
const RUNS = 15;

interface Variant {
  readonly label: string;
  readonly file: string;
  readonly args: readonly string[];
  readonly limit?: number;
  readonly goal?: number;
}

/** `--help` / `node -e 0` (issue 29; the limit of issue 14 is 2x). */
const HELP_GOAL = 1.5;

export async function benchCliStart(baseline = baselineCheckout()): Promise<void> {
  const node = process.execPath;
  const standalone = join(ROOT, 'dist-sea', 'stage', 'kubectl-ds_plan');
  const variants: Variant[] = [
    {label: 'node -e 0', file: node, args: ['-e', '0']},
    {label: 'kubectl-ds_plan --help (bundle)', file: node, args: [join(ROOT, 'bin', 'kubectl-ds_plan'), '--help'], limit: 2, goal: HELP_GOAL},
    {label: 'kubectl-ds_rollout --help (bundle)', file: node, args: [join(ROOT, 'bin', 'kubectl-ds_rollout'), '--help'], limit: 2, goal: HELP_GOAL},
    ...(baseline
      ? [
          {label: 'kubectl-ds_plan --help (baseline)', file: node, args: [join(baseline, 'bin', 'kubectl-ds_plan'), '--help']},
          {label: 'kubectl-ds_rollout --help (baseline)', file: node, args: [join(baseline, 'bin', 'kubectl-ds_rollout'), '--help']},
        ]
      : []),
    {label: 'ds plan --help (tsc output, oclif loader)', file: node, args: [join(ROOT, 'bin', 'run.js'), 'plan', '--help']},
    ...(existsSync(standalone) ? [{label: 'kubectl-ds_plan --help (standalone)', file: standalone, args: ['--help'], limit: 2}] : []),
  ];
  const times = variants.map(() => [] as number[]);
  for (let run = 0; run < RUNS + 2; run++) {
    // Rotate the order so no variant always runs right after another one warmed the disk cache for it.
    for (let k = 0; k < variants.length; k++) {
      const i = (k + run) % variants.length;
      const variant = variants[i]!;
      const t0 = performance.now();
      execFileSync(variant.file, [...variant.args], {stdio: 'ignore', env: {...process.env, KUBECTL_DS_INVOKED_AS: 'kubectl'}});
      if (run >= 2) times[i]!.push(performance.now() - t0);
    }
  }
  const base = median(times[0]!);
  for (const [i, variant] of variants.entries()) {
    const ms = median(times[i]!);
    const ratio = ms / base;
    const limit =
      variant.limit === undefined || i === 0 ? '' : ratio <= variant.limit ? `  (limit ${variant.limit}x: ok)` : `  (limit ${variant.limit}x: OVER)`;
    const goal = variant.goal === undefined ? '' : ` ${verdict(ratio, variant.goal)}`;
    report(`cli   ${variant.label.padEnd(44)} ${ms.toFixed(0).padStart(5)} ms  ${ratio.toFixed(2)}x${limit}${goal}`);
  }
  if (!existsSync(standalone)) report('cli   standalone executable: not built (npm run package)');
}
