import {describe, expect, test} from 'vitest';
import {applyMergePatch, PatchError} from '../../../src/sim/patch/index.js';
import {canonical, deepFreeze} from './canonical.js';

interface Row {
  name: string;
  original: object;
  patch: unknown;
  expected: object;
}

// RFC 7386 appendix A (object targets), then the library details the apiserver shows.
const rows: Row[] = [
  {name: 'A: change a member', original: {a: 'b'}, patch: {a: 'c'}, expected: {a: 'c'}},
  {name: 'A: add a member', original: {a: 'b'}, patch: {b: 'c'}, expected: {a: 'b', b: 'c'}},
  {name: 'A: null removes a member', original: {a: 'b'}, patch: {a: null}, expected: {}},
  {name: 'A: remove one of two members', original: {a: 'b', b: 'c'}, patch: {a: null}, expected: {b: 'c'}},
  {name: 'A: array replaces scalar', original: {a: ['b']}, patch: {a: 'c'}, expected: {a: 'c'}},
  {name: 'A: scalar replaces array', original: {a: 'c'}, patch: {a: ['b']}, expected: {a: ['b']}},
  {name: 'A: nested merge with removal', original: {a: {b: 'c'}}, patch: {a: {b: 'd', c: null}}, expected: {a: {b: 'd'}}},
  {name: 'A: array of objects is replaced', original: {a: [{b: 'c'}]}, patch: {a: [1]}, expected: {a: [1]}},
  {name: 'A: nested object replaces scalar, nulls pruned', original: {e: null}, patch: {a: 1}, expected: {e: null, a: 1}},
  {name: 'A: deep new object loses nulls', original: {}, patch: {a: {bb: {ccc: null}}}, expected: {a: {bb: {}}}},
  {name: 'null in an existing null member', original: {a: null}, patch: {a: {b: null, c: 1}}, expected: {a: {c: 1}}},
  {name: 'added list keeps null elements but prunes their objects', original: {}, patch: {a: [{x: null, y: 1}, null]}, expected: {a: [{y: 1}, null]}},
  {name: 'list replacing an object is taken verbatim', original: {a: {k: 1}}, patch: {a: [{x: null}]}, expected: {a: [{x: null}]}},
  {name: 'list replacing a scalar is pruned', original: {a: 's'}, patch: {a: [{x: null}]}, expected: {a: [{}]}},
  {name: 'empty patch', original: {a: 1}, patch: {}, expected: {a: 1}},
];

describe('applyMergePatch', () => {
  test.each(rows)('$name', ({original, patch, expected}) => {
    const result = applyMergePatch(deepFreeze(structuredClone(original)), deepFreeze(structuredClone(patch)));
    expect(canonical(result)).toBe(canonical(expected));
  });

  test.each([
    {name: 'null patch', patch: null, message: 'Invalid JSON Patch'},
    {name: 'string patch', patch: 'x', message: 'Invalid JSON Patch'},
    {name: 'array patch', patch: [1], message: 'json: cannot unmarshal array into Go value of type map[string]interface {}'},
  ])('rejects a $name with 400', ({patch, message}) => {
    expect(() => applyMergePatch({a: 1}, patch)).toThrow(PatchError);
    expect(() => applyMergePatch({a: 1}, patch)).toThrow(expect.objectContaining({message, code: 400, reason: 'BadRequest'}));
  });
});
