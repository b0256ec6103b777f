// Abort against a pod that shows up on the release after the first nodes were stepped back. On a real cluster the
// pods' watch runs apart from the DaemonSet's, so a pod the controller created from the release's template just
// before the rollback can reach the abort late (seen in CI under load). The test makes that pod appear, in-process,
// at the moment the first round deletes its pods: the abort must step it back in a second round and end `aborted`.
import {clockFrom} from '../../src/clock.js';
import {afterAll, beforeAll, expect, test, vi} from 'vitest';
import {connectLiveCluster, type LiveCluster} from '../../src/cluster/live/index.js';
import type {DaemonSet, GatedEvent, GatedRecord, Pod} from '../../src/core/index.js';
import {abortGatedRollout, runGatedRollout} from '../../src/services/gated-rollout.js';
import {pauseDaemonSet} from '../../src/services/pause.js';
import {stepClusterOf} from '../../src/services/step.js';
import {makeNode} from '../../src/sim/index.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

vi.setConfig({testTimeout: 300_000, hookTimeout: 300_000});

const REF = {namespace: 'default', name: 'agent'};
let tc: TestCluster;
let live: LiveCluster;

const daemonSet = () => tc.cluster.store.get('daemonsets', 'default', 'agent') as unknown as DaemonSet;
const pods = () => tc.cluster.store.list('pods', {namespace: 'default'}).items as unknown as Pod[];
const imageOn = (node: string) => pods().find((p) => p.spec.nodeName === node && !p.metadata.deletionTimestamp)?.spec.containers[0]!.image;

/** Moves the simulated clock on until `done` settles: the cluster reacts between steps; nothing here waits on time. */
async function driveUntil<T>(done: Promise<T>): Promise<T> {
  let settled = false;
  const result = done.finally(() => {
    settled = true;
  });
  while (!settled) {
    tc.advance(250, 250);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return result;
}

beforeAll(async () => {
  tc = await startTestCluster({kubelet: {startDelayMs: 1000, stopDelayMs: 500}});
  const {store} = tc.cluster;
  for (let i = 1; i <= 4; i++) store.create(makeNode(`node-${i}`, {index: i - 1}));
  store.create({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {name: 'agent', namespace: 'default'},
    spec: {
      selector: {matchLabels: {app: 'agent'}},
      template: {metadata: {labels: {app: 'agent'}}, spec: {containers: [{name: 'main', image: 'agent:v1'}]}},
      updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 2, maxSurge: 0}},
    },
  } as never);
  for (let i = 0; i < 60 && (daemonSet().status?.numberAvailable ?? 0) < 4; i++) tc.advance(1000, 250);
  live = connectLiveCluster({kubeconfig: tc.kubeconfig});
  await pauseDaemonSet({writer: live.writer, clock: clockFrom(() => tc.cluster.clock.now())}, {ref: REF});
  store.modify('daemonsets', 'default', 'agent', (ds) => {
    const d = ds as unknown as DaemonSet;
    return {...d, spec: {...d.spec, template: {...d.spec.template, spec: {containers: [{name: 'main', image: 'agent:v2'}]}}}} as never;
  });
  for (let i = 0; i < 10 && store.list('controllerrevisions', {namespace: 'default'}).items.length < 2; i++) tc.advance(100);
});

afterAll(async () => {
  live?.client.close();
  await tc?.stop();
});

test('a release pod that shows up after the first round is stepped back in a second; the abort ends aborted', async () => {
  const options = {cluster: stepClusterOf(live), source: live.source, writer: live.writer, ref: REF, timeoutMs: 0};
  const canary = await driveUntil(
    runGatedRollout({
      ...options,
      strategy: {
        canary: {kind: 'count', count: 1},
        canaryBakeMs: 0,
        waves: [],
        bakeMs: 0,
        approve: true,
        maxRestarts: 0,
        progressDeadlineMs: 600_000,
        onFailure: 'pause',
      },
    }),
  );
  expect(canary.outcome).toBe('awaiting-approval');
  expect(imageOn('node-1')).toBe('agent:v2');
  const release = pods().find((p) => p.spec.nodeName === 'node-1')!;

  const events: GatedEvent[] = [];
  let late: string | undefined;
  const result = await driveUntil(
    abortGatedRollout({
      ...options,
      onEvent: (event) => {
        events.push(event);
        // As the first round deletes node-1's pod, node-3 turns out to run the release too (a pod the watch had
        // not shown yet): its v1 pod replaced by one made from the release's template, as the controller would.
        if (late === undefined && event.kind === 'step' && event.event.kind === 'deleted') {
          const old = pods().find((p) => p.spec.nodeName === 'node-3')!;
          tc.cluster.store.delete('pods', 'default', old.metadata.name, {gracePeriodSeconds: 0});
          late = `${release.metadata.generateName ?? 'agent-'}late`;
          const {uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, deletionTimestamp: _dt, ...meta} = release.metadata;
          tc.cluster.store.create({...release, metadata: {...meta, name: late}, spec: {...release.spec, nodeName: 'node-3'}, status: {}} as never);
        }
      },
    }),
  );
  expect(late).toBeDefined();
  expect(result).toMatchObject({outcome: 'aborted', nodes: ['node-1', 'node-3']});
  const rounds = events.flatMap((e) => (e.kind === 'rolling-back' ? [e.nodes] : []));
  expect(rounds).toEqual([['node-1'], ['node-3']]);
  const record = JSON.parse(daemonSet().metadata.annotations!['ds-rollout.io/gated-rollout']!) as GatedRecord;
  expect(record.phase).toBe('aborted');
  for (const node of ['node-1', 'node-2', 'node-3', 'node-4']) expect(imageOn(node), node).toBe('agent:v1');
});
