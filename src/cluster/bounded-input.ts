// Reading a file or stream that the user names (--snapshot, -f, --strategy, stdin) within limits: its size, its
// kind (a device such as /dev/zero never ends), its bytes (NUL is never in YAML or JSON text), and once parsed,
// its shape (core/document-limits: nesting and alias expansion). Each refusal is one line naming the limit,
// reached before the input is read whole, so neither time nor memory grows with a hostile input.
import {spawnSync} from 'node:child_process';
import {closeSync, createReadStream, openSync, readFileSync, readSync, type Stats, statSync} from 'node:fs';
import {describeDocumentProblem, documentProblem, MAX_DOCUMENT_DEPTH} from '../core/index.js';
import {ClusterUnreachableError, InputError} from '../platform/errors.js';

const MiB = 2 ** 20;

/** Largest snapshot read (a 15,000-node dump is about 150 MiB of JSON, 80 MiB of YAML). */
export const MAX_SNAPSHOT_BYTES = 512 * MiB;
/** Largest manifest (-f) or strategy file: ten times the API server's 3 MiB request limit is far above any object. */
export const MAX_MANIFEST_BYTES = 32 * MiB;
/** Largest kubeconfig: one with hundreds of clusters and their CAs stays under a megabyte. */
export const MAX_KUBECONFIG_BYTES = 4 * MiB;
/** Largest CA bundle, client certificate or key, token file or exec plugin output: a full CA bundle is ~250 KiB. */
export const MAX_CREDENTIAL_BYTES = 1 * MiB;
/** Largest answer of the API server read whole, and largest object in a list or watch: etcd keeps objects under 1.5 MiB. */
export const MAX_ANSWER_BYTES = 16 * MiB;

/** How long a pipe or FIFO read at once (a kubeconfig, a CA or token file) may take to end: the default --request-timeout. */
export const DEFAULT_STALL_MS = 15_000;
/** How long standard input may stay silent before a command says, once, that it is waiting for it. */
export const STDIN_NOTICE_MS = 3_000;

export interface InputLimits {
  /** How messages name the input: `snapshot file "x"`, `manifest "x"`. */
  readonly what: string;
  readonly maxBytes: number;
  /** For a pipe or FIFO read at once (readBoundedFileSync): the ms it may take to end (--request-timeout). */
  readonly stallMs?: number;
}

/** `1 GiB`, `512 MiB`, `4 KiB`: the limit as messages and the docs state it. */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', MiB],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}

function tooLarge(limits: InputLimits): InputError {
  return new InputError(`${limits.what} is larger than the ${formatBytes(limits.maxBytes)} limit`);
}

function binary(limits: InputLimits): InputError {
  return new InputError(`${limits.what} holds binary data (a NUL byte), not YAML or JSON`);
}

/**
 * The text of `path` within `limits`: a regular file is checked by its size before it is read; a device is
 * refused; a pipe or FIFO (`<(kubectl get ...)`) is read until the limit. ENOENT, EISDIR and EACCES get the
 * usual one-line reasons.
 */
export async function readBoundedFile(path: string, limits: InputLimits): Promise<string> {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    throw readFailure(error, path, limits);
  }
  if (stats.isDirectory()) throw new InputError(`${limits.what} is a directory, not a file`);
  if (stats.isCharacterDevice() || stats.isBlockDevice()) {
    throw new InputError(`${limits.what} is a device, not a file: a device such as /dev/zero may never end`);
  }
  if (stats.isFile()) {
    if (stats.size > limits.maxBytes) throw tooLarge(limits);
    let bytes: Buffer;
    try {
      // In one read: fs/promises reads a large file in many small steps, each a turn of the event loop.
      bytes = readFileSync(path);
    } catch (error) {
      throw readFailure(error, path, limits);
    }
    // The file may have grown since stat.
    if (bytes.length > limits.maxBytes) throw tooLarge(limits);
    if (bytes.includes(0)) throw binary(limits);
    return bytes.toString('utf8');
  }
  // A pipe or FIFO (`<(kubectl get ...)`, /dev/stdin) may take its time, as standard input may: said once.
  return readBoundedStream(createReadStream(path), limits, {waitingFor: `${limits.what} (a pipe or FIFO)`});
}

/**
 * The bytes of `path` within `limits`, read at once (a kubeconfig, a CA file, a token file: read where the caller
 * cannot wait): a device is refused, a regular file is checked by its size before it is read, a pipe or FIFO is
 * read by a child process, ended once past the size limit or `limits.stallMs` (a FIFO that no one writes to would
 * block this process in open(2) or read(2) for ever, where no timer can end it). A file that cannot be read
 * throws the file system's error, for the caller to word.
 */
export function readBoundedFileSync(path: string, limits: InputLimits): Buffer {
  const stats = statSync(path);
  if (stats.isCharacterDevice() || stats.isBlockDevice()) {
    throw new InputError(`${limits.what} is a device, not a file: a device such as /dev/zero may never end`);
  }
  if (stats.isFile() && stats.size > limits.maxBytes) throw tooLarge(limits);
  if (stats.isFile()) {
    const bytes = readFileSync(path);
    if (bytes.length > limits.maxBytes) throw tooLarge(limits);
    return bytes;
  }
  return readPipeSync(path, limits);
}

function readPipeSync(path: string, limits: InputLimits): Buffer {
  const stallMs = limits.stallMs ?? DEFAULT_STALL_MS;
  // cat(1), not this program: in the single executable, process.execPath is ds-rollout itself.
  const result = spawnSync('cat', ['--', path], {stdio: ['ignore', 'pipe', 'pipe'], timeout: stallMs, killSignal: 'SIGKILL', maxBuffer: limits.maxBytes});
  const code = (result.error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOBUFS') throw tooLarge(limits);
  if (code === 'ETIMEDOUT') {
    throw new ClusterUnreachableError(`${limits.what} did not end within ${formatMs(stallMs)} (--request-timeout): a pipe or FIFO that no one writes to?`);
  }
  // No cat (Windows, a distroless image): read here, bounded in size only.
  if (code === 'ENOENT') return readPipeInProcess(path, limits);
  if (result.error) throw result.error;
  if (result.status !== 0) {
    const said = result.stderr.toString('utf8');
    const errno = /permission denied/i.test(said) ? 'EACCES' : /no such file/i.test(said) ? 'ENOENT' : /is a directory/i.test(said) ? 'EISDIR' : undefined;
    throw Object.assign(new Error(`cannot read ${path}`), errno ? {code: errno} : {});
  }
  return result.stdout;
}

function readPipeInProcess(path: string, limits: InputLimits): Buffer {
  const fd = openSync(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) return Buffer.concat(chunks);
      size += read;
      if (size > limits.maxBytes) throw tooLarge(limits);
      chunks.push(chunk.subarray(0, read));
    }
  } finally {
    closeSync(fd);
  }
}

/** `2s`, `1500ms`: a time limit as messages state it. */
export function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/**
 * What readBoundedStream says, once, on stderr, when a pipe has given nothing for a while (kubectl waits on a
 * silent pipe without a word): `waiting for standard input (--snapshot -)...`. `afterMs` defaults to
 * STDIN_NOTICE_MS, or DS_ROLLOUT_STDIN_NOTICE_MS when set (tests set it, so as not to depend on the clock's speed).
 */
export interface WaitingNotice {
  /** What is waited for: `standard input (--snapshot -)`, `snapshot file "x" (a pipe or FIFO)`. */
  readonly waitingFor: string;
  readonly afterMs?: number;
}

function noticeDelayMs(notice: WaitingNotice): number {
  if (notice.afterMs !== undefined) return notice.afterMs;
  const fromEnv = Number(process.env['DS_ROLLOUT_STDIN_NOTICE_MS']);
  return process.env['DS_ROLLOUT_STDIN_NOTICE_MS'] && Number.isFinite(fromEnv) && fromEnv >= 0 ? fromEnv : STDIN_NOTICE_MS;
}

/**
 * The text of a stream (stdin, a FIFO) within `limits`: refused as soon as it passes the size or holds a NUL byte.
 * With `notice`, a stream that has given nothing after a few seconds is said, once, to be waited for.
 */
export async function readBoundedStream(stream: NodeJS.ReadableStream, limits: InputLimits, notice?: WaitingNotice): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  const timer = notice === undefined ? undefined : setTimeout(() => process.stderr.write(`waiting for ${notice.waitingFor}...\n`), noticeDelayMs(notice));
  // The notice never keeps the process alive by itself.
  timer?.unref();
  try {
    for await (const chunk of stream) {
      clearTimeout(timer);
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      size += bytes.length;
      if (size > limits.maxBytes) throw tooLarge(limits);
      if (bytes.includes(0)) throw binary(limits);
      chunks.push(bytes);
    }
  } catch (error) {
    // Stop reading what is left (a FIFO whose writer never stops).
    (stream as {destroy?: () => void}).destroy?.();
    if (error instanceof InputError) throw error;
    throw new InputError(`cannot read ${limits.what}: ${(error as Error).message}`, {cause: error});
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function readFailure(error: unknown, path: string, limits: InputLimits): InputError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new InputError(`${limits.what} does not exist`, {cause: error});
  if (code === 'EISDIR') return new InputError(`${limits.what} is a directory, not a file`, {cause: error});
  if (code === 'EACCES') return new InputError(`cannot read ${limits.what}: permission denied`, {cause: error});
  return new InputError(`cannot read ${limits.what}: ${(error as Error).message}`, {cause: error});
}

/**
 * Refuses a parsed document nested deeper than MAX_DOCUMENT_DEPTH or whose aliases expand past a small multiple
 * of its text (`textBytes`): `where` names the input in the message.
 */
export function checkDocumentShape(document: unknown, textBytes: number, where: string): void {
  const problem = documentProblem(document, textBytes);
  if (problem !== undefined) throw new InputError(`${where}: ${describeDocumentProblem(problem)}`);
}

/** A RangeError from a parser's recursion (js-yaml on deep flow collections), as the depth limit it is. */
export function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

/** The message for input a parser could not follow for its depth. */
export function tooDeepMessage(where: string): string {
  return `${where}: nested deeper than ${MAX_DOCUMENT_DEPTH} levels`;
}
