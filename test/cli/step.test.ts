// `kubectl ds-rollout step`, the BUILT binary, against the simulated cluster (run `npm run build` first): one
// paused rollout of 6 nodes (maxUnavailable 2) taken through its waves, one command at a time.
import {afterAll, beforeAll, expect, test, vi} from 'vitest';
import {runCli} from '../helpers/run-cli.js';
import {type RolloutSim, startRolloutSim} from '../safety/rollout-sim.js';

vi.setConfig({testTimeout: 30_000});

const BIN = 'bin/kubectl-ds_rollout';
let sim: RolloutSim;

beforeAll(async () => {
  sim = await startRolloutSim({nodes: 6, maxUnavailable: 2});
});
afterAll(async () => {
  await sim?.stop();
});

function cli(args: string[], env: Record<string, string> = {}) {
  return runCli(['step', 'agent', ...args, '--kubeconfig', sim.kubeconfig], {bin: BIN, env});
}

function deletions(): number {
  return sim.test.cluster.requestLog.filter({verb: 'delete', resource: 'pods'}).length;
}

test('without a terminal it refuses unless --yes', async () => {
  const result = await cli([]);
  expect(result).toEqual({
    code: 1,
    stdout: '',
    stderr: 'error: refusing to delete pods without confirmation: there is no terminal to ask on; pass --yes, or --dry-run to only look\n',
  });
});

test('--dry-run shows the wave and what holds the rest', async () => {
  const {stdout, stderr, code} = await cli(['--dry-run']);
  expect({code, stderr}).toEqual({code: 0, stderr: ''});
  const pods = sim
    .pods()
    .filter((p) => p.spec.nodeName === 'node-1' || p.spec.nodeName === 'node-2')
    .sort((a, b) => a.spec.nodeName!.localeCompare(b.spec.nodeName!))
    .map((p) => p.metadata.name);
  expect(stdout).toBe(
    [
      'Wave 1/~3 (dry run, nothing is deleted): delete 2 old pods of daemonset default/agent (maxUnavailable 2, recorded; 0 unavailable now)',
      `  node-1  ${pods[0]}`,
      `  node-2  ${pods[1]}`,
      '  Left for later waves: node-3, node-4, node-5, node-6',
      '',
    ].join('\n'),
  );
  expect(deletions()).toBe(0);
});

test('colour only when asked for, never with NO_COLOR', async () => {
  expect((await cli(['--dry-run'], {FORCE_COLOR: '1'})).stdout).toContain('\u001B[1m');
  expect((await cli(['--dry-run'], {FORCE_COLOR: '1', NO_COLOR: '1'})).stdout).not.toContain('\u001B[');
});

test('--yes runs the wave and follows it until the new pods are available', async () => {
  const {stdout, stderr, code} = await cli(['--yes']);
  expect({code, stderr}).toEqual({code: 0, stderr: ''});
  const lines = stdout.trimEnd().split('\n');
  expect(lines[0]).toBe('Wave 1/~3: delete 2 old pods of daemonset default/agent (maxUnavailable 2, recorded; 0 unavailable now)');
  expect(lines).toContain('  recorded: step 1/3 (annotation ds-rollout.io/step)');
  // Its own annotation, no change-cause (a later `kubectl set image` would inherit it), the lease given back.
  const annotations = sim.daemonSet().metadata.annotations!;
  expect(JSON.parse(annotations['ds-rollout.io/step']!)).toMatchObject({step: 1, of: 3});
  expect(annotations['kubernetes.io/change-cause']).toBeUndefined();
  expect(annotations['ds-rollout.io/step-lease']).toBeUndefined();
  expect(lines.filter((l) => /^ {2}deleted pod agent-\w+ on node-[12]$/.test(l))).toHaveLength(2);
  expect(lines.filter((l) => /^ {2}node-[12]: new pod agent-\w+ is available$/.test(l))).toHaveLength(2);
  expect(lines.at(-2)).toMatch(/^Wave 1 landed in \d+s; 4 nodes still run old pods\.$/);
  expect(lines.at(-1)).toBe('The DaemonSet stays paused. Next wave: kubectl ds-rollout step agent -n default');
  expect(deletions()).toBe(2);
});

test('-o json: the result on stdout, progress on stderr; --nodes picks the node', async () => {
  const {stdout, stderr, code} = await cli(['--yes', '--nodes', 'node-6', '-o', 'json']);
  expect(code).toBe(0);
  expect(stderr).toContain('Wave 2/~4: delete 1 old pod of daemonset default/agent');
  expect(stderr).toMatch(/Wave 2 landed in \d+s; 3 nodes still run old pods \(none of the chosen nodes\)\./);
  const result = JSON.parse(stdout);
  expect(result).toMatchObject({
    kind: 'DaemonSetStep',
    daemonSet: {namespace: 'default', name: 'agent'},
    outcome: 'done',
    oldLeft: 0,
    budget: {maxUnavailable: 2},
  });
  expect(result.waves).toMatchObject([{number: 2, deleted: [{node: 'node-6', available: true}], landed: true}]);
});

test('an unknown node is an input error', async () => {
  expect(await cli(['--yes', '--nodes', 'node-9'])).toEqual({code: 1, stdout: '', stderr: 'error: no such node: node-9\n'});
});

test('a wave that does not become available in time exits 3', async () => {
  sim.test.cluster.kubelets!.injectFailure({image: 'agent:v2', node: 'node-3', mode: 'image-pull'});
  const {stdout, stderr, code} = await cli(['--yes', '--until-complete', '--timeout', '2s']);
  expect(code).toBe(3);
  expect(stdout).toContain('Wave 3/~4: delete 2 old pods');
  expect(stderr).toMatch(
    /^error: wave 3 did not become available within 2s: node-3: new pod agent-\w+ is not ready \(ImagePullBackOff\); the DaemonSet stays paused \(1 old pods left\)\n$/,
  );
  expect(sim.daemonSet().spec.updateStrategy?.type).toBe('OnDelete');
});
