// Issue 30, finding 1: no secret a kubeconfig or the environment carries ever reaches the output. A password, a
// token and a key are planted in every place they can live (token, tokenFile, basic auth, client key data, an
// exec plugin's env, an auth-provider's config, a proxy-url's and HTTPS_PROXY's userinfo), then the BUILT commands
// (`npm run build` first) fail in the ways that quote those entries; no output may contain any of them.
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {dump} from 'js-yaml';
import {afterAll, beforeAll, expect, test, vi} from 'vitest';
import {runCli} from '../helpers/run-cli.js';

vi.setConfig({testTimeout: 60_000});

const PASSWORD = 'PlantedPassw0rd';
const TOKEN = 'PlantedT0ken';
const KEY = 'PlantedKeyMaterial';
const PLANTED = [PASSWORD, TOKEN, KEY];

let dir: string;

function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>): string {
  return dump({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{name: 'c', cluster}],
    users: [{name: 'u', user}],
    contexts: [{name: 'x', context: {cluster: 'c', user: 'u', namespace: 'default'}}],
    'current-context': 'x',
  });
}

const SERVER = {server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true};
const KEY_DATA = Buffer.from(`-----BEGIN PRIVATE KEY-----\n${KEY}\n-----END PRIVATE KEY-----\n`).toString('base64');

/** Kubeconfigs, each failing where it quotes the entry that holds a secret. */
const CONFIGS: Record<string, string> = {
  'ftp-proxy': kubeconfig({...SERVER, 'proxy-url': `ftp://user:${PASSWORD}@proxy.example:3128`}, {token: TOKEN}),
  'server-userinfo': kubeconfig({server: `https://admin:${PASSWORD}@127.0.0.1:1`}, {token: TOKEN}),
  'bad-server-scheme': kubeconfig({server: `ftp://admin:${PASSWORD}@127.0.0.1:1`}, {token: TOKEN}),
  'http-proxy': kubeconfig({...SERVER, 'proxy-url': `http://user:${PASSWORD}@127.0.0.1:1`}, {token: TOKEN}),
  'basic-auth': kubeconfig(SERVER, {username: 'admin', password: PASSWORD}),
  'garbage-key': kubeconfig(SERVER, {'client-certificate-data': KEY_DATA, 'client-key-data': KEY_DATA}),
  'exec-env': kubeconfig(SERVER, {
    exec: {apiVersion: 'client.authentication.k8s.io/v1', command: 'no-such-plugin-xyz', env: [{name: 'SECRET', value: TOKEN}], interactiveMode: 'Never'},
  }),
  'auth-provider': kubeconfig(SERVER, {'auth-provider': {name: 'oidc', config: {'client-secret': PASSWORD, 'id-token': TOKEN}}}),
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ds-secrets-'));
  for (const [name, text] of Object.entries(CONFIGS)) await writeFile(join(dir, name), text, {mode: 0o600});
  await writeFile(join(dir, 'token'), `${TOKEN}\n`, {mode: 0o600});
  await writeFile(join(dir, 'token-file'), kubeconfig(SERVER, {tokenFile: join(dir, 'token')}), {mode: 0o600});
});

afterAll(async () => {
  await rm(dir, {recursive: true, force: true});
});

const RUNS: {name: string; bin: string; args: string[]; env?: Record<string, string>}[] = [
  ...Object.keys({...CONFIGS, 'token-file': ''}).map((config) => ({
    name: `ds-plan with ${config}`,
    bin: 'bin/kubectl-ds_plan',
    args: ['fluentd', '--kubeconfig', config, '--request-timeout', '2s'],
  })),
  {name: 'status with an ftp proxy-url', bin: 'bin/kubectl-ds_rollout', args: ['status', 'fluentd', '--kubeconfig', 'ftp-proxy', '--request-timeout', '2s']},
  {name: 'history with an ftp proxy-url', bin: 'bin/kubectl-ds_rollout', args: ['history', 'fluentd', '--kubeconfig', 'ftp-proxy', '--request-timeout', '2s']},
  {
    name: 'ds-plan through HTTPS_PROXY with a password',
    bin: 'bin/kubectl-ds_plan',
    args: ['fluentd', '--kubeconfig', 'token-file', '--request-timeout', '2s', '--server', 'https://10.255.255.1:6443'],
    env: {HTTPS_PROXY: `http://user:${PASSWORD}@127.0.0.1:1`},
  },
  {
    name: 'ds-plan with --token and an unreachable server',
    bin: 'bin/kubectl-ds_plan',
    args: ['fluentd', '--kubeconfig', 'basic-auth', '--token', TOKEN, '--request-timeout', '2s'],
  },
];

test.each(RUNS)('$name: fails on one line without a secret', async ({bin, args, env}) => {
  const result = await runCli(
    args.map((arg) => (Object.hasOwn(CONFIGS, arg) || arg === 'token-file' ? join(dir, arg) : arg)),
    {bin, ...(env ? {env} : {})},
  );
  expect(result.code).not.toBe(0);
  expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
  expect(result.stderr).not.toMatch(/internal error/);
  for (const secret of PLANTED) expect(result.stdout + result.stderr).not.toContain(secret);
});

test('an unsupported proxy-url scheme is named without its userinfo', async () => {
  const result = await runCli(['fluentd', '--kubeconfig', join(dir, 'ftp-proxy')]);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('"ftp://proxy.example:3128" is not a proxy URL');
});
