import {expect, test} from 'vitest';
import {MinHeap} from '../../src/core/min-heap.js';

test('pops in order, ties in the order the comparator decides', () => {
  const heap = new MinHeap<{at: number; seq: number}>((a, b) => a.at < b.at || (a.at === b.at && a.seq < b.seq));
  const input = [5, 3, 9, 3, 1, 7, 5, 0, 2].map((at, seq) => ({at, seq}));
  for (const item of input) heap.push(item);
  expect(heap.size).toBe(9);
  expect(heap.peek()).toEqual({at: 0, seq: 7});
  const out: string[] = [];
  for (let item = heap.pop(); item; item = heap.pop()) out.push(`${item.at}/${item.seq}`);
  expect(out).toEqual(['0/7', '1/4', '2/8', '3/1', '3/3', '5/0', '5/6', '7/5', '9/2']);
  expect(heap.pop()).toBeUndefined();
});
