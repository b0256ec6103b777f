// Small hand-built RolloutPlans for the renderer tests (they do not need the planner).
import type {NodePlan, PodSummary, RolloutPlan, Wave} from '../../src/core/types.js';

export function pod(name: string, overrides: Partial<PodSummary> = {}): PodSummary {
  return {name, hash: 'old1', updated: false, ready: true, available: true, terminating: false, phase: 'Running', ...overrides};
}

export function newPodSummary(name: string, overrides: Partial<PodSummary> = {}): PodSummary {
  return pod(name, {hash: 'new2', updated: true, ...overrides});
}

export function nodePlan(name: string, overrides: Partial<NodePlan> = {}): NodePlan {
  return {name, shouldRun: true, shouldContinueRunning: true, reason: '', state: 'old', pods: [pod(`fluentd-${name}`)], ...overrides};
}

export function wave(at: number, create: string[], deletes: Array<[string, string]>): Wave {
  return {at, create: create.map((node) => ({node})), delete: deletes.map(([pod, node]) => ({pod, node, reason: 'outdated' as const}))};
}

/** fluentd on four nodes: a updated, b old (next to go), c empty (tainted), d old and not ready. */
export function samplePlan(overrides: Partial<RolloutPlan> = {}): RolloutPlan {
  return {
    kind: 'DaemonSetRolloutPlan',
    controllerVersion: '1.36',
    daemonSet: {namespace: 'kube-system', name: 'fluentd'},
    strategy: {type: 'RollingUpdate', maxUnavailable: 1, maxSurge: 0},
    revisions: {current: {revision: 3, hash: 'old1', name: 'fluentd-old1'}, update: {revision: 4, hash: 'new2', exists: true, name: 'fluentd-new2'}},
    status: {
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      numberMisscheduled: 0,
      numberReady: 2,
      updatedNumberScheduled: 1,
      numberAvailable: 2,
      numberUnavailable: 1,
    },
    nodes: [
      nodePlan('node-a', {state: 'updated', pods: [newPodSummary('fluentd-x7k2p')]}),
      nodePlan('node-b', {wave: 2, pods: [pod('fluentd-q9zrt')]}),
      nodePlan('node-c', {
        shouldRun: false,
        reason: 'taint dedicated=gpu:NoSchedule not tolerated',
        state: 'not-eligible',
        pods: [],
        warning: 'untolerated taint',
      }),
      nodePlan('node-d', {wave: 1, pods: [pod('fluentd-m4n5b', {ready: false, available: false, problem: 'CrashLoopBackOff'})]}),
    ],
    nextSync: {create: [], delete: [{pod: 'fluentd-m4n5b', node: 'node-d', reason: 'outdated', uid: 'u-1', resourceVersion: '42'}]},
    waves: [wave(0, [], [['fluentd-m4n5b', 'node-d']]), wave(0, ['node-d'], [['fluentd-q9zrt', 'node-b']]), wave(0, ['node-b'], [])],
    complete: false,
    converges: true,
    blockers: [],
    warnings: [
      {
        kind: 'untolerated-taint',
        message: 'node-c has taint dedicated=gpu:NoSchedule, which the template does not tolerate: no pod will run there',
        nodes: ['node-c'],
      },
    ],
    notes: ['where several old pods could go first, the planner picks by node name (upstream picks arbitrarily)'],
    budget: {
      spends: 'maxUnavailable',
      maxUnavailable: {limit: 1, used: 1, nodes: [{node: 'node-d', reason: 'old pod fluentd-m4n5b is not ready (CrashLoopBackOff)', settling: false}]},
      maxSurge: {limit: 0, used: 0, nodes: []},
    },
    ...overrides,
  };
}
