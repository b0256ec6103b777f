// The fleet rollout's state machine (core/fleet-machine.ts): the --cluster-waves grammar, each cluster's phase from
// its fleet record and gated rollout, the fleet's phase and the driver's next action, and the refusal of a second
// fleet rollout while one is under way.
import {describe, expect, test} from 'vitest';
import {
  type DaemonSet,
  type FleetPlan,
  type GatedPhase,
  type GatedRecord,
  clusterWavesOf,
  computeTemplateHash,
  conflictingFleet,
  contextMatches,
  fleetReleaseText,
  FLEET_ROLLOUT_ANNOTATION,
  fleetRecordTooLarge,
  fleetTemplateReleaseOf,
  MAX_FLEET_RECORD_BYTES,
  namedClusterWavesOf,
  templateRunsRelease,
  fleetGenerationOf,
  fleetIdOf,
  fleetRecordFor,
  fleetReleaseOf,
  fleetViewOf,
  fleetWaves,
  formatGatedRecord,
  GATED_ROLLOUT_ANNOTATION,
  recordedFleetPlan,
  reopenedForAbort,
  staleGatedRecord,
  strategyArgsOf,
  strategyDocumentOf,
  strategyFromDocument,
  templateWithRelease,
} from '../../src/core/index.js';
import {newDaemonSet} from '../helpers/builders.js';

describe('--cluster-waves', () => {
  test('counts and percentages, cumulative over the contexts in their order; a percentage rounds up', () => {
    expect(clusterWavesOf('1,25%,100%', 3)).toEqual([1, 3]);
    expect(clusterWavesOf('1,25%,100%', 10)).toEqual([1, 3, 10]);
    expect(clusterWavesOf('1,2,3', 3)).toEqual([1, 2, 3]);
    expect(fleetWaves({contexts: ['a', 'b', 'c', 'd'], waves: clusterWavesOf('1,50%,4', 4)})).toEqual([['a'], ['b'], ['c', 'd']]);
  });

  test('without the flag: one cluster at a time', () => {
    expect(clusterWavesOf(undefined, 3)).toEqual([1, 2, 3]);
  });

  test.each([
    ['1,50%', 'the last wave must reach every context'],
    ['0,100%', '"0" is not a cluster count'],
    ['1,x,100%', '"x" is not a cluster count'],
    ['1,150%', '"150%" is not a cluster count'],
    ['5', 'more than the 3 contexts'],
    ['2,1,3', 'fewer clusters than the wave before it'],
    ['', '"" is not a cluster count'],
  ])('%s is refused in one line', (text, message) => {
    expect(() => clusterWavesOf(text, 3)).toThrow(message);
  });
});

describe('--image', () => {
  test('CONTAINER=IMAGE, repeatable', () => {
    expect(fleetReleaseOf(['main=agent:v2', 'side=s:1'])).toEqual({images: {main: 'agent:v2', side: 's:1'}});
    expect(() => fleetReleaseOf([])).toThrow('needs the release');
    expect(() => fleetReleaseOf(['agent:v2'])).toThrow('want CONTAINER=IMAGE');
    expect(() => fleetReleaseOf(['main=a', 'main=b'])).toThrow('given twice');
  });
});

const PLAN: FleetPlan = {
  namespace: 'kube-system',
  name: 'fluentd',
  contexts: ['a', 'b', 'c'],
  waves: [1, 3],
  release: {images: {main: 'fluentd:2'}},
  strategy: {
    canary: {kind: 'count', count: 1},
    canaryBakeMs: 60_000,
    waves: [],
    bakeMs: 0,
    approve: false,
    maxRestarts: 0,
    progressDeadlineMs: 600_000,
    onFailure: 'undo',
  },
};
const origin: DaemonSet = {
  ...newDaemonSet('fluentd', {maxUnavailable: 1}),
  status: {
    observedGeneration: 99,
    desiredNumberScheduled: 3,
    currentNumberScheduled: 3,
    numberMisscheduled: 0,
    numberReady: 3,
    updatedNumberScheduled: 3,
    numberAvailable: 3,
  },
};

/** A cluster of the fleet: its record, its template the release, its gated rollout in `phase`. */
function touched(context: string, phase: GatedPhase | undefined, extra: {aborted?: boolean; template?: string; status?: DaemonSet['status']} = {}): DaemonSet {
  const released = templateWithRelease(origin.spec.template, PLAN.release);
  if (!('template' in released)) throw new Error('no container');
  const template =
    extra.template === undefined
      ? released.template
      : {...released.template, spec: {...released.template.spec, containers: [{name: 'main', image: extra.template}]}};
  const hash = computeTemplateHash(released.template);
  const gated: GatedRecord | undefined = phase && {
    template: hash,
    stages: [{name: 'canary', count: 1, bakeMs: 0, approve: false}],
    stage: 0,
    phase,
    failures: phase === 'failed' ? [{pod: 'fluentd-x', node: 'node-1', reason: 'CrashLoopBackOff'}] : [],
    maxRestarts: 0,
    progressDeadlineMs: 600_000,
    onFailure: 'pause',
  };
  const record = {...fleetRecordFor(PLAN, context), template: hash, ...(extra.aborted ? {aborted: true} : {})};
  return {
    ...origin,
    metadata: {
      ...origin.metadata,
      annotations: {[FLEET_ROLLOUT_ANNOTATION]: JSON.stringify(record), ...(gated ? {[GATED_ROLLOUT_ANNOTATION]: formatGatedRecord(gated)} : {})},
    },
    spec: {...origin.spec, template, updateStrategy: {type: 'OnDelete'}},
    status: extra.status ?? {...origin.status!, updatedNumberScheduled: 0},
  };
}

const view = (a: DaemonSet | string, b: DaemonSet | string = origin, c: DaemonSet | string = origin) =>
  fleetViewOf(
    PLAN,
    (
      [
        ['a', a],
        ['b', b],
        ['c', c],
      ] as const
    ).map(([context, ds]) => (typeof ds === 'string' ? {context, error: ds} : {context, ds})),
  );

describe('the fleet and its next action', () => {
  test('nothing touched: start the first wave', () => {
    const v = view(origin);
    expect(v.phase).toBe('pending');
    expect(v.action).toEqual({kind: 'run', wave: 0, start: ['a'], drive: ['a']});
    expect(v.clusters.map((c) => c.phase)).toEqual(['pending', 'pending', 'pending']);
  });

  test('the first wave rolling or baking: drive it; the next wave waits', () => {
    expect(view(touched('a', 'rolling')).action).toEqual({kind: 'run', wave: 0, start: [], drive: ['a']});
    expect(view(touched('a', 'baking')).phase).toBe('rolling');
    expect(view(touched('a', undefined)).clusters[0]!.phase).toBe('starting');
  });

  test('the first wave complete and baked: the next wave starts, all its clusters', () => {
    const v = view(touched('a', 'complete'));
    expect(v.action).toEqual({kind: 'run', wave: 1, start: ['b', 'c'], drive: ['b', 'c']});
    expect(v.wave).toBe(1);
  });

  test('every cluster complete: the fleet is complete', () => {
    const v = view(touched('a', 'complete'), touched('b', 'complete'), touched('c', 'complete'));
    expect(v).toMatchObject({phase: 'complete', action: {kind: 'complete'}, wave: 1});
  });

  test('a cluster that ran the release already (no gated record) is complete once its status says so', () => {
    expect(view(touched('a', undefined, {status: origin.status})).clusters[0]!.phase).toBe('complete');
  });

  test('a failed gate fails the fleet there; the later waves are never started', () => {
    const v = view(touched('a', 'failed'));
    expect(v.phase).toBe('failed');
    expect(v.action).toMatchObject({kind: 'failed', wave: 0, context: 'a', message: expect.stringContaining('CrashLoopBackOff')});
    // Undone by --on-failure undo: the template back on the origin, the gated record aborted.
    const undone = touched('a', 'aborted', {template: 'fluentd:1'});
    expect(view(undone).action).toMatchObject({kind: 'failed', context: 'a', message: expect.stringContaining('undone')});
  });

  test('a template changed by hand in one cluster stops the fleet there', () => {
    const v = view(touched('a', 'rolling', {template: 'fluentd:9'}));
    expect(v.action).toMatchObject({kind: 'failed', context: 'a'});
    expect(v.clusters[0]!.phase).toBe('changed');
  });

  test('a completed cluster changed by hand stops the fleet mid-way; once every cluster completed, the fleet stays complete', () => {
    expect(view(touched('a', 'complete', {template: 'fluentd:9'})).action).toMatchObject({kind: 'failed', context: 'a', wave: 0});
    const all = view(touched('a', 'complete', {template: 'fluentd:9'}), touched('b', 'complete'), touched('c', 'complete'));
    expect(all.phase).toBe('complete');
  });

  test("an unreachable cluster of the current wave holds the fleet; a later wave's does not matter yet", () => {
    expect(view('connection refused').action).toEqual({kind: 'unreachable', wave: 0, contexts: ['a']});
    expect(view(touched('a', 'rolling'), origin, 'connection refused').action).toMatchObject({kind: 'run', wave: 0});
  });

  test('awaiting approval: the fleet waits for fleet promote', () => {
    expect(view(touched('a', 'awaiting-approval')).action).toEqual({kind: 'awaiting-approval', wave: 0, contexts: ['a']});
  });

  test('abort asked: aborting until every touched cluster is back, then aborted; untouched clusters are left alone', () => {
    const aborting = view(touched('a', 'complete', {aborted: true}), touched('b', 'failed', {aborted: true}));
    expect(aborting).toMatchObject({phase: 'aborting', action: {kind: 'aborted', contexts: ['b']}});
    const done = view(touched('a', 'complete', {aborted: true}), touched('b', 'aborted', {aborted: true, template: 'fluentd:1'}));
    expect(done).toMatchObject({phase: 'aborted', action: {kind: 'aborted', contexts: []}});
  });
});

describe('one fleet rollout at a time', () => {
  const other: FleetPlan = {...PLAN, release: {images: {main: 'fluentd:3'}}};
  test('a different release while one is under way is refused, naming it and how to end it', () => {
    const inputs = [{context: 'a', ds: touched('a', 'rolling')}];
    expect(fleetIdOf(other)).not.toBe(fleetIdOf(PLAN));
    expect(conflictingFleet(other, inputs)).toMatch(
      /another fleet rollout of kube-system\/fluentd \(main=fluentd:2 over a,b,c\) is rolling in context a: .*fleet abort fluentd/,
    );
    expect(conflictingFleet(PLAN, inputs)).toBeUndefined();
  });

  test('a finished one does not hold the next; the recorded plan is the one under way', () => {
    const all = [touched('a', 'complete'), touched('b', 'complete'), touched('c', 'complete')].map((ds, i) => ({context: 'abc'[i]!, ds}));
    expect(conflictingFleet(other, all)).toBeUndefined();
    expect(recordedFleetPlan(all)).toEqual(PLAN);
    expect(recordedFleetPlan([{context: 'a', ds: origin}])).toBeUndefined();
  });

  test('a completed one stays complete once a later one takes some of its clusters; an earlier record is not ours to end', () => {
    const complete = (context: string) => touched(context, 'complete');
    // `other` took cluster a (its record there, one generation later), and was aborted.
    const later = {...fleetRecordFor(other, 'a'), generation: 1, aborted: true};
    const taken = {...complete('a'), metadata: {...origin.metadata, annotations: {[FLEET_ROLLOUT_ANNOTATION]: JSON.stringify(later)}}};
    const inputs = [taken, complete('b'), complete('c')].map((ds, i) => ({context: 'abc'[i]!, ds}));
    expect(fleetViewOf(PLAN, inputs)).toMatchObject({
      phase: 'complete',
      clusters: [{context: 'a', phase: 'changed', message: 'taken by a later fleet rollout (main=fluentd:3)', touched: false}, {}, {}],
    });
    const third: FleetPlan = {...PLAN, release: {images: {main: 'fluentd:4'}}};
    expect(conflictingFleet(third, inputs)).toBeUndefined();
    expect(fleetGenerationOf(third, inputs)).toBe(2);
    expect(fleetGenerationOf(other, inputs)).toBe(1);
    // The other way round, `other` not begun: PLAN's record in a is an earlier fleet's, so a is pending for it.
    expect(
      fleetViewOf(
        other,
        [complete('a'), origin, origin].map((ds, i) => ({context: 'abc'[i]!, ds})),
      ).clusters[0],
    ).toMatchObject({phase: 'pending'});
    expect(fleetGenerationOf(other, [{context: 'a', ds: complete('a')}])).toBe(1);
  });
});

describe('what the drivers write', () => {
  test('a completed cluster is reopened as aborting for fleet abort (to its own origin); one under way is not', () => {
    const done = touched('a', 'complete');
    const gated = JSON.parse(done.metadata.annotations![GATED_ROLLOUT_ANNOTATION]!) as GatedRecord;
    const withOrigin: DaemonSet = {
      ...done,
      metadata: {
        ...done.metadata,
        annotations: {...done.metadata.annotations, [GATED_ROLLOUT_ANNOTATION]: formatGatedRecord({...gated, from: {revision: 1, hash: 'h1'}})},
      },
    };
    expect(reopenedForAbort(withOrigin)).toMatchObject({phase: 'aborting', from: {revision: 1}});
    expect(reopenedForAbort(touched('a', 'rolling'))).toBeUndefined();
    expect(reopenedForAbort(done)).toBeUndefined();
  });

  test("an earlier attempt's gated record of the release's template is stale unless it completed", () => {
    const released = templateWithRelease(origin.spec.template, PLAN.release);
    const hash = 'template' in released ? computeTemplateHash(released.template) : '';
    expect(staleGatedRecord(touched('a', 'aborted'), hash)).toBe(true);
    expect(staleGatedRecord(touched('a', 'abandoned'), hash)).toBe(true);
    expect(staleGatedRecord(touched('a', 'complete'), hash)).toBe(false);
    expect(staleGatedRecord(touched('a', 'rolling'), hash)).toBe(false);
    expect(staleGatedRecord(touched('a', 'aborted'), 'another')).toBe(false);
    expect(staleGatedRecord(origin, hash)).toBe(false);
  });

  test("the strategy as a detached Job's strategy file reads it back", () => {
    const doc = strategyDocumentOf(PLAN.strategy);
    const parsed = strategyFromDocument(doc, () => 0);
    expect('strategy' in parsed && {waves: [], ...parsed.strategy}).toEqual(PLAN.strategy);
    expect(
      strategyDocumentOf({...PLAN.strategy, canary: {kind: 'percent', percent: 10}, waves: [50, 100], neighbourSelector: 'a!=b', maxNeighbourFailures: 1}),
    ).toMatchObject({canary: '10%', waves: ['50%', '100%']});
    // The metric gate too: its queries and Prometheus, as the Job's strategy file, read back the same.
    const gated = {
      ...PLAN.strategy,
      metrics: [
        {name: 'errors', query: 'sum(rate(e{node=~"$nodes"}[1m]))', max: 0, forMs: 30_000, intervalMs: 5_000, noData: 'pass', onError: 'fail'},
        {name: 'up', query: 'min(up)', min: 1, forMs: 0, intervalMs: 10_000, noData: 'fail', onError: 'ignore'},
      ],
      prometheus: {url: 'https://prometheus.monitoring:9090', tokenFile: '/var/run/token'},
    } as const;
    for (const strategy of [gated, {...gated, prometheus: {service: {namespace: 'monitoring', name: 'prometheus-k8s', port: 'web'}}}]) {
      const back = strategyFromDocument(strategyDocumentOf(strategy), () => 0);
      expect('strategy' in back && {waves: [], ...back.strategy}).toEqual(strategy);
    }
  });

  test("the strategy as a detached Job's step flags; node waves and the metric gate need the file", () => {
    expect(strategyArgsOf(PLAN.strategy)).toEqual([
      ...['--canary', '1', '--canary-bake', '60000ms', '--bake', '0ms'],
      ...['--max-restarts', '0', '--progress-deadline', '600000ms', '--on-failure', 'undo'],
    ]);
    expect(strategyArgsOf({...PLAN.strategy, canary: {kind: 'nodes', nodes: ['a', 'b']}, approve: true})).toEqual(
      expect.arrayContaining(['--canary-nodes', 'a,b', '--approve']),
    );
    expect(strategyArgsOf({...PLAN.strategy, waves: [50, 100]})).toBeUndefined();
  });
});

describe("named cluster waves (the strategy file's clusterWaves)", () => {
  const specs = [
    {name: 'canary', contexts: ['stage']},
    {name: 'eu', contexts: ['prod-eu-*']},
    {name: 'rest', contexts: ['*']},
  ];

  test('each context in the first wave that matches it, the given order kept within a wave', () => {
    expect(namedClusterWavesOf(specs, ['prod-us-1', 'prod-eu-2', 'stage', 'prod-eu-1'])).toEqual({
      contexts: ['stage', 'prod-eu-2', 'prod-eu-1', 'prod-us-1'],
      waves: [1, 3, 4],
      waveNames: ['canary', 'eu', 'rest'],
    });
    expect(contextMatches('prod-?u-*', 'prod-eu-1')).toBe(true);
    expect(contextMatches('prod.eu', 'prod-eu')).toBe(false);
  });

  test('a context no wave takes, or a wave that takes none, is refused in one line', () => {
    expect(() => namedClusterWavesOf(specs.slice(0, 2), ['stage', 'prod-us-1'])).toThrow(
      'context "prod-us-1" is in no wave of the strategy file\'s clusterWaves (canary, eu)',
    );
    expect(() => namedClusterWavesOf(specs, ['stage', 'prod-us-1'])).toThrow(`cluster wave "eu" (prod-eu-*) takes none of the contexts stage, prod-us-1`);
  });

  test('the names are part of the plan: the same contexts in other named waves are another fleet rollout', () => {
    const named = {
      ...PLAN,
      ...namedClusterWavesOf(
        [
          {name: 'first', contexts: ['a']},
          {name: 'rest', contexts: ['*']},
        ],
        PLAN.contexts,
      ),
    };
    expect(named.waves).toEqual(PLAN.waves);
    expect(fleetIdOf(named)).not.toBe(fleetIdOf(PLAN));
    expect(recordedFleetPlan([{context: 'a', ds: withRecord(fleetRecordFor(named, 'a'))}])).toEqual(named);
  });
});

/** The origin DaemonSet holding `record` as its fleet record. */
function withRecord(record: object): DaemonSet {
  return {...origin, metadata: {...origin.metadata, annotations: {[FLEET_ROLLOUT_ANNOTATION]: JSON.stringify(record)}}};
}

describe('a template release (-f MANIFEST)', () => {
  const template = {
    metadata: {labels: {app: 'fluentd'}},
    spec: {
      containers: [
        {name: 'main', image: 'fluentd:3'},
        {name: 'side', image: 's:2'},
      ],
    },
  };
  const release = fleetTemplateReleaseOf(template);
  const plan: FleetPlan = {...PLAN, release};

  test('its hash is the template hash, its description the images and the hash; another manifest is another fleet rollout', () => {
    expect(release.hash).toBe(computeTemplateHash(template));
    expect(release.description).toBe(`main=fluentd:3,side=s:2 template ${release.hash}`);
    expect(fleetReleaseText(release)).toBe(release.description);
    const other = fleetTemplateReleaseOf({...template, metadata: {labels: {app: 'fluentd', tier: 'x'}}});
    expect(fleetIdOf({...PLAN, release: other})).not.toBe(fleetIdOf(plan));
    expect(fleetIdOf({...PLAN, release: fleetTemplateReleaseOf(structuredClone(template))})).toBe(fleetIdOf(plan));
  });

  test('the release replaces the whole template; a cluster runs it while its template hashes as recorded', () => {
    expect(templateWithRelease(origin.spec.template, release)).toEqual({template});
    expect(templateRunsRelease(template, release)).toBe(true);
    expect(templateRunsRelease(origin.spec.template, release)).toBe(false);
    // As stored, with the server's defaults: the record's own hash of it.
    const stored = {...template, spec: {...template.spec, restartPolicy: 'Always'}};
    expect(templateRunsRelease(stored, release, computeTemplateHash(stored))).toBe(true);
  });

  test('its record reads back, with its own origin revision; a started cluster is `starting`', () => {
    const record = {...fleetRecordFor(plan, 'a'), template: release.hash, originRevision: {revision: 3, hash: 'h3'}};
    const ds: DaemonSet = {
      ...withRecord(record),
      spec: {...origin.spec, template, updateStrategy: {type: 'OnDelete'}},
      status: {...origin.status!, updatedNumberScheduled: 0},
    };
    expect(recordedFleetPlan([{context: 'a', ds}])).toEqual(plan);
    expect(fleetViewOf(plan, [{context: 'a', ds}]).clusters[0]).toMatchObject({context: 'a', phase: 'starting', touched: true});
    // Its template changed by hand: `changed`.
    const changed: DaemonSet = {...ds, spec: {...ds.spec, template: origin.spec.template}};
    expect(fleetViewOf(plan, [{context: 'a', ds: changed}]).clusters[0]).toMatchObject({phase: 'changed'});
  });

  test('a record over its bound is refused in one line before any cluster is touched', () => {
    expect(fleetRecordTooLarge(plan)).toBeUndefined();
    const big = fleetTemplateReleaseOf({...template, metadata: {labels: {app: 'fluentd'}, annotations: {blob: 'x'.repeat(MAX_FLEET_RECORD_BYTES)}}});
    expect(fleetRecordTooLarge({...PLAN, release: big})).toMatch(
      /^the fleet rollout's record would be \d+ KiB, over the 128 KiB it may hold \(an annotation on each DaemonSet, which also holds the manifest's pod template\)/,
    );
  });
});
