// `/metrics` of the simulated cluster, in Prometheus's text exposition format (version 0.0.4): what the node
// agents' own endpoints would show a real Prometheus, per node and per pod, so the metric gate of a gated rollout
// can be tried against a real Prometheus scraping it. A pod of a release that fails with `errors` (--fail-mode
// errors) stays Ready while its error counter climbs, one error per simulated second since it started.
import {isNodeReady, isPodReady} from '../core/index.js';
import type {Node, Pod} from '../core/index.js';
import type {FailureMode} from './kubelet.js';

/** Errors a failing agent logs per simulated second. */
const ERRORS_PER_SECOND = 1;

function label(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labels(pairs: Readonly<Record<string, string>>): string {
  return `{${Object.entries(pairs)
    .map(([key, value]) => `${key}="${label(value)}"`)
    .join(',')}}`;
}

/**
 * The exposition text for `nodes` and `pods` at `now` (simulated ms); `failureOf` says how a pod fails, if it does.
 * Every pod bound to a node has its series (a terminating one too, until it is gone).
 */
export function renderSimMetrics(nodes: readonly Node[], pods: readonly Pod[], now: number, failureOf: (pod: Pod) => FailureMode | undefined): string {
  const lines: string[] = [];
  const family = (name: string, type: 'gauge' | 'counter', help: string, samples: readonly [Record<string, string>, number][]) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [pairs, value] of samples) lines.push(`${name}${labels(pairs)} ${value}`);
  };
  family(
    'ds_rollout_sim_node_ready',
    'gauge',
    'Whether the node reports Ready (1) or not (0).',
    nodes.map((node) => [{node: node.metadata.name}, isNodeReady(node) ? 1 : 0]),
  );
  const bound = pods.filter((pod) => pod.spec.nodeName);
  const of = (pod: Pod) => ({namespace: pod.metadata.namespace ?? 'default', pod: pod.metadata.name, node: pod.spec.nodeName!});
  family(
    'ds_rollout_sim_pod_ready',
    'gauge',
    'Whether the pod is Ready (1) or not (0).',
    bound.map((pod) => [of(pod), isPodReady(pod) ? 1 : 0]),
  );
  family(
    'ds_rollout_sim_agent_errors_total',
    'counter',
    "Errors the pod's agent has logged (rises while a pod of a --fail-mode errors release runs).",
    bound.map((pod) => {
      const started = Date.parse(pod.status?.startTime ?? '');
      const failing = failureOf(pod) === 'errors' && Number.isFinite(started) && pod.status?.phase === 'Running';
      return [of(pod), failing ? Math.max(0, Math.floor(((now - started) / 1000) * ERRORS_PER_SECOND)) : 0];
    }),
  );
  return `${lines.join('\n')}\n`;
}
