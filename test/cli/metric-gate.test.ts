// The metric gate through the BUILT `kubectl ds-rollout` (run `npm run build` first) against a real Prometheus
// (Debian's package) scraping the simulated cluster's /metrics: a healthy release passes its metric gate; a
// release whose pods stay Ready while their error counter climbs (--fail-mode errors) passes the pod gate but
// fails the metric gate at the canary, and --on-failure undo brings the canary back. Prometheus scrapes on real
// time, so the cluster runs at 2x and the breach's `for` is generous; every wait is on a condition.
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest';
import {GATED_ROLLOUT_ANNOTATION, type GatedRecord} from '../../src/core/index.js';
import {runCli} from '../helpers/run-cli.js';
import {prometheusMissing, startPrometheus, type TestPrometheus} from '../helpers/prometheus.js';
import {type RolloutSim, startRolloutSim} from '../safety/rollout-sim.js';

vi.setConfig({testTimeout: 120_000, hookTimeout: 90_000});

const BIN = 'bin/kubectl-ds_rollout';
const missing = prometheusMissing();
const inCi = process.env['CI'] === 'true';

// In CI the binary is installed by .ci/run: its absence is a failure there, a skip with the reason elsewhere.
test.runIf(missing !== undefined && inCi)('Prometheus is installed in CI', () => {
  expect.fail(`the metric gate's tests need a real Prometheus: ${missing}`);
});

const QUERY = 'max by (node) (ds_rollout_sim_agent_errors_total{node=~"$nodes"})';

describe.skipIf(missing !== undefined)(`the metric gate against a real Prometheus${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let sim: RolloutSim | undefined;
  let prometheus: TestPrometheus | undefined;

  beforeAll(async () => {
    sim = await startRolloutSim({nodes: 4, maxUnavailable: 1, speed: 2});
    prometheus = await startPrometheus(sim.test.cluster.url);
    // Every pod's series scraped before a rollout asks (no data would fail the gate by default).
    await prometheus.until('count(ds_rollout_sim_agent_errors_total)', (values) => values[0] === 4);
  });

  afterAll(async () => {
    await prometheus?.stop();
    await sim?.stop();
  });

  function cli(args: string[]) {
    return runCli([...args, '--kubeconfig', sim!.kubeconfig], {bin: BIN});
  }

  function record(): GatedRecord {
    return JSON.parse(sim!.daemonSet().metadata.annotations![GATED_ROLLOUT_ANNOTATION]!) as GatedRecord;
  }

  const gateFlags = (where = ['--prometheus-url', prometheus!.url]) => [
    '--metric-query',
    QUERY,
    '--metric-max',
    '0',
    '--metric-for',
    '10s',
    '--metric-interval',
    '1s',
    ...where,
  ];

  test('the sim serves its metrics: one series per pod, 0 errors on a healthy release', async () => {
    const answer = await prometheus!.query('ds_rollout_sim_agent_errors_total');
    expect(answer.data!.result.map((r) => r.metric['node']).sort()).toEqual(['node-1', 'node-2', 'node-3', 'node-4']);
    expect(answer.data!.result.every((r) => r.value[1] === '0')).toBe(true);
  });

  test('a release whose pods stay Ready but raise errors fails the metric gate at its canary; --on-failure undo brings it back', async () => {
    const s = sim!;
    s.test.cluster.kubelets!.injectFailure({image: 'agent:v2', mode: 'errors'});
    const args = ['step', 'agent', '--until-complete', '--canary', '1', '--canary-bake', '10m', '--on-failure', 'undo', ...gateFlags(), '--yes'];
    const running = cli(args);
    // While the breach lasts, before it fails the stage, the record shows the reading (for status and the dashboard).
    const breaching = s
      .until(
        () => {
          const text = s.daemonSet().metadata.annotations?.[GATED_ROLLOUT_ANNOTATION];
          const seen = text === undefined ? undefined : (JSON.parse(text) as GatedRecord);
          const metric = seen?.readings?.find((r) => r.gate === 'metric');
          return seen?.phase === 'baking' && metric?.verdict === 'inconclusive' && /^[1-9]\d*$/.test(metric.value);
        },
        60_000,
        'an inconclusive reading recorded during the bake',
      )
      .then(
        () => true,
        () => false,
      );
    const {stdout, stderr, code} = await running;
    expect(await breaching).toBe(true);
    expect(code).toBe(3);
    expect(stderr).toMatch(
      /^error: gate failed at stage canary: metric metric: \d+ on node node-1, outside max 0 for 10s; rolled back to revision 3 on node-1; the DaemonSet stays paused\n$/,
    );
    expect(stdout).toMatch(/gate failed at canary: metric metric: \d+ on node node-1, outside max 0 for 10s/);
    // The pod gate saw nothing wrong: the canary's pod was Ready all along.
    expect(record()).toMatchObject({phase: 'aborted', failures: [{gate: 'metric', node: 'node-1', pod: ''}]});
    expect(record().readings?.filter((r) => r.gate === 'metric')).toEqual([
      expect.objectContaining({gate: 'metric', name: 'metric', bound: 'max 0', verdict: 'fail'}),
    ]);
    // The Event names the gate, the value and the node.
    const events = s.test.cluster.store.list('events').items as unknown as {reason: string; message: string}[];
    expect(events.find((e) => e.reason === 'GateFailed')?.message).toMatch(
      /^Gate failed at stage canary: metric metric: \d+ on node node-1, outside max 0 for 10s$/,
    );
    // Only the canary ever ran the release, and it is back on v1.
    await s.until(() => s.nodes.every((n) => s.images()[n]?.join() === 'agent:v1'), 30_000, 'v1 everywhere');
  });

  test('a healthy release passes its metric gate through canary and the rest, Prometheus reached through the service proxy', async () => {
    const s = sim!;
    // The API server's service proxy, with the kubeconfig's credentials, to the Service standing for Prometheus.
    s.test.cluster.exposeService('monitoring/prometheus:9090', prometheus!.url);
    // The errors release was rolled back: a new, healthy one (its errors fade from Prometheus as its pods go).
    s.setImage('agent:v3');
    await s.until(() => s.test.cluster.store.list('controllerrevisions', {namespace: 'default'}).items.length === 3, 10_000, 'revision for v3');
    await prometheus!.until('max(ds_rollout_sim_agent_errors_total)', (values) => values[0] === 0);
    const {stdout, stderr, code} = await cli([
      'step',
      'agent',
      '--until-complete',
      '--canary',
      '1',
      '--canary-bake',
      '20s',
      ...gateFlags(['--prometheus-service', 'service/monitoring/prometheus:9090']),
      '--yes',
    ]);
    expect({code, stderr}).toEqual({code: 0, stderr: ''});
    expect(stdout).toContain('  canary passed its gate');
    expect(s.nodes.every((n) => s.images()[n]?.join() === 'agent:v3')).toBe(true);
    expect(record()).toMatchObject({phase: 'complete', failures: []});
    expect(record().metrics).toEqual([{name: 'metric', query: QUERY, max: 0, forMs: 10_000, intervalMs: 1_000, noData: 'fail', onError: 'fail'}]);
    expect(record().readings?.filter((r) => r.gate === 'metric')).toEqual([{gate: 'metric', name: 'metric', value: '0', bound: 'max 0', verdict: 'pass'}]);
    const proxied = s.test.cluster.server.requestLog.entries.filter((e) => e.path.includes('/proxy/'));
    expect(proxied.length).toBeGreaterThan(0);
    expect(proxied.every((e) => e.path === '/api/v1/namespaces/monitoring/services/prometheus:9090/proxy/api/v1/query' && e.status === 200)).toBe(true);
  });
});

test('bad metric flags: one line, nothing changed (no cluster needed)', async () => {
  const cases: [string[], RegExp][] = [
    [['--metric-max', '0'], /^error: --metric-max goes with --metric-query\n$/],
    [['--metric-query', 'up'], /^error: --metric-max: want a bound/],
    [['--metric-query', 'up', '--metric-max', 'x'], /^error: --metric-max: want a number\n$/],
    [['--metric-query', 'up', '--metric-max', '1'], /^error: the metric gate needs Prometheus: give --prometheus-url or --prometheus-service/],
    [['--metric-query', 'up', '--metric-max', '1', '--prometheus-service', 'prom'], /^error: --prometheus-service: "prom": want service\/NAMESPACE\/NAME:PORT/],
    [
      ['--metric-query', 'up', '--metric-max', '1', '--prometheus-url', 'http://u:secret@p'],
      /^error: --prometheus-url: a Prometheus URL carries no credentials/,
    ],
  ];
  for (const [flags, stderr] of cases) {
    const run = await runCli(['step', 'agent', '--canary', '1', ...flags, '--yes', '--kubeconfig', '/nonexistent/kubeconfig'], {bin: BIN});
    expect(run.code, flags.join(' ')).not.toBe(0);
    expect(run.stderr, flags.join(' ')).toMatch(stderr);
    expect(run.stderr).not.toContain('secret');
  }
});
