// Issue 20's abort sequence through the BUILT `kubectl ds-rollout` (run `npm run build` first) on the simulated
// demo cluster: fluentd in kube-system mid-rollout to v1.17.0, worker-13 NotReady, new fluentd pods crashing on
// worker-17. Paused, set to v1.17.1, a gated step with the canary worker-01,worker-17 fails its gate; abort (maybe
// stopped for want of budget, then finished with --max-unavailable 3) ends with the template and every node the
// rollout touched back on v1.17.0; a further abort changes nothing; dry runs show what the real runs would do.
import {afterEach, expect, test, vi} from 'vitest';
import type {DaemonSet, Pod} from '../../src/core/index.js';
import {fluentd, fluentdCli as cli, fluentdRecord as record} from '../helpers/demo-gated.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

vi.setConfig({testTimeout: 180_000});

let tc: TestCluster | undefined;

afterEach(async () => {
  await tc?.stop();
  tc = undefined;
});

/** The image of each node's live fluentd pod. */
function images(t: TestCluster): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of t.cluster.store.list('pods', {namespace: 'kube-system'}).items) {
    const pod = item as unknown as Pod;
    if (pod.metadata.deletionTimestamp || !pod.metadata.name.startsWith('fluentd-') || !pod.spec.nodeName) continue;
    out[pod.spec.nodeName] = pod.spec.containers[0]!.image!;
  }
  return out;
}

function podDeletions(t: TestCluster): number {
  return t.cluster.requestLog.filter({verb: 'delete', resource: 'pods'}).length;
}

test('the demo abort sequence: back to v1.17.0 on every node the rollout touched, never re-targeted', async () => {
  tc = await startTestCluster({scenario: 'demo', speed: 20});
  const t = tc;
  expect((await cli(t, ['pause', 'fluentd'])).code).toBe(0);
  // kubectl set image, as the operator would.
  t.cluster.store.modify('daemonsets', 'kube-system', 'fluentd', (ds) => {
    const d = ds as unknown as DaemonSet;
    const containers = d.spec.template.spec.containers.map((c, i) => (i === 0 ? {...c, image: 'fluent/fluentd:v1.17.1'} : c));
    return {...d, spec: {...d.spec, template: {...d.spec.template, spec: {...d.spec.template.spec, containers}}}} as never;
  });
  const before = images(t);

  const gated = await cli(t, ['step', 'fluentd', '--until-complete', '--canary-nodes', 'worker-01,worker-17', '--yes']);
  expect(gated.code).toBe(3);
  expect(gated.stderr).toMatch(/^error: gate failed at stage canary: pod fluentd-\w+ on node worker-17: CrashLoopBackOff/);
  expect(record(t)).toMatchObject({phase: 'failed'});
  const origin = record(t).from!;
  expect(origin).toBeDefined();

  // A plain step is refused during the failed gated rollout, and its dry run gets the same refusal and exit status.
  const plain = await cli(t, ['step', 'fluentd', '--yes']);
  expect(plain.code).toBe(1);
  expect(await cli(t, ['step', 'fluentd', '--dry-run'])).toEqual({...plain, stdout: ''});

  // The dry run names the target and the nodes, and changes nothing.
  const deletions = podDeletions(t);
  const dry = await cli(t, ['abort', 'fluentd', '--dry-run']);
  expect(dry.stdout).toContain(`Rolling back to revision ${origin.revision}; stepping back worker-01, worker-17`);
  expect([0, 3]).toContain(dry.code);
  expect(fluentd(t).spec.template.spec.containers[0]!.image).toBe('fluent/fluentd:v1.17.1');
  expect(podDeletions(t)).toBe(deletions);
  expect(record(t)).toMatchObject({phase: 'failed'});

  // The first abort may stop for want of budget (worker-13 and worker-17 hold maxUnavailable 2): the record says
  // aborting, and the next abort, with more budget, continues toward the same revision.
  const first = await cli(t, ['abort', 'fluentd', '--yes']);
  expect(fluentd(t).spec.template.spec.containers[0]!.image).toBe('fluent/fluentd:v1.17.0');
  if (first.code !== 0) {
    expect(first.code).toBe(3);
    expect(first.stderr).toMatch(
      /^error: abort of daemonset kube-system\/fluentd stopped: .*it continues where it stopped: kubectl ds-rollout abort fluentd -n kube-system --yes/,
    );
    expect(record(t)).toMatchObject({phase: 'aborting', from: {hash: origin.hash}});
    const second = await cli(t, ['abort', 'fluentd', '--max-unavailable', '3', '--yes']);
    expect({code: second.code, stderr: second.stderr}).toEqual({code: 0, stderr: ''});
  }
  expect(record(t)).toMatchObject({phase: 'aborted', from: {hash: origin.hash}});
  const after = images(t);
  expect(fluentd(t).spec.template.spec.containers[0]!.image).toBe('fluent/fluentd:v1.17.0');
  expect(Object.values(after)).not.toContain('fluent/fluentd:v1.17.1');
  expect(after['worker-01']).toBe('fluent/fluentd:v1.17.0');
  expect(after['worker-17']).toBe('fluent/fluentd:v1.17.0');
  // Nodes the rollout never touched keep what they ran.
  for (const [node, image] of Object.entries(before)) if (node !== 'worker-01' && node !== 'worker-17') expect(after[node]).toBe(image);

  // Again: nothing to do, nothing deleted, no revision re-targeted.
  const settled = podDeletions(t);
  const again = await cli(t, ['abort', 'fluentd', '--yes']);
  expect({code: again.code, stderr: again.stderr}).toEqual({code: 0, stderr: ''});
  expect(again.stdout).toMatch(/^Gated rollout already aborted: every node of daemonset kube-system\/fluentd is on revision \d+; nothing to do\.\n$/);
  expect(podDeletions(t)).toBe(settled);
  expect(fluentd(t).spec.template.spec.containers[0]!.image).toBe('fluent/fluentd:v1.17.0');
});
