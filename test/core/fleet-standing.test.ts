// Where a fleet rollout stands from the DaemonSets `status --contexts` read (core/fleet-standing.ts), and how its
// line, FLEET cell and document say it (output/fleet-text.ts): the fleet's phase is fleet-machine's own view; the
// plan's contexts not asked are assumed from the records read, and named.
import {describe, expect, test} from 'vitest';
import {
  computeTemplateHash,
  type DaemonSet,
  FLEET_ROLLOUT_ANNOTATION,
  type FleetClusterInput,
  type FleetPlan,
  fleetPartOf,
  fleetReleaseText,
  fleetRecordFor,
  fleetStandingsOf,
  fleetViewOf,
  formatGatedRecord,
  GATED_ROLLOUT_ANNOTATION,
  type GatedPhase,
  templateWithRelease,
} from '../../src/core/index.js';
import {fleetCell, fleetPartDocument, fleetStandingDocument, fleetStandingLine} from '../../src/output/fleet-text.js';
import {newDaemonSet} from '../helpers/builders.js';

const STRATEGY: FleetPlan['strategy'] = {
  canaryBakeMs: 0,
  waves: [],
  bakeMs: 0,
  approve: true,
  maxRestarts: 0,
  progressDeadlineMs: 600_000,
  onFailure: 'pause',
};
const PLAN: FleetPlan = {
  namespace: 'default',
  name: 'agent',
  contexts: ['a', 'b', 'c', 'd'],
  waves: [1, 3, 4],
  release: {images: {main: 'agent:2'}},
  strategy: STRATEGY,
};
const base = newDaemonSet('agent');

/** A DaemonSet of `plan`'s fleet in `context`, its gated rollout at `phase` (undefined: none, not rolled out yet). */
function member(context: string, phase: GatedPhase | undefined, plan: FleetPlan = PLAN): DaemonSet {
  const released = templateWithRelease(base.spec.template, plan.release);
  if (!('template' in released)) throw new Error('no container');
  const template = computeTemplateHash(released.template);
  const gated = phase && {
    template,
    stages: [{name: 'all', count: 1, bakeMs: 0, approve: false}],
    stage: 0,
    phase,
    failures: [],
    maxRestarts: 0,
    progressDeadlineMs: 1,
    onFailure: 'pause' as const,
  };
  const annotations = {
    [FLEET_ROLLOUT_ANNOTATION]: JSON.stringify({...fleetRecordFor(plan, context), template}),
    ...(gated ? {[GATED_ROLLOUT_ANNOTATION]: formatGatedRecord(gated)} : {}),
  };
  return {...base, metadata: {...base.metadata, annotations}, spec: {...base.spec, template: released.template, updateStrategy: {type: 'OnDelete'}}};
}

const read = (...entries: [string, DaemonSet | string][]): FleetClusterInput[] =>
  entries.map(([context, ds]) => (typeof ds === 'string' ? {context, error: ds} : {context, ds}));

describe('where a fleet rollout stands, from the clusters read', () => {
  test('no record read: no fleet', () => {
    expect(fleetStandingsOf(read(['a', base], ['b', 'connection refused']))).toEqual([]);
  });

  test('every context asked: exactly the fleet status view', () => {
    const inputs = read(['a', member('a', 'complete')], ['b', member('b', 'rolling')], ['c', base], ['d', base]);
    const [standing, ...more] = fleetStandingsOf(inputs);
    expect(more).toEqual([]);
    expect(standing!.view).toEqual(fleetViewOf(PLAN, inputs));
    expect(standing!.notAsked).toEqual([]);
    expect(fleetStandingLine(standing!)).toBe(`Fleet rollout ${standing!.view.id} (main=agent:2): rolling, wave 2/3`);
    expect(['a', 'b', 'c', 'd'].map((context, i) => fleetCell(fleetPartOf([standing!], inputs[i]!)))).toEqual([
      'w1 complete',
      'w2 rolling',
      'w2 pending',
      'w3 pending',
    ]);
  });

  test('contexts not asked are named; an earlier wave is taken as complete, a later one as not started', () => {
    // Only b asked: a (wave 1) completed before b started; c rolls with b, d waits.
    const [standing] = fleetStandingsOf(read(['b', member('b', 'awaiting-approval')]));
    expect(standing!.notAsked).toEqual(['a', 'c', 'd']);
    expect(standing!.asked.map((c) => [c.context, c.phase])).toEqual([['b', 'awaiting-approval']]);
    expect(standing!.view).toMatchObject({phase: 'awaiting-approval', wave: 1});
    expect(fleetStandingLine(standing!)).toMatch(/: waiting for promote, wave 2\/3; a, c, d not asked here$/);
    // Only a, complete: the next wave is the fleet's to start (a rerun of fleet rollout), as fleet status would say.
    const [first] = fleetStandingsOf(read(['a', member('a', 'complete')]));
    expect(first!.view).toMatchObject({phase: 'rolling', wave: 1});
  });

  test('a failure read here fails the fleet there, never on a cluster not asked', () => {
    const [standing] = fleetStandingsOf(read(['c', member('c', 'failed')]));
    expect(standing!.view.action).toMatchObject({kind: 'failed', context: 'c'});
    expect(standing!.view.phase).toBe('failed');
  });

  test('many contexts not asked: the line names a few and counts the rest', () => {
    const plan = {...PLAN, contexts: ['a', 'b', 'c', 'd', 'e', 'f', 'g'], waves: [1, 7]};
    const [standing] = fleetStandingsOf(read(['a', member('a', 'rolling', plan)]));
    expect(fleetStandingLine(standing!)).toMatch(/: rolling, wave 1\/2; b, c, d and 3 more not asked here$/);
  });

  test('two fleets recorded: one line each, the one under way first; each cluster its own', () => {
    const old = {...PLAN, release: {images: {main: 'agent:1'}}, contexts: ['a'], waves: [1]};
    const inputs = read(['a', member('a', 'complete', old)], ['b', member('b', 'rolling')]);
    const standings = fleetStandingsOf(inputs);
    expect(standings.map((s) => fleetReleaseText(s.view.plan.release))).toEqual(['main=agent:2', 'main=agent:1']);
    expect(fleetPartOf(standings, inputs[0]!)?.standing).toBe(standings[1]);
    expect(fleetPartOf(standings, inputs[1]!)?.standing).toBe(standings[0]);
    expect(fleetPartOf(standings, {context: 'x', ds: base})).toBeUndefined();
    expect(fleetCell(undefined)).toBe('-');
  });

  test('the document: the fleet with the clusters read and those not asked; each context its part', () => {
    const inputs = read(['b', member('b', 'awaiting-approval')], ['x', 'connection refused']);
    const [standing] = fleetStandingsOf(inputs);
    expect(fleetStandingDocument(standing!)).toEqual({
      daemonSet: {namespace: 'default', name: 'agent'},
      id: standing!.view.id,
      phase: 'awaiting-approval',
      wave: 2,
      waves: 3,
      release: {images: {main: 'agent:2'}},
      clusters: [{context: 'b', wave: 2, phase: 'awaiting-approval'}],
      notAsked: ['a', 'c', 'd'],
    });
    expect(fleetPartDocument(fleetPartOf([standing!], inputs[0]!)!)).toEqual({
      id: standing!.view.id,
      release: {images: {main: 'agent:2'}},
      wave: 2,
      waves: 3,
      phase: 'awaiting-approval',
      fleetPhase: 'awaiting-approval',
    });
  });
});
