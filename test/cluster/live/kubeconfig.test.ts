// Which cluster a live command acts on: the KUBECONFIG list merged as kubectl merges it (the first file to set a
// value wins), compared case by case with what the installed kubectl resolves (`kubectl config view --minify`).
import {execFileSync} from 'node:child_process';
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {delimiter, join} from 'node:path';
import {afterAll, describe, expect, test} from 'vitest';
import {resolveKubeconfig} from '../../../src/cluster/live/kubeconfig.js';

const dir = mkdtempSync(join(tmpdir(), 'ds-kubeconfig-'));
afterAll(() => rmSync(dir, {recursive: true, force: true}));

interface Entry {
  readonly current?: string;
  readonly clusters?: Record<string, string>;
  readonly contexts?: Record<string, {cluster: string; user: string; namespace?: string}>;
  readonly users?: readonly string[];
}

function write(name: string, entry: Entry): string {
  const path = join(dir, name);
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    ...(entry.current ? {'current-context': entry.current} : {}),
    clusters: Object.entries(entry.clusters ?? {}).map(([n, server]) => ({name: n, cluster: {server}})),
    contexts: Object.entries(entry.contexts ?? {}).map(([n, c]) => ({name: n, context: c})),
    users: (entry.users ?? []).map((n) => ({name: n, user: {token: `token-of-${n}`}})),
  };
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

const demo = write('demo', {
  current: 'demo',
  clusters: {demo: 'https://demo.example:6443'},
  contexts: {demo: {cluster: 'demo', user: 'alice', namespace: 'kube-system'}},
  users: ['alice'],
});
const big = write('big', {
  current: 'big',
  clusters: {big: 'https://big.example:6443', demo: 'https://other.example:6443'},
  contexts: {big: {cluster: 'big', user: 'bob'}, demo: {cluster: 'big', user: 'bob'}},
  users: ['bob', 'alice'],
});
const noCurrent = write('no-current', {
  clusters: {extra: 'https://extra.example:6443'},
  contexts: {extra: {cluster: 'extra', user: 'carol', namespace: 'monitoring'}},
  users: ['carol'],
});

function kubectlView(kubeconfig: string, context?: string): {context: string; server: string; namespace: string; user: string} {
  const out = execFileSync('kubectl', ['config', 'view', '--minify', '-o', 'json', ...(context ? ['--context', context] : [])], {
    env: {...process.env, KUBECONFIG: kubeconfig},
    encoding: 'utf8',
  });
  const view = JSON.parse(out) as {
    'current-context': string;
    clusters: {cluster: {server: string}}[];
    contexts: {context: {namespace?: string; user: string}}[];
  };
  return {
    context: view['current-context'],
    server: view.clusters[0]!.cluster.server,
    namespace: view.contexts[0]!.context.namespace ?? 'default',
    user: view.contexts[0]!.context.user,
  };
}

function ours(kubeconfig: string, context?: string) {
  const saved = process.env.KUBECONFIG;
  process.env.KUBECONFIG = kubeconfig;
  try {
    const resolved = resolveKubeconfig(context ? {context} : {});
    return {context: resolved.context, server: resolved.server, namespace: resolved.namespace, user: resolved.user.name};
  } finally {
    if (saved === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = saved;
  }
}

const list = (...files: string[]) => files.join(delimiter);

describe('KUBECONFIG lists resolve to the cluster kubectl picks', () => {
  test.each([
    {
      name: 'the first file sets current-context',
      kubeconfig: list(demo, big),
      expected: {context: 'demo', server: 'https://demo.example:6443', namespace: 'kube-system', user: 'alice'},
    },
    {name: 'the other order', kubeconfig: list(big, demo), expected: {context: 'big', server: 'https://big.example:6443', namespace: 'default', user: 'bob'}},
    {
      name: 'a file without current-context leaves it to the next',
      kubeconfig: list(noCurrent, big),
      expected: {context: 'big', server: 'https://big.example:6443', namespace: 'default', user: 'bob'},
    },
    {
      name: 'the same names in two files: the first definition wins',
      kubeconfig: list(big, demo),
      context: 'demo',
      expected: {context: 'demo', server: 'https://big.example:6443', namespace: 'default', user: 'bob'},
    },
    {
      name: 'a file that does not exist is skipped',
      kubeconfig: list(join(dir, 'missing'), demo, big),
      expected: {context: 'demo', server: 'https://demo.example:6443', namespace: 'kube-system', user: 'alice'},
    },
    {
      name: "--context picks a context from a later file, with that context's namespace",
      kubeconfig: list(demo, noCurrent),
      context: 'extra',
      expected: {context: 'extra', server: 'https://extra.example:6443', namespace: 'monitoring', user: 'carol'},
    },
  ])('$name', ({kubeconfig, context, expected}) => {
    expect(ours(kubeconfig, context)).toEqual(expected);
    expect(kubectlView(kubeconfig, context)).toEqual(expected);
  });

  test('no file of the list exists: an error naming them (kubectl falls back to localhost:8080), never ~/.kube/config', () => {
    expect(() => ours(list(join(dir, 'gone-1'), join(dir, 'gone-2')))).toThrow(
      `KUBECONFIG names no file that exists (${join(dir, 'gone-1')}, ${join(dir, 'gone-2')}): set it to a kubeconfig file, or unset it`,
    );
    // kubectl: no cluster from the list either (it then talks to localhost:8080).
    const out = execFileSync('kubectl', ['config', 'view', '-o', 'jsonpath={.clusters}'], {
      env: {...process.env, KUBECONFIG: list(join(dir, 'gone-1'), join(dir, 'gone-2'))},
      encoding: 'utf8',
    });
    expect(['', 'null']).toContain(out);
  });
});

describe('entries are merged whole, never field by field', () => {
  test('a cluster named in two files: the first entry, without the fields only the second sets', () => {
    const first = join(dir, 'whole-1');
    const second = join(dir, 'whole-2');
    writeFileSync(
      first,
      JSON.stringify({
        'current-context': 'w',
        clusters: [{name: 'w', cluster: {server: 'https://first.example'}}],
        contexts: [{name: 'w', context: {cluster: 'w', user: 'u'}}],
      }),
    );
    writeFileSync(
      second,
      JSON.stringify({
        clusters: [{name: 'w', cluster: {server: 'https://second.example', 'tls-server-name': 'second-name', 'proxy-url': 'http://proxy.example:3128'}}],
        users: [{name: 'u', user: {as: 'impersonated'}}],
      }),
    );
    const out = execFileSync('kubectl', ['config', 'view', '--minify', '-o', 'json'], {
      env: {...process.env, KUBECONFIG: list(first, second)},
      encoding: 'utf8',
    });
    const view = JSON.parse(out) as {clusters: {cluster: Record<string, unknown>}[]; users: {user: Record<string, unknown>}[]};
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = list(first, second);
    try {
      const resolved = resolveKubeconfig({});
      expect({server: resolved.cluster.server, tls: resolved.cluster.tlsServerName, proxy: resolved.cluster.proxyUrl, as: resolved.user.impersonate}).toEqual({
        server: view.clusters[0]!.cluster['server'],
        tls: view.clusters[0]!.cluster['tls-server-name'],
        proxy: view.clusters[0]!.cluster['proxy-url'],
        as: view.users[0]!.user['as'],
      });
      expect(resolved.cluster.server).toBe('https://first.example');
      expect(resolved.user.impersonate).toBe('impersonated');
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
  });
});

// The flags that override the context (--cluster, --user, --server, --as): `kubectl config view` ignores them, so
// kubectl's choice is read from its own request log (-v=8) against servers that refuse at once.
const flagsFile = write('flags', {
  current: 'a',
  clusters: {ca: 'https://127.0.0.1:1', cb: 'https://127.0.0.2:1'},
  contexts: {a: {cluster: 'ca', user: 'ua', namespace: 'ns-a'}, b: {cluster: 'cb', user: 'ub'}},
  users: ['ua', 'ub'],
});

function kubectlRequest(kubeconfig: string, args: readonly string[]): {server: string; as: string} {
  let out = '';
  try {
    execFileSync('kubectl', ['get', 'pods', '-v=8', '--request-timeout=2s', '--insecure-skip-tls-verify', ...args], {
      env: {PATH: process.env.PATH, HOME: dir, KUBECONFIG: kubeconfig},
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    out = String((error as {stderr?: string}).stderr ?? '');
  }
  const url = /\] GET (https?:\/\/[^/\s]+)/.exec(out);
  const as = /Impersonate-User: (\S+)/.exec(out);
  return {server: url?.[1] ?? '', as: as?.[1] ?? ''};
}

describe('override flags pick the server and user kubectl picks', () => {
  test.each([
    {name: 'the current context', args: [], options: {}},
    {name: '--cluster', args: ['--cluster', 'cb'], options: {cluster: 'cb'}},
    {name: '--user', args: ['--user', 'ub'], options: {user: 'ub'}},
    {name: '--context with --user', args: ['--context', 'b', '--user', 'ua'], options: {context: 'b', user: 'ua'}},
    {name: '--server', args: ['--server', 'https://127.0.0.3:1'], options: {server: 'https://127.0.0.3:1'}},
    {name: '--server without a scheme is http, even with TLS flags', args: ['--server', '127.0.0.4:1'], options: {server: '127.0.0.4:1'}},
    {name: '--as', args: ['--as', 'someone'], options: {as: 'someone'}},
  ])('$name', ({args, options}) => {
    const theirs = kubectlRequest(flagsFile, args);
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = flagsFile;
    try {
      const resolved = resolveKubeconfig({...options, insecureSkipTlsVerify: true});
      // Users carry no `as` in this file: kubectl's Impersonate-User is only --as.
      expect({server: resolved.server, as: resolved.user.impersonate ?? ''}).toEqual(theirs);
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
  });
});

describe('kubeconfig errors name the file and the key', () => {
  const bad = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const cluster = (body: string) =>
    `apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster: ${body}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\nusers:\n- name: u\n  user: {token: s3cr3t-token}\n`;
  test.each([
    {
      name: 'server: not a url',
      file: bad('bad-url', cluster('{server: not a url}')),
      error: /^kubeconfig ".*bad-url": clusters\[0\]\.cluster\.server: "not a url" is not a URL/,
    },
    {
      name: 'server: a number',
      file: bad('bad-type', cluster('{server: 6443}')),
      error: /^kubeconfig ".*bad-type": clusters\[0\]\.cluster\.server: want a string$/,
    },
    {name: 'no server', file: bad('no-server', cluster('{}')), error: /^kubeconfig ".*no-server": clusters\[0\]\.cluster\.server: no server given$/},
    {name: 'not YAML', file: bad('not-yaml', 'clusters: [\n'), error: /^cannot load kubeconfig ".*not-yaml": not YAML/},
    {name: 'clusters is a string', file: bad('clusters-string', 'clusters: x\n'), error: /^kubeconfig ".*clusters-string": clusters: want a list/},
    {
      name: 'a repeated name in one file',
      file: bad('dup', 'clusters:\n- name: a\n  cluster: {server: https://a}\n- name: a\n  cluster: {server: https://b}\n'),
      error: /^kubeconfig ".*dup": clusters\[1\]\.name: duplicate name "a" \(also clusters\[0\]\)$/,
    },
  ])('$name', ({file, error}) => {
    let message = '';
    try {
      resolveKubeconfig({kubeconfig: file});
    } catch (e) {
      message = (e as Error).message;
      expect((e as {exitCode?: number}).exitCode).toBe(1);
    }
    expect(message).toMatch(error);
    expect(message).not.toContain('s3cr3t');
  });
});
