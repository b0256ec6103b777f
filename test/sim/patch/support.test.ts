import {describe, expect, test} from 'vitest';
import {goS, goV} from '../../../src/sim/patch/go-format.js';
import {applyJsonPatch, applyMergePatch, applyStrategicMergePatch, PATCH_CONTENT_TYPES} from '../../../src/sim/patch/index.js';
import {goStableSort} from '../../../src/sim/patch/stable-sort.js';

describe('PATCH_CONTENT_TYPES', () => {
  test('maps exactly the three patch media types', () => {
    expect(Object.keys(PATCH_CONTENT_TYPES).sort()).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
    ]);
    expect(PATCH_CONTENT_TYPES['application/apply-patch+yaml']).toBeUndefined();
  });

  const original = {
    kind: 'DaemonSet',
    spec: {
      template: {
        spec: {
          containers: [
            {name: 'a', image: '1'},
            {name: 'b', image: '1'},
          ],
        },
      },
    },
  };
  test.each([
    {
      name: 'strategic merges containers by name',
      type: 'application/strategic-merge-patch+json',
      patch: {spec: {template: {spec: {containers: [{name: 'b', image: '2'}]}}}},
      expected: applyStrategicMergePatch(original, {spec: {template: {spec: {containers: [{name: 'b', image: '2'}]}}}}, 'DaemonSet'),
    },
    {
      name: 'merge replaces the containers list',
      type: 'application/merge-patch+json',
      patch: {spec: {template: {spec: {containers: [{name: 'b', image: '2'}]}}}},
      expected: applyMergePatch(original, {spec: {template: {spec: {containers: [{name: 'b', image: '2'}]}}}}),
    },
    {
      name: 'json patch applies operations',
      type: 'application/json-patch+json',
      patch: [{op: 'replace', path: '/spec/template/spec/containers/1/image', value: '2'}],
      expected: applyJsonPatch(original, [{op: 'replace', path: '/spec/template/spec/containers/1/image', value: '2'}]),
    },
  ])('$name', ({type, patch, expected}) => {
    const engine = PATCH_CONTENT_TYPES[type];
    expect(engine?.(original, patch, 'DaemonSet')).toEqual(expected);
  });
});

describe('Go value formatting used in error messages', () => {
  test.each([
    {name: 'map keys sorted', value: {b: 1, a: 'x'}, v: 'map[a:x b:1]', s: 'map[a:x b:%!s(int64=1)]'},
    {name: 'nested list and nil', value: [{k: null}, true], v: '[map[k:<nil>] true]', s: '[map[k:%!s(<nil>)] %!s(bool=true)]'},
    {name: 'float', value: 1.5, v: '1.5', s: '%!s(float64=1.5)'},
    {name: 'small float uses an exponent', value: 0.00001, v: '1e-05', s: '%!s(float64=1e-05)'},
    {name: 'string', value: 'delete', v: 'delete', s: 'delete'},
  ])('$name', ({value, v, s}) => {
    expect(goV(value)).toBe(v);
    expect(goS(value)).toBe(s);
  });
});

describe('goStableSort', () => {
  test.each([5, 20, 21, 47, 130])('is a stable sort for a consistent comparator (%i items)', (n) => {
    const items = Array.from({length: n}, (_, i) => ({key: (i * 7919) % 5, i}));
    const sorted = goStableSort(items, (a, b) => a.key < b.key);
    expect(sorted).toEqual([...items].sort((a, b) => a.key - b.key));
  });

  test('reverses short lists when the comparator always says less, like Go', () => {
    expect(goStableSort([1, 2, 3, 4], () => true)).toEqual([4, 3, 2, 1]);
  });
});
