// Abort against a pod that shows up on the release after the first nodes were stepped back. On a real cluster the
// pods' watch runs apart from the DaemonSet's, so a pod the controller created from the release's template just
// before the rollback can reach the abort late (seen in CI under load). The test makes that pod appear, in-process,
// at the moment the first round deletes its pods: the abort must step it back in a second round and end `aborted`.
import {afterAll, beforeAll, expect, test, vi} from 'vitest';
import type {GatedEvent, GatedRecord, Pod} from '../../src/core/index.js';
import {abortGatedRollout, runGatedRollout} from '../../src/services/gated-rollout.js';
import {liveSession} from '../../src/cluster/session.js';
import {canaryThenApprove, type PausedRelease, REF, startPausedRelease} from '../helpers/paused-release.js';

vi.setConfig({testTimeout: 300_000, hookTimeout: 300_000});

let release: PausedRelease;

beforeAll(async () => {
  release = await startPausedRelease(['node-1', 'node-2', 'node-3', 'node-4']);
});

afterAll(() => release?.stop());

const pods = () => release.tc.cluster.store.list('pods', {namespace: 'default'}).items as unknown as Pod[];
const imageOn = (node: string) => pods().find((p) => p.spec.nodeName === node && !p.metadata.deletionTimestamp)?.spec.containers[0]!.image;

test('a release pod that shows up after the first round is stepped back in a second; the abort ends aborted', async () => {
  const {tc, live, daemonSet} = release;
  const options = {session: liveSession(live), ref: REF, timeoutMs: 0};
  const canary = await tc.driveUntil(
    runGatedRollout({
      ...options,
      strategy: canaryThenApprove(),
    }),
  );
  expect(canary.outcome).toBe('awaiting-approval');
  expect(imageOn('node-1')).toBe('agent:v2');
  const releasePod = pods().find((p) => p.spec.nodeName === 'node-1')!;

  const events: GatedEvent[] = [];
  let late: string | undefined;
  const result = await tc.driveUntil(
    abortGatedRollout({
      ...options,
      onEvent: (event) => {
        events.push(event);
        // As the first round deletes node-1's pod, node-3 turns out to run the release too (a pod the watch had
        // not shown yet): its v1 pod replaced by one made from the release's template, as the controller would.
        if (late === undefined && event.kind === 'step' && event.event.kind === 'deleted') {
          const old = pods().find((p) => p.spec.nodeName === 'node-3')!;
          tc.cluster.store.delete('pods', 'default', old.metadata.name, {gracePeriodSeconds: 0});
          late = `${releasePod.metadata.generateName ?? 'agent-'}late`;
          const {uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, deletionTimestamp: _dt, ...meta} = releasePod.metadata;
          tc.cluster.store.create({...releasePod, metadata: {...meta, name: late}, spec: {...releasePod.spec, nodeName: 'node-3'}, status: {}} as never);
        }
      },
    }),
  );
  expect(late).toBeDefined();
  expect(result).toMatchObject({outcome: 'aborted', nodes: ['node-1', 'node-3']});
  const rounds = events.flatMap((e) => (e.kind === 'rolling-back' ? [e.nodes] : []));
  expect(rounds).toEqual([['node-1'], ['node-3']]);
  const record = JSON.parse(daemonSet().metadata.annotations!['ds-rollout.io/gated-rollout']!) as GatedRecord;
  expect(record.phase).toBe('aborted');
  for (const node of ['node-1', 'node-2', 'node-3', 'node-4']) expect(imageOn(node), node).toBe('agent:v1');
});
