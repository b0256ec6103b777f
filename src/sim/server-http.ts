// The simulated API server's answers: JSON bodies escaped as Go's encoder writes them, the apiserver's
// Cache-Control, Status bodies for errors (with Retry-After when the Status asks for it), the failures fault
// injection stands in for, and the service proxy's pass-through of another server's answer.
import {request as httpRequest, type ServerResponse} from 'node:http';
import {goJsonEscape} from './json-escape.js';
import {internalError, serviceUnavailable, StatusError, tooManyRequests} from './status-errors.js';

/** What the real apiserver sends on every answer (without it, the kubectl dispatcher caches /version for an hour). */
export const NO_CACHE = 'no-cache, private';

export function send(res: ServerResponse, code: number, text: string, contentType = 'application/json', extra: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = goJsonEscape(text);
  res.writeHead(code, {'Content-Type': contentType, 'Cache-Control': NO_CACHE, 'Content-Length': Buffer.byteLength(body), ...extra});
  res.end(body);
}

export function sendError(res: ServerResponse, err: StatusError): void {
  const extra: Record<string, string> = {};
  if (err.details?.retryAfterSeconds !== undefined) extra['Retry-After'] = String(err.details.retryAfterSeconds);
  send(res, err.code, JSON.stringify(err.toStatus()), 'application/json', extra);
}

/** The service proxy's GET to what stands behind a Service: its status and body passed back (503 when it does not answer). */
export function proxyGet(res: ServerResponse, target: string): Promise<void> {
  return new Promise((resolve) => {
    const req = httpRequest(target, {method: 'GET'}, (answer) => {
      res.writeHead(answer.statusCode ?? 502, {'Content-Type': answer.headers['content-type'] ?? 'application/octet-stream', 'Cache-Control': NO_CACHE});
      answer.pipe(res);
      answer.on('end', resolve);
      answer.on('error', () => resolve());
    });
    req.on('error', (error) => {
      send(res, 503, JSON.stringify(new StatusError(503, 'ServiceUnavailable', `error trying to reach service: ${error.message}`).toStatus()));
      resolve();
    });
    req.end();
  });
}

/** The Status an injected fault answers with, as the apiserver words each code. */
export function injectedFailure(code: number): StatusError {
  switch (code) {
    case 429:
      return tooManyRequests(1);
    case 500:
      return internalError('injected fault');
    case 503:
      return serviceUnavailable();
    case 504:
      return new StatusError(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', {});
    default:
      return new StatusError(code, '', `injected fault (HTTP ${code})`, {});
  }
}

/**
 * Records the status of the answer in `entry` when its head is written, and dates it by the simulated clock
 * (clients judge minReadySeconds by the server's Date), not this machine's.
 */
export function recordAnswer(res: ServerResponse, entry: {status: number}, now: () => number): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  (res as {writeHead: unknown}).writeHead = (...args: unknown[]): ServerResponse => {
    entry.status = args[0] as number;
    if (!res.headersSent) res.setHeader('Date', new Date(now()).toUTCString());
    return writeHead(...args);
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
