// Reading within limits (src/cluster/bounded-input.ts): the size is checked before a regular file is read and
// while a stream is, devices and NUL bytes are refused, and a parsed document's nesting and alias expansion are
// measured without recursion. Small limits stand for the real ones, so nothing large is written.
import {execFileSync} from 'node:child_process';
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Readable} from 'node:stream';
import {load} from 'js-yaml';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {checkDocumentShape, formatBytes, readBoundedFile, readBoundedStream} from '../../src/cluster/bounded-input.js';
import {documentProblem, jsonTextDepth, MAX_DOCUMENT_DEPTH} from '../../src/core/index.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ds-bounded-'));
});
afterAll(async () => {
  await rm(dir, {recursive: true, force: true});
});

const limits = (maxBytes: number) => ({what: 'the input', maxBytes});

describe('readBoundedFile', () => {
  test('a file within the limit is read', async () => {
    await writeFile(join(dir, 'ok.yaml'), 'kind: List\n');
    expect(await readBoundedFile(join(dir, 'ok.yaml'), limits(100))).toBe('kind: List\n');
  });

  test('a file over the limit is refused naming the limit', async () => {
    await writeFile(join(dir, 'big.yaml'), 'x'.repeat(2048));
    await expect(readBoundedFile(join(dir, 'big.yaml'), limits(1024))).rejects.toThrow('the input is larger than the 1 KiB limit');
  });

  test('a device is refused without reading it', async () => {
    await expect(readBoundedFile('/dev/zero', limits(1024))).rejects.toThrow('the input is a device, not a file');
  });

  test('a NUL byte is binary data', async () => {
    await writeFile(join(dir, 'nul.yaml'), 'a: \u0000');
    await expect(readBoundedFile(join(dir, 'nul.yaml'), limits(1024))).rejects.toThrow('holds binary data (a NUL byte)');
  });

  test('a FIFO is read as a stream, up to the limit', async () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const writer = import('node:fs').then(({createWriteStream}) => {
      const out = createWriteStream(fifo);
      out.on('error', () => undefined);
      out.write('x'.repeat(4096));
      out.end();
    });
    await expect(readBoundedFile(fifo, limits(1024))).rejects.toThrow('larger than the 1 KiB limit');
    await writer;
  });
});

describe('readBoundedStream', () => {
  test('stops at the limit', async () => {
    const endless = Readable.from(
      (function* () {
        for (;;) yield Buffer.alloc(512, 'x');
      })(),
    );
    await expect(readBoundedStream(endless, limits(4096))).rejects.toThrow('larger than the 4 KiB limit');
  });
});

describe('document shape', () => {
  test('an alias bomb is refused once its expansion passes the budget', () => {
    const text = ['a: &a [x, x, x, x, x, x, x, x, x]', ...[...'bcdefghi'].map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(', ')}]`)].join(
      '\n',
    );
    const parsed = load(text);
    expect(documentProblem(parsed, text.length)).toEqual({kind: 'aliases', limit: 100_000 + 10 * text.length});
    expect(() => checkDocumentShape(parsed, text.length, 'bomb.yaml')).toThrow(/^bomb\.yaml: YAML aliases expand it past/);
  });

  test('nesting is measured without recursion', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(documentProblem(deep, 200_000)).toEqual({kind: 'depth', limit: MAX_DOCUMENT_DEPTH});
    expect(documentProblem({a: [{b: 1}]}, 20)).toBeUndefined();
  });

  test('jsonTextDepth ignores brackets in strings and stops past its limit', () => {
    expect(jsonTextDepth('{"a":"[[[["}')).toBe(1);
    expect(jsonTextDepth('['.repeat(5000), 10)).toBe(11);
  });

  test('formatBytes', () => {
    expect([formatBytes(512 * 2 ** 20), formatBytes(2 ** 30), formatBytes(1000)]).toEqual(['512 MiB', '1 GiB', '1000 bytes']);
  });
});
