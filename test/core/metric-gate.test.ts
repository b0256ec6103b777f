// The metric gate's pure half (src/core/metric-gate.ts), without a Prometheus: the query's text for a stage,
// Prometheus's answers read into a value, "no data" and errors, and a breach judged over time.
import {describe, expect, test} from 'vitest';
import {
  type MetricAnswer,
  type MetricQuery,
  type MetricState,
  judgeMetric,
  parseServiceRef,
  prometheusTargetOf,
  readMetricAnswer,
  strategyFromDocument,
  strategyLine,
  templateMetricQuery,
} from '../../src/core/index.js';
import {parseDuration} from '../../src/cli/flags.js';

const duration = (text: string) => parseDuration(text, 'duration');

const query: MetricQuery = {name: 'errors', query: 'q', max: 0, forMs: 30_000, intervalMs: 10_000, noData: 'fail', onError: 'fail'};

const vector = (...samples: [Record<string, string>, string][]) => ({
  status: 'success',
  data: {resultType: 'vector', result: samples.map(([metric, value]) => ({metric, value: [1700000000.5, value]}))},
});

/** Judges `answers` one after another, at the server times given, from no breach. */
function run(q: MetricQuery, steps: readonly [number, MetricAnswer][]) {
  let state: MetricState = {};
  return steps.map(([now, answer]) => {
    const judged = judgeMetric(q, answer, now, state);
    state = judged.state;
    return judged;
  });
}

describe('templating', () => {
  test('$nodes becomes the stage nodes, regex-escaped for a PromQL string, joined with |', () => {
    expect(templateMetricQuery('sum(rate(x{node=~"$nodes"}[1m]))', ['node-1', 'node-2'])).toBe('sum(rate(x{node=~"node-1|node-2"}[1m]))');
    // The regular expression needs \. and the string literal doubles the backslash.
    expect(templateMetricQuery('x{node=~"$nodes"}', ['ip-10-0-0-1.ec2.internal'])).toBe('x{node=~"ip-10-0-0-1\\\\.ec2\\\\.internal"}');
    expect(templateMetricQuery('x{node=~"$nodes"} or y{instance=~"$nodes"}', ['a'])).toBe('x{node=~"a"} or y{instance=~"a"}');
  });

  test('every node (a stage with no list): any node; no $nodes: the query as it is', () => {
    expect(templateMetricQuery('x{node=~"$nodes"}', undefined)).toBe('x{node=~".+"}');
    expect(templateMetricQuery('up', ['a'])).toBe('up');
    // $nodesX is not $nodes.
    expect(templateMetricQuery('$nodesX', ['a'])).toBe('$nodesX');
  });
});

describe("reading Prometheus's answer", () => {
  test('a vector: the worst series against the bound (highest against max, lowest against min), with its node', () => {
    const body = vector([{node: 'node-1'}, '0'], [{node: 'node-2'}, '7'], [{node: 'node-3'}, '2']);
    expect(readMetricAnswer(body, {max: 0})).toEqual({kind: 'value', value: 7, node: 'node-2'});
    expect(readMetricAnswer(body, {min: 1})).toEqual({kind: 'value', value: 0, node: 'node-1'});
    expect(readMetricAnswer(vector([{}, '0.25']), {max: 1})).toEqual({kind: 'value', value: 0.25});
  });

  test('a scalar; an empty vector or NaN is no data', () => {
    expect(readMetricAnswer({status: 'success', data: {resultType: 'scalar', result: [1, '3']}}, {max: 1})).toEqual({kind: 'value', value: 3});
    expect(readMetricAnswer(vector(), {max: 1})).toEqual({kind: 'no-data'});
    expect(readMetricAnswer(vector([{}, 'NaN']), {max: 1})).toEqual({kind: 'no-data'});
  });

  test('an error answer, a range vector and something else are errors', () => {
    expect(readMetricAnswer({status: 'error', errorType: 'bad_data', error: 'parse error at char 4'}, {max: 1})).toEqual({
      kind: 'error',
      message: 'bad_data: parse error at char 4',
    });
    expect(readMetricAnswer({status: 'success', data: {resultType: 'matrix', result: []}}, {max: 1})).toMatchObject({kind: 'error'});
    expect(readMetricAnswer('<html>', {max: 1})).toEqual({kind: 'error', message: 'not an answer of Prometheus /api/v1/query'});
  });
});

describe('judging over time', () => {
  test('a breach fails the stage only once it has lasted `for`; a value back in bound ends it', () => {
    const steps = run(query, [
      [0, {kind: 'value', value: 0}],
      [10_000, {kind: 'value', value: 3, node: 'node-1'}],
      [20_000, {kind: 'value', value: 4}],
      [30_000, {kind: 'value', value: 0}],
      [40_000, {kind: 'value', value: 5}],
      [60_000, {kind: 'value', value: 5}],
      [70_000, {kind: 'value', value: 6, node: 'node-2'}],
    ]);
    expect(steps.map((s) => s.reading.verdict)).toEqual(['pass', 'inconclusive', 'inconclusive', 'pass', 'inconclusive', 'inconclusive', 'fail']);
    expect(steps.map((s) => s.failure === undefined)).toEqual([true, true, true, true, true, true, false]);
    expect(steps[6]!.failure).toEqual({pod: '', node: 'node-2', gate: 'metric', reason: 'metric errors: 6 on node node-2, outside max 0 for 30s'});
    expect(steps[6]!.reading).toEqual({gate: 'metric', name: 'errors', value: '6', bound: 'max 0', verdict: 'fail'});
  });

  test('for 0: the first breach fails; min bounds too', () => {
    const q = {...query, max: undefined, min: 0.99, forMs: 0};
    const [ok, low] = run(q, [
      [0, {kind: 'value', value: 1}],
      [1, {kind: 'value', value: 0.5}],
    ]);
    expect(ok!.reading).toMatchObject({verdict: 'pass', bound: 'min 0.99'});
    expect(low!.failure?.reason).toBe('metric errors: 0.5, outside min 0.99');
  });

  test('no data: a breach by default, a pass with noData: pass, nothing with ignore', () => {
    const none: MetricAnswer = {kind: 'no-data'};
    const failing = run({...query, forMs: 20_000}, [
      [0, none],
      [10_000, none],
      [20_000, none],
    ]);
    expect(failing.map((s) => s.reading.verdict)).toEqual(['inconclusive', 'inconclusive', 'fail']);
    expect(failing[2]!.failure?.reason).toBe('metric errors: no data (noData: fail) for 20s');
    expect(failing[2]!.reading.value).toBe('no data');

    const passing = run({...query, forMs: 20_000, noData: 'pass'}, [
      [0, {kind: 'value', value: 9}],
      [10_000, none],
      [20_000, {kind: 'value', value: 9}],
      [30_000, {kind: 'value', value: 9}],
    ]);
    // The pass ended the breach: it starts again at 20 s and has not lasted 20 s at 30 s.
    expect(passing.every((s) => s.failure === undefined)).toBe(true);

    const ignoring = run({...query, forMs: 20_000, noData: 'ignore'}, [
      [0, {kind: 'value', value: 9}],
      [10_000, none],
      [20_000, {kind: 'value', value: 9}],
    ]);
    // Ignored: the breach that started at 0 goes on.
    expect(ignoring.map((s) => s.reading.verdict)).toEqual(['inconclusive', 'inconclusive', 'fail']);
  });

  test('an error fails by default after `for`; onError: pass or ignore', () => {
    const error: MetricAnswer = {kind: 'error', message: 'unreachable: connect ECONNREFUSED 127.0.0.1:9090'};
    const [first, second] = run({...query, forMs: 5_000}, [
      [0, error],
      [5_000, error],
    ]);
    expect(first!.reading).toMatchObject({verdict: 'inconclusive', value: 'error: unreachable: connect ECONNREFUSED 127.0.0'});
    expect(second!.failure?.reason).toBe('metric errors: error: unreachable: connect ECONNREFUSED 127.0.0.1:9090 (onError: fail) for 5s');
    expect(run({...query, forMs: 0, onError: 'pass'}, [[0, error]])[0]!.failure).toBeUndefined();
    expect(run({...query, forMs: 0, onError: 'ignore'}, [[0, error]])[0]!.reading.verdict).toBe('inconclusive');
  });
});

describe('the strategy file', () => {
  const text = [
    'canary: 1',
    'metrics:',
    '  - name: errors',
    '    query: sum(rate(agent_errors_total{node=~"$nodes"}[1m]))',
    '    max: 0.5',
    '    for: 1m',
    '  - name: ready',
    '    query: min(up)',
    '    min: 1',
    '    interval: 30s',
    '    noData: ignore',
    'prometheus:',
    '  service: service/monitoring/prometheus:9090',
  ].join('\n');

  test('metrics and prometheus', async () => {
    const {load} = await import('js-yaml');
    expect(strategyFromDocument(load(text), duration)).toEqual({
      strategy: {
        canary: {kind: 'count', count: 1},
        metrics: [
          {
            name: 'errors',
            query: 'sum(rate(agent_errors_total{node=~"$nodes"}[1m]))',
            max: 0.5,
            forMs: 60_000,
            intervalMs: 10_000,
            noData: 'fail',
            onError: 'fail',
          },
          {name: 'ready', query: 'min(up)', min: 1, forMs: 0, intervalMs: 30_000, noData: 'ignore', onError: 'fail'},
        ],
        prometheus: {service: {namespace: 'monitoring', name: 'prometheus', port: '9090'}},
      },
    });
  });

  test.each([
    ['metrics: []', ['metrics'], 'metrics: want a list'],
    ['metrics:\n  - query: up', ['metrics', 0, 'max'], 'metrics[0].max: want a bound: max (a value above fails) or min (a value below fails)'],
    ['metrics:\n  - query: up\n    max: lots', ['metrics', 0, 'max'], 'metrics[0].max: want a number'],
    ['metrics:\n  - query: up\n    max: 1\n    for: soon', ['metrics', 0, 'for'], 'metrics[0].for: invalid "soon"'],
    ['metrics:\n  - query: up\n    max: 1\n    noData: maybe', ['metrics', 0, 'noData'], 'metrics[0].noData: want fail, pass or ignore'],
    ['metrics:\n  - query: up\n    max: 1\n    bound: 2', ['metrics', 0, 'bound'], 'metrics[0]: unknown field "bound"'],
    ['metrics:\n  - query: up\n    max: 1\n  - query: up\n    min: 1', ['metrics', 1, 'name'], 'metrics[1].name: "metric" is named twice'],
    ['prometheus:\n  url: ftp://x', ['prometheus', 'url'], 'prometheus.url: "ftp:" is not http: or https:'],
    ['prometheus:\n  url: http://u:p@x', ['prometheus', 'url'], 'prometheus.url: a Prometheus URL carries no credentials'],
    ['prometheus:\n  service: monitoring/prometheus', ['prometheus', 'service'], 'want service/NAMESPACE/NAME:PORT'],
  ])('%j: one problem at its path', async (doc, path, message) => {
    const {load} = await import('js-yaml');
    const parsed = strategyFromDocument(load(doc), duration);
    expect('problem' in parsed && parsed.problem.path).toEqual(path);
    expect('problem' in parsed && parsed.problem.message).toContain(message);
  });

  test("a problem's line: the entry of the list", () => {
    expect(strategyLine(text, ['metrics', 1, 'min'])).toBe(7);
    expect(strategyLine(text, ['prometheus', 'service'])).toBe(13);
  });
});

test('where Prometheus is', () => {
  expect(parseServiceRef('service/monitoring/prometheus-k8s:web')).toEqual({namespace: 'monitoring', name: 'prometheus-k8s', port: 'web'});
  expect(parseServiceRef('monitoring/prometheus:9090')).toEqual({namespace: 'monitoring', name: 'prometheus', port: '9090'});
  expect(parseServiceRef('service/Mon/p:9090')).toContain('DNS labels');
  expect(prometheusTargetOf({url: 'https://prom:9090', service: undefined, tokenFile: '/t', caFile: '/ca'})).toEqual({
    prometheus: {url: 'https://prom:9090', tokenFile: '/t', caFile: '/ca'},
  });
  expect(prometheusTargetOf({url: 'https://prom', service: 'a/b:1', tokenFile: undefined, caFile: undefined})).toMatchObject({problem: {key: 'service'}});
  expect(prometheusTargetOf({url: undefined, service: 'a/b:1', tokenFile: '/t', caFile: undefined})).toMatchObject({problem: {key: 'tokenFile'}});
});

test('examples/metric-gate-strategy.yaml is a valid strategy', async () => {
  const {load} = await import('js-yaml');
  const {readFile} = await import('node:fs/promises');
  const parsed = strategyFromDocument(load(await readFile('examples/metric-gate-strategy.yaml', 'utf8')), duration);
  expect('strategy' in parsed && parsed.strategy.metrics?.map((m) => m.name)).toEqual(['output-errors', 'nodes-shipping']);
});

test("the record keeps room for the metric gate's longest readings", async () => {
  const {longestReadings, recordedReadings, startRecordTooLarge} = await import('../../src/core/index.js');
  const [longest] = longestReadings([query]);
  expect(longest).toMatchObject({gate: 'metric', name: 'errors', bound: 'max 0'});
  // The longest reading a metric can give is kept whole (the record's readings share clips nothing shorter).
  expect(recordedReadings([longest!])).toEqual([longest]);
  // A record that fits alone may not fit with its readings: the start check counts them (services/gated-rollout.ts).
  const record = (length: number, readings: boolean) => {
    const metrics = [{...query, query: 'x'.repeat(length)}];
    return {
      template: 't',
      stages: [{name: 'canary', count: 1, bakeMs: 0, approve: false}],
      stage: 0,
      phase: 'rolling' as const,
      failures: [],
      maxRestarts: 0,
      progressDeadlineMs: 0,
      onFailure: 'pause' as const,
      metrics,
      ...(readings ? {readings: longestReadings(metrics)} : {}),
    };
  };
  const edge = Array.from({length: 2048}, (_, n) => n).find((n) => startRecordTooLarge(record(n, true)) !== undefined)!;
  expect(startRecordTooLarge(record(edge, false))).toBeUndefined();
});
