// The one retry policy for passing cluster trouble (overload, a failing or restarting API server, a dropped
// connection). Every layer that tries again uses it, and no layer retries what another already retried: the
// client retries reads, the step retries its writes from a fresh decision, the follower counts failed
// reconnections. So a dead or frozen cluster is reported after at most RETRY_ATTEMPTS tries of one request.
import {ClusterUnreachableError} from '../../platform/errors.js';
import {ApiStatusError, NoAnswerError} from './errors.js';
import {sleep} from '../../platform/clock.js';

/** Tries of one request (the first included) before the failure is reported. */
export const RETRY_ATTEMPTS = 4;

/**
 * Tries of one request that get no answer within the request timeout: a frozen server or proxy is reported
 * after two timeouts (about twice --request-timeout), not four.
 */
export const NO_ANSWER_ATTEMPTS = 2;

/** The wait after the `failures`-th failure: 250 ms, doubling, at most 2 s (250, 500, 1000: 1.75 s in all). */
export function retryDelayMs(failures: number): number {
  return Math.min(2000, 250 * 2 ** (Math.max(1, failures) - 1));
}

/** Trouble a fresh try can get past: no answer, overload (429), server trouble (5xx). Not RBAC, not 4xx, not 409. */
export function isTransient(error: unknown): boolean {
  if (error instanceof ClusterUnreachableError) return true;
  return (
    error instanceof ApiStatusError && (error.status === 429 || error.status === 500 || error.status === 502 || error.status === 503 || error.status === 504)
  );
}

/** Failures that already used up the policy's tries in a lower layer (the client): no layer above tries them again. */
const exhausted = new WeakSet<object>();

/** Transient, and not yet tried the policy's number of times below: what a layer may try again. */
export function worthRetrying(error: unknown): boolean {
  return isTransient(error) && !(typeof error === 'object' && error !== null && exhausted.has(error));
}

// The one sleep (src/platform/clock.ts). It keeps the process alive: a command whose only work left is the next try must
// not exit (Node's code 13).
export {sleep};

export interface RetryOptions {
  /** Called before each new try with the failure that caused it. */
  readonly onRetry?: (error: unknown, attempt: number) => void;
  /** Injectable so tests do not sleep. */
  readonly delay?: (ms: number) => Promise<void>;
  readonly attempts?: number;
  /** Tries that may end without an answer within the request timeout (default NO_ANSWER_ATTEMPTS). */
  readonly noAnswerAttempts?: number;
}

/** Runs `call`, trying again after transient failures under the policy above; other failures are thrown at once. */
export async function withRetries<T>(call: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? RETRY_ATTEMPTS);
  let unanswered = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!worthRetrying(error)) throw error;
      if (error instanceof NoAnswerError) unanswered++;
      if (attempt >= attempts || unanswered >= (options.noAnswerAttempts ?? NO_ANSWER_ATTEMPTS)) {
        if (typeof error === 'object' && error !== null) exhausted.add(error);
        throw error;
      }
      options.onRetry?.(error, attempt);
      await (options.delay ?? sleep)(retryDelayMs(attempt));
    }
  }
}
