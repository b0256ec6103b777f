// The simulated cluster's /metrics (src/sim/metrics.ts): Prometheus's text format, a series per node and per pod,
// and an error counter that only a pod failing with `errors` raises, by the simulated clock.
import {expect, test} from 'vitest';
import type {Pod} from '../../src/core/index.js';
import {makeNode} from '../../src/sim/index.js';
import {renderSimMetrics} from '../../src/sim/metrics.js';

const START = Date.parse('2026-11-21T12:00:00Z');

function pod(name: string, node: string, image: string, ready: boolean): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {name, namespace: 'kube-system'},
    spec: {nodeName: node, containers: [{name: 'main', image}]},
    status: {phase: 'Running', startTime: '2026-11-21T12:00:00Z', conditions: [{type: 'Ready', status: ready ? 'True' : 'False'}]},
  } as Pod;
}

test('a series per node and per pod; the error counter climbs on a pod failing with errors only', () => {
  const nodes = [makeNode('node-1'), makeNode('node-"2"')];
  const pods = [pod('agent-a', 'node-1', 'agent:v2', true), pod('agent-b', 'node-"2"', 'agent:v1', true)];
  const failing = (p: Pod) => (p.spec.containers[0]!.image === 'agent:v2' ? ('errors' as const) : undefined);
  const text = renderSimMetrics(nodes, pods, START + 42_500, failing);
  expect(text.split('\n').filter((line) => line.startsWith('ds_rollout_sim_'))).toEqual([
    'ds_rollout_sim_node_ready{node="node-1"} 1',
    'ds_rollout_sim_node_ready{node="node-\\"2\\""} 1',
    'ds_rollout_sim_pod_ready{namespace="kube-system",pod="agent-a",node="node-1"} 1',
    'ds_rollout_sim_pod_ready{namespace="kube-system",pod="agent-b",node="node-\\"2\\""} 1',
    'ds_rollout_sim_agent_errors_total{namespace="kube-system",pod="agent-a",node="node-1"} 42',
    'ds_rollout_sim_agent_errors_total{namespace="kube-system",pod="agent-b",node="node-\\"2\\""} 0',
  ]);
  expect(text).toContain('# TYPE ds_rollout_sim_agent_errors_total counter\n');
  expect(text.endsWith('\n')).toBe(true);
  // Later on the simulated clock, more errors.
  expect(renderSimMetrics(nodes, pods, START + 100_000, failing)).toContain('pod="agent-a",node="node-1"} 100\n');
});
