// A pod deleted on a NotReady node stays terminating until the node is Ready again, and the controller counts the
// node against maxUnavailable all that time (issue 28, finding 5). The BUILT binaries on the demo (worker-13 is
// NotReady; node-exporter runs maxUnavailable 1): the plans say so before the first step, the refusal says what
// moves the rollout on, and the suggested --max-unavailable does. Run `npm run build` first.
import {writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {dump} from 'js-yaml';
import {afterAll, beforeAll, expect, test, vi} from 'vitest';
import type {DaemonSet} from '../../src/core/index.js';
import {runCli} from '../helpers/run-cli.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

vi.setConfig({testTimeout: 60_000});

const ROLLOUT = {bin: 'bin/kubectl-ds_rollout'};
const PLAN = {bin: 'bin/kubectl-ds_plan'};
const NEW_IMAGE = 'quay.io/prometheus/node-exporter:v1.9.0';
const HOLD = 'worker-13 holds 1 of maxUnavailable 1 until it is Ready again (a pod deleted there stays terminating until its kubelet confirms it)';
const WAY_ON = 'to go on: step with --max-unavailable 2, or wait for worker-13 to be Ready again';

let t: TestCluster;
let oldPodOn13: string;

function withNewImage(ds: DaemonSet): DaemonSet {
  const containers = ds.spec.template.spec.containers.map((c) => ({...c, image: NEW_IMAGE}));
  return {...ds, spec: {...ds.spec, template: {...ds.spec.template, spec: {...ds.spec.template.spec, containers}}}};
}

function cli(bin: typeof ROLLOUT, args: string[]) {
  return runCli([...args, '--kubeconfig', t.kubeconfig], bin);
}

function step(...args: string[]) {
  return cli(ROLLOUT, ['step', 'node-exporter', '-n', 'monitoring', ...args]);
}

beforeAll(async () => {
  t = await startTestCluster({scenario: 'demo'});
  t.advance(2_000);
  oldPodOn13 = t.cluster.store.podsOnNode('worker-13').find((pod) => pod.metadata.labels?.['app'] === 'node-exporter')!.metadata.name;
});

afterAll(async () => {
  await t?.stop();
});

test('ds-plan -f: the wave that deletes on the NotReady node says the pod stays, and the blocker says the way on', async () => {
  const ds = t.cluster.store.mustGet('daemonsets', 'monitoring', 'node-exporter') as unknown as DaemonSet;
  const manifest = join(t.dir, 'node-exporter.yaml');
  await writeFile(
    manifest,
    dump(withNewImage({apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {name: 'node-exporter', namespace: 'monitoring'}, spec: ds.spec})),
  );
  const {code, stdout, stderr} = await cli(PLAN, ['-f', manifest]);
  expect({code, stderr}).toEqual({code: 0, stderr: ''});
  expect(stdout).toContain(
    `delete ${oldPodOn13} on worker-13 (outdated; node not Ready: stays terminating until the node is Ready again, holding its unit of the budget)`,
  );
  expect(stdout).toContain('Waves: 1 sync, then the rollout stops short of complete (see Blockers)');
  expect(stdout).toContain(
    `  - ${HOLD}, the whole budget: 19 old pods wait; to go on: maxUnavailable 2 (in the DaemonSet, or pause and step with --max-unavailable 2), or wait for worker-13 to be Ready again`,
  );
});

test('paused: the plan before the first step predicts the hold, the step says it again, the next one refuses with the way on', async () => {
  expect((await cli(ROLLOUT, ['pause', 'node-exporter', '-n', 'monitoring'])).code).toBe(0);
  t.cluster.store.modify('daemonsets', 'monitoring', 'node-exporter', (current) => withNewImage(current as unknown as DaemonSet) as never);
  t.advance(2_000);

  const before = await cli(PLAN, ['node-exporter', '-n', 'monitoring']);
  expect(before.code).toBe(0);
  expect(before.stdout).toContain(
    `  - the next step deletes ${oldPodOn13} on worker-13, which stays terminating; after it no step can start: ${HOLD}; ${WAY_ON}\n`,
  );

  const first = await step('--yes');
  expect({code: first.code, stderr: first.stderr}).toEqual({code: 0, stderr: ''});
  expect(first.stdout).toContain(
    `  worker-13  ${oldPodOn13}  (node not Ready: the pod stays terminating until the node is Ready again, and the node holds its unit of the budget until then;`,
  );
  expect(first.stdout).toContain(
    `  After this wave no other can start: ${HOLD}.\n  To go on: step with --max-unavailable 2, or wait for worker-13 to be Ready again.\n`,
  );
  expect(first.stdout).toContain(`deleted pod ${oldPodOn13} on worker-13`);

  const dryRun = await step('--dry-run');
  expect(dryRun.code).toBe(0);
  expect(dryRun.stdout).toContain('No old pod can go: maxUnavailable 1 is in use by 1 node that does not clear by itself:');
  expect(dryRun.stdout).toContain('  To go on: step with --max-unavailable 2, or wait for worker-13 to be Ready again.\n');

  const refused = await step('--yes');
  expect(refused).toEqual({
    code: 3,
    stdout: '',
    stderr: `error: no wave can start: maxUnavailable 1 of daemonset monitoring/node-exporter is in use by 1 unavailable node: worker-13 (pod ${oldPodOn13} is stuck terminating (node not Ready)); ${WAY_ON}\n`,
  });

  const after = await cli(PLAN, ['node-exporter', '-n', 'monitoring']);
  expect(after.stdout).toContain(`  - no step can start: ${HOLD}; ${WAY_ON}\n`);

  // Following the way on: one available old pod goes, and its node lands on the new template.
  const moved = await t.driveUntil(step('--yes', '--max-unavailable', '2'));
  expect({code: moved.code, stderr: moved.stderr}).toEqual({code: 0, stderr: ''});
  expect(moved.stdout).toMatch(/^ {2}deleted pod node-exporter-\S+ on worker-01$/m);
  expect(moved.stdout).toContain('Wave 2 landed');
});
