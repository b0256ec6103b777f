// The one retry policy: which failures are tried again, how often, how long between tries, and that a failure a
// lower layer has tried already is not tried again above it (no 3-inside-6 nesting).
import {describe, expect, test} from 'vitest';
import {ApiStatusError} from '../../../src/cluster/live/errors.js';
import {isTransient, RETRY_ATTEMPTS, retryDelayMs, withRetries, worthRetrying} from '../../../src/cluster/live/retry.js';
import {ClusterForbiddenError, ClusterUnreachableError, ConflictError} from '../../../src/platform/errors.js';

const overloaded = () => new ApiStatusError('the server refused to list pods in namespace default: too many requests (HTTP 429)', 429, 'TooManyRequests');

describe('isTransient', () => {
  test.each([
    {error: new ClusterUnreachableError('cannot reach the cluster at http://x: connection refused'), transient: true},
    {error: overloaded(), transient: true},
    {error: new ApiStatusError('internal', 500, 'InternalError'), transient: true},
    {error: new ApiStatusError('unavailable', 503, 'ServiceUnavailable'), transient: true},
    {error: new ApiStatusError('expired', 410, 'Expired'), transient: false},
    {error: new ClusterForbiddenError('forbidden: cannot delete pods'), transient: false},
    {error: new ConflictError('conflict'), transient: false},
    {error: new Error('a bug'), transient: false},
  ])('$error.message: $transient', ({error, transient}) => {
    expect(isTransient(error)).toBe(transient);
  });
});

test('waits 250 ms, doubling, at most 2 s', () => {
  expect([1, 2, 3, 4, 5, 6].map(retryDelayMs)).toEqual([250, 500, 1000, 2000, 2000, 2000]);
});

test('a transient failure is tried RETRY_ATTEMPTS times in all, with the policy waits between', async () => {
  const waits: number[] = [];
  let calls = 0;
  const error = await withRetries(
    async () => {
      calls++;
      throw overloaded();
    },
    {delay: async (ms) => void waits.push(ms)},
  ).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiStatusError);
  expect(calls).toBe(RETRY_ATTEMPTS);
  expect(waits).toEqual([250, 500, 1000]);
  // Used up below: a layer above does not try it again.
  expect(worthRetrying(error)).toBe(false);
  expect(isTransient(error)).toBe(true);
});

test('nested: the outer layer does not multiply the inner tries', async () => {
  let calls = 0;
  const inner = () =>
    withRetries(
      async () => {
        calls++;
        throw new ClusterUnreachableError('cannot reach the cluster at http://x: connection refused');
      },
      {delay: async () => undefined},
    );
  await expect(withRetries(inner, {delay: async () => undefined})).rejects.toThrow(ClusterUnreachableError);
  expect(calls).toBe(RETRY_ATTEMPTS);
});

test('a refusal is not tried again; a success after passing trouble is returned', async () => {
  let calls = 0;
  await expect(
    withRetries(async () => {
      calls++;
      throw new ClusterForbiddenError('forbidden: cannot patch daemonsets');
    }),
  ).rejects.toThrow(ClusterForbiddenError);
  expect(calls).toBe(1);
  let tries = 0;
  const value = await withRetries(
    async () => {
      if (++tries < 3) throw overloaded();
      return 'ok';
    },
    {delay: async () => undefined},
  );
  expect({value, tries}).toEqual({value: 'ok', tries: 3});
});
