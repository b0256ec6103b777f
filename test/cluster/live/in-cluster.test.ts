// In-cluster credentials, as client-go's rest.InClusterConfig: with no kubeconfig and KUBERNETES_SERVICE_HOST/PORT
// set, the service account's token, CA and namespace files; the token is read again after a 401 and after a
// minute (the kubelet rotates the projected token on disk).
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, expect, test, vi} from 'vitest';
import {Credentials} from '../../../src/cluster/live/credentials.js';
import {resolveKubeconfig} from '../../../src/cluster/live/kubeconfig.js';
import {CertificateAuthority} from '../../../src/sim/certificates.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ds-rollout-in-cluster-'));
  await writeFile(join(dir, 'token'), 'first-token\n');
  await writeFile(join(dir, 'ca.crt'), new CertificateAuthority(Date.parse('2026-11-27T00:00:00Z')).cert);
  await writeFile(join(dir, 'namespace'), 'kube-system');
  // No kubeconfig anywhere: an empty HOME, no KUBECONFIG.
  vi.stubEnv('HOME', dir);
  vi.stubEnv('KUBECONFIG', '');
  vi.stubEnv('KUBERNETES_SERVICE_HOST', '10.0.0.1');
  vi.stubEnv('KUBERNETES_SERVICE_PORT', '6443');
  vi.stubEnv('DS_ROLLOUT_SERVICEACCOUNT_DIR', dir);
});

afterEach(async () => {
  vi.unstubAllEnvs();
  vi.useRealTimers();
  await rm(dir, {recursive: true, force: true});
});

test('no kubeconfig, in a pod: the service address, the namespace file, the token file', () => {
  const config = resolveKubeconfig({});
  expect(config).toMatchObject({server: 'https://10.0.0.1:6443', context: 'in-cluster', namespace: 'kube-system'});
  expect(config.user.tokenFile).toBe(join(dir, 'token'));
  expect(config.cluster.certificateAuthority).toBe(join(dir, 'ca.crt'));
});

test('outside a pod (no KUBERNETES_SERVICE_HOST) the token directory is never read', () => {
  vi.stubEnv('KUBERNETES_SERVICE_HOST', '');
  expect(resolveKubeconfig({}).server).toBe('http://localhost:8080');
});

test('the token is read again after a 401, and after a minute', async () => {
  vi.useFakeTimers({toFake: ['Date'], now: Date.parse('2026-11-27T00:00:00Z')});
  const credentials = new Credentials(resolveKubeconfig({}));
  const first = await credentials.transport();
  expect(first.headers['Authorization']).toBe('Bearer first-token');
  await writeFile(join(dir, 'token'), 'second-token\n');
  expect(await credentials.transport()).toBe(first);
  expect(credentials.refreshAfterUnauthorized(first)).toBe(true);
  const second = await credentials.transport();
  expect(second.headers['Authorization']).toBe('Bearer second-token');

  await writeFile(join(dir, 'token'), 'third-token\n');
  vi.setSystemTime(Date.parse('2026-11-27T00:00:59Z'));
  expect(await credentials.transport()).toBe(second);
  vi.setSystemTime(Date.parse('2026-11-27T00:01:01Z'));
  expect((await credentials.transport()).headers['Authorization']).toBe('Bearer third-token');
});
