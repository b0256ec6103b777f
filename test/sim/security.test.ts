// The simulated cluster refuses what a real API server refuses, in the Status shapes clients parse: requests
// without valid credentials (401), users without rights (403), requests addressed to another host name (DNS
// rebinding), bodies of a type it does not read (415), malformed or escaping paths (400), oversized (413) and
// too deeply nested (400) bodies. No answer carries a stack trace or a file path.
import {request} from 'node:https';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {CertificateAuthority} from '../../src/sim/certificates.js';
import {RealClock, ManualClock, startSimulatedCluster, type SimulatedCluster} from '../../src/sim/index.js';
import {START, dsManifest} from './helpers.js';

let cluster: SimulatedCluster;
let port: number;
const internalErrors: unknown[] = [];

beforeAll(async () => {
  cluster = await startSimulatedCluster({clock: new ManualClock(START), logInternalError: (error) => internalErrors.push(error)});
  port = Number(new URL(cluster.url).port);
  cluster.store.create(dsManifest());
});

afterAll(async () => {
  await cluster?.stop();
});

interface RawAnswer {
  readonly status: number;
  readonly text: string;
}

interface RawRequest {
  readonly method?: string;
  /** Sent as is: no URL parser folds dot segments or re-escapes. */
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  readonly cert?: {cert: string; key: string};
  /** Default: the admin's token. */
  readonly token?: string | null;
}

function raw(options: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const token = options.token === undefined ? cluster.token : options.token;
    const headers: Record<string, string> = {
      ...(token === null ? {} : {authorization: `Bearer ${token}`}),
      ...(options.body === undefined ? {} : {'content-length': String(Buffer.byteLength(options.body))}),
      ...(options.headers ?? {}),
    };
    const req = request(
      {
        host: '127.0.0.1',
        servername: 'localhost',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers,
        ca: cluster.caCert,
        ...(options.cert ?? {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8')}));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const PODS = '/api/v1/namespaces/default/pods';
const DS = '/apis/apps/v1/namespaces/default/daemonsets';
const pod = JSON.stringify({apiVersion: 'v1', kind: 'Pod', metadata: {name: 'p'}, spec: {containers: [{name: 'c', image: 'x'}]}});

describe('bad requests: status, Status body, nothing internal', () => {
  const nobody = () => cluster.issueToken('nobody');
  const cases: {name: string; request: () => RawRequest; status: number; reason: string; message?: RegExp}[] = [
    {name: 'no credentials', request: () => ({path: PODS, token: null}), status: 401, reason: 'Unauthorized', message: /^Unauthorized$/},
    {name: 'an unknown token', request: () => ({path: PODS, token: 'not-a-token'}), status: 401, reason: 'Unauthorized'},
    {name: 'no credentials, even for /version', request: () => ({path: '/version', token: null}), status: 401, reason: 'Unauthorized'},
    {
      name: 'a user without rights',
      request: () => ({path: PODS, token: nobody()}),
      status: 403,
      reason: 'Forbidden',
      message: /^pods is forbidden: User "nobody" cannot list resource "pods" in API group "" in the namespace "default"$/,
    },
    {
      name: 'another host name (DNS rebinding)',
      request: () => ({path: PODS, headers: {host: `attacker.example:${port}`}}),
      status: 400,
      reason: 'BadRequest',
      message: /Host header/,
    },
    {
      name: 'a text/plain POST (what a web page may send without asking)',
      request: () => ({method: 'POST', path: PODS, headers: {'content-type': 'text/plain'}, body: pod}),
      status: 415,
      reason: 'UnsupportedMediaType',
    },
    {
      name: 'a form POST',
      request: () => ({method: 'POST', path: PODS, headers: {'content-type': 'application/x-www-form-urlencoded'}, body: pod}),
      status: 415,
      reason: 'UnsupportedMediaType',
    },
    {name: 'a malformed escape', request: () => ({path: '/api/v1/namespaces/%ZZ/pods'}), status: 400, reason: 'BadRequest'},
    {name: 'an escaped dot-dot namespace', request: () => ({path: '/api/v1/namespaces/%2e%2e/pods'}), status: 400, reason: 'BadRequest'},
    {name: 'a dot-dot namespace', request: () => ({path: '/api/v1/namespaces/../pods'}), status: 400, reason: 'BadRequest'},
    {name: 'an escaped slash in a name', request: () => ({path: `${PODS}/a%2Fb`}), status: 400, reason: 'BadRequest'},
    {
      name: 'a body nested 20,000 deep',
      request: () => ({method: 'POST', path: PODS, headers: {'content-type': 'application/json'}, body: `{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}`}),
      status: 400,
      reason: 'BadRequest',
      message: /nested deeper than 1000/,
    },
    {
      name: 'a patch nested 20,000 deep',
      request: () => ({
        method: 'PATCH',
        path: `${DS}/agent`,
        headers: {'content-type': 'application/merge-patch+json'},
        body: `{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}`,
      }),
      status: 400,
      reason: 'BadRequest',
    },
    {
      name: "a body over the API server's 3 MiB",
      request: () => ({method: 'POST', path: PODS, headers: {'content-type': 'application/json'}, body: Buffer.alloc(3 * 1024 * 1024 + 1, 0x20)}),
      status: 413,
      reason: 'RequestEntityTooLarge',
    },
  ];

  test.each(cases)('$name: $status $reason', async ({request: make, status, reason, message}) => {
    const answer = await raw(make());
    expect(answer.status).toBe(status);
    const body = JSON.parse(answer.text) as {kind: string; apiVersion: string; status: string; reason: string; code: number; message: string};
    expect(body).toMatchObject({kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, code: status});
    if (message) expect(body.message).toMatch(message);
    expect(answer.text).not.toMatch(/\bat \S+ \(|\/[\w.-]+\/[\w.-]+\.(?:ts|js)\b|node_modules/);
  });

  test('nothing was created or changed by the refused requests', () => {
    expect(cluster.store.list('pods').items).toEqual([]);
  });

  test('a strategic merge patch of the wrong shape (containers: "x") is 422 Invalid, as the API server answers, and changes nothing', async () => {
    const before = cluster.store.get('daemonsets', 'default', 'agent');
    const answer = await raw({
      method: 'PATCH',
      path: `${DS}/agent`,
      headers: {'content-type': 'application/strategic-merge-patch+json'},
      body: JSON.stringify({spec: {template: {spec: {containers: 'x'}}}}),
    });
    expect(answer.status).toBe(422);
    expect(JSON.parse(answer.text)).toMatchObject({
      kind: 'Status',
      reason: 'Invalid',
      code: 422,
      message: expect.stringMatching(/is invalid: patch: Invalid value: .*containers/),
    });
    expect(answer.text).not.toMatch(/\bat \S+ \(|\.ts\b|\.js\b|node_modules/);
    expect(cluster.store.get('daemonsets', 'default', 'agent')).toEqual(before);
  });

  test('a failure inside the simulated cluster is a 500 "internal error", its detail logged, not sent', async () => {
    internalErrors.length = 0;
    const store = cluster.store as unknown as {getStored: (...args: unknown[]) => unknown};
    const getStored = store.getStored;
    store.getStored = () => {
      throw new TypeError('a bug in the store');
    };
    try {
      const answer = await raw({
        method: 'PATCH',
        path: `${DS}/agent`,
        headers: {'content-type': 'application/merge-patch+json'},
        body: JSON.stringify({metadata: {labels: {a: 'b'}}}),
      });
      expect(answer.status).toBe(500);
      expect(JSON.parse(answer.text)).toMatchObject({kind: 'Status', reason: 'InternalError', code: 500, message: expect.stringMatching(/internal error/)});
      expect(answer.text).not.toMatch(/\bat \S+ \(|\.ts\b|\.js\b|node_modules|TypeError|a bug in the store/);
      expect(internalErrors).toHaveLength(1);
    } finally {
      store.getStored = getStored;
    }
  });
});

describe('who may do what', () => {
  test('the admin token reads; a user without rights reads discovery but no resource', async () => {
    expect((await raw({path: PODS})).status).toBe(200);
    const token = cluster.issueToken('viewer');
    expect((await raw({path: '/api', token})).status).toBe(200);
    expect((await raw({path: '/apis/apps/v1/daemonsets', token})).status).toBe(403);
  });

  test('client certificates: CN is the user, O the groups; one from another CA is refused', async () => {
    const admin = cluster.issueClientCertificate('alice', ['system:masters']);
    expect((await raw({path: PODS, token: null, cert: admin})).status).toBe(200);
    const plain = cluster.issueClientCertificate('bob');
    const refused = await raw({path: PODS, token: null, cert: plain});
    expect([refused.status, JSON.parse(refused.text).message]).toEqual([
      403,
      'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"',
    ]);
    const stranger = new CertificateAuthority().client('mallory', ['system:masters']);
    expect((await raw({path: PODS, token: null, cert: stranger})).status).toBe(401);
  });

  test('the kubeconfig it writes trusts its CA and carries the admin token', () => {
    const yaml = cluster.kubeconfigYaml();
    expect(yaml).toContain(`server: ${cluster.url}`);
    expect(yaml).toContain(`certificate-authority-data: ${Buffer.from(cluster.caCert!).toString('base64')}`);
    expect(yaml).toContain(`token: ${cluster.token}`);
    expect(yaml).not.toContain('insecure-skip-tls-verify');
  });
});

describe('timers', () => {
  test('a delay beyond what setTimeout keeps (minReadySeconds: 1e300) is never, not at once', async () => {
    const clock = new RealClock();
    let fired = 0;
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    clock.setTimer(1e300 * 1000, () => fired++);
    clock.setTimer(Number.NaN, () => fired++);
    await new Promise((resolve) => setTimeout(resolve, 30));
    process.off('warning', onWarning);
    expect(fired).toBe(0);
    expect(warnings).not.toContain('TimeoutOverflowWarning');
  });

  test('the manual clock keeps a NaN delay pending instead of firing it', () => {
    const clock = new ManualClock(START);
    let fired = 0;
    clock.setTimer(Number.NaN, () => fired++);
    clock.advance(1000);
    expect(fired).toBe(0);
  });
});
