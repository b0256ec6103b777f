// A dump of the real 1.20.2 control plane (kubectl get nodes,pods,daemonsets,controllerrevisions -A -o json) taken
// mid-rollout with a crash-looping release, rehearsed: the rehearsal serves 1.20 and its first plan is the snapshot
// plan, field for field. DS_ROLLOUT_WRITE_FIXTURE=1 also writes the dump to test/fixtures/snapshots/real-1.20.json,
// which test/sim/rehearsal.test.ts checks without a control plane.
import {writeFileSync} from 'node:fs';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {parseSnapshot} from '../../src/cluster/snapshot/index.js';
import {expectRehearsalPlansAsSnapshot} from '../sim/rehearsal-check.js';
import {applyAgent, eventually, startControlPlane, type ControlPlane} from './control-plane.js';

const NODES = 4;
let cp: ControlPlane;

beforeAll(async () => {
  cp = await startControlPlane({nodes: NODES, startDelayMs: 300, stopDelayMs: 300, failures: [{image: 'agent:broken', mode: 'crash'}]});
  await applyAgent(cp, NODES, 'registry.example/agent:1.0');
  // A release that crash-loops: the rollout stops with its first new pod failing.
  expect((await cp.kubectl(['set', 'image', 'daemonset/agent', 'agent=registry.example/agent:broken'])).code).toBe(0);
  await eventually('a crash-looping new pod', async () => {
    const r = await cp.kubectl(['get', 'pods', '-l', 'app=agent', '-o', 'json']);
    const pods = (JSON.parse(r.stdout) as {items: {spec: {containers: {image: string}[]}; status?: {containerStatuses?: {restartCount: number}[]}}[]}).items;
    return pods.some((p) => p.spec.containers[0]!.image.includes('broken') && (p.status?.containerStatuses?.[0]?.restartCount ?? 0) > 0) ? true : undefined;
  });
});

afterAll(() => cp?.stop());

describe('a rehearsal of a dump of the real 1.20.2 control plane', () => {
  it('serves 1.20, and its first plan is the snapshot plan', async () => {
    const dumped = await cp.kubectl(['get', 'nodes,pods,daemonsets,controllerrevisions', '-A', '-o', 'json']);
    expect(dumped.code).toBe(0);
    if (process.env.DS_ROLLOUT_WRITE_FIXTURE) writeFileSync(new URL('../fixtures/snapshots/real-1.20.json', import.meta.url), dumped.stdout);
    const objects = await parseSnapshot(dumped.stdout, 'dump');
    const {rehearsal, offline} = await expectRehearsalPlansAsSnapshot(objects, {namespace: 'default', name: 'agent'});
    await rehearsal.stop();
    expect(offline.controllerVersion).toBe('1.20');
  });
});
