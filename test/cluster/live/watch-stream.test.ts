// Watch streams on the project's own client: the newline-delimited event parser (events cut anywhere across chunks,
// a last line without its newline, lines that are not events), then KubeClient.watch against a scripted HTTP server:
// the query, ERROR events and HTTP errors mapped as every request's (410 re-lists), abort, close(), a frozen server
// while connecting, and the stream's own agent.
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';
import {mkdtemp, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {KubeClient} from '../../../src/cluster/live/client.js';
import {Credentials} from '../../../src/cluster/live/credentials.js';
import {ApiStatusError, NoAnswerError} from '../../../src/cluster/live/errors.js';
import {resolveKubeconfig} from '../../../src/cluster/live/kubeconfig.js';
import {describe as request} from '../../../src/cluster/live/paths.js';
import {clientWatch, Reflector} from '../../../src/cluster/live/watch.js';
import {type WatchEventType, WatchEventSplitter} from '../../../src/cluster/live/watch-stream.js';
import type {ObjectMeta} from '../../../src/core/index.js';
import {ClusterForbiddenError, type DsRolloutError} from '../../../src/platform/errors.js';

type Event = [WatchEventType, unknown];

function splitAll(chunks: readonly Buffer[], end = true): Event[] {
  const events: Event[] = [];
  const splitter = new WatchEventSplitter((type, object) => events.push([type, object]));
  for (const chunk of chunks) splitter.write(chunk);
  if (end) splitter.end();
  return events;
}

const line = (type: string, object: unknown) => `${JSON.stringify({type, object})}\n`;

describe('WatchEventSplitter', () => {
  test('a ControllerRevision numbered past 2^53 comes out exactly (JSON.parse alone rounds it)', () => {
    const text = `{"type":"ADDED","object":{"kind":"ControllerRevision","metadata":{"name":"agent-1"},"revision":9007199254740993}}\n`;
    const [[, object]] = splitAll([Buffer.from(text)]) as [Event];
    expect((object as {revision: unknown}).revision).toBe(9007199254740993n);
  });

  test('events cut at every byte, inside a multi-byte character too, come out whole and in order', () => {
    const text = line('ADDED', {metadata: {name: 'pod-é', resourceVersion: '1'}}) + line('MODIFIED', {metadata: {name: 'pod-ü', resourceVersion: '2'}});
    const bytes = Buffer.from(text, 'utf8');
    const expected: Event[] = [
      ['ADDED', {metadata: {name: 'pod-é', resourceVersion: '1'}}],
      ['MODIFIED', {metadata: {name: 'pod-ü', resourceVersion: '2'}}],
    ];
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(splitAll([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(expected);
    }
    // One byte at a time.
    expect(splitAll([...bytes].map((b) => Buffer.from([b])))).toEqual(expected);
  });

  test('an event is handed over as soon as its line is complete, not at the end of the chunk or stream', () => {
    const events: Event[] = [];
    const splitter = new WatchEventSplitter((type, object) => events.push([type, object]));
    splitter.write(Buffer.from(line('ADDED', {metadata: {name: 'a'}}) + '{"type":"MODI'));
    expect(events).toEqual([['ADDED', {metadata: {name: 'a'}}]]);
    splitter.write(Buffer.from('FIED","object":{"metadata":{"name":"a"}}}\n'));
    expect(events.map(([type]) => type)).toEqual(['ADDED', 'MODIFIED']);
  });

  test('a last line without its newline is an event if it is whole; one cut short is dropped', () => {
    const whole = JSON.stringify({type: 'DELETED', object: {metadata: {name: 'a'}}});
    expect(splitAll([Buffer.from(whole)])).toEqual([['DELETED', {metadata: {name: 'a'}}]]);
    expect(splitAll([Buffer.from(whole)], false)).toEqual([]);
    expect(splitAll([Buffer.from(line('ADDED', {metadata: {name: 'a'}}) + whole.slice(0, 20))]).map(([type]) => type)).toEqual(['ADDED']);
  });

  test('blank lines, CRLF endings and lines that are not events are skipped', () => {
    const text = `\n\r\nnot json\n${JSON.stringify({type: 'BOGUS', object: {}})}\n${JSON.stringify({type: 'ADDED'})}\n${line('BOOKMARK', {metadata: {resourceVersion: '9'}}).replace('\n', '\r\n')}`;
    expect(splitAll([Buffer.from(text)])).toEqual([['BOOKMARK', {metadata: {resourceVersion: '9'}}]]);
  });

  test('an ERROR event is handed over with its Status', () => {
    const status = {kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 5 (9)'};
    expect(splitAll([Buffer.from(line('ERROR', status))])).toEqual([['ERROR', status]]);
  });
});

/** One scripted answer per request, in order; each sees the request and its response. */
type Script = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let scripts: Script[];
let requests: URL[];
/** Requests whose connection the client closed. */
let closed: number;
let kubeconfig: string;

beforeEach(async () => {
  scripts = [];
  requests = [];
  closed = 0;
  const current = createServer((req, res) => {
    requests.push(new URL(req.url ?? '/', 'http://x'));
    // Counted for this test's server only: an earlier test's connection may close late.
    req.socket.on('close', () => server === current && closed++);
    const script = scripts.shift();
    if (script) script(req, res);
    else res.writeHead(500).end();
  });
  server = current;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as {port: number}).port;
  const dir = await mkdtemp(join(tmpdir(), 'ds-watch-'));
  kubeconfig = join(dir, 'kubeconfig');
  await writeFile(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{name: 'c', cluster: {server: `http://127.0.0.1:${port}`}}],
      users: [{name: 'u', user: {}}],
      contexts: [{name: 'x', context: {cluster: 'c', user: 'u', namespace: 'ns'}}],
      'current-context': 'x',
    }),
  );
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function client(timeoutMs?: number): {client: KubeClient; credentials: Credentials} {
  const config = resolveKubeconfig({kubeconfig});
  const credentials = new Credentials(config);
  return {client: new KubeClient(credentials, config.server, config.context, timeoutMs ? {timeoutMs, attempts: 1} : {attempts: 1}), credentials};
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

interface Item {
  readonly metadata: ObjectMeta;
}

const PODS = request('watch', 'pods', 'ns');

/** A stream that stays open after `text`. */
const streaming =
  (...texts: string[]): Script =>
  (_req, res) => {
    res.writeHead(200, {'Content-Type': 'application/json'});
    for (const text of texts) res.write(text);
  };

describe('KubeClient.watch', () => {
  test('sends watch=1 with the reflector query, hands over events written in pieces, and a server end is a normal end', async () => {
    const {client: c} = client();
    const events: Event[] = [];
    let ended: unknown = 'open';
    scripts.push((_req, res) => {
      res.writeHead(200, {'Content-Type': 'application/json'});
      const text = line('ADDED', {metadata: {name: 'a', resourceVersion: '6'}}) + line('MODIFIED', {metadata: {name: 'a', resourceVersion: '7'}});
      res.write(text.slice(0, 30));
      setTimeout(() => res.end(text.slice(30)), 20);
    });
    const watch = clientWatch(c, '/api/v1/namespaces/ns/pods', PODS, {fieldSelector: 'spec.nodeName=n1'});
    await watch(
      '5',
      (type, object) => events.push([type, object]),
      (error) => (ended = error),
      new AbortController().signal,
    );
    await until(() => ended !== 'open');
    expect(ended).toBeUndefined();
    expect(events.map(([type]) => type)).toEqual(['ADDED', 'MODIFIED']);
    const query = Object.fromEntries(requests[0]!.searchParams);
    expect(query).toEqual({watch: '1', resourceVersion: '5', allowWatchBookmarks: 'true', timeoutSeconds: '300', fieldSelector: 'spec.nodeName=n1'});
  });

  test('an ERROR 410 event and an HTTP 410 answer both make the reflector re-list; it then follows the new position', async () => {
    const {client: c} = client();
    scripts.push(streaming(line('ERROR', {kind: 'Status', apiVersion: 'v1', code: 410, reason: 'Expired', message: 'too old resource version: 5 (9)'})));
    scripts.push((_req, res) =>
      res.writeHead(410, {'Content-Type': 'application/json'}).end(JSON.stringify({kind: 'Status', code: 410, reason: 'Expired', message: 'too old'})),
    );
    scripts.push(streaming(line('ADDED', {metadata: {name: 'b', namespace: 'ns', resourceVersion: '21'}})));
    let lists = 0;
    const errors: DsRolloutError[] = [];
    const reflector = new Reflector<Item>({
      list: async () => {
        lists++;
        return {items: [{metadata: {name: 'a', namespace: 'ns'}}], resourceVersion: String(lists * 10 - 5)};
      },
      watch: clientWatch(c, '/api/v1/namespaces/ns/pods', PODS),
      project: (raw) => raw as Item,
      onChange: () => undefined,
      onError: (error) => errors.push(error),
      delay: async () => undefined,
    });
    reflector.start();
    await until(() => reflector.items.has('ns/b'));
    reflector.stop();
    expect(errors).toEqual([]);
    expect(lists).toBe(3);
    expect(requests.map((url) => url.searchParams.get('resourceVersion'))).toEqual(['5', '15', '25']);
    expect([...reflector.items.keys()].sort()).toEqual(['ns/a', 'ns/b']);
  });

  test('HTTP errors are the project errors every request gets: 410 expired, 403 names what was refused', async () => {
    const {client: c} = client();
    const start = () =>
      c
        .watch(
          '/api/v1/namespaces/ns/pods',
          PODS,
          {},
          () => undefined,
          () => undefined,
          new AbortController().signal,
        )
        .catch((e: unknown) => e);
    scripts.push((_req, res) => res.writeHead(410).end(JSON.stringify({kind: 'Status', code: 410, reason: 'Expired', message: 'too old'})));
    const expired = await start();
    expect(expired).toBeInstanceOf(ApiStatusError);
    expect((expired as ApiStatusError).status).toBe(410);
    scripts.push((_req, res) => res.writeHead(403).end(JSON.stringify({kind: 'Status', code: 403, reason: 'Forbidden', message: 'no'})));
    const forbidden = await start();
    expect(forbidden).toBeInstanceOf(ClusterForbiddenError);
    expect((forbidden as Error).message).toBe('forbidden: cannot watch pods in namespace ns');
  });

  test('abort ends the stream once, as a normal end, and closes its connection; so does close()', async () => {
    const {client: c} = client();
    for (let i = 0; i < 2; i++) scripts.push(streaming(line('ADDED', {metadata: {name: 'a'}})));
    const ends: unknown[] = [];
    let events = 0;
    const open = () =>
      c.watch(
        '/api/v1/namespaces/ns/pods',
        PODS,
        {},
        () => events++,
        (error) => ends.push(error),
        new AbortController().signal,
      );
    const handle = await open();
    await until(() => events === 1);
    handle.abort();
    handle.abort();
    await until(() => closed === 1);
    expect(ends).toEqual([undefined]);
    await open();
    await until(() => events === 2);
    c.close();
    await until(() => closed === 2);
    expect(ends).toEqual([undefined, undefined]);
  });

  test('a caller that fails on an event ends the stream with that failure, and no later event is handed over', async () => {
    const {client: c} = client();
    scripts.push(streaming(line('ADDED', {metadata: {name: 'a'}}) + line('ADDED', {metadata: {name: 'b'}})));
    const seen: unknown[] = [];
    const ends: unknown[] = [];
    await c.watch(
      '/api/v1/namespaces/ns/pods',
      PODS,
      {},
      (_type, object) => {
        seen.push(object);
        throw new Error('cannot project');
      },
      (error) => ends.push(error),
      new AbortController().signal,
    );
    await until(() => ends.length > 0);
    expect(seen).toHaveLength(1);
    expect(ends).toHaveLength(1);
    expect((ends[0] as Error).message).toBe('following pods: cannot project');
    await until(() => closed === 1);
  });

  test('a server that accepts and never answers: the signal drops the stream still starting', async () => {
    const {client: c} = client();
    scripts.push(() => undefined);
    const controller = new AbortController();
    const started = c
      .watch(
        '/api/v1/namespaces/ns/pods',
        PODS,
        {},
        () => undefined,
        () => undefined,
        controller.signal,
      )
      .catch((e: unknown) => e);
    await until(() => requests.length === 1);
    controller.abort();
    expect(await started).toBeInstanceOf(Error);
    await until(() => closed === 1);
  });

  test('a server that never answers is reported within --request-timeout, as a read would be', async () => {
    const {client: c} = client(200);
    scripts.push(() => undefined);
    const error = await c
      .watch(
        '/api/v1/namespaces/ns/pods',
        PODS,
        {},
        () => undefined,
        () => undefined,
        new AbortController().signal,
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoAnswerError);
    expect((error as Error).message).toMatch(/^cannot reach the cluster at http:\/\/127\.0\.0\.1:\d+: no answer within 200ms \(--request-timeout\)$/);
  });

  test('an open stream holds no socket of the agent the reads use', async () => {
    const {client: c, credentials} = client();
    scripts.push(streaming(line('ADDED', {metadata: {name: 'a'}})));
    let events = 0;
    await c.watch(
      '/api/v1/namespaces/ns/pods',
      PODS,
      {},
      () => events++,
      () => undefined,
      new AbortController().signal,
    );
    await until(() => events === 1);
    const {agent} = await credentials.transport();
    const sockets = Object.values((agent as unknown as {sockets: Record<string, unknown[]>}).sockets).flat();
    expect(sockets).toEqual([]);
    scripts.push((_req, res) => res.writeHead(200, {'Content-Type': 'application/json'}).end('{"major":"1"}'));
    await expect(c.get('/version', {verb: 'get', resource: 'version'})).resolves.toEqual({major: '1'});
    c.close();
  });
});
