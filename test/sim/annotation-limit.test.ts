// The simulated API server refuses what a real one refuses: all of an object's annotations together past 256 KiB
// (create, update and patch), with the server's 422 message, so a rehearsal at scale meets the limit a real
// cluster would.
import {afterAll, beforeAll, expect, it} from 'vitest';
import {ManualClock} from '../../src/sim/clock.js';
import {startSimulatedCluster, type SimulatedCluster} from '../../src/sim/index.js';
import {START, dsManifest} from './helpers.js';
import {call} from './http-helpers.js';

let cluster: SimulatedCluster;
const DS = '/apis/apps/v1/namespaces/default/daemonsets';
const TOO_LONG = 'DaemonSet.apps "agent" is invalid: metadata.annotations: Too long: must have at most 262144 bytes';

beforeAll(async () => {
  cluster = await startSimulatedCluster({clock: new ManualClock(START), podTerminationDelayMs: 400});
  cluster.seed({nodes: 1});
});

afterAll(async () => {
  await cluster.stop();
});

it('refuses annotations over 256 KiB on create, merge patch and update; less is stored', async () => {
  const manifest = dsManifest() as {metadata: Record<string, unknown>};
  const big = 'x'.repeat(256 * 1024);
  const create = await call(cluster, 'POST', DS, {body: {...manifest, metadata: {...manifest.metadata, annotations: {a: big}}}});
  expect(create.status).toBe(422);
  expect(create.body).toMatchObject({kind: 'Status', reason: 'Invalid', code: 422, message: TOO_LONG});
  expect(create.body.details.causes).toEqual([
    {reason: 'FieldValueTooLong', message: 'Too long: must have at most 262144 bytes', field: 'metadata.annotations'},
  ]);

  const kept = 'x'.repeat(200 * 1024);
  const created = await call(cluster, 'POST', DS, {body: {...manifest, metadata: {...manifest.metadata, annotations: {a: kept}}}});
  expect(created.status).toBe(201);

  // Each annotation is small enough; together they are not.
  const patch = await call(cluster, 'PATCH', `${DS}/agent`, {
    headers: {'content-type': 'application/merge-patch+json'},
    body: {metadata: {annotations: {b: 'y'.repeat(60 * 1024)}}},
  });
  expect(patch.status).toBe(422);
  expect(patch.body.message).toBe(TOO_LONG);

  const stored = (await call(cluster, 'GET', `${DS}/agent`)).body;
  const update = await call(cluster, 'PUT', `${DS}/agent`, {body: {...stored, metadata: {...stored.metadata, annotations: {a: big, c: 'z'}}}});
  expect(update.status).toBe(422);
  expect(update.body.message).toBe(TOO_LONG);
  expect((await call(cluster, 'GET', `${DS}/agent`)).body.metadata.annotations).toMatchObject({a: kept});
});
