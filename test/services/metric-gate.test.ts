// The metric gate service (src/services/metric-gate.ts) without a Prometheus: queries asked on their interval
// with the stage's nodes, a breach failing once it lasted `for` on the clock given, and Prometheus reached by
// URL with a bearer token file and a CA file (a local HTTPS server standing in, with a certificate of the
// simulated cluster's CA).
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {createServer} from 'node:https';
import type {AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, expect, test, vi} from 'vitest';
import type {MetricQuery} from '../../src/core/index.js';
import {MetricGate, type PrometheusQuery, prometheusOpener, serviceProxyPath} from '../../src/services/metric-gate.js';
import {CertificateAuthority} from '../../src/sim/certificates.js';
import type {KubeClient} from '../../src/cluster/live/client.js';

const query: MetricQuery = {name: 'errors', query: 'max(e{node=~"$nodes"})', max: 0, forMs: 20_000, intervalMs: 10_000, noData: 'fail', onError: 'fail'};
const vector = (value: string) => ({status: 'success', data: {resultType: 'vector', result: [{metric: {node: 'node-1'}, value: [0, value]}]}});

let gate: MetricGate | undefined;
afterEach(() => gate?.stop());

test('each query runs on its interval with the stage nodes; a breach fails once it has lasted `for`; a new stage starts afresh', async () => {
  let now = 0;
  let value = '0';
  const asked: string[] = [];
  const prometheus: PrometheusQuery = async (promql) => {
    asked.push(promql);
    return vector(value);
  };
  gate = new MetricGate({queries: [query], prometheus, now: () => now, tickMs: 1});
  gate.watch('canary', ['node-1', 'node-2']);
  await vi.waitFor(() => expect(gate!.readings()).toEqual([{gate: 'metric', name: 'errors', value: '0', bound: 'max 0', verdict: 'pass'}]));
  expect(asked).toEqual(['max(e{node=~"node-1|node-2"})']);
  // Not due again before its interval on the clock given.
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(asked).toHaveLength(1);
  value = '3';
  now = 10_000;
  await vi.waitFor(() => expect(gate!.readings()[0]?.verdict).toBe('inconclusive'));
  expect(gate.failures()).toEqual([]);
  now = 30_000;
  await vi.waitFor(() => expect(gate!.failures()).toHaveLength(1));
  expect(gate.failures()[0]).toEqual({pod: '', node: 'node-1', gate: 'metric', reason: 'metric errors: 3 on node node-1, outside max 0 for 20s'});
  // Watching the same stage again keeps its state; another stage starts afresh, with its nodes.
  gate.watch('canary', ['node-1', 'node-2']);
  expect(gate.failures()).toHaveLength(1);
  value = '0';
  gate.watch('wave 1 (100%)', undefined);
  expect(gate.failures()).toEqual([]);
  await vi.waitFor(() => expect(asked.at(-1)).toBe('max(e{node=~".+"})'));
});

test('Prometheus unreachable is an error reading: with for 0, a failure at once by default', async () => {
  const prometheus: PrometheusQuery = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9'));
  gate = new MetricGate({queries: [{...query, forMs: 0}], prometheus, now: () => 0, tickMs: 1});
  gate.watch('canary', ['node-1']);
  await vi.waitFor(() => expect(gate!.failures()).toHaveLength(1));
  expect(gate.failures()[0]!.reason).toBe('metric errors: error: unreachable: connect ECONNREFUSED 127.0.0.1:9 (onError: fail)');
});

test('the service proxy path', () => {
  expect(serviceProxyPath({namespace: 'monitoring', name: 'prometheus-k8s', port: 'web'})).toBe(
    '/api/v1/namespaces/monitoring/services/prometheus-k8s:web/proxy/api/v1/query',
  );
});

test('by URL: the bearer token from its file, the server checked against the CA file, a refused query read as an error', async () => {
  const ca = new CertificateAuthority();
  const serving = ca.serving(['127.0.0.1']);
  const seen: {auth?: string; query?: string}[] = [];
  const server = createServer({cert: serving.cert, key: serving.key}, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    seen.push({
      ...(req.headers.authorization ? {auth: req.headers.authorization} : {}),
      ...(url.searchParams.get('query') ? {query: url.searchParams.get('query')!} : {}),
    });
    if (url.pathname !== '/prom/api/v1/query') {
      res.writeHead(404).end('not found');
      return;
    }
    if (url.searchParams.get('query') === 'bad(') {
      res.writeHead(400, {'Content-Type': 'application/json'}).end(JSON.stringify({status: 'error', errorType: 'bad_data', error: 'parse error'}));
      return;
    }
    res.writeHead(200, {'Content-Type': 'application/json'}).end(JSON.stringify(vector('1')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dir = await mkdtemp(join(tmpdir(), 'ds-rollout-metric-'));
  try {
    await writeFile(join(dir, 'token'), 'sekret-token\n');
    await writeFile(join(dir, 'ca.pem'), ca.cert);
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/prom`;
    const open = prometheusOpener({} as KubeClient, 5_000);
    const ask = await open({url, tokenFile: join(dir, 'token'), caFile: join(dir, 'ca.pem')});
    const signal = new AbortController().signal;
    expect(await ask('up{node=~"a|b"}', signal)).toEqual(vector('1'));
    expect(await ask('bad(', signal)).toEqual({status: 'error', errorType: 'bad_data', error: 'parse error'});
    expect(seen[0]).toEqual({auth: 'Bearer sekret-token', query: 'up{node=~"a|b"}'});
    // Without the CA the certificate is not trusted: an error, never a silent pass.
    const untrusted = await open({url});
    await expect(untrusted('up', signal)).rejects.toThrow(/certificate/);
    await expect(open({url, tokenFile: join(dir, 'missing')})).rejects.toThrow(/Prometheus token file ".*missing" does not exist/);
  } finally {
    server.close();
    await rm(dir, {recursive: true, force: true});
  }
});
