// Issue 31's node and neighbour gates through the BUILT `kubectl ds-rollout` (run `npm run build` first) on the
// simulated demo cluster: fluentd in kube-system, paused and set to a release whose pod is Ready but breaks its node
// (`--fail-mode node-not-ready`, `network-unavailable`, `break-neighbours`; node-exporter in monitoring is the
// neighbour workload on every node). Each is caught at its canary by the right gate (exit 3, the node and the reason
// named, a GateFailed Event on the DaemonSet), no other node ever runs it, and --on-failure undo steps the canary
// back; a healthy release passes every gate, and status shows each gate's reading.
import {afterEach, expect, test, vi} from 'vitest';
import type {DaemonSet, Pod} from '../../src/core/index.js';
import type {FailureMode} from '../../src/sim/index.js';
import {fluentd, fluentdCli as cli, fluentdRecord as record} from '../helpers/demo-gated.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

vi.setConfig({testTimeout: 180_000});

const RELEASE = 'fluent/fluentd:v1.18.0';
let tc: TestCluster | undefined;

afterEach(async () => {
  await tc?.stop();
  tc = undefined;
});

/** The demo, fluentd paused and set to RELEASE (as `kubectl set image` would), with a watcher of the nodes that ever ran it. */
async function pausedRelease(mode: FailureMode | undefined): Promise<{t: TestCluster; ran: () => string[]}> {
  const t = await startTestCluster({scenario: 'demo', speed: 20});
  tc = t;
  if (mode) t.cluster.kubelets!.injectFailure({image: RELEASE, mode});
  expect((await cli(t, ['pause', 'fluentd'])).code).toBe(0);
  const nodes = new Set<string>();
  t.cluster.store.subscribe((event) => {
    if (event.resource !== 'pods') return;
    const pod = event.object as unknown as Pod;
    if (pod.spec.nodeName && pod.spec.containers.some((c) => c.image === RELEASE)) nodes.add(pod.spec.nodeName);
  });
  t.cluster.store.modify('daemonsets', 'kube-system', 'fluentd', (ds) => {
    const d = ds as unknown as DaemonSet;
    const containers = d.spec.template.spec.containers.map((c, i) => (i === 0 ? {...c, image: RELEASE} : c));
    return {...d, spec: {...d.spec, template: {...d.spec.template, spec: {...d.spec.template.spec, containers}}}} as never;
  });
  return {t, ran: () => [...nodes].sort()};
}

function gateEvents(t: TestCluster): string[] {
  return t.cluster.store
    .list('events', {namespace: 'kube-system'})
    .items.map((e) => e as unknown as {reason?: string; message?: string})
    .filter((e) => e.reason === 'GateFailed')
    .map((e) => e.message ?? '');
}

/** The live fluentd pod's image on `node`. */
function imageOn(t: TestCluster, node: string): string | undefined {
  const pods = t.cluster.store.list('pods', {namespace: 'kube-system'}).items as unknown as Pod[];
  return pods.find((p) => p.spec.nodeName === node && p.metadata.name.startsWith('fluentd-') && !p.metadata.deletionTimestamp)?.spec.containers[0]!.image;
}

const CASES: readonly {mode: FailureMode; gate: RegExp}[] = [
  {mode: 'node-not-ready', gate: /node gate: node worker-01 \(pod fluentd-\w+\): Unknown \(Ready=Unknown: NodeStatusUnknown\)/},
  {
    mode: 'network-unavailable',
    gate: /node gate: node worker-01 \(pod fluentd-\w+\): NetworkUnavailable=True \(NoRouteCreated\), taint node\.kubernetes\.io\/network-unavailable/,
  },
  {
    mode: 'break-neighbours',
    gate: /neighbour gate: pod monitoring\/node-exporter-\w+ on node worker-01: restarted \(0 -> 1 restarts\) \(neighbours gone bad: 1 of 1 on the stage's nodes, 0 of 18 elsewhere\)/,
  },
];

for (const {mode, gate} of CASES) {
  test(`--fail-mode ${mode}: the canary fails its gate, the rest never runs the release, undo steps the canary back`, async () => {
    const {t, ran} = await pausedRelease(mode);
    const origin = imageOn(t, 'worker-01');
    const gated = await cli(t, ['step', 'fluentd', '--until-complete', '--canary-nodes', 'worker-01', '--canary-bake', '1m', '--on-failure', 'undo', '--yes']);
    expect(gated.code).toBe(3);
    expect(gated.stderr).toMatch(new RegExp(`^error: gate failed at stage canary: ${gate.source}`));
    expect(gated.stderr).toMatch(/; rolled back to revision \d+ on worker-01; the DaemonSet stays paused\n$/);
    expect(record(t)).toMatchObject({phase: 'aborted'});
    expect(record(t).failures[0]).toMatchObject({gate: mode === 'break-neighbours' ? 'neighbour' : 'node', node: 'worker-01'});
    expect(gateEvents(t).some((message) => gate.test(message))).toBe(true);
    expect(ran()).toEqual(['worker-01']);
    expect(imageOn(t, 'worker-01')).toBe(origin);
    expect(fluentd(t).spec.template.spec.containers[0]!.image).not.toBe(RELEASE);
  });
}

test('a healthy release passes every gate at the canary; status shows each reading', async () => {
  const {t, ran} = await pausedRelease(undefined);
  const gated = await cli(t, ['step', 'fluentd', '--until-complete', '--canary-nodes', 'worker-01', '--canary-bake', '20s', '--approve', '--yes']);
  expect({code: gated.code, stderr: gated.stderr}).toEqual({code: 0, stderr: ''});
  expect(gated.stdout).toContain('canary passed its gate');
  expect(ran()).toEqual(['worker-01']);
  const readings = record(t).readings ?? [];
  expect(readings.map((r) => [r.gate, r.verdict])).toEqual([
    ['pod', 'pass'],
    ['node', 'pass'],
    ['neighbour', 'pass'],
  ]);
  expect(readings[2]!.value).toBe("0 of 1 on the stage's nodes, 0 of 18 elsewhere");
  const status = await cli(t, ['status', 'fluentd', '--watch=false']);
  expect(status.stdout).toContain('  gate pods: 0 of 1 new pods failing (bound 0 (restarts at most 0)): pass');
  expect(status.stdout).toContain('  gate nodes: 0 of 1 in trouble (bound 0): pass');
  expect(status.stdout).toContain(
    "  gate neighbours: 0 of 1 on the stage's nodes, 0 of 18 elsewhere (bound at most 0, and not above the rate elsewhere): pass",
  );
  const json = JSON.parse((await cli(t, ['status', 'fluentd', '--watch=false', '-o', 'json'])).stdout) as {gated?: {readings?: unknown[]}};
  expect(json.gated?.readings).toHaveLength(3);
});

test('--neighbour-selector leaves the broken neighbours out; a bad selector is one line, nothing changed', async () => {
  const {t} = await pausedRelease('break-neighbours');
  const gated = await cli(t, [
    'step',
    'fluentd',
    '--until-complete',
    '--canary-nodes',
    'worker-01',
    '--canary-bake',
    '20s',
    '--approve',
    '--neighbour-selector',
    'app=node-exporter',
    '--yes',
  ]);
  expect({code: gated.code, stderr: gated.stderr}).toEqual({code: 0, stderr: ''});
  expect(record(t).neighbourSelector).toBe('app=node-exporter');
  const before = fluentd(t).metadata.resourceVersion;
  const bad = await cli(t, ['step', 'fluentd', '--canary', '1', '--neighbour-selector', 'a in (', '--yes']);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toMatch(/^error: invalid --neighbour-selector "a in \(": .*\n$/);
  expect(fluentd(t).metadata.resourceVersion).toBe(before);
});

test('--max-neighbour-failures 1 lets the canary pass with one neighbour gone bad, and says so', async () => {
  const {t} = await pausedRelease('break-neighbours');
  const args = ['step', 'fluentd', '--until-complete', '--canary-nodes', 'worker-01', '--canary-bake', '20s', '--approve'];
  const gated = await cli(t, [...args, '--max-neighbour-failures', '1', '--yes']);
  expect({code: gated.code, stderr: gated.stderr}).toEqual({code: 0, stderr: ''});
  expect(record(t).readings?.find((r) => r.gate === 'neighbour')).toEqual({
    gate: 'neighbour',
    name: 'neighbours',
    value: "1 of 1 on the stage's nodes, 0 of 18 elsewhere",
    bound: 'at most 1, and not above the rate elsewhere',
    verdict: 'pass',
  });
});
