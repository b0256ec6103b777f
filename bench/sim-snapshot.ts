// Benchmark of `sim start --snapshot` at 5,000 nodes (issue 11): from the dump's text to a cluster that serves,
// with its controller and kubelets running. Baseline in the same run: a plain JSON.parse of the same text.
// Target: serving within 10 s.
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {dump as toYaml} from 'js-yaml';
import {readSnapshot} from '../src/cluster/snapshot/index.js';
import {ManualClock, RealClock, startSimulatedCluster} from '../src/sim/index.js';
import {collectGarbage, report} from './report.js';

const KINDS = [
  {resource: 'nodes', kind: 'Node', apiVersion: 'v1'},
  {resource: 'pods', kind: 'Pod', apiVersion: 'v1'},
  {resource: 'daemonsets', kind: 'DaemonSet', apiVersion: 'apps/v1'},
  {resource: 'controllerrevisions', kind: 'ControllerRevision', apiVersion: 'apps/v1'},
] as const;

/** What `kubectl get nodes,pods,daemonsets,controllerrevisions -A -o json` prints for the `large` scenario. */
export async function largeDump(nodes: number): Promise<object> {
  const source = await startSimulatedCluster({clock: new ManualClock(), scenario: 'large', scenarioOptions: {nodes}});
  const items = KINDS.flatMap(({resource, kind, apiVersion}) => source.store.list(resource).items.map((item) => ({...item, apiVersion, kind})));
  await source.stop();
  return {apiVersion: 'v1', kind: 'List', items, metadata: {resourceVersion: ''}};
}

export async function benchSimSnapshot(nodes = 5000): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ds-rollout-bench-'));
  try {
    const list = await largeDump(nodes);
    for (const format of ['json', 'yaml'] as const) {
      const text = format === 'json' ? JSON.stringify(list, null, 4) : toYaml(list);
      const path = join(dir, `cluster.${format}`);
      await writeFile(path, text);
      collectGarbage();
      const t0 = performance.now();
      JSON.parse(format === 'json' ? text : JSON.stringify(list));
      const baseline = performance.now() - t0;
      collectGarbage();
      const t1 = performance.now();
      const {objects} = await readSnapshot(path);
      const cluster = await startSimulatedCluster({clock: new RealClock(), agents: true, snapshot: objects});
      const serving = performance.now() - t1;
      const pods = cluster.store.list('pods').items.length;
      await cluster.stop();
      report(
        `sim   --snapshot ${format} of ${nodes} nodes and ${pods} pods (${(text.length / 2 ** 20).toFixed(0)} MiB) to serving: ${(serving / 1000).toFixed(2)} s (target <= 10 s); ${(serving / baseline).toFixed(1)}x a plain JSON.parse of the same ${format === `json` ? `file` : `objects as JSON`} (${baseline.toFixed(0)} ms)`,
      );
    }
  } finally {
    await rm(dir, {recursive: true, force: true});
  }
}
