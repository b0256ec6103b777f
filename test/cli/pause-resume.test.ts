// `kubectl ds-rollout pause` / `resume`, the BUILT binaries, against the simulated cluster (run `npm run build` first).
import {readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest';
import {PAUSED_STRATEGY_ANNOTATION} from '../../src/core/index.js';
import {afterClusterHeader, runCli} from '../helpers/run-cli.js';
import {type RolloutSim, startRolloutSim} from '../safety/rollout-sim.js';

vi.setConfig({testTimeout: 30_000});

const BIN = 'bin/kubectl-ds_rollout';
let sim: RolloutSim;

beforeAll(async () => {
  sim = await startRolloutSim({nodes: 3, unpaused: true, maxUnavailable: '50%'});
});
afterAll(async () => {
  await sim?.stop();
});

function cli(...args: string[]) {
  return runCli([...args, '--kubeconfig', sim.kubeconfig], {bin: BIN});
}

describe('help', () => {
  test.each(['pause', 'resume', 'step'])('%s --help has real examples', async (verb) => {
    const {stdout, code} = await runCli([verb, '--help'], {bin: BIN});
    expect(code).toBe(0);
    expect(stdout).toContain(`Usage:\n  kubectl ds-rollout ${verb} NAME [flags]`);
    expect(stdout).toContain(`\n  kubectl ds-rollout ${verb} `);
    expect(stdout).toMatch(/Exit (?:status: )?0 /);
  });
});

describe('pause, then resume', () => {
  test('pause records the strategy and tells the caveat', async () => {
    const {stdout, stderr, code} = await cli('pause', 'agent');
    expect({code, stderr}).toEqual({code: 0, stderr: ''});
    expect(stdout).toContain(
      'daemonset default/agent paused: updateStrategy OnDelete; RollingUpdate maxUnavailable 50%, maxSurge 0 recorded in annotation ds-rollout.io/paused-strategy.',
    );
    expect(stdout).toContain(
      'While paused, the controller still creates pods from the current template on nodes that join, and replaces deleted pods with it.',
    );
    expect(stdout).toContain('Next: kubectl ds-rollout step agent -n default replaces one wave of old pods');
    expect(sim.daemonSet().spec.updateStrategy?.type).toBe('OnDelete');
  });

  test('pausing again is an error, as kubectl rollout pause of a paused Deployment: exit 1, one line, nothing sent', async () => {
    const before = sim.daemonSet().metadata.resourceVersion;
    for (const output of ['text', 'json']) {
      const result = await cli('pause', 'agent', '-o', output);
      expect(result).toEqual({code: 1, stdout: '', stderr: 'error: daemonsets.apps "agent" is already paused\n'});
    }
    expect(sim.daemonSet().metadata.resourceVersion).toBe(before);
  });

  test('ds-plan shows "paused by ds-rollout" with the recorded budget', async () => {
    const {stdout, code} = await runCli(['agent', '-n', 'default', '--kubeconfig', sim.kubeconfig]);
    expect(code).toBe(0);
    expect(afterClusterHeader(stdout, sim.test.cluster.url).split('\n')[0]).toMatch(/paused by ds-rollout$/);
    expect(stdout).toMatch(/Budgets: paused by ds-rollout since \S+; recorded maxUnavailable 2 \(50% of 3\), maxSurge 0/);
  });

  test('resume restores it', async () => {
    const {stdout, code} = await cli('resume', 'agent');
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^daemonset default\/agent resumed: updateStrategy RollingUpdate maxUnavailable 50%, maxSurge 0 \(recorded at \S+\)\. The controller carries on with the rollout\.\n$/,
    );
    expect(sim.daemonSet().spec.updateStrategy).toEqual({type: 'RollingUpdate', rollingUpdate: {maxUnavailable: '50%', maxSurge: 0}});
    expect(sim.daemonSet().metadata.annotations?.[PAUSED_STRATEGY_ANNOTATION]).toBeUndefined();
  });

  test('resuming a running DaemonSet is an input error: exit 1, one line, nothing on stdout', async () => {
    const result = await cli('resume', 'agent');
    expect(result).toEqual({code: 1, stdout: '', stderr: 'error: daemonsets.apps "agent" is not paused\n'});
  });

  test('usage errors exit 1', async () => {
    expect((await cli('resume', 'agent', '--force', '--max-surge', '1')).stderr).toBe(
      'error: --force needs the strategy to resume with: --max-unavailable N [--max-surge M]\n',
    );
    expect((await cli('resume', 'agent', '--max-unavailable', '2')).code).toBe(1);
    const bad = await cli('resume', 'agent', '--force', '--max-unavailable', 'two');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('invalid --max-unavailable "two"');
  });

  test('an unknown DaemonSet exits 1; an unreachable cluster exits 2', async () => {
    const missing = await cli('pause', 'nope');
    expect(missing).toMatchObject({code: 1, stdout: ''});
    expect(missing.stderr).toBe('error: daemonset "nope" not found in namespace "default"\n');
    const closed = join(sim.test.dir, 'closed.kubeconfig');
    writeFileSync(closed, readFileSync(sim.kubeconfig, 'utf8').replace(/127\.0\.0\.1:\d+/, '127.0.0.1:1'));
    const down = await runCli(['pause', 'agent', '--kubeconfig', closed], {bin: BIN});
    expect(down).toMatchObject({code: 2, stdout: ''});
    expect(down.stderr).toBe('error: cannot reach the cluster at https://127.0.0.1:1: connection refused\n');
  });
});

// `kubectl apply` of the original manifest while paused puts RollingUpdate back and leaves the record: the
// controller rolls again, and every view says so until pause or resume cleans the record up.
describe('un-paused by someone else', () => {
  function unpauseBehindOurBack(): void {
    sim.test.cluster.store.modify('daemonsets', 'default', 'agent', (ds) => ({
      ...ds,
      spec: {...ds.spec, updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: 0}}},
    }));
  }
  const WARNING =
    /un-paused by someone else, by a change to spec\.updateStrategy: it is RollingUpdate again, so the controller replaces pods, but the pause record of \S+ \(annotation ds-rollout\.io\/paused-strategy\) is still there/;

  test('status and ds-plan warn; pause replaces the stale record', async () => {
    expect((await cli('pause', 'agent')).code).toBe(0);
    unpauseBehindOurBack();
    const [status, plan, json] = await Promise.all([
      cli('status', 'agent'),
      runCli(['agent', '-n', 'default', '--kubeconfig', sim.kubeconfig]),
      runCli(['agent', '-n', 'default', '--kubeconfig', sim.kubeconfig, '-o', 'json']),
    ]);
    expect(status.stdout.replace(/\s+/g, ' ')).toMatch(WARNING);
    expect(plan.stdout.replace(/\s+/g, ' ')).toMatch(WARNING);
    expect(JSON.parse(json.stdout).warnings[0]).toMatchObject({kind: 'unpaused'});
    const again = await cli('pause', 'agent');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('(replacing a stale record)');
    expect(sim.daemonSet().spec.updateStrategy?.type).toBe('OnDelete');
    expect((await runCli(['agent', '-n', 'default', '--kubeconfig', sim.kubeconfig])).stdout).not.toContain('un-paused');
  });

  test('resume removes the stale record and the warning goes', async () => {
    unpauseBehindOurBack();
    const resumed = await cli('resume', 'agent');
    expect(resumed.code).toBe(0);
    expect(sim.daemonSet().metadata.annotations?.[PAUSED_STRATEGY_ANNOTATION]).toBeUndefined();
    expect(sim.daemonSet().spec.updateStrategy?.rollingUpdate).toEqual({maxUnavailable: 1, maxSurge: 0});
    expect((await cli('status', 'agent')).stdout).not.toContain('un-paused');
  });
});
