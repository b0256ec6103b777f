// The simulated Job controller on a ManualClock: the API's generated selector, one pod at a time, failed pods
// replaced after 10 s then 20 s, Failed/BackoffLimitExceeded once failures pass backoffLimit,
// Failed/DeadlineExceeded after activeDeadlineSeconds (the running pod deleted), Complete once a pod succeeds.
import {afterEach, expect, test} from 'vitest';
import type {Pod} from '../../src/core/index.js';
import {formatTimestamp} from '../../src/sim/index.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

let tc: TestCluster | undefined;

afterEach(async () => {
  await tc?.stop();
  tc = undefined;
});

interface Job {
  metadata: {name: string; uid: string};
  spec: {selector?: {matchLabels?: Record<string, string>}; template: {metadata?: {labels?: Record<string, string>}}; backoffLimit?: number};
  status?: {active?: number; succeeded?: number; failed?: number; startTime?: string; completionTime?: string; conditions?: {type: string; reason?: string}[]};
}

async function withJob(spec: Record<string, unknown> = {}): Promise<TestCluster> {
  tc = await startTestCluster({scenario: 'empty', nodes: 1});
  tc.cluster.store.create({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {name: 'work', namespace: 'default'},
    spec: {template: {metadata: {labels: {app: 'work'}}, spec: {restartPolicy: 'Never', containers: [{name: 'main', image: 'work:1'}]}}, ...spec},
  });
  tc.advance(3_000);
  return tc;
}

const job = (t: TestCluster) => t.cluster.store.get('jobs', 'default', 'work') as unknown as Job;
const pods = (t: TestCluster) =>
  (t.cluster.store.list('pods', {namespace: 'default'}).items as Pod[]).filter((p) => p.metadata.labels?.['job-name'] === 'work');
const live = (t: TestCluster) => pods(t).filter((p) => p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded' && !p.metadata.deletionTimestamp);

/** What the kubelet reports when the pod's container exits (restartPolicy Never). */
function exit(t: TestCluster, pod: Pod, code: number): void {
  const now = formatTimestamp(t.cluster.clock.now());
  t.cluster.store.patchStatus('pods', 'default', pod.metadata.name, (status) => ({
    ...(status as object),
    phase: code === 0 ? 'Succeeded' : 'Failed',
    containerStatuses: [{name: 'main', image: 'work:1', ready: false, restartCount: 0, state: {terminated: {exitCode: code, finishedAt: now}}}],
  }));
}

test('the API generates the selector from the uid and labels the template with it and the Job name; the defaults', async () => {
  const t = await withJob();
  const {metadata, spec} = job(t);
  expect(spec.selector).toEqual({matchLabels: {'controller-uid': metadata.uid}});
  expect(spec.template.metadata?.labels).toEqual({app: 'work', 'controller-uid': metadata.uid, 'job-name': 'work'});
  expect(spec).toMatchObject({backoffLimit: 6, parallelism: 1, completions: 1});
  const [pod] = pods(t);
  expect(pod!.metadata.name).toMatch(/^work-/);
  expect(pod!.metadata.ownerReferences).toEqual([
    {apiVersion: 'batch/v1', kind: 'Job', name: 'work', uid: metadata.uid, controller: true, blockOwnerDeletion: true},
  ]);
  expect(job(t).status).toMatchObject({active: 1, succeeded: 0, failed: 0});
});

test('failed pods are replaced after 10 s, then 20 s; past backoffLimit the Job is Failed with BackoffLimitExceeded', async () => {
  const t = await withJob({backoffLimit: 2});
  exit(t, live(t)[0]!, 1);
  t.advance(9_000);
  expect(live(t)).toEqual([]);
  expect(job(t).status).toMatchObject({active: 0, failed: 1});
  t.advance(1_100);
  expect(live(t)).toHaveLength(1);
  t.advance(3_000);
  exit(t, live(t)[0]!, 1);
  t.advance(19_000);
  expect(live(t)).toEqual([]);
  t.advance(1_100);
  t.advance(3_000);
  exit(t, live(t)[0]!, 1);
  t.advance(100);
  expect(job(t).status).toMatchObject({active: 0, failed: 3, conditions: [{type: 'Failed', reason: 'BackoffLimitExceeded'}]});
  t.advance(600_000);
  expect(pods(t)).toHaveLength(3);
});

test('backoffLimit 0: the first failure fails the Job', async () => {
  const t = await withJob({backoffLimit: 0});
  exit(t, live(t)[0]!, 3);
  t.advance(100);
  expect(job(t).status).toMatchObject({failed: 1, conditions: [{type: 'Failed', reason: 'BackoffLimitExceeded'}]});
  t.advance(60_000);
  expect(pods(t)).toHaveLength(1);
});

test('activeDeadlineSeconds: the Job fails with DeadlineExceeded and its running pod is deleted', async () => {
  const t = await withJob({activeDeadlineSeconds: 30});
  t.advance(26_000);
  expect(job(t).status?.conditions).toBeUndefined();
  t.advance(1_100);
  expect(job(t).status).toMatchObject({active: 0, conditions: [{type: 'Failed', reason: 'DeadlineExceeded'}]});
  expect(live(t)).toEqual([]);
});

test('a pod that succeeds completes the Job', async () => {
  const t = await withJob();
  expect(live(t)[0]!.status?.phase).toBe('Running');
  exit(t, live(t)[0]!, 0);
  t.advance(100);
  expect(job(t).status).toMatchObject({active: 0, succeeded: 1, failed: 0, conditions: [{type: 'Complete'}]});
  expect(job(t).status?.completionTime).toBeDefined();
});
