// The fleet view's parts without a cluster: which contexts a selection names, the bound on clusters asked at once,
// the worst context's exit code, and the count line.
import {describe, expect, test} from 'vitest';
import {selectContexts} from '../../src/cluster/fleet.js';
import {ClusterForbiddenError, ClusterUnreachableError, InputError, NotFoundError} from '../../src/platform/errors.js';
import {fleetCountLine} from '../../src/output/fleet-text.js';
import {contextFailure, eachContext, fleetExitCode} from '../../src/services/fleet.js';
import type {FleetSession, LiveSession} from '../../src/cluster/session.js';

const NAMES = ['staging', 'prod-eu-1', 'prod-us-1', 'prod-us-2', 'dev'];

describe('selectContexts', () => {
  test('names in the order given, patterns in the kubeconfig order, each context once', () => {
    expect(selectContexts(NAMES, {contexts: ['prod-us-*', 'staging', 'prod-*']})).toEqual(['prod-us-1', 'prod-us-2', 'staging', 'prod-eu-1']);
    expect(selectContexts(NAMES, {contexts: ['prod-us-?']})).toEqual(['prod-us-1', 'prod-us-2']);
    expect(selectContexts(NAMES, {all: true})).toEqual(NAMES);
  });

  test('a name the kubeconfig lacks, or a pattern matching nothing, is bad input', () => {
    expect(() => selectContexts(NAMES, {contexts: ['staging', 'prod']})).toThrow('context "prod" does not exist in the kubeconfig');
    expect(() => selectContexts(NAMES, {contexts: ['qa-*']})).toThrow('--contexts pattern "qa-*" matches no context of the kubeconfig');
    expect(() => selectContexts(NAMES, {contexts: []})).toThrow(/names no context/);
    expect(() => selectContexts([], {all: true})).toThrow(/has no context/);
  });

  test('a pattern is a glob: dots and brackets are themselves', () => {
    expect(selectContexts(['a.b', 'axb', '[x]'], {contexts: ['a.*']})).toEqual(['a.b']);
    expect(selectContexts(['a.b', 'axb', '[x]'], {contexts: ['[*']})).toEqual(['[x]']);
  });
});

describe('eachContext', () => {
  function fakeMember(context: string, closed: string[]): FleetSession {
    const session = {live: {server: `https://${context}`}, close: () => closed.push(context)} as unknown as LiveSession;
    return {context, session};
  }

  test('asks at most `concurrency` clusters at once, keeps the order asked, closes every session', async () => {
    const closed: string[] = [];
    const members = Array.from({length: 10}, (_, i) => fakeMember(`c${i}`, closed));
    let running = 0;
    let most = 0;
    const results = await eachContext(
      members,
      async (session) => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setImmediate(resolve));
        running--;
        const server = session.live.server;
        if (server.endsWith('3')) throw new ClusterUnreachableError('cannot reach the cluster');
        return {result: server, state: 'complete', exitCode: 0};
      },
      3,
    );
    expect(most).toBe(3);
    expect(results.map((r) => [r.context, r.state])).toEqual(members.map((m) => [m.context, m.context === 'c3' ? 'unreachable' : 'complete']));
    expect(closed.sort()).toEqual(members.map((m) => m.context).sort());
  });

  test('a context that could not be opened is its own row', async () => {
    const results = await eachContext([{context: 'bad', error: new InputError('kubeconfig "k": clusters[0].cluster.server: no server given')}], () => {
      throw new Error('not called');
    });
    expect(results).toEqual([
      {context: 'bad', state: 'invalid', exitCode: 1, error: {reason: 'Invalid', message: 'kubeconfig "k": clusters[0].cluster.server: no server given'}},
    ]);
  });
});

describe('the worst context decides the exit code', () => {
  test('a cluster not read outranks every verdict; then a missing DaemonSet; then stuck, paused, progressing', () => {
    const row = (state: string, exitCode: number) => ({state, exitCode});
    expect(fleetExitCode([])).toBe(0);
    expect(fleetExitCode([row('complete', 0), row('progressing', 4), row('paused', 5)])).toBe(5);
    expect(fleetExitCode([row('paused', 5), row('stuck', 3)])).toBe(3);
    expect(fleetExitCode([row('stuck', 3), row('not found', 1)])).toBe(1);
    expect(fleetExitCode([row('not found', 1), row('forbidden', 2), row('complete', 0)])).toBe(2);
    expect(fleetExitCode([row('current', 0), row('mixed', 0)])).toBe(0);
  });

  test("each error's row, reason and code", () => {
    expect(contextFailure(new ClusterUnreachableError('x'))).toMatchObject({state: 'unreachable', reason: 'Unreachable', exitCode: 2});
    expect(contextFailure(new ClusterForbiddenError('x'))).toMatchObject({state: 'forbidden', reason: 'Forbidden', exitCode: 2});
    expect(contextFailure(new NotFoundError('x'))).toMatchObject({state: 'not found', reason: 'NotFound', exitCode: 1});
    expect(contextFailure(new TypeError('boom'))).toMatchObject({state: 'error', reason: 'Error', exitCode: 1, message: 'internal error: boom'});
    // A URL's user and password never reach a row.
    expect(contextFailure(new ClusterUnreachableError('cannot reach https://me:secret@h:6443')).message).toBe('cannot reach https://h:6443');
  });
});

test('the count line: the clusters, then each state from best to worst', () => {
  const rows = ['unreachable', 'complete', 'stuck', 'complete'].map((state) => ({state}));
  expect(fleetCountLine(rows)).toBe('4 clusters: 2 complete, 1 stuck, 1 unreachable\n');
  expect(fleetCountLine([{state: 'complete'}])).toBe('1 cluster: 1 complete\n');
});
