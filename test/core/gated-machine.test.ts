// The gated rollout's state machine (core/gated-machine.ts): the phase a record is really in on the DaemonSet as
// the cluster has it, and what each command does in each phase. The table in docs/gated/abort-and-record.md is
// this file's expectations, row by row.
import {describe, expect, test} from 'vitest';
import {
  type DaemonSet,
  type GatedCommand,
  type GatedPhase,
  type GatedRecord,
  computeTemplateHash,
  formatGatedRecord,
  GATED_ROLLOUT_ANNOTATION,
  gatedDecision,
  gatedPhaseOf,
  gatedProgressOf,
  MAX_START_RECORD_BYTES,
  planGatedStages,
  recordedFailures,
  startRecordTooLarge,
} from '../../src/core/index.js';
import {newDaemonSet, newNodes} from '../helpers/builders.js';

const REF = {namespace: 'kube-system', name: 'fluentd'};
const origin = newDaemonSet('fluentd', {maxUnavailable: 1});
const withImage = (ds: DaemonSet, image: string): DaemonSet => ({
  ...ds,
  spec: {...ds.spec, template: {...ds.spec.template, spec: {...ds.spec.template.spec, containers: [{name: 'main', image}]}}},
});
const release = withImage(origin, 'fluentd:2');
const hash = (ds: DaemonSet) => computeTemplateHash(ds.spec.template);

function recordIn(phase: GatedPhase): GatedRecord {
  return {
    template: hash(release),
    from: {revision: 1, hash: 'h1', template: hash(origin)},
    stages: [
      {name: 'canary', count: 1, bakeMs: 60_000, approve: true},
      {name: 'wave 1 (100%)', bakeMs: 0, approve: false},
    ],
    stage: 0,
    phase,
    failures: phase === 'failed' ? [{pod: 'fluentd-x', node: 'node-1', reason: 'CrashLoopBackOff'}] : [],
    maxRestarts: 0,
    progressDeadlineMs: 600_000,
    onFailure: 'pause',
  };
}

/** `ds` paused (OnDelete) carrying `record`. */
function paused(ds: DaemonSet, record: GatedRecord | undefined): DaemonSet {
  return {
    ...ds,
    metadata: {...ds.metadata, annotations: record ? {[GATED_ROLLOUT_ANNOTATION]: formatGatedRecord(record)} : {}},
    spec: {...ds.spec, updateStrategy: {type: 'OnDelete'}},
  };
}

const decide = (ds: DaemonSet, command: GatedCommand) => gatedDecision(ds, command, {ref: REF, templateRevision: 5});

describe('gatedPhaseOf: the phase the cluster is really in', () => {
  test('paused on the release: as written', () => {
    for (const phase of ['rolling', 'baking', 'awaiting-approval', 'failed', 'aborting'] as const) {
      expect(gatedPhaseOf(paused(release, recordIn(phase)), recordIn(phase))).toBe(phase);
    }
  });

  test('a template that is neither release nor (while aborting) origin: superseded', () => {
    const other = paused(withImage(origin, 'fluentd:3'), recordIn('baking'));
    expect(gatedPhaseOf(other, recordIn('baking'))).toBe('superseded');
    expect(gatedPhaseOf(other, recordIn('aborting'))).toBe('superseded');
    // Its own rollback put the origin back: still aborting.
    expect(gatedPhaseOf(paused(origin, recordIn('aborting')), recordIn('aborting'))).toBe('aborting');
  });

  test('the release again after someone else set and unset the template (a later generation): superseded', () => {
    const written = {...recordIn('baking'), generation: 3};
    const ds = paused(release, written);
    expect(gatedPhaseOf({...ds, metadata: {...ds.metadata, generation: 3}}, written)).toBe('baking');
    expect(gatedPhaseOf({...ds, metadata: {...ds.metadata, generation: 5}}, written)).toBe('superseded');
    // Its own rollback moves the generation too: still aborting.
    const aborting = {...recordIn('aborting'), generation: 3};
    expect(gatedPhaseOf({...paused(origin, aborting), metadata: {...paused(origin, aborting).metadata, generation: 4}}, aborting)).toBe('aborting');
    // ... but not someone else's change and its undo after it (kubectl set env, kubectl rollout undo).
    expect(gatedPhaseOf({...paused(origin, aborting), metadata: {...paused(origin, aborting).metadata, generation: 6}}, aborting)).toBe('superseded');
  });

  test('ended phases stay as written', () => {
    for (const phase of ['complete', 'aborted', 'abandoned', 'superseded'] as const) {
      expect(gatedPhaseOf(paused(withImage(origin, 'fluentd:9'), recordIn(phase)), recordIn(phase))).toBe(phase);
    }
  });
});

describe('gatedDecision: each command in each phase', () => {
  test('abort: only while under way; an aborted rollout whose template moved on is left alone', () => {
    for (const phase of ['rolling', 'baking', 'awaiting-approval', 'failed', 'aborting'] as const) {
      expect(decide(paused(release, recordIn(phase)), 'abort').kind).toBe('abort');
    }
    expect(decide(paused(origin, recordIn('aborted')), 'abort').kind).toBe('already-aborted');
    const moved = decide(paused(withImage(origin, 'fluentd:1.17.2'), recordIn('aborted')), 'abort');
    expect(moved).toMatchObject({kind: 'refuse', exitCode: 1});
    expect(moved.kind === 'refuse' && moved.message).toMatch(/changed since to revision 5: .*nothing was changed/);
    const superseded = decide(paused(withImage(origin, 'fluentd:3'), recordIn('baking')), 'abort');
    expect(superseded.kind === 'refuse' && superseded.message).toMatch(/superseded: its template was changed to revision 5 .*nothing was changed/);
    expect(decide(paused(release, recordIn('complete')), 'abort')).toMatchObject({kind: 'refuse', exitCode: 1});
    expect(decide(paused(release, undefined), 'abort')).toMatchObject({kind: 'refuse', exitCode: 1});
  });

  test('promote: only awaiting approval; failed and aborting point at abort, never at promote', () => {
    expect(decide(paused(release, recordIn('awaiting-approval')), 'promote').kind).toBe('promote');
    for (const phase of ['failed', 'aborting'] as const) {
      const refused = decide(paused(release, recordIn(phase)), 'promote');
      expect(refused).toMatchObject({kind: 'refuse', exitCode: 3});
      expect(refused.kind === 'refuse' && refused.message).toMatch(/abort fluentd -n kube-system/);
      expect(refused.kind === 'refuse' && refused.message).toMatch(
        phase === 'failed' ? /^gate failed at stage canary: pod fluentd-x on node node-1: CrashLoopBackOff/ : /an abort is under way/,
      );
      expect(refused.kind === 'refuse' && refused.message).not.toMatch(/'kubectl ds-rollout promote/);
    }
    expect(decide(paused(release, recordIn('baking')), 'promote')).toMatchObject({kind: 'refuse', exitCode: 1});
  });

  test('gated step: continues, waits, refuses, or starts anew once the last rollout ended by any means', () => {
    expect(decide(paused(release, recordIn('baking')), 'gated-step').kind).toBe('continue');
    expect(decide(paused(release, recordIn('awaiting-approval')), 'gated-step').kind).toBe('awaiting-approval');
    expect(decide(paused(release, recordIn('failed')), 'gated-step')).toMatchObject({kind: 'refuse', exitCode: 3});
    expect(decide(paused(release, recordIn('aborting')), 'gated-step')).toMatchObject({kind: 'refuse', exitCode: 3});
    for (const phase of ['complete', 'aborted', 'abandoned'] as const) expect(decide(paused(release, recordIn(phase)), 'gated-step').kind).toBe('free');
    expect(decide(paused(withImage(origin, 'fluentd:3'), recordIn('baking')), 'gated-step').kind).toBe('free');
  });

  test('resume, undo and plain step: refused while under way, naming only commands that work; free once superseded', () => {
    for (const command of ['resume', 'undo', 'step'] as const) {
      for (const phase of ['failed', 'aborting'] as const) {
        const refused = decide(paused(release, recordIn(phase)), command);
        expect(refused.kind).toBe('refuse');
        expect(refused.kind === 'refuse' && refused.message).not.toMatch(/promote/);
      }
      const waiting = decide(paused(release, recordIn('awaiting-approval')), command);
      expect(waiting.kind === 'refuse' && waiting.message).toMatch(/promote fluentd -n kube-system/);
      expect(decide(paused(withImage(origin, 'fluentd:3'), recordIn('baking')), command).kind).toBe('free');
    }
    expect(decide(paused(release, recordIn('baking')), 'resume-force').kind).toBe('abandon');
  });
});

describe('gatedProgressOf: what status, ds-plan and the dashboard show', () => {
  test('superseded, naming the new revision, while the rollout still holds the DaemonSet paused', () => {
    const ds = paused(withImage(origin, 'fluentd:3'), recordIn('baking'));
    expect(gatedProgressOf(ds, 0, 7)).toMatchObject({phase: 'superseded', supersededBy: {revision: 7}});
    expect(gatedProgressOf({...ds, spec: {...ds.spec, updateStrategy: {type: 'RollingUpdate'}}}, 0, 7)).toBeUndefined();
  });
});

describe('the record stays under 4 KiB at 15,000 nodes, whatever the flags', () => {
  const nodes = newNodes(15_000, 'ip-10-0-0-0.eu-west-1.compute.internal-');
  const state = {daemonSet: release, nodes, pods: [], revisions: []};
  const strategy = {
    canaryBakeMs: 3_600_000,
    waves: [1, 2, 5, 10, 25, 50, 75, 100],
    bakeMs: 600_000,
    approve: true,
    maxRestarts: 3,
    progressDeadlineMs: 600_000,
    onFailure: 'undo' as const,
  };
  const start = (canary: Parameters<typeof planGatedStages>[1]['canary']): GatedRecord => ({
    ...recordIn('rolling'),
    stages: planGatedStages(state, {...strategy, ...(canary ? {canary} : {})}),
  });

  test('a record that fits when it starts stays under 4 KiB with the most failures it keeps', () => {
    const record = start({kind: 'count', count: 150});
    expect(startRecordTooLarge(record)).toBeUndefined();
    const long = 'x'.repeat(253);
    const failures = Array.from({length: 15_000}, (_, i) => ({pod: `${long}-${i}`, node: `${long}-${i}`, reason: 'CrashLoopBackOff (12 restarts)'}));
    const failed = {...record, phase: 'failed' as const, ...recordedFailures(failures)};
    expect(new TextEncoder().encode(formatGatedRecord(failed)).length).toBeLessThan(4096);
    expect(failed.failureCount).toBe(15_000);
  });

  test('1,500 canary nodes by name, or a hundred waves: refused with the way out', () => {
    const names = nodes.slice(0, 1500).map((n) => n.metadata.name);
    // Said before the names are looked up on the cluster.
    expect(() => start({kind: 'nodes', nodes: names})).toThrow(new RegExp(`over the ${MAX_START_RECORD_BYTES} .*--canary-selector`));
    const waves = Array.from({length: 100}, (_, i) => i + 1);
    expect(startRecordTooLarge({...recordIn('rolling'), stages: planGatedStages(state, {...strategy, waves})})).toMatch(/fewer waves/);
  });
});
