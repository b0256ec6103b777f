// The streaming list reader must yield exactly what JSON.parse sees, however the body is cut into chunks.
import {describe, expect, test} from 'vitest';
import {ListItemSplitter} from '../../../src/cluster/live/list-stream.js';

function split(body: string, cuts: readonly number[]): {items: unknown[]; rest: Record<string, unknown>} {
  const bytes = Buffer.from(body, 'utf8');
  const items: unknown[] = [];
  const splitter = new ListItemSplitter((json) => items.push(JSON.parse(json)));
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    splitter.write(bytes.subarray(from, cut));
    from = cut;
  }
  return {items, rest: splitter.end()};
}

const TRICKY = {
  kind: 'PodList',
  apiVersion: 'v1',
  metadata: {resourceVersion: '42', continue: 'eyJ2IjoxfQ', note: 'items'},
  items: [
    {
      metadata: {name: 'a', annotations: {brace: '}{][', quote: 'say "items":[', slash: 'C:\\dir\\', unicode: 'Grüße ☃ 🚀'}},
      spec: {items: [{deep: [1, [2, {x: '}'}]]}]},
    },
    {metadata: {name: 'b'}, status: {phase: 'Running', empty: {}, list: []}},
    {metadata: {name: 'c\\"'}},
  ],
};

describe('ListItemSplitter', () => {
  const body = JSON.stringify(TRICKY, null, 1);

  test('whole body: items in order, envelope without them', () => {
    const {items, rest} = split(body, []);
    expect(items).toEqual(TRICKY.items);
    expect(rest).toEqual({...TRICKY, items: []});
  });

  test('every single cut position (multi-byte characters, escapes and strings split across chunks)', () => {
    const length = Buffer.byteLength(body);
    for (let cut = 1; cut < length; cut++) {
      const {items, rest} = split(body, [cut]);
      expect(items, `cut at ${cut}`).toEqual(TRICKY.items);
      expect(rest.metadata).toEqual(TRICKY.metadata);
    }
  });

  test('one byte per chunk, compact JSON, items before metadata', () => {
    const reordered = JSON.stringify({items: TRICKY.items, kind: 'PodList', metadata: TRICKY.metadata});
    const {items, rest} = split(
      reordered,
      Array.from({length: Buffer.byteLength(reordered) - 1}, (_, i) => i + 1),
    );
    expect(items).toEqual(TRICKY.items);
    expect(rest).toEqual({items: [], kind: 'PodList', metadata: TRICKY.metadata});
  });

  test('empty and null item lists', () => {
    expect(split('{"kind":"NodeList","metadata":{},"items":[]}', []).items).toEqual([]);
    expect(split('{"kind":"NodeList","metadata":{},"items":null}', []).rest).toEqual({kind: 'NodeList', metadata: {}, items: null});
  });

  test('a truncated body is an error, not a short list', () => {
    expect(() => split(body.slice(0, body.length - 10), [])).toThrow(/ended before/);
  });
});
