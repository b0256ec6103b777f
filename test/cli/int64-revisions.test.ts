// Revision numbers are int64 on the API server (0..2^63-1): read past 2^53 without rounding from a snapshot (JSON
// and YAML) and from the simulated cluster, which stores and serves them exactly; ordered, incremented and printed
// exactly by history, ds-plan and undo (BUILT binaries: `npm run build` first).
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {dump} from 'js-yaml';
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest';
import type {ControllerRevision, DaemonSet} from '../../src/core/index.js';
import {newDaemonSet, newNode, newPod, newRevision} from '../helpers/builders.js';
import {runCli, type CliResult} from '../helpers/run-cli.js';
import {START_TEXT, startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';
import {call} from '../sim/http-helpers.js';

vi.setConfig({testTimeout: 60_000});

const ROLLOUT = {bin: 'bin/kubectl-ds_rollout'};
const PLAN = {bin: 'bin/kubectl-ds_plan'};
/** 2^53+1: the first integer a double cannot hold (it reads as 2^53). */
const R1 = '9007199254740993';
const R2 = '9007199254740995';
const INT64_MAX = '9223372036854775807';

// Two revisions past 2^53 that a double cannot tell from their neighbours; the pods run the newer (the template).
const ds = newDaemonSet('fluentd');
const old = {...ds.spec.template, spec: {...ds.spec.template.spec, containers: [{name: 'fluentd', image: 'fluentd:v1'}]}};
const items = [
  newNode('node-a'),
  newNode('node-b'),
  newPod('fluentd-aaaaa', 'node-a', ds, {hash: 'h2'}),
  newPod('fluentd-bbbbb', 'node-b', ds, {hash: 'h2'}),
  ds,
  newRevision(ds, 'h1', -1, old),
  newRevision(ds, 'h2', -2),
];
/** The items as `-o json` prints them, with the revisions' digits written in place of the markers -1 and -2. */
const JSON_LIST = JSON.stringify({apiVersion: 'v1', kind: 'List', items}, null, 2)
  .replace('"revision": -1', `"revision": ${R1}`)
  .replace('"revision": -2', `"revision": ${R2}`);
const YAML_LIST = dump({apiVersion: 'v1', kind: 'List', items}).replace('revision: -1', `revision: ${R1}`).replace('revision: -2', `revision: ${R2}`);

let dir: string;
const file = (name: string) => join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ds-int64-'));
  await writeFile(file('big.json'), JSON_LIST);
  await writeFile(file('big.yaml'), YAML_LIST);
  await writeFile(file('int64-max.json'), JSON_LIST.replace(R2, INT64_MAX));
  await writeFile(file('past-int64.json'), JSON_LIST.replace(R2, '9223372036854775808'));
});

afterAll(async () => {
  await rm(dir, {recursive: true, force: true});
});

function ok(result: CliResult): string {
  expect(result.stderr, result.stderr).toBe('');
  expect(result.code).toBe(0);
  return result.stdout;
}

describe('a snapshot with revisions past 2^53', () => {
  test.each(['big.json', 'big.yaml'])('%s: history lists both, exactly, in order', async (name) => {
    const out = ok(await runCli(['history', 'fluentd', '--snapshot', file(name), '--now', START_TEXT], ROLLOUT));
    expect(out.indexOf(R1)).toBeGreaterThan(-1);
    expect(out.indexOf(R1)).toBeLessThan(out.indexOf(R2));
    expect(out).not.toContain('9007199254740992');
    expect(out).not.toContain('9007199254740996');
  });

  test('history -o json writes the numbers as JSON numbers with every digit', async () => {
    const out = ok(await runCli(['history', 'fluentd', '--snapshot', file('big.json'), '-o', 'json', '--now', START_TEXT], ROLLOUT));
    expect(out).toContain(`"revision": ${R1},`);
    expect(out).toContain(`"revision": ${R2},`);
  });

  test('history -o yaml writes them as plain integers', async () => {
    const out = ok(await runCli(['history', 'fluentd', '--snapshot', file('big.yaml'), '-o', 'yaml', '--now', START_TEXT], ROLLOUT));
    expect(out).toMatch(new RegExp(`revision: ${R1}\\n`));
    expect(out).not.toContain(`'${R1}'`);
  });

  test('history --revision and --diff find a revision by its exact number', async () => {
    const one = ok(await runCli(['history', 'fluentd', '--snapshot', file('big.json'), '--revision', R1], ROLLOUT));
    expect(one).toContain(`revision #${R1} (h1)`);
    expect(one).toContain('fluentd:v1');
    const diff = ok(await runCli(['history', 'fluentd', '--snapshot', file('big.json'), '--diff', `${R1},${R2}`], ROLLOUT));
    expect(diff).toContain(`revision ${R1} (h1)`);
    expect(diff).toContain(`revision ${R2} (h2)`);
    const missing = await runCli(['history', 'fluentd', '--snapshot', file('big.json'), '--revision', '9007199254740994'], ROLLOUT);
    expect(missing.stderr.trim()).toBe('error: unable to find the specified revision 9007199254740994');
    expect(missing.code).toBe(1);
  });

  test('ds-plan shows the update revision and -o json carries it exactly', async () => {
    expect(ok(await runCli(['fluentd', '--snapshot', file('big.json'), '--now', START_TEXT], PLAN))).toContain(`revision ${R2}`);
    expect(ok(await runCli(['fluentd', '--snapshot', file('big.json'), '--now', START_TEXT, '-o', 'json'], PLAN))).toContain(`"revision": ${R2}`);
  });

  test("2^63-1 is read; 2^63 is refused with the API server's range", async () => {
    expect(ok(await runCli(['history', 'fluentd', '--snapshot', file('int64-max.json')], ROLLOUT))).toContain(INT64_MAX);
    const past = await runCli(['history', 'fluentd', '--snapshot', file('past-int64.json')], ROLLOUT);
    expect(past.stderr).toContain('revision: Invalid value: 9223372036854775808: must be an integer from -9223372036854775808 to 9223372036854775807');
    expect(past.stderr.trim().split('\n')).toHaveLength(1);
    expect(past.code).toBe(1);
  });

  test('revision flags take the int64 range and name it', async () => {
    const result = await runCli(['undo', 'fluentd', '--to-revision', '9223372036854775808'], ROLLOUT);
    expect(result.stderr.trim()).toBe('error: invalid --to-revision "9223372036854775808": want a whole number from 0 to 9223372036854775807');
    expect(result.code).toBe(1);
  });
});

describe('the simulated cluster with revisions past 2^53', () => {
  let sim: TestCluster;
  const REVISIONS = '/apis/apps/v1/namespaces/kube-system/controllerrevisions';

  function revisionsOf(cluster: TestCluster): ControllerRevision[] {
    return (cluster.cluster.store.list('controllerrevisions', {namespace: 'kube-system'}).items as ControllerRevision[]).filter((r) =>
      r.metadata.name.startsWith('fluentd-'),
    );
  }

  beforeAll(async () => {
    sim = await startTestCluster({scenario: 'demo'});
    // Renumber fluentd's history past 2^53, keeping its order, with the digits written in the request body.
    const ordered = revisionsOf(sim).sort((a, b) => Number(a.revision) - Number(b.revision));
    for (const [index, revision] of ordered.entries()) {
      const body = `{"revision": ${BigInt(R1) + BigInt(index)}}`;
      const answer = await call(sim.cluster, 'PATCH', `${REVISIONS}/${revision.metadata.name}`, {
        body,
        headers: {'content-type': 'application/merge-patch+json'},
      });
      expect(answer.status).toBe(200);
    }
  });

  afterAll(async () => {
    await sim?.stop();
  });

  test('it stores and serves the digits as written', async () => {
    const answer = await call(sim.cluster, 'GET', REVISIONS);
    expect(answer.raw.toString('utf8')).toContain(`"revision":${R1}`);
    expect(revisionsOf(sim).map((r) => r.revision)).toContainEqual(BigInt(R1));
  });

  test('a patch to 2^63 is refused as the API server refuses a patched object it cannot decode (422)', async () => {
    const [first] = revisionsOf(sim);
    const answer = await call(sim.cluster, 'PATCH', `${REVISIONS}/${first!.metadata.name}`, {
      body: '{"revision": 9223372036854775808}',
      headers: {'content-type': 'application/merge-patch+json'},
    });
    expect(answer.status).toBe(422);
    expect(answer.body.message).toContain('revision: Invalid value: 9223372036854775808');
  });

  test('history and undo --dry-run print them exactly; the renumbering is max + 1, exactly', async () => {
    const history = ok(await runCli(['history', 'fluentd', '-n', 'kube-system', '--kubeconfig', sim.kubeconfig, '--now', START_TEXT], ROLLOUT));
    expect(history).toContain(R1);
    const count = revisionsOf(sim).length;
    const newest = (BigInt(R1) + BigInt(count - 1)).toString();
    expect(history).toContain(newest);
    const undo = ok(
      await runCli(['undo', 'fluentd', '-n', 'kube-system', '--to-revision', R1, '--dry-run', '--kubeconfig', sim.kubeconfig, '--now', START_TEXT], ROLLOUT),
    );
    expect(undo).toContain(`to revision ${R1}`);
    expect(undo).toContain(`becomes revision ${BigInt(newest) + 1n}`);
  });

  test('--to-revision completes the exact numbers, newest first', async () => {
    const result = await runCli(['undo', 'fluentd', '-n', 'kube-system', '--to-revision', ''], {
      bin: 'bin/kubectl_complete-ds_rollout',
      env: {KUBECONFIG: sim.kubeconfig},
    });
    const values = result.stdout
      .trimEnd()
      .split('\n')
      .slice(0, -1)
      .map((line) => line.split('\t')[0]);
    const expected = revisionsOf(sim)
      .map((r) => BigInt(r.revision))
      .sort((a, b) => (a < b ? 1 : a > b ? -1 : 0))
      .map(String);
    expect(values).toEqual(expected);
    expect(values).toContain(R1);
  });

  test("the sim's controller gives a new template the next number, exactly", async () => {
    const before = revisionsOf(sim).reduce<bigint>((max, r) => (BigInt(r.revision) > max ? BigInt(r.revision) : max), 0n);
    const daemonSet = sim.cluster.store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet;
    const image = `${daemonSet.spec.template.spec.containers[0]!.image}-int64`;
    const patch = {spec: {template: {spec: {containers: [{name: daemonSet.spec.template.spec.containers[0]!.name, image}]}}}};
    const answer = await call(sim.cluster, 'PATCH', '/apis/apps/v1/namespaces/kube-system/daemonsets/fluentd', {
      body: patch,
      headers: {'content-type': 'application/strategic-merge-patch+json'},
    });
    expect(answer.status).toBe(200);
    sim.advance(1000);
    expect(revisionsOf(sim).map((r) => r.revision)).toContainEqual(before + 1n);
    const out = ok(await runCli(['history', 'fluentd', '-n', 'kube-system', '--kubeconfig', sim.kubeconfig, '--now', START_TEXT, '-o', 'json'], ROLLOUT));
    expect(out).toContain(`"revision": ${before + 1n}`);
  });
});
