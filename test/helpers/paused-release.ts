// The gated-rollout service tests' starting point, on a simulated cluster whose clock the test drives: the DaemonSet
// `agent` (v1) available on every node, paused by ds-rollout, its template changed to v2 (the release) and the
// controller's new revision written. Nothing has rolled yet.
import {clockFrom} from '../../src/platform/clock.js';
import {expect} from 'vitest';
import {connectLiveCluster, type LiveCluster} from '../../src/cluster/live/index.js';
import type {DaemonSet, GatedStrategy} from '../../src/core/index.js';
import {pauseDaemonSet} from '../../src/services/pause.js';
import {makeNode} from '../../src/sim/index.js';
import {startTestCluster, type TestCluster} from './sim-cluster.js';

export const REF = {namespace: 'default', name: 'agent'};

/** A gated rollout of one canary node that bakes `canaryBakeMs`, then waits for promote; a failed gate pauses. */
export function canaryThenApprove(canaryBakeMs = 0): GatedStrategy {
  return {
    canary: {kind: 'count', count: 1},
    canaryBakeMs,
    waves: [],
    bakeMs: 0,
    approve: true,
    maxRestarts: 0,
    progressDeadlineMs: 600_000,
    onFailure: 'pause',
  };
}

export interface PausedRelease {
  readonly tc: TestCluster;
  readonly live: LiveCluster;
  daemonSet(): DaemonSet;
  stop(): Promise<void>;
}

export async function startPausedRelease(nodes: readonly string[], options: {minReadySeconds?: number} = {}): Promise<PausedRelease> {
  const tc = await startTestCluster({kubelet: {startDelayMs: 1000, stopDelayMs: 500}});
  const {store} = tc.cluster;
  const daemonSet = () => store.get('daemonsets', 'default', 'agent') as unknown as DaemonSet;
  nodes.forEach((name, index) => store.create(makeNode(name, {index})));
  store.create({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {name: 'agent', namespace: 'default'},
    spec: {
      selector: {matchLabels: {app: 'agent'}},
      template: {metadata: {labels: {app: 'agent'}}, spec: {containers: [{name: 'main', image: 'agent:v1'}]}},
      updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 2, maxSurge: 0}},
      ...(options.minReadySeconds ? {minReadySeconds: options.minReadySeconds} : {}),
    },
  } as never);
  for (let i = 0; i < 120 && (daemonSet().status?.numberAvailable ?? 0) < nodes.length; i++) tc.advance(1000, 250);
  expect(daemonSet().status?.numberAvailable).toBe(nodes.length);
  const live = connectLiveCluster({kubeconfig: tc.kubeconfig});
  await pauseDaemonSet({writer: live.writer, clock: clockFrom(() => tc.cluster.clock.now())}, {ref: REF});
  store.modify('daemonsets', 'default', 'agent', (ds) => {
    const d = ds as unknown as DaemonSet;
    return {...d, spec: {...d.spec, template: {...d.spec.template, spec: {containers: [{name: 'main', image: 'agent:v2'}]}}}} as never;
  });
  for (let i = 0; i < 10 && store.list('controllerrevisions', {namespace: 'default'}).items.length < 2; i++) tc.advance(100);
  return {
    tc,
    live,
    daemonSet,
    async stop() {
      live.client.close();
      await tc.stop();
    },
  };
}
