// Live mode end to end: `kubectl-ds_plan` against a 5,000-node simulated cluster, side by side with
// `kubectl get pods,nodes -o json` against the same cluster (targets, issue 4: no slower than kubectl, at most
// five API requests), against the floor of issue 14 (the same four requests sent by curl in parallel, their
// answers JSON.parse-d in one `node`; goal of issue 29: within 1.2x), with the phases of the plan's own run
// (src/platform/timings.ts), and the plan's peak memory with 50,000 pods (target < 400 MB), measured on the child.
// The cluster runs in this process, so children are run asynchronously (a blocking spawn would starve it).
import {execFileSync} from 'node:child_process';
import {existsSync} from 'node:fs';
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {load} from 'js-yaml';
import {startSimulatedCluster, type SimulatedCluster} from '../src/sim/index.js';
import {baselineCheckout, median, pairedMedians, phaseBreakdown, report, runChild as run, verdict} from './report.js';

const ROOT = join(import.meta.dirname, '..');
const PLAN = join(ROOT, 'bin', 'kubectl-ds_plan');

/**
 * The floor of a live read: `curl` sends the plan's own requests (same paths, same token and CA) in parallel, then one
 * `node` parses the answers. Undefined without curl.
 */
async function curlFloor(kubeconfig: string, paths: readonly string[], env: NodeJS.ProcessEnv): Promise<(() => ReturnType<typeof run>) | undefined> {
  if (!findCommand('curl')) return undefined;
  const config = load(await readFile(kubeconfig, 'utf8')) as {
    clusters: {cluster: {server: string; 'certificate-authority-data': string}}[];
    users: {user: {token: string}}[];
  };
  const {server, 'certificate-authority-data': ca} = config.clusters[0]!.cluster;
  const dir = join(kubeconfig, '..');
  await writeFile(join(dir, 'ca.crt'), Buffer.from(ca, 'base64'));
  await writeFile(join(dir, 'token'), `Authorization: Bearer ${config.users[0]!.user.token}\n`);
  const files = paths.map((_, i) => join(dir, `answer-${i}.json`));
  const script = [
    ...paths.map((path, i) => `curl -sf --cacert ${join(dir, 'ca.crt')} -H @${join(dir, 'token')} -o ${files[i]} '${server}${path}' &`),
    'wait',
    `${process.execPath} -e 'for (const f of process.argv.slice(1)) JSON.parse(require("node:fs").readFileSync(f, "utf8"))' ${files.join(' ')}`,
  ].join('\n');
  await writeFile(join(dir, 'floor.sh'), script);
  const floor = () => run('bash', [join(dir, 'floor.sh')], env);
  await floor(); // the same warm-up the plan had
  return floor;
}

function pathOf(entry: {readonly path: string; readonly query: Readonly<Record<string, string>>}): string {
  const query = new URLSearchParams(entry.query).toString();
  return query === '' ? entry.path : `${entry.path}?${query}`;
}

function findCommand(name: string): string | undefined {
  try {
    return execFileSync('which', [name], {encoding: 'utf8'}).trim() || undefined;
  } catch {
    return undefined;
  }
}

async function withCluster<T>(nodes: number, body: (cluster: SimulatedCluster, kubeconfig: string, env: NodeJS.ProcessEnv) => Promise<T>): Promise<T> {
  const cluster = await startSimulatedCluster({scenario: 'large', scenarioOptions: {nodes}});
  const dir = await mkdtemp(join(tmpdir(), 'ds-rollout-bench-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await cluster.writeKubeconfig(kubeconfig, {namespace: 'kube-system'});
  // A fresh HOME and kubectl cache per cluster: kubectl caches discovery per host:port.
  const env = {PATH: process.env['PATH'] ?? '', HOME: join(dir, 'home'), KUBECACHEDIR: join(dir, 'cache'), KUBECONFIG: kubeconfig};
  try {
    return await body(cluster, kubeconfig, env);
  } finally {
    await cluster.stop();
    await rm(dir, {recursive: true, force: true});
  }
}

/** Live `ds-plan` at 5,000 nodes / its floor (issue 29). */
const LIVE_GOAL = 1.2;

export async function benchLive(baseline = baselineCheckout()): Promise<void> {
  const runs = 5;
  await withCluster(5000, async (cluster, kubeconfig, env) => {
    const planArgs = [PLAN, 'fluentd', '-n', 'kube-system', '--kubeconfig', kubeconfig, '-o', 'json'];
    await run(process.execPath, planArgs, env); // warm the file cache
    cluster.requestLog.clear();
    await run(process.execPath, planArgs, env);
    const requests = cluster.requestLog.entries.filter((e) => e.resource !== undefined);
    const described = requests.map((e) => `${e.verb} ${e.resource}`);
    const plan = () => run(process.execPath, planArgs, env);
    const floor = await curlFloor(kubeconfig, requests.map(pathOf), env);
    const baselinePlan = baseline === undefined ? undefined : [join(baseline, 'bin', 'kubectl-ds_plan'), ...planArgs.slice(1)];
    const before = baselinePlan ? () => run(process.execPath, baselinePlan, env) : undefined;
    if (before) await before();
    const medians = await pairedMedians([plan, ...(floor ? [floor] : []), ...(before ? [before] : [])], runs);
    const ours = medians[0];
    const floorMs = floor ? medians[1] : undefined;
    const beforeMs = before ? medians.at(-1) : undefined;

    const kubectl = findCommand('kubectl');
    let line = `live  kubectl-ds_plan, 5,000 nodes: ${ours!.toFixed(0)} ms, ${requests.length} API requests (${described.join(', ')}) (target <= 5)`;
    if (kubectl) {
      const getArgs = ['get', 'pods,nodes', '-n', 'kube-system', '-o', 'json', '--kubeconfig', kubeconfig];
      await run(kubectl, getArgs, env); // discovery, once, as for any kubectl user
      const theirs: number[] = [];
      for (let i = 0; i < runs; i++) theirs.push((await run(kubectl, getArgs, env)).ms);
      line += `; kubectl get pods,nodes -o json: ${median(theirs).toFixed(0)} ms; ratio ${(ours! / median(theirs)).toFixed(2)} (target <= 1.00)`;
    } else {
      line += '; kubectl not on PATH, no comparison';
    }
    report(line);
    if (floorMs === undefined) report('live  curl not on PATH: no floor');
    else {
      const ratio = ours! / floorMs;
      report(
        `live  floor (the same ${requests.length} requests by curl in parallel, then JSON.parse in one node): ${floorMs.toFixed(0)} ms; kubectl-ds_plan ${ratio.toFixed(2)}x ${verdict(ratio, LIVE_GOAL)}`,
      );
      if (beforeMs !== undefined)
        report(`live  baseline ${baseline} in the same rounds: ${beforeMs.toFixed(0)} ms, ${(beforeMs / floorMs).toFixed(2)}x the floor`);
    }
    report(`live  kubectl-ds_plan phases: ${await phaseBreakdown(() => run(process.execPath, planArgs, {...env, DS_ROLLOUT_TIMINGS: '1'}), runs)}`);
  });
}

/** The plan's peak memory with 50,000 nodes and pods (target < 400 MB), measured on the child. */
export async function benchLiveMemory(): Promise<void> {
  const time = '/usr/bin/time';
  if (!existsSync(time)) {
    report('live  peak memory: /usr/bin/time not found, skipped');
    return;
  }
  await withCluster(50_000, async (_cluster, kubeconfig, env) => {
    const {stderr, ms} = await run(
      time,
      ['-f', 'maxrss=%M', process.execPath, PLAN, 'fluentd', '-n', 'kube-system', '--kubeconfig', kubeconfig, '-o', 'json'],
      env,
    );
    const kb = Number(/maxrss=(\d+)/.exec(stderr)?.[1] ?? Number.NaN);
    report(`live  kubectl-ds_plan, 50,000 nodes and 50,000 pods: peak RSS ${(kb / 1024).toFixed(0)} MB (target < 400 MB), ${ms.toFixed(0)} ms`);
  });
}
