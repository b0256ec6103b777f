// Gated rollouts in the core (core/gates.ts): the stage plan, the health gate's verdict per pod state, and the
// strategy document's validation with the line of each problem.
import {describe, expect, test} from 'vitest';
import {
  canarySizeOf,
  type GatedRecord,
  type GatedStrategy,
  effectiveGatedRecord,
  formatGatedRecord,
  GATED_ROLLOUT_ANNOTATION,
  gatedRecordOf,
  judgeGate,
  planGatedStages,
  recordedFailures,
  resolveGatedStages,
  rolloutOriginOf,
  strategyFromDocument,
  strategyLine,
} from '../../src/core/index.js';
import type {ClusterState, DaemonSet, Pod} from '../../src/core/types.js';
import {computeTemplateHash} from '../../src/core/index.js';
import {NOW, newDaemonSet, newNode, newNodes, newPod, newRevision} from '../helpers/builders.js';

const base = newDaemonSet('agent', {maxUnavailable: 1});
const ds: DaemonSet = {
  ...base,
  spec: {...base.spec, template: {...base.spec.template, spec: {...base.spec.template.spec, containers: [{name: 'main', image: 'a:2'}]}}},
};

function cluster(count: number, podFor: (node: string, i: number) => Pod[] = (node, i) => [newPod(`old-${i}`, node, ds, {hash: 'h1'})]): ClusterState {
  const nodes = newNodes(count);
  return {daemonSet: ds, nodes, pods: nodes.flatMap((n, i) => podFor(n.metadata.name, i)), revisions: [newRevision(base, 'h1', 1), newRevision(ds, 'h2', 2)]};
}

function templateHashOf(daemonSet: DaemonSet): string {
  return computeTemplateHash(daemonSet.spec.template);
}

const strategy: GatedStrategy = {canaryBakeMs: 60_000, waves: [], bakeMs: 0, approve: false, maxRestarts: 0, progressDeadlineMs: 300_000, onFailure: 'pause'};

describe('planGatedStages', () => {
  test.each([
    {
      name: 'count',
      canary: {kind: 'count', count: 2} as const,
      waves: [50, 100],
      want: [['node-0', 'node-1'], ['node-0', 'node-1', 'node-2', 'node-3', 'node-4'], undefined],
    },
    {name: 'percent rounds up', canary: {kind: 'percent', percent: 15} as const, waves: [], want: [['node-0', 'node-1'], undefined]},
    {name: 'chosen nodes', canary: {kind: 'nodes', nodes: ['node-7']} as const, waves: [20], want: [['node-7'], undefined]},
    {name: 'no canary', canary: undefined, waves: [30, 100], want: [['node-0', 'node-1', 'node-2'], undefined]},
  ])('$name', ({canary, waves, want}) => {
    const state = cluster(10);
    const stages = resolveGatedStages(state, planGatedStages(state, {...strategy, ...(canary ? {canary} : {}), waves}));
    expect(stages.map((s) => s.nodes)).toEqual(want);
  });

  test('nodes already on the new revision are the canary (a rerun picks the same ones)', () => {
    const state = cluster(4, (node, i) => [newPod(`p-${i}`, node, ds, {hash: i === 2 ? 'h2' : 'h1'})]);
    expect(resolveGatedStages(state, planGatedStages(state, {...strategy, canary: {kind: 'count', count: 1}}))[0]!.nodes).toEqual(['node-2']);
  });

  test('a selector picks labelled nodes; none matching is an error', () => {
    const state = {...cluster(3), nodes: [newNode('a', {pool: 'canary'}), newNode('b'), newNode('c', {pool: 'canary'})]};
    const stages = planGatedStages(state, {...strategy, canary: {kind: 'selector', selector: 'pool=canary'}, waves: [50, 100]});
    expect(resolveGatedStages(state, stages).map((stage) => stage.nodes)).toEqual([['a', 'c'], ['a', 'c'], undefined]);
    expect(() => planGatedStages(state, {...strategy, canary: {kind: 'selector', selector: 'pool=none'}})).toThrow('no node that runs the daemon matches');
    expect(() => planGatedStages(state, {...strategy, canary: {kind: 'nodes', nodes: ['z']}})).toThrow('canary node does not run the daemon: z');
  });
});

describe('the record stays small', () => {
  test('a rollout of 15,000 nodes in five stages, failed on a hundred of them, fits in 4 KiB', {timeout: 60_000}, () => {
    const state = cluster(15_000);
    const stages = planGatedStages(state, {...strategy, canary: {kind: 'percent', percent: 10}, waves: [25, 50, 75, 100]});
    const failures = Array.from({length: 100}, (_, i) => ({pod: `agent-${'x'.repeat(5)}${i}`, node: `node-${i}`, reason: 'CrashLoopBackOff (5 restarts)'}));
    const record: GatedRecord = {
      template: 'h2',
      from: {revision: 1, hash: 'h1'},
      stages,
      stage: 1,
      phase: 'failed',
      ...recordedFailures(failures),
      maxRestarts: 0,
      progressDeadlineMs: 600_000,
      onFailure: 'undo',
      maxUnavailable: '10%',
    };
    const text = formatGatedRecord(record);
    expect(text.length).toBeLessThan(4096);
    expect(record).toMatchObject({failureCount: 100, failures: failures.slice(0, 5)});
    // The stages still choose 1,500 and 3,750 nodes when they run.
    expect(resolveGatedStages(state, stages).map((stage) => stage.nodes?.length)).toEqual([1500, 3750, 7500, 11250, undefined]);
  });
});

describe('rolloutOriginOf: where a rollout starts, read from the pods', () => {
  test('the revision the nodes run, not the newest other revision', () => {
    // Revision 3 (h3) is newer but runs nowhere (a failed release, undone): the nodes run h1.
    const state = {
      ...cluster(3),
      revisions: [
        newRevision(base, 'h1', 1),
        newRevision(ds, 'h2', 2),
        newRevision(base, 'h3', 3, {...base.spec.template, metadata: {labels: {...base.spec.template.metadata?.labels, x: 'y'}}}),
      ],
    };
    expect(rolloutOriginOf(state)).toMatchObject({revision: 1, hash: 'h1', template: templateHashOf(base)});
  });

  test('mixed: the newest revision some node runs; every node on the template: none', () => {
    const mixed = cluster(3, (node, i) => [newPod(`p-${i}`, node, ds, {hash: i === 0 ? 'h3' : 'h1'})]);
    const state = {
      ...mixed,
      revisions: [
        ...mixed.revisions,
        newRevision(base, 'h3', 3, {...base.spec.template, metadata: {labels: {...base.spec.template.metadata?.labels, x: 'y'}}}),
      ],
    };
    expect(rolloutOriginOf(state)?.hash).toBe('h3');
    expect(rolloutOriginOf(cluster(3, (node, i) => [newPod(`p-${i}`, node, ds, {hash: 'h2'})]))).toBeUndefined();
  });

  test('past 2^53: chosen, written and read back exactly', () => {
    const state = {
      ...cluster(2),
      revisions: [
        {...newRevision(base, 'h1', 1), revision: 9007199254740993n},
        {...newRevision(ds, 'h2', 2), revision: 9007199254740994n},
      ],
    };
    const from = rolloutOriginOf(state as unknown as ClusterState)!;
    expect(from).toMatchObject({revision: 9007199254740993n, hash: 'h1'});
    const record = {template: 'h2', from, stages: [], stage: 0, phase: 'running' as const, failures: []};
    const text = formatGatedRecord(record as unknown as GatedRecord);
    expect(text).toContain('"revision":9007199254740993');
    const read = gatedRecordOf({...newDaemonSet('fluentd'), metadata: {...newDaemonSet('fluentd').metadata, annotations: {[GATED_ROLLOUT_ANNOTATION]: text}}});
    expect(read.kind === 'record' && read.record.from).toEqual(from);
  });
});

describe('effectiveGatedRecord: the record follows the DaemonSet', () => {
  const record = {
    template: templateHashOf(ds),
    stages: [{name: 'canary', count: 1, bakeMs: 0, approve: false}],
    stage: 0,
    phase: 'awaiting-approval',
  } as unknown as GatedRecord;
  const paused = {...ds, spec: {...ds.spec, updateStrategy: {type: 'OnDelete'}}} as DaemonSet;
  test('paused: as written', () => {
    expect(effectiveGatedRecord(paused, record).phase).toBe('awaiting-approval');
  });
  test('resumed by someone else and rolled out by the controller: complete; not rolled out: abandoned', () => {
    const mine = {...record, template: templateHashOf(ds)};
    const done = {...ds, status: {desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3, observedGeneration: 1}} as DaemonSet;
    expect(effectiveGatedRecord(done, mine).phase).toBe('complete');
    const halfway = {...done, status: {...done.status!, updatedNumberScheduled: 1}} as DaemonSet;
    expect(effectiveGatedRecord(halfway, mine).phase).toBe('abandoned');
    expect(effectiveGatedRecord(done, {...mine, template: 'other'}).phase).toBe('abandoned');
  });
});

describe('judgeGate', () => {
  const recent = new Date(NOW - 5_000).toISOString();
  const old = new Date(NOW - 600_000).toISOString();
  function withContainer(pod: Pod, status: Record<string, unknown>): Pod {
    return {...pod, status: {...pod.status, containerStatuses: [{name: 'main', ready: false, restartCount: 0, image: 'a:2', ...status}]}} as Pod;
  }
  const cases: {name: string; pod: (node: string) => Pod; seen?: string[]; want: string | undefined}[] = [
    {name: 'ready and available', pod: (n) => newPod('new', n, ds, {hash: 'h2'}), want: undefined},
    {name: 'starting within the deadline', pod: (n) => newPod('new', n, ds, {hash: 'h2', ready: false, created: recent}), want: undefined},
    {name: 'pending past the deadline', pod: (n) => newPod('new', n, ds, {hash: 'h2', ready: false, created: old}), want: 'Pending past the progress deadline'},
    {
      name: 'running, not ready past the deadline',
      pod: (n) => newPod('new', n, ds, {hash: 'h2', ready: false, phase: 'Running', created: old}),
      want: 'not Ready past the progress deadline',
    },
    {
      name: 'crash loop',
      pod: (n) =>
        withContainer(newPod('new', n, ds, {hash: 'h2', ready: false, created: recent}), {restartCount: 3, state: {waiting: {reason: 'CrashLoopBackOff'}}}),
      want: 'CrashLoopBackOff (3 restarts)',
    },
    {
      name: 'image pull',
      pod: (n) => withContainer(newPod('new', n, ds, {hash: 'h2', ready: false, created: recent}), {state: {waiting: {reason: 'ImagePullBackOff'}}}),
      want: 'ImagePullBackOff',
    },
    {
      name: 'err image pull',
      pod: (n) => withContainer(newPod('new', n, ds, {hash: 'h2', ready: false, created: recent}), {state: {waiting: {reason: 'ErrImagePull'}}}),
      want: 'ErrImagePull',
    },
    {
      name: 'restarts above the limit',
      pod: (n) => withContainer(newPod('new', n, ds, {hash: 'h2'}), {ready: true, restartCount: 1, state: {running: {}}}),
      want: '1 container restarts (--max-restarts 0)',
    },
    {
      name: 'lost Ready',
      pod: (n) => newPod('new', n, ds, {hash: 'h2', ready: false, phase: 'Running', created: recent}),
      seen: ['pod-uid-new'],
      want: 'lost Ready after being Ready',
    },
    {name: 'an old pod is not judged', pod: (n) => newPod('old', n, ds, {hash: 'h1', ready: false, created: old}), want: undefined},
  ];
  test.each(cases)('$name', ({pod, seen, want}) => {
    const state = cluster(2, (node, i) => [i === 0 ? pod(node) : newPod(`old-${i}`, node, ds, {hash: 'h1'})]);
    const verdict = judgeGate({state, nodes: ['node-0', 'node-1'], now: NOW, maxRestarts: 0, progressDeadlineMs: 300_000, seenReady: seen ?? []});
    expect(verdict.failures).toEqual(want === undefined ? [] : [{pod: state.pods[0]!.metadata.name, node: 'node-0', reason: want}]);
  });

  test('nodes outside the stage are not judged; Ready pods are remembered', () => {
    const state = cluster(2, (node, i) => [
      i === 0 ? newPod('new', node, ds, {hash: 'h2'}) : newPod('bad', node, ds, {hash: 'h2', ready: false, created: new Date(NOW - 600_000).toISOString()}),
    ]);
    const verdict = judgeGate({state, nodes: ['node-0'], now: NOW, maxRestarts: 0, progressDeadlineMs: 300_000, seenReady: []});
    expect(verdict).toEqual({failures: [], seenReady: ['pod-uid-new']});
  });
});

describe('strategy documents', () => {
  const duration = (text: string) => {
    const match = /^(\d+)(s|m)$/.exec(text);
    if (!match) throw new Error(`invalid duration "${text}"`);
    return Number(match[1]) * (match[2] === 's' ? 1000 : 60_000);
  };
  test('a full document', () => {
    const doc = {
      canary: 2,
      canaryBake: '10m',
      approve: true,
      waves: ['10%', '25%', '100%'],
      bake: '30s',
      maxRestarts: 1,
      progressDeadline: 60,
      onFailure: 'undo',
    };
    expect(strategyFromDocument(doc, duration)).toEqual({
      strategy: {
        canary: {kind: 'count', count: 2},
        canaryBakeMs: 600_000,
        approve: true,
        waves: [10, 25, 100],
        bakeMs: 30_000,
        maxRestarts: 1,
        progressDeadlineMs: 60_000,
        onFailure: 'undo',
      },
    });
    expect(strategyFromDocument({canary: {selector: 'pool=canary'}}, duration)).toEqual({strategy: {canary: {kind: 'selector', selector: 'pool=canary'}}});
    expect(strategyFromDocument({canary: '5%'}, duration)).toEqual({strategy: {canary: {kind: 'percent', percent: 5}}});
  });
  const text = ['# a strategy', 'canary: 2', 'canaryBake: 10x', 'waves:', '  - 10%', '  - 5%', 'onFailure: retry', 'colour: blue'].join('\n');
  test.each([
    {doc: {canary: 0}, path: ['canary'], line: 2, message: 'canary: want a node count of at least 1'},
    {doc: {canaryBake: '10x'}, path: ['canaryBake'], line: 3, message: 'canaryBake: invalid duration "10x"'},
    {doc: {waves: ['10%', '5%']}, path: ['waves', 1], line: 6, message: 'waves[1]: 5% does not grow on the wave before it (10%)'},
    {doc: {waves: ['ten']}, path: ['waves', 0], line: 5, message: 'waves[0]: "ten" is not a percentage'},
    {doc: {onFailure: 'retry'}, path: ['onFailure'], line: 7, message: 'onFailure: want pause or undo'},
    {doc: {colour: 'blue'}, path: ['colour'], line: 8, message: 'unknown field "colour"'},
    {doc: ['a'], path: [], line: 2, message: 'a strategy is a mapping'},
  ])('$message (line $line)', ({doc, path, line, message}) => {
    const result = strategyFromDocument(doc, duration);
    expect('problem' in result && result.problem.path).toEqual(path);
    expect('problem' in result && result.problem.message).toContain(message);
    expect(strategyLine(text, path)).toBe(line);
  });
});

describe("the strategy file's clusterWaves (fleet rollout)", () => {
  const duration = () => 0;
  test('named waves of context names and patterns, in order, apart from the gated strategy', () => {
    const doc = {
      canary: 1,
      clusterWaves: [
        {name: 'canary', contexts: ['stage']},
        {name: 'eu', contexts: ['prod-eu-*', ' prod-uk ']},
        {name: 'rest', contexts: ['*']},
      ],
    };
    expect(strategyFromDocument(doc, duration)).toEqual({
      strategy: {canary: {kind: 'count', count: 1}},
      clusterWaves: [
        {name: 'canary', contexts: ['stage']},
        {name: 'eu', contexts: ['prod-eu-*', 'prod-uk']},
        {name: 'rest', contexts: ['*']},
      ],
    });
  });
  test('examples/fleet-strategy.yaml is valid', async () => {
    const {readFile} = await import('node:fs/promises');
    const {load} = await import('js-yaml');
    const parsed = strategyFromDocument(load(await readFile('examples/fleet-strategy.yaml', 'utf8')), () => 600_000);
    expect(parsed).toEqual({
      strategy: {canary: {kind: 'count', count: 1}, canaryBakeMs: 600_000, onFailure: 'undo'},
      clusterWaves: [
        {name: 'canary', contexts: ['stage']},
        {name: 'eu', contexts: ['prod-eu-*']},
        {name: 'rest', contexts: ['*']},
      ],
    });
  });
  const text = ['clusterWaves:', '  - name: canary', '    contexts: [stage]', '  - name: canary', '    contexts: []'].join('\n');
  test.each([
    {
      doc: {clusterWaves: []},
      path: ['clusterWaves'],
      line: 1,
      message: 'clusterWaves: want a list of waves, each {name: NAME, contexts: [CONTEXT or PATTERN, ...]}',
    },
    {doc: {clusterWaves: {canary: ['stage']}}, path: ['clusterWaves'], line: 1, message: 'clusterWaves: want a list of waves'},
    {doc: {clusterWaves: ['stage']}, path: ['clusterWaves', 0], line: 2, message: 'clusterWaves[0]: want {name: NAME, contexts: [...]}'},
    {
      doc: {clusterWaves: [{name: 'a', contexts: ['x'], bake: 1}]},
      path: ['clusterWaves', 0, 'bake'],
      line: 2,
      message: 'clusterWaves[0]: unknown field "bake" (want name, contexts)',
    },
    {doc: {clusterWaves: [{contexts: ['x']}]}, path: ['clusterWaves', 0, 'name'], line: 2, message: 'clusterWaves[0].name: want a short name'},
    {doc: {clusterWaves: [{name: 'eu west', contexts: ['x']}]}, path: ['clusterWaves', 0, 'name'], line: 2, message: 'clusterWaves[0].name: want a short name'},
    {
      doc: {
        clusterWaves: [
          {name: 'canary', contexts: ['stage']},
          {name: 'canary', contexts: ['x']},
        ],
      },
      path: ['clusterWaves', 1, 'name'],
      line: 4,
      message: 'clusterWaves[1].name: "canary" names an earlier wave too',
    },
    {
      doc: {clusterWaves: [{name: 'a', contexts: []}]},
      path: ['clusterWaves', 0, 'contexts'],
      line: 2,
      message: 'clusterWaves[0].contexts: want a list of context names or patterns',
    },
    {doc: {clusterWaves: [{name: 'a', contexts: 'stage'}]}, path: ['clusterWaves', 0, 'contexts'], line: 2, message: 'clusterWaves[0].contexts: want a list'},
  ])('$message (line $line)', ({doc, path, line, message}) => {
    const result = strategyFromDocument(doc, duration);
    expect('problem' in result && result.problem.path).toEqual(path);
    expect('problem' in result && result.problem.message).toContain(message);
    expect(strategyLine(text, path)).toBe(line);
  });
});

test('the README example strategy file is valid', async () => {
  const {readFile} = await import('node:fs/promises');
  const {load} = await import('js-yaml');
  const doc = load(await readFile('examples/gated-strategy.yaml', 'utf8'));
  const minutes = (text: string) => Number(/^(\d+)m$/.exec(text)![1]) * 60_000;
  expect(strategyFromDocument(doc, minutes)).toEqual({
    strategy: {
      canary: {kind: 'count', count: 2},
      canaryBakeMs: 600_000,
      approve: false,
      waves: [10, 25, 100],
      bakeMs: 300_000,
      maxRestarts: 0,
      progressDeadlineMs: 600_000,
      onFailure: 'undo',
      maxNeighbourFailures: 0,
      neighbourSelector: 'app notin (batch)',
    },
  });
});

describe('the canary size: one grammar for --canary and a strategy file', () => {
  test.each([
    ['2', {kind: 'count', count: 2}],
    [' 10% ', {kind: 'percent', percent: 10}],
    ['100%', {kind: 'percent', percent: 100}],
    ['0', undefined],
    ['0%', undefined],
    ['101%', undefined],
    ['2.5', undefined],
    ['ten', undefined],
    ['99999999999', undefined],
  ])('%j', (text, size) => {
    expect(canarySizeOf(text)).toEqual(size);
  });

  test('a strategy file reads the same text the flag does', () => {
    const duration = () => 0;
    expect(strategyFromDocument({canary: '10%'}, duration)).toEqual({strategy: {canary: {kind: 'percent', percent: 10}}});
    expect(strategyFromDocument({canary: '3'}, duration)).toEqual({strategy: {canary: {kind: 'count', count: 3}}});
    expect(strategyFromDocument({canary: '0%'}, duration)).toMatchObject({problem: {path: ['canary']}});
  });
});
