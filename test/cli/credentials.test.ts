// Every credential kind over HTTPS, through the BUILT CLI (`npm run build` first), against the simulated cluster
// demanding it: client certificates (files and data), bearer tokens (inline, tokenFile, --token), exec plugins (v1
// and v1beta1, a token or a client certificate), a forbidden user, and the failures: a hanging plugin bounded by
// --request-timeout, a plugin that prints a raw token, a failing plugin, a wrong CA, an unreachable server, a
// server that is not Kubernetes. No secret reaches the screen.
import {chmodSync, readFileSync, writeFileSync} from 'node:fs';
import {createServer, type Server} from 'node:http';
import {type AddressInfo, connect} from 'node:net';
import {join} from 'node:path';
import {dump} from 'js-yaml';
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest';
import {CertificateAuthority} from '../../src/sim/index.js';
import {runCli, type CliResult} from '../helpers/run-cli.js';
import {START_TEXT, startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

vi.setConfig({testTimeout: 30_000});

let t: TestCluster;
let n = 0;

beforeAll(async () => {
  t = await startTestCluster({scenario: 'large', nodes: 3, namespace: 'kube-system'});
});

afterAll(async () => {
  await t?.stop();
});

type User = Record<string, unknown>;

/** A kubeconfig for the simulated cluster with this user (the cluster entry trusts its CA unless told otherwise). */
function kubeconfig(user: User, cluster: Record<string, unknown> = {}): string {
  const path = join(t.dir, `kubeconfig-${++n}`);
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'sim',
    clusters: [{name: 'sim', cluster: {server: t.cluster.url, 'certificate-authority-data': Buffer.from(t.cluster.caCert!).toString('base64'), ...cluster}}],
    users: [{name: 'me', user}],
    contexts: [{name: 'sim', context: {cluster: 'sim', user: 'me', namespace: 'kube-system'}}],
  };
  writeFileSync(path, dump(doc), {mode: 0o600});
  return path;
}

function file(name: string, text: string, mode = 0o600): string {
  const path = join(t.dir, name);
  writeFileSync(path, text, {mode});
  chmodSync(path, mode);
  return path;
}

/** An exec plugin: a shell script in the test's temp dir. */
function plugin(name: string, body: string): string {
  return file(name, `#!/bin/sh\n${body}\n`, 0o700);
}

function plan(config: string, ...args: string[]): Promise<CliResult> {
  return runCli(['fluentd', '--kubeconfig', config, '--now', START_TEXT, ...args]);
}

const base64 = (text: string) => Buffer.from(text).toString('base64');

function expectPlanned(result: CliResult): void {
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('fluentd');
}

function oneLine(result: CliResult): string {
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('each credential kind, over HTTPS', () => {
  test('the admin token the simulated cluster wrote', async () => {
    expectPlanned(await plan(t.kubeconfig));
  });

  test('a client certificate and key as data', async () => {
    const {cert, key} = t.cluster.issueClientCertificate('alice', ['system:masters']);
    expectPlanned(await plan(kubeconfig({'client-certificate-data': base64(cert), 'client-key-data': base64(key)})));
  });

  test('a client certificate and key as files, relative to the kubeconfig', async () => {
    const {cert, key} = t.cluster.issueClientCertificate('carol', ['system:masters']);
    file('carol.crt', cert);
    file('carol.key', key);
    expectPlanned(await plan(kubeconfig({'client-certificate': 'carol.crt', 'client-key': 'carol.key'})));
  });

  test('a token file, relative to the kubeconfig; the CA as a file', async () => {
    file('token', `${t.cluster.token}\n`);
    file('ca.crt', t.cluster.caCert!);
    expectPlanned(await plan(kubeconfig({tokenFile: 'token'}, {'certificate-authority-data': undefined, 'certificate-authority': 'ca.crt'})));
  });

  test('--token and --certificate-authority override the kubeconfig', async () => {
    const ca = file('ca-flag.crt', t.cluster.caCert!);
    const config = kubeconfig({token: 'wrong'}, {'certificate-authority-data': base64(new CertificateAuthority().cert)});
    expectPlanned(await plan(config, '--token', t.cluster.token, '--certificate-authority', ca));
  });

  test('--server and --insecure-skip-tls-verify reach the cluster from an empty context', async () => {
    const config = kubeconfig({}, {server: 'https://127.0.0.1:1', 'certificate-authority-data': undefined});
    expectPlanned(await plan(config, '--server', t.cluster.url, '--insecure-skip-tls-verify', '--token', t.cluster.token));
  });

  test.each(['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'])('an exec plugin (%s) giving a token', async (apiVersion) => {
    const script = plugin(
      `exec-${n}.sh`,
      `echo '{"apiVersion":"${apiVersion}","kind":"ExecCredential","status":{"token":"${t.cluster.token}","expirationTimestamp":"2099-01-01T00:00:00Z"}}'`,
    );
    expectPlanned(await plan(kubeconfig({exec: {apiVersion, command: script, args: ['--region', 'x'], interactiveMode: 'Never'}})));
  });

  test('a gcp auth-provider: its cmd-path (with cmd-args, by the shell) gives the token at token-key', async () => {
    const script = plugin(
      'gcloud.sh',
      `[ "$1 $2" = "config config-helper" ] || exit 3\necho '{"credential":{"access_token":"${t.cluster.token}","token_expiry":"2099-01-01T00:00:00Z"}}'`,
    );
    const config = {
      'cmd-path': script,
      'cmd-args': 'config config-helper --format=json',
      'token-key': '{.credential.access_token}',
      'expiry-key': '{.credential.token_expiry}',
    };
    expectPlanned(await plan(kubeconfig({'auth-provider': {name: 'gcp', config}})));
  });

  test('an exec credential the server refuses (401) is fetched again once, as client-go does', async () => {
    const count = join(t.dir, 'refresh-count');
    const script = plugin(
      'refresh.sh',
      [
        `echo x >> '${count}'`,
        `if [ "$(wc -l < '${count}')" -eq 1 ]; then TOKEN=stale; else TOKEN='${t.cluster.token}'; fi`,
        `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}' "$TOKEN"`,
      ].join('\n'),
    );
    expectPlanned(await plan(kubeconfig({exec: {apiVersion: 'client.authentication.k8s.io/v1', command: script, interactiveMode: 'Never'}})));
    expect(readFileSync(count, 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
  });

  test('an exec plugin giving a client certificate, with env from the kubeconfig', async () => {
    const {cert, key} = t.cluster.issueClientCertificate('dave', ['system:masters']);
    const status = JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: {clientCertificateData: cert, clientKeyData: key},
    });
    file('cred.json', status);
    const script = plugin('exec-cert.sh', 'test "$CRED_FILE" != "" || exit 3\ncat "$CRED_FILE"');
    const config = kubeconfig({
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: script,
        env: [{name: 'CRED_FILE', value: join(t.dir, 'cred.json')}],
        interactiveMode: 'Never',
      },
    });
    expectPlanned(await plan(config));
  });
});

describe('proxies', () => {
  test('proxy-url: the requests go through the proxy (HTTP CONNECT), TLS end to end', async () => {
    const tunnels: string[] = [];
    const proxy: Server = createServer();
    proxy.on('connect', (req, socket, head) => {
      tunnels.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      const upstream = connect(Number(port), host!, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      expectPlanned(await plan(kubeconfig({token: t.cluster.token}, {'proxy-url': proxyUrl})));
      expect(tunnels.length).toBeGreaterThan(0);
      expect(new Set(tunnels)).toEqual(new Set([new URL(t.cluster.url).host]));
    } finally {
      proxy.closeAllConnections();
      proxy.close();
    }
  });
});

describe('refusals and failures: one line, the documented exit code, no secret', () => {
  const SECRET = 'S3cr3tPw-do-not-print';

  test('a user without rights: exit 2, forbidden', async () => {
    const result = await plan(kubeconfig({token: t.cluster.issueToken('nobody')}));
    expect(result.code).toBe(2);
    expect(oneLine(result)).toMatch(/^error: forbidden: cannot (get|list) \w+/);
  });

  test('a wrong token: exit 2, unauthorized, the token not shown', async () => {
    const result = await plan(kubeconfig({token: SECRET}));
    expect(result.code).toBe(2);
    expect(oneLine(result)).toMatch(new RegExp(`^error: unauthorized: the server at ${t.cluster.url} did not accept the credentials`));
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });

  test('a hanging exec plugin is stopped by --request-timeout: exit 2 within bounds', async () => {
    const script = plugin('hang.sh', 'sleep 100');
    const started = performance.now();
    const result = await plan(
      kubeconfig({exec: {apiVersion: 'client.authentication.k8s.io/v1', command: script, interactiveMode: 'Never'}}),
      '--request-timeout',
      '2s',
    );
    const seconds = (performance.now() - started) / 1000;
    expect(result.code).toBe(2);
    expect(oneLine(result)).toBe(
      `error: cannot prepare the credentials of context "sim": exec credential plugin "${script}" gave no credential within 2s (--request-timeout)`,
    );
    expect(seconds).toBeLessThan(15);
  });

  test('a plugin printing a raw token instead of JSON: the token is not shown', async () => {
    const script = plugin('raw.sh', `echo '${SECRET}; '`);
    const result = await plan(kubeconfig({exec: {apiVersion: 'client.authentication.k8s.io/v1beta1', command: script}}));
    expect(result.code).toBe(2);
    expect(oneLine(result)).toMatch(/exec credential plugin ".*raw\.sh" printed no ExecCredential JSON \(\d+ bytes on stdout, not shown/);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });

  test('a failing plugin: named, with the first line of its stderr', async () => {
    const script = plugin('fail.sh', `echo '{"token":"${SECRET}"}'\necho 'error: SSO session expired, run aws sso login' >&2\necho 'second line' >&2\nexit 1`);
    const result = await plan(kubeconfig({exec: {apiVersion: 'client.authentication.k8s.io/v1', command: script}}));
    expect(result.code).toBe(2);
    expect(oneLine(result)).toBe(
      `error: cannot prepare the credentials of context "sim": exec credential plugin "${script}" failed (exit status 1): error: SSO session expired, run aws sso login`,
    );
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });

  test('a plugin that is not installed: exit 1 with its install hint', async () => {
    const result = await plan(
      kubeconfig({exec: {apiVersion: 'client.authentication.k8s.io/v1', command: 'no-such-plugin-xyz', installHint: 'install it with: brew install xyz'}}),
    );
    expect(result.code).toBe(1);
    expect(oneLine(result)).toMatch(/exec credential plugin "no-such-plugin-xyz" not found: install it with: brew install xyz$/);
  });

  test('a server certificate from another CA: exit 2 naming the server', async () => {
    const result = await plan(kubeconfig({token: SECRET}, {'certificate-authority-data': base64(new CertificateAuthority().cert)}));
    expect(result.code).toBe(2);
    expect(oneLine(result)).toMatch(new RegExp(`^error: cannot reach the cluster at ${t.cluster.url}: TLS: `));
    expect(result.stderr).not.toContain(SECRET);
  });

  test('a missing client key file: exit 1 naming the file and the key', async () => {
    const result = await plan(kubeconfig({'client-certificate': 'none.crt', 'client-key': 'none.key'}));
    expect(result.code).toBe(1);
    expect(oneLine(result)).toMatch(/kubeconfig ".*": users\[0\]\.user\.client-certificate: cannot read ".*none\.crt": no such file$/);
  });

  test('a missing --certificate-authority file: exit 1 naming the flag', async () => {
    const result = await plan(t.kubeconfig, '--certificate-authority', join(t.dir, 'nope.crt'));
    expect(result.code).toBe(1);
    expect(oneLine(result)).toMatch(/: --certificate-authority: cannot read ".*nope\.crt": no such file$/);
  });

  test('server: not a url is one line, exit 1, no "internal error"', async () => {
    const result = await plan(kubeconfig({token: SECRET}, {server: 'not a url'}));
    expect(result.code).toBe(1);
    expect(oneLine(result)).toMatch(/^error: kubeconfig ".*": clusters\[0\]\.cluster\.server: "not a url" is not a URL/);
  });

  test('a server that is not Kubernetes (an HTML 404 from a proxy): exit 2 naming the server', async () => {
    const server: Server = createServer((_req, res) => {
      res.writeHead(404, {'Content-Type': 'text/html'});
      res.end('<html><body><h1>404 Not Found</h1></body></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const result = await plan(kubeconfig({token: SECRET}, {server: url, 'certificate-authority-data': undefined}));
      expect(result.code).toBe(2);
      expect(oneLine(result)).toMatch(new RegExp(`^error: the server at ${url} is not a Kubernetes API server`));
      expect(result.stderr).not.toContain(SECRET);
    } finally {
      server.close();
    }
  });

  test('a server answering 200 with an HTML page (a captive portal): exit 2 naming the server', async () => {
    const server: Server = createServer((_req, res) => {
      res.writeHead(200, {'Content-Type': 'text/html'});
      res.end('<html><body>Please log in to the Wi-Fi</body></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const result = await plan(kubeconfig({}, {server: url, 'certificate-authority-data': undefined}));
      expect(result.code).toBe(2);
      expect(oneLine(result)).toMatch(
        new RegExp(`^error: the server at ${url} is not a Kubernetes API server: it answered GET /\\S+ with something that is not JSON \\(text/html\\)$`),
      );
    } finally {
      server.close();
    }
  });

  test('-o yaml and -o json carry no credential', async () => {
    for (const format of ['yaml', 'json']) {
      const result = await plan(t.kubeconfig, '-o', format);
      expect(result.code).toBe(0);
      expect(result.stdout).not.toContain(t.cluster.token);
    }
  });
});
