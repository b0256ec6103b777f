// Pause records, pause/resume patches, the step wave (the controller's rolling-update rule under the step's budget)
// and how a wave's nodes stand while their replacements start.
import {describe, expect, test} from 'vitest';
import {
  PAUSED_STRATEGY_ANNOTATION,
  type ClusterState,
  type DaemonSet,
  type Node,
  type Pod,
  pauseDecision,
  pausedInfoOf,
  pausedStrategyOf,
  pauseStateOf,
  planRollout,
  planStepWave,
  resumeDecision,
  rolloutReport,
  syncDaemonSet,
  unpausedWarning,
  waveLanding,
} from '../../src/core/index.js';
import {renderPlanText} from '../../src/output/plan-text.js';
import {NOW, newDaemonSet, newNode, newNodes, newPod, newRevision, withTaints} from '../helpers/builders.js';

const PAUSED_AT = '2026-11-21T11:30:00Z';

function record(maxUnavailable: number | string, maxSurge: number | string = 0, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({type: 'RollingUpdate', rollingUpdate: {maxUnavailable, maxSurge}, pausedAt: PAUSED_AT, ...extra});
}

function withAnnotation(ds: DaemonSet, value: string): DaemonSet {
  return {...ds, metadata: {...ds.metadata, annotations: {...ds.metadata.annotations, [PAUSED_STRATEGY_ANNOTATION]: value}}};
}

/** A DaemonSet paused by the tool with the given recorded budgets. */
function paused(ds: DaemonSet, maxUnavailable: number | string, maxSurge: number | string = 0): DaemonSet {
  return withAnnotation({...ds, spec: {...ds.spec, updateStrategy: {type: 'OnDelete'}}}, record(maxUnavailable, maxSurge));
}

function withImage(ds: DaemonSet, image: string): DaemonSet {
  return {...ds, spec: {...ds.spec, template: {...ds.spec.template, spec: {...ds.spec.template.spec, containers: [{name: 'main', image}]}}}};
}

/** `count` nodes running old pods (hash h1) of a DaemonSet whose template moved on to h2. */
function rollout(ds: DaemonSet, count: number, pods?: (node: string, i: number, next: DaemonSet) => Pod | undefined): ClusterState {
  const v1 = newDaemonSet('foo');
  const next = withImage(ds, 'foo/bar:2');
  const nodes = newNodes(count);
  const list = nodes.flatMap((n, i) => {
    const pod = pods ? pods(n.metadata.name, i, next) : newPod(`old-${i}`, n.metadata.name, next, {hash: 'h1'});
    return pod ? [pod] : [];
  });
  return {daemonSet: next, nodes, pods: list, revisions: [newRevision(v1, 'h1', 1, v1.spec.template), newRevision(next, 'h2', 2)]};
}

function deletions(state: ClusterState, options: Omit<Parameters<typeof planStepWave>[1], 'now'> = {}): string[] {
  const plan = planStepWave(state, {now: NOW, ...options});
  if (!plan.ok) throw new Error(`unexpected problem ${JSON.stringify(plan.problem)}`);
  return plan.wave.delete.map((d) => `${d.pod}@${d.node}`);
}

describe('pausedStrategyOf', () => {
  const ds = newDaemonSet('foo');
  test('no annotation: undefined', () => expect(pausedStrategyOf(ds)).toBeUndefined());
  test('reads the record', () => {
    expect(pausedStrategyOf(withAnnotation(ds, record('25%', 0, {steps: 2})))).toEqual({
      ok: true,
      strategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: '25%', maxSurge: 0}, pausedAt: PAUSED_AT, steps: 2},
    });
  });
  test.each([
    ['not JSON', '{', /not JSON/],
    ['an array', '[]', /JSON object/],
    ['another type', JSON.stringify({type: 'OnDelete', rollingUpdate: {}, pausedAt: PAUSED_AT}), /type must be/],
    ['no rollingUpdate', JSON.stringify({type: 'RollingUpdate', pausedAt: PAUSED_AT}), /rollingUpdate is missing/],
    ['a bad time', JSON.stringify({type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1}, pausedAt: 'yesterday'}), /RFC3339/],
    ['both budgets zero', record(0, 0), /cannot be 0 when maxSurge is 0/],
    ['both budgets set', record(1, 1), /may not be set when maxUnavailable is non-zero/],
    ['a bad percentage', record('150%'), /must not be greater than 100%/],
    ['negative steps', record(1, 0, {steps: -1}), /steps/],
  ])('refuses %s', (_, value, message) => {
    const parsed = pausedStrategyOf(withAnnotation(ds, value));
    expect(parsed?.ok).toBe(false);
    expect(parsed && !parsed.ok ? parsed.error : '').toMatch(message);
  });
});

describe('pauseStateOf', () => {
  const ds = newDaemonSet('foo');
  test.each([
    ['running', ds, 'running'],
    ['paused', paused(ds, 2), 'paused'],
    ['OnDelete by hand', newDaemonSet('foo', {type: 'OnDelete'}), 'on-delete'],
    ['a record on a running DaemonSet', withAnnotation(ds, record(1)), 'stale'],
    ['an unreadable record', withAnnotation(newDaemonSet('foo', {type: 'OnDelete'}), 'x'), 'invalid'],
  ])('%s', (_, input, kind) => expect(pauseStateOf(input).kind).toBe(kind));
});

describe('unpausedWarning: a pause record left on a DaemonSet that runs RollingUpdate again', () => {
  const ds = newDaemonSet('foo');
  const stale = withAnnotation(ds, record(1));
  const strategyOwner = (manager: string, time: string) => ({manager, operation: 'Update', time, fieldsV1: {'f:spec': {'f:updateStrategy': {'f:type': {}}}}});
  const withManagers = (...entries: object[]): DaemonSet => ({...stale, metadata: {...stale.metadata, managedFields: entries}});
  const SAID = `by a change to spec.updateStrategy: it is RollingUpdate again, so the controller replaces pods, but the pause record of ${PAUSED_AT} (annotation ${PAUSED_STRATEGY_ANNOTATION}) is still there; 'kubectl ds-rollout pause' pauses again, 'kubectl ds-rollout resume' removes the record`;

  test.each([
    ['no record', ds, undefined],
    ['paused', paused(ds, 2), undefined],
    ['a record, no managedFields: no time', stale, `un-paused by someone else, ${SAID}`],
    [
      'the newest other manager owning updateStrategy since the pause dates it',
      withManagers(
        strategyOwner('kubectl-client-side-apply', '2026-11-21T11:40:00Z'),
        strategyOwner('kubectl-edit', '2026-11-21T11:45:00Z'),
        strategyOwner('ds-rollout', '2026-11-21T11:50:00Z'),
        {manager: 'other', time: '2026-11-21T11:55:00Z', fieldsV1: {'f:metadata': {}}},
      ),
      `un-paused by someone else at 2026-11-21T11:45:00Z (field manager kubectl-edit), ${SAID}`,
    ],
    [
      'a change before the pause says nothing of when',
      withManagers(strategyOwner('kubectl-edit', '2026-11-21T11:00:00Z')),
      `un-paused by someone else, ${SAID}`,
    ],
  ])('%s', (_, input, message) => {
    expect(unpausedWarning(input)?.message).toBe(message);
  });

  test('an unreadable record on a running DaemonSet', () => {
    expect(unpausedWarning(withAnnotation(ds, 'x'))).toEqual({
      kind: 'unpaused',
      message: `a pause record that cannot be read (annotation ${PAUSED_STRATEGY_ANNOTATION} is not JSON) is left on a DaemonSet that runs RollingUpdate: 'kubectl ds-rollout resume' removes it`,
    });
  });

  test("the plan and the status report carry it (one place: the plan's warnings)", () => {
    const state: ClusterState = {daemonSet: stale, nodes: [newNode('n1')], pods: [], revisions: []};
    const plan = planRollout(state, {now: NOW});
    expect(plan.warnings[0]).toEqual(unpausedWarning(stale));
    expect(rolloutReport(state, NOW, plan).warnings[0]).toEqual(unpausedWarning(stale));
    expect(planRollout({...state, daemonSet: ds}, {now: NOW}).warnings.some((w) => w.kind === 'unpaused')).toBe(false);
  });
});

describe('pauseDecision', () => {
  test('records the strategy and switches to OnDelete in one patch, template untouched', () => {
    const decision = pauseDecision(newDaemonSet('foo', {maxUnavailable: '25%'}), PAUSED_AT);
    expect(decision).toEqual({
      kind: 'patch',
      body: {
        metadata: {
          annotations: {
            [PAUSED_STRATEGY_ANNOTATION]: '{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":0},"pausedAt":"2026-11-21T11:30:00Z"}',
          },
        },
        spec: {updateStrategy: {type: 'OnDelete', rollingUpdate: null}},
      },
      strategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: '25%', maxSurge: 0}, pausedAt: PAUSED_AT, steps: 0},
      replacedStale: false,
    });
  });
  test('is idempotent', () => expect(pauseDecision(paused(newDaemonSet('foo'), 2), '2027-01-01T00:00:00Z').kind).toBe('already-paused'));
  test('leaves an OnDelete DaemonSet it did not pause alone', () =>
    expect(pauseDecision(newDaemonSet('foo', {type: 'OnDelete'}), PAUSED_AT).kind).toBe('on-delete'));
  test('replaces a stale record with the strategy in force', () => {
    const decision = pauseDecision(withAnnotation(newDaemonSet('foo', {maxUnavailable: 3}), record(1)), PAUSED_AT);
    expect(decision).toMatchObject({kind: 'patch', replacedStale: true, strategy: {rollingUpdate: {maxUnavailable: 3}}});
  });
  test('refuses an OnDelete DaemonSet whose record cannot be read', () => {
    expect(pauseDecision(withAnnotation(newDaemonSet('foo', {type: 'OnDelete'}), 'x'), PAUSED_AT).kind).toBe('invalid');
  });
});

describe('resumeDecision', () => {
  test('restores the record and drops it', () => {
    expect(resumeDecision(paused(newDaemonSet('foo'), '10%'))).toEqual({
      kind: 'patch',
      body: {
        metadata: {annotations: {[PAUSED_STRATEGY_ANNOTATION]: null}},
        spec: {updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: '10%', maxSurge: 0}}},
      },
      restored: {maxUnavailable: '10%', maxSurge: 0},
      from: 'record',
    });
  });
  test('a running DaemonSet is not paused', () => expect(resumeDecision(newDaemonSet('foo'))).toEqual({kind: 'not-paused', type: 'RollingUpdate'}));
  test('an OnDelete DaemonSet it did not pause needs an explicit strategy', () => {
    const ds = newDaemonSet('foo', {type: 'OnDelete'});
    expect(resumeDecision(ds)).toEqual({kind: 'needs-force', state: 'on-delete'});
    expect(resumeDecision(ds, {maxUnavailable: 0, maxSurge: 2})).toMatchObject({kind: 'patch', restored: {maxUnavailable: 0, maxSurge: 2}, from: 'flags'});
  });
  test('an explicit strategy must be valid', () => {
    expect(resumeDecision(newDaemonSet('foo', {type: 'OnDelete'}), {maxUnavailable: 0})).toMatchObject({kind: 'invalid-strategy'});
  });
  test('a stale record is removed from a running DaemonSet', () => {
    expect(resumeDecision(withAnnotation(newDaemonSet('foo'), record(1)))).toEqual({
      kind: 'stale',
      body: {metadata: {annotations: {[PAUSED_STRATEGY_ANNOTATION]: null}}},
      type: 'RollingUpdate',
    });
  });
});

describe('pausedInfoOf and the plan', () => {
  test('scales the recorded budget against desired', () => {
    expect(pausedInfoOf(paused(newDaemonSet('foo'), '25%'), 10)).toEqual({
      by: 'ds-rollout',
      pausedAt: PAUSED_AT,
      strategy: {type: 'RollingUpdate', maxUnavailable: '25%', maxSurge: 0},
      budgets: {maxUnavailable: 3, maxSurge: 0},
      steps: 0,
    });
    expect(pausedInfoOf(newDaemonSet('foo', {type: 'OnDelete'}), 10)).toBeUndefined();
  });

  test('ds-plan reports a paused DaemonSet with its recorded budget', () => {
    const state = rollout(paused(newDaemonSet('foo'), 2), 4);
    const plan = planRollout(state, {now: NOW});
    expect(plan.strategy.type).toBe('OnDelete');
    expect(plan.paused).toMatchObject({by: 'ds-rollout', budgets: {maxUnavailable: 2, maxSurge: 0}});
    // Old pods waiting for a step is the operator's choice, not a blocker of any node.
    expect(plan.blockers).toEqual([]);
    expect(plan.warnings.find((w) => w.kind === 'on-delete')?.message).toMatch(
      /^paused by ds-rollout: (1 node runs|\d+ nodes run) an old pod, waiting for `ds-rollout step` \(or `ds-rollout resume`\)$/,
    );
    expect(plan.notes.some((note) => note.startsWith('Paused: the controller still creates pods'))).toBe(true);
    const text = renderPlanText(plan, {color: false});
    expect(text.split('\n')[0]).toMatch(/paused by ds-rollout$/);
    expect(text).toContain(`Budgets: paused by ds-rollout since ${PAUSED_AT}; recorded maxUnavailable 2, maxSurge 0`);
  });

  test('an OnDelete DaemonSet the tool did not pause has no paused field', () => {
    expect(planRollout(rollout(newDaemonSet('foo', {type: 'OnDelete'}), 2), {now: NOW}).paused).toBeUndefined();
  });
});

describe('planStepWave', () => {
  test('takes as many old pods as the recorded budget allows, by node name', () => {
    const state = rollout(paused(newDaemonSet('foo'), 2), 5);
    const plan = planStepWave(state, {now: NOW});
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    expect(plan.wave.delete.map((d) => d.node)).toEqual(['node-0', 'node-1']);
    expect(plan.wave.delete[0]).toMatchObject({pod: 'old-0', reason: 'outdated', uid: 'pod-uid-old-0', resourceVersion: '1', available: true, replaced: true});
    expect(plan.wave).toMatchObject({
      budget: {maxUnavailable: 2, written: 2, source: 'record', desired: 5},
      waiting: ['node-2', 'node-3', 'node-4'],
      oldLeft: 5,
      done: false,
      unavailable: [],
    });
  });

  test('is the controller rolling update: the same deletions as a sync under the recorded strategy', () => {
    const base = newDaemonSet('foo');
    const cases: ClusterState[] = [
      rollout(base, 6),
      rollout(base, 6, (node, i, next) => newPod(`p-${i}`, node, next, {hash: i === 2 ? 'h2' : 'h1', ready: i !== 4})),
      rollout(base, 7, (node, i, next) => (i === 1 ? undefined : newPod(`p-${i}`, node, next, {hash: 'h1', ready: i !== 5}))),
    ];
    for (const budget of [1, 2, 3, '50%']) {
      for (const state of cases) {
        const running = {
          ...state,
          daemonSet: {
            ...state.daemonSet,
            spec: {...state.daemonSet.spec, updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: budget, maxSurge: 0}}},
          },
        };
        const controller = syncDaemonSet(running, {now: NOW}).rollingUpdate.delete.map((d) => `${d.pod}@${d.node}`);
        // The same pods; the step lists them by node name (the controller lists unavailable ones first).
        expect(deletions({...state, daemonSet: paused(state.daemonSet, budget)})).toEqual(controller.sort());
      }
    }
  });

  test('counts missing, terminating and unavailable pods against the budget', () => {
    const ds = paused(newDaemonSet('foo', {minReadySeconds: 30}), 3);
    const state = rollout(ds, 7, (node, i, next) => {
      if (i === 0) return undefined; // missing: the controller will create one
      if (i === 1) return newPod(`p-${i}`, node, next, {hash: 'h1', deleting: '2026-11-21T11:59:00Z'});
      if (i === 2) return newPod(`p-${i}`, node, next, {hash: 'h2', ready: false});
      if (i === 3) return newPod(`p-${i}`, node, next, {hash: 'h2', readySince: '2026-11-21T11:59:50Z'}); // ready, not yet available
      return newPod(`p-${i}`, node, next, {hash: 'h1'});
    });
    const plan = planStepWave(state, {now: NOW});
    if (!plan.ok) throw new Error('problem');
    expect(plan.wave.unavailable).toEqual([
      {node: 'node-0', reason: 'no daemon pod yet: the controller creates one', settling: true},
      {node: 'node-1', reason: 'pod p-1 is terminating', settling: true},
      {node: 'node-2', reason: 'new pod p-2 is not ready', settling: true},
      {node: 'node-3', reason: 'new pod p-3 is ready, available in 20s (minReadySeconds)', settling: true, availableAt: NOW + 20_000},
    ]);
    expect(plan.wave.delete).toEqual([]);
    expect(plan.wave.waiting).toEqual(['node-4', 'node-5', 'node-6']);
    // A larger budget leaves room for exactly the difference.
    expect(deletions(state, {maxUnavailable: 6})).toEqual(['p-4@node-4', 'p-5@node-5']);
  });

  test('replaces unavailable old pods whatever the budget, and they use none of it', () => {
    const ds = paused(newDaemonSet('foo'), 1);
    const state = rollout(ds, 4, (node, i, next) => newPod(`p-${i}`, node, next, {hash: 'h1', ready: i !== 2}));
    const plan = planStepWave(state, {now: NOW});
    if (!plan.ok) throw new Error('problem');
    expect(plan.wave.delete.map((d) => [d.pod, d.available])).toEqual([['p-2', false]]);
    expect(plan.wave.unavailable).toEqual([{node: 'node-2', reason: 'old pod p-2 is not ready', settling: false}]);
  });

  test('a node that is not Ready does not settle by itself', () => {
    const ds = paused(newDaemonSet('foo'), 1);
    const base = rollout(ds, 3, (node, i, next) => newPod(`p-${i}`, node, next, {hash: i === 1 ? 'h2' : 'h1', ready: i !== 1}));
    const nodes: Node[] = base.nodes.map((n) => (n.metadata.name === 'node-1' ? {...n, status: {conditions: [{type: 'Ready', status: 'Unknown'}]}} : n));
    const plan = planStepWave({...base, nodes}, {now: NOW});
    if (!plan.ok) throw new Error('problem');
    expect(plan.wave.unavailable).toEqual([{node: 'node-1', reason: 'new pod p-1 is not ready (node not Ready)', settling: false}]);
    expect(plan.wave.delete).toEqual([]);
  });

  describe('--nodes and --selector', () => {
    const ds = paused(newDaemonSet('foo'), 2);
    test('only the chosen nodes, within the budget the whole DaemonSet leaves', () => {
      const state = rollout(ds, 6, (node, i, next) => newPod(`p-${i}`, node, next, {hash: i === 0 ? 'h2' : 'h1', ready: i !== 0}));
      expect(deletions(state, {nodes: ['node-5', 'node-3', 'node-4']})).toEqual(['p-3@node-3']);
      expect(deletions(state, {nodes: ['node-5']})).toEqual(['p-5@node-5']);
      const plan = planStepWave(state, {now: NOW, nodes: ['node-5', 'node-3', 'node-4']});
      expect(plan.ok && plan.wave).toMatchObject({scope: ['node-3', 'node-4', 'node-5'], waiting: ['node-4', 'node-5'], oldLeft: 3});
    });
    test('unknown node names are refused', () => {
      expect(planStepWave(rollout(ds, 2), {now: NOW, nodes: ['node-1', 'nope']})).toEqual({ok: false, problem: {kind: 'unknown-nodes', nodes: ['nope']}});
    });
    test('a label selector picks the nodes', () => {
      const state = rollout(ds, 4);
      const nodes = state.nodes.map((n, i) => (i % 2 === 1 ? newNode(n.metadata.name, {canary: 'true'}) : n));
      expect(deletions({...state, nodes}, {selector: {matchLabels: {canary: 'true'}}})).toEqual(['old-1@node-1', 'old-3@node-3']);
    });
    test('the scope is done when its nodes run the new revision', () => {
      const state = rollout(ds, 3, (node, i, next) => newPod(`p-${i}`, node, next, {hash: i === 0 ? 'h2' : 'h1'}));
      const plan = planStepWave(state, {now: NOW, nodes: ['node-0']});
      expect(plan.ok && plan.wave).toMatchObject({done: true, oldLeft: 0, delete: []});
    });
  });

  test('an old pod on a node that no longer takes the daemon goes without a replacement', () => {
    const ds = paused(newDaemonSet('foo'), 1);
    const state = rollout(ds, 2);
    const nodes = [withTaints(state.nodes[0]!, {key: 'x', effect: 'NoSchedule'}), state.nodes[1]!];
    const plan = planStepWave({...state, nodes}, {now: NOW});
    expect(plan.ok && plan.wave.delete).toMatchObject([{node: 'node-0', replaced: false}]);
  });

  describe('budgets', () => {
    test('the recorded percentage scales against desired', () => {
      const plan = planStepWave(rollout(paused(newDaemonSet('foo'), '30%'), 10), {now: NOW});
      expect(plan.ok && plan.wave.budget).toEqual({maxUnavailable: 3, written: '30%', source: 'record', desired: 10});
    });
    test('--max-unavailable replaces the recorded one', () => {
      const plan = planStepWave(rollout(paused(newDaemonSet('foo'), 1), 4), {now: NOW, maxUnavailable: '50%'});
      expect(plan.ok && plan.wave.budget).toEqual({maxUnavailable: 2, written: '50%', source: 'flag', desired: 4});
    });
    test.each([0, '0%', '150%', 'x'])('refuses the budget %s', (value) => {
      expect(planStepWave(rollout(paused(newDaemonSet('foo'), 1), 2), {now: NOW, maxUnavailable: value})).toMatchObject({
        ok: false,
        problem: {kind: 'invalid-budget'},
      });
    });
    test('a running DaemonSet is not stepped', () => {
      expect(planStepWave(rollout(newDaemonSet('foo'), 2), {now: NOW, maxUnavailable: 1})).toEqual({
        ok: false,
        problem: {kind: 'not-paused', type: 'RollingUpdate'},
      });
    });
    test('an OnDelete DaemonSet the tool did not pause needs --max-unavailable', () => {
      const state = rollout(newDaemonSet('foo', {type: 'OnDelete'}), 2);
      expect(planStepWave(state, {now: NOW})).toEqual({ok: false, problem: {kind: 'needs-budget', why: 'on-delete'}});
      expect(deletions(state, {maxUnavailable: 1})).toEqual(['old-0@node-0']);
    });
    test('a surging record needs --max-unavailable (or the controller)', () => {
      const state = rollout(paused(newDaemonSet('foo'), 0, '20%'), 2);
      expect(planStepWave(state, {now: NOW})).toEqual({ok: false, problem: {kind: 'needs-budget', why: 'surge', maxSurge: '20%'}});
      expect(deletions(state, {maxUnavailable: 1})).toEqual(['old-0@node-0']);
    });
  });
});

describe('waveLanding', () => {
  const ds = withImage(newDaemonSet('foo', {minReadySeconds: 10}), 'foo/bar:2');
  const v1 = newDaemonSet('foo');
  const nodes = newNodes(8);
  const pods = [
    newPod('a', 'node-0', ds, {hash: 'h1'}),
    newPod('b', 'node-1', ds, {hash: 'h1', deleting: '2026-11-21T12:00:30Z'}),
    newPod('c', 'node-3', ds, {hash: 'h2', ready: false}),
    {
      ...newPod('d', 'node-4', ds, {hash: 'h2', ready: false}),
      status: {phase: 'Running', containerStatuses: [{name: 'main', ready: false, restartCount: 3, state: {waiting: {reason: 'CrashLoopBackOff'}}}]},
    },
    newPod('e', 'node-5', ds, {hash: 'h2', readySince: '2026-11-21T11:59:55Z'}),
    newPod('f', 'node-6', ds, {hash: 'h2'}),
    newPod('g', 'node-7', ds, {hash: 'h1'}),
    newPod('h', 'node-7', ds, {hash: 'h2', created: '2026-11-21T11:59:00Z'}),
  ] as Pod[];
  const state: ClusterState = {daemonSet: ds, nodes, pods, revisions: [newRevision(v1, 'h1', 1, v1.spec.template), newRevision(ds, 'h2', 2)]};

  test('says where each node of the wave stands', () => {
    const landing = waveLanding(state, ['node-0', 'node-1', 'node-2', 'node-3', 'node-4', 'node-5', 'node-6', 'node-7', 'gone-node'], NOW);
    expect(landing.nodes).toEqual([
      {node: 'node-0', state: 'old'},
      {node: 'node-1', state: 'terminating'},
      {node: 'node-2', state: 'creating'},
      {node: 'node-3', state: 'starting', pod: 'c'},
      {node: 'node-4', state: 'failing', pod: 'd', problem: 'CrashLoopBackOff'},
      {node: 'node-5', state: 'ready', pod: 'e', availableAt: NOW + 5000},
      {node: 'node-6', state: 'available', pod: 'f'},
      {
        node: 'node-7',
        state: 'surging',
        pod: 'h',
        availableAt: Date.parse('2026-11-21T11:00:10Z'),
        oldPod: {name: 'g', uid: 'pod-uid-g', resourceVersion: '1'},
      },
      {node: 'gone-node', state: 'gone'},
    ]);
    expect(landing.landed).toBe(false);
    expect(landing.crowded).toEqual(['node-7']);
  });

  test('lands when every node has an available new pod', () => {
    expect(waveLanding(state, ['node-6', 'gone-node'], NOW).landed).toBe(true);
    expect(waveLanding(state, ['node-5'], NOW + 5000).landed).toBe(true);
  });
});
