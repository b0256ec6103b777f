// The gated rollout service in-process against the simulated cluster, on a clock the test drives: a canary that
// bakes 60 s (or 10 minutes) on a 2,000-node DaemonSet judges the watched view, so the reads that are not part of a
// watch (its LIST at start) stay a handful however long the bake, where polling sent hundreds. The request log of
// the simulated API server is the witness.
import {afterAll, beforeAll, expect, test, vi} from 'vitest';
import type {DaemonSet, GatedEvent, GatedRecord} from '../../src/core/index.js';
import {abortGatedRollout, runGatedRollout} from '../../src/services/gated-rollout.js';
import {liveSession} from '../../src/cluster/session.js';
import {canaryThenApprove, type PausedRelease, REF, startPausedRelease} from '../helpers/paused-release.js';

vi.setConfig({testTimeout: 600_000, hookTimeout: 600_000});

const NODES = 2000;
let release: PausedRelease;

beforeAll(async () => {
  release = await startPausedRelease(
    Array.from({length: NODES}, (_, i) => `node-${String(i + 1).padStart(4, '0')}`),
    {minReadySeconds: 2},
  );
});

afterAll(() => release?.stop());

/** The reads a gated run sent outside its watches, from the simulated API server's request log. */
function readsOutsideWatches(cpu: NodeJS.CpuUsage): {count: number; summary: string} {
  const log = release.tc.cluster.requestLog.entries;
  const reads = log.filter((e) => e.resource !== undefined && (e.verb === 'get' || e.verb === 'list'));
  const watches = log.filter((e) => e.verb === 'watch');
  const lists = reads.filter((e) => e.verb === 'list');
  const gets = reads.filter((e) => e.verb === 'get');
  // The server's clock is asked with GET /version only as a deadline falls due (a bake's end, a pod's minReadySeconds).
  const clockReads = log.filter((e) => e.path === '/version').length;
  // A write that meets a 409 (the controller updated the status meanwhile) reads again to decide again: those reads
  // follow the controller's pace, not the bake's.
  const conflicts = log.filter((e) => e.verb === 'patch' && e.status === 409).length;
  // The watch's own LISTs (one per resource when it starts or restarts) are part of following.
  const count = clockReads + reads.length - Math.min(lists.length, watches.length) - conflicts;
  const used = process.cpuUsage(cpu);
  const summary = `${count} reads outside watches: ${clockReads} clock reads (/version), ${gets.length} GETs, ${lists.length} LISTs for ${watches.length} watches, ${conflicts} conflicts; CPU ${((used.user + used.system) / 1e6).toFixed(1)} s (test process, simulated cluster included)`;
  console.log(summary);
  expect(watches.length, summary).toBeLessThanOrEqual(8);
  expect(lists.length - watches.length, summary).toBeLessThanOrEqual(4);
  return {count, summary};
}

test(`a canary baking 60 s on ${NODES} nodes: at most 12 reads outside the watch, the bake on the server's clock`, async () => {
  const {tc, live, daemonSet} = release;
  tc.cluster.requestLog.clear();
  const cpu = process.cpuUsage();
  const events: GatedEvent[] = [];
  // The seam the Events hook uses: each record written, with the server time it was written at.
  const transitions: {phase: string; previous?: string; bakeUntil?: number; at: number}[] = [];
  const result = await tc.driveUntil(
    runGatedRollout({
      session: liveSession(live),
      ref: REF,
      strategy: canaryThenApprove(60_000),
      timeoutMs: 0,
      onEvent: (event) => events.push(event),
      onTransition: (record, previous) =>
        transitions.push({
          phase: record.phase,
          ...(previous ? {previous: previous.phase} : {}),
          ...(record.bakeUntil !== undefined ? {bakeUntil: record.bakeUntil} : {}),
          at: tc.cluster.clock.now(),
        }),
    }),
  );
  expect(result.outcome).toBe('awaiting-approval');
  const record = JSON.parse(daemonSet().metadata.annotations!['ds-rollout.io/gated-rollout']!) as GatedRecord;
  expect(record).toMatchObject({phase: 'awaiting-approval', stage: 0});
  expect(transitions.map((t) => [t.previous, t.phase])).toEqual([
    [undefined, 'rolling'],
    ['rolling', 'baking'],
    ['baking', 'awaiting-approval'],
  ]);
  // The bake lasted its 60 s on the server's clock.
  const baking = transitions[1]!;
  expect(baking.bakeUntil!).toBeGreaterThan(baking.at);
  expect(transitions[2]!.at).toBeGreaterThanOrEqual(baking.bakeUntil!);
  expect(events.some((e) => e.kind === 'bake-passed')).toBe(true);
  const {count, summary} = readsOutsideWatches(cpu);
  expect(count, summary).toBeLessThanOrEqual(12);
});

test(`a canary baking 10 minutes on ${NODES} nodes reads the cluster no more often than one baking 60 s`, async () => {
  const {tc, live, daemonSet} = release;
  // Back to v1 (the canary stepped back), then a new release: a rollout of its own.
  await tc.driveUntil(abortGatedRollout({session: liveSession(live), ref: REF, timeoutMs: 0}));
  tc.cluster.store.modify('daemonsets', 'default', 'agent', (ds) => {
    const d = ds as unknown as DaemonSet;
    return {...d, spec: {...d.spec, template: {...d.spec.template, spec: {containers: [{name: 'main', image: 'agent:v3'}]}}}} as never;
  });
  tc.cluster.requestLog.clear();
  const cpu = process.cpuUsage();
  const started = tc.cluster.clock.now();
  const result = await tc.driveUntil(runGatedRollout({session: liveSession(live), ref: REF, strategy: canaryThenApprove(600_000), timeoutMs: 0}), {
    stepMs: 1000,
  });
  expect(result.outcome).toBe('awaiting-approval');
  expect(tc.cluster.clock.now() - started).toBeGreaterThanOrEqual(600_000);
  expect(daemonSet().spec.template.spec.containers[0]!.image).toBe('agent:v3');
  const {count, summary} = readsOutsideWatches(cpu);
  expect(count, summary).toBeLessThanOrEqual(12);
});
