// Issue 27's fleet rollout with the real 1.20.2 control plane as the first wave's cluster and two simulated clusters
// as the second (fleet-members.ts: one kubeconfig, a context each). Through kubectl, `ds-rollout fleet rollout
// --cluster-waves 1,100% --no-detach`: a healthy release completes on the real cluster before either simulated one
// is written, then reaches both, each cluster within its own budget (maxUnavailable 1, a watch of its pods from
// before the rollout); a release whose pods crash-loop fails on the real cluster, is undone there (its template back
// on its origin), and the simulated clusters see not one write; once that failed fleet is aborted, a third release
// rolls out detached (the default: a Job in each cluster runs its gated rollout) the same way.
import type {V1DaemonSet, V1Pod} from '@kubernetes/client-node';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {TestCluster} from '../helpers/sim-cluster.js';
import {agentDaemonSet, budgetWatch, eventually, follow, kubectlJson, type List, nodesWithoutAvailablePod} from './control-plane.js';
import {BROKEN, JOB_IMAGE, startFleet, type Fleet} from './fleet-members.js';

const NODES = 3;
const SIMS = ['sim-a', 'sim-b'] as const;
const CONTEXTS = ['real-1.20', ...SIMS].join(',');
let members: Fleet;

const fleet = (verb: string, ...args: string[]) =>
  members.run([
    'ds-rollout',
    'fleet',
    verb,
    'agent',
    '-n',
    'default',
    '--contexts',
    CONTEXTS,
    ...(verb === 'rollout' ? ['--cluster-waves', '1,100%'] : []),
    ...args,
  ]);

const sim = (context: (typeof SIMS)[number]): TestCluster => members.sims[context];
const simDaemonSet = (context: (typeof SIMS)[number]) => sim(context).cluster.store.get('daemonsets', 'default', 'agent') as unknown as V1DaemonSet;
const simPods = (context: (typeof SIMS)[number]) =>
  sim(context)
    .cluster.store.list('pods', {namespace: 'default'})
    .items.map((item) => item as unknown as V1Pod)
    .filter((pod) => pod.metadata?.labels?.['app'] === 'agent');

/** What a simulated cluster's DaemonSet is, and every write its API server has taken: equal when it was not touched. */
const simMark = (context: (typeof SIMS)[number]) => {
  const ds = simDaemonSet(context);
  const writes = sim(context).cluster.requestLog.entries.filter((e) => e.verb !== undefined && !['get', 'list', 'watch'].includes(e.verb)).length;
  return {context, generation: ds.metadata?.generation, resourceVersion: ds.metadata?.resourceVersion, writes};
};

/** Each simulated cluster's budget witness: its store's events, synchronous, so every state is counted. */
function simBudgets(): {stop: () => number[]} {
  const worst = SIMS.map(() => 0);
  const stops = SIMS.map((context, i) =>
    sim(context).cluster.store.subscribe(
      () => {
        worst[i] = Math.max(worst[i]!, nodesWithoutAvailablePod(simPods(context), NODES));
      },
      {resource: 'pods'},
    ),
  );
  return {
    stop: () => {
      for (const stop of stops) stop();
      return worst;
    },
  };
}

/** The images the live agent pods of the real cluster run, by node. */
async function realImages(): Promise<string[]> {
  const pods = (await kubectlJson<List<V1Pod>>(members.cp, ['get', 'pods', '-l', 'app=agent'])).items;
  return pods
    .filter((p) => !p.metadata?.deletionTimestamp && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
    .map((p) => `${p.spec?.nodeName}=${p.spec?.containers[0]?.image}`)
    .sort();
}

const everyNodeOn = (image: string) => Array.from({length: NODES}, (_, i) => `node-${String(i + 1).padStart(2, '0')}=${image}`);

/**
 * `fleet rollout` of a healthy `release` (with `flags`), watched: it completes on the real cluster before either
 * simulated cluster takes a write, then on both, each within its budget (maxUnavailable 1). Returns its stdout.
 */
async function healthyRollout(release: string, flags: readonly string[]): Promise<string> {
  const before = SIMS.map(simMark);
  // The moment this process sees the real cluster's gated rollout complete on the release: what the sims were then.
  let atRealComplete: ReturnType<typeof simMark>[] | undefined;
  const stopFollowing = await follow<V1DaemonSet>(members.cp, '/apis/apps/v1/namespaces/default/daemonsets', (_type, ds) => {
    const gated = ds.metadata?.annotations?.['ds-rollout.io/gated-rollout'];
    const complete = gated !== undefined && (JSON.parse(gated) as {phase?: string}).phase === 'complete';
    if (atRealComplete === undefined && complete && ds.spec?.template.spec?.containers[0]?.image === release) atRealComplete = SIMS.map(simMark);
  });
  const realBudget = await budgetWatch(members.cp, NODES);
  const budgets = simBudgets();
  let result;
  let worst;
  try {
    result = await fleet('rollout', '--image', `agent=${release}`, ...flags);
  } finally {
    stopFollowing();
    worst = {real: realBudget.stop(), sims: budgets.stop()};
  }
  // Each cluster within its own budget: never more than maxUnavailable (1) of its nodes without an available pod
  // (and the witnesses saw the rollout: one node at a time).
  expect(worst).toEqual({real: 1, sims: [1, 1]});
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/^Wave 1\/2: real-1\.20\n(.*\n)*Wave 2\/2: sim-a, sim-b\n/);
  expect(result.stdout).toContain(`Fleet rollout of daemonset default/agent (agent=${release}): complete, wave 2/2, 3/3 clusters complete`);
  // The real cluster had completed while neither simulated cluster had taken a write.
  expect(atRealComplete).toEqual(before);

  expect(await realImages()).toEqual(everyNodeOn(release));
  for (const context of SIMS) {
    expect(simDaemonSet(context).spec?.template.spec?.containers[0]?.image).toBe(release);
    // Settled (its status too), so that the next case's marks hold still.
    await eventually(`${context} on the release on every node`, async () => {
      const {status} = simDaemonSet(context);
      const on = simPods(context).filter((p) => !p.metadata?.deletionTimestamp && p.spec?.containers[0]?.image === release);
      return on.length === NODES && status?.updatedNumberScheduled === NODES && status.numberAvailable === NODES ? true : undefined;
    });
  }
  return result.stdout;
}

beforeAll(async () => {
  members = await startFleet(NODES);
});

afterAll(async () => {
  await members?.stop();
});

describe('a fleet rollout with the real 1.20.2 control plane as its first wave', () => {
  it('a healthy release completes on the real cluster before any simulated one is written, then reaches both, each within its budget', async () => {
    await healthyRollout('registry.example/agent:2.0', ['--canary', '1', '--no-detach', '--yes']);
  });

  it('a release that crashes fails on the real cluster, is undone there, and the simulated clusters see not one write', async () => {
    const origin = (await agentDaemonSet(members.cp)).spec?.template.spec?.containers[0]?.image;
    const before = SIMS.map(simMark);
    const realBudget = await budgetWatch(members.cp, NODES);
    let result;
    let worst;
    try {
      result = await fleet('rollout', '--image', `agent=registry.example/${BROKEN}`, '--canary', '1', '--on-failure', 'undo', '--no-detach', '--yes');
    } finally {
      worst = realBudget.stop();
    }
    // The canary's node only.
    expect(worst).toBe(1);
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(result.stderr).toMatch(
      /^error: fleet rollout failed in context real-1\.20 \(wave 1\/2\): gate failed, undone: pod agent-\S+ on node node-\d+: CrashLoopBackOff.*; no later cluster was touched/,
    );
    expect(result.stdout).toContain('Wave 1/2: real-1.20');
    expect(result.stdout).not.toContain('sim-');

    // Undone: the template back on the real cluster's origin, and every node running it again.
    expect((await agentDaemonSet(members.cp)).spec?.template.spec?.containers[0]?.image).toBe(origin);
    await eventually(
      'every real node back on the origin',
      async () => ((await realImages()).join() === everyNodeOn(origin!).join() ? true : undefined),
      60_000,
    );
    // Untouched: the same DaemonSet, not one write.
    expect(SIMS.map(simMark)).toEqual(before);

    const status = await fleet('status', '-o', 'json');
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      phase: 'failed',
      wave: 1,
      clusters: [
        {context: 'real-1.20', wave: 1, phase: 'failed'},
        {context: 'sim-a', wave: 2, phase: 'pending'},
        {context: 'sim-b', wave: 2, phase: 'pending'},
      ],
    });
  });

  it('fleet abort ends the failed fleet; then, detached by default, a Job in each cluster runs its gated rollout, wave by wave', async () => {
    const origin = (await agentDaemonSet(members.cp)).spec?.template.spec?.containers[0]?.image;
    const before = SIMS.map(simMark);
    const aborted = await fleet('abort', '--yes');
    expect({code: aborted.code, stderr: aborted.stderr}).toEqual({code: 0, stderr: ''});
    // The real cluster was undone already; the simulated ones were never touched by that fleet.
    expect((await agentDaemonSet(members.cp)).spec?.template.spec?.containers[0]?.image).toBe(origin);
    expect(SIMS.map(simMark)).toEqual(before);

    // The first fleet (2.0) still holds the simulated clusters, the failed one took the real cluster: neither holds
    // this one. Each cluster's gated rollout in a Job there (on the real cluster the Job controller's pod, played by
    // the kubelet agent), the driver following their watches.
    const stdout = await healthyRollout('registry.example/agent:3.0', ['--canary', '1', '--job-image', JOB_IMAGE, '--yes']);
    expect(stdout).toMatch(
      /^Wave 1\/2: real-1\.20\n(.*\n)*\[real-1\.20\] Job default\/\S+ created: it runs the gated rollout in the cluster\n(.*\n)*Wave 2\/2/,
    );
    expect(stdout).toMatch(/\nWave 2\/2: sim-a, sim-b\n(.*\n)*\[sim-a\] Job default\/\S+ created/);
    for (const context of SIMS) expect(sim(context).cluster.store.list('jobs', {namespace: 'default'}).items).toHaveLength(1);
  });
});
