// Start-up cost of the kubectl plugin entry points (built CLI), median of repeated cold starts.
import {execFileSync} from 'node:child_process';
import {median, report} from './report.js';

export async function benchCliStart(): Promise<void> {
  for (const args of [
    ['bin/kubectl-ds_plan', '--help'],
    ['bin/kubectl-ds_rollout', '--help'],
  ]) {
    const times: number[] = [];
    for (let i = 0; i < 12; i++) {
      const t0 = performance.now();
      execFileSync(process.execPath, args, {stdio: 'ignore'});
      if (i >= 2) times.push(performance.now() - t0);
    }
    report(`cli   ${args.join(' ').padEnd(32)} ${median(times).toFixed(0)} ms (target <= 200 ms)`);
  }
}
