import {describe, expect, test} from 'vitest';
import {applyJsonPatch, JsonPatchError} from '../../../src/sim/patch/index.js';
import {canonical, deepFreeze} from './canonical.js';

interface Row {
  name: string;
  original: object;
  ops: unknown;
  expected: object;
}

// RFC 6902 appendix A, then evanphx/json-patch v4 behaviour that clients of the apiserver see.
const rows: Row[] = [
  {name: 'A.1 add an object member', original: {foo: 'bar'}, ops: [{op: 'add', path: '/baz', value: 'qux'}], expected: {foo: 'bar', baz: 'qux'}},
  {name: 'A.2 add an array element', original: {foo: ['bar', 'baz']}, ops: [{op: 'add', path: '/foo/1', value: 'qux'}], expected: {foo: ['bar', 'qux', 'baz']}},
  {name: 'A.3 remove an object member', original: {baz: 'qux', foo: 'bar'}, ops: [{op: 'remove', path: '/baz'}], expected: {foo: 'bar'}},
  {name: 'A.4 remove an array element', original: {foo: ['bar', 'qux', 'baz']}, ops: [{op: 'remove', path: '/foo/1'}], expected: {foo: ['bar', 'baz']}},
  {name: 'A.5 replace a value', original: {baz: 'qux', foo: 'bar'}, ops: [{op: 'replace', path: '/baz', value: 'boo'}], expected: {baz: 'boo', foo: 'bar'}},
  {
    name: 'A.6 move a value',
    original: {foo: {bar: 'baz', waldo: 'fred'}, qux: {corge: 'grault'}},
    ops: [{op: 'move', from: '/foo/waldo', path: '/qux/thud'}],
    expected: {foo: {bar: 'baz'}, qux: {corge: 'grault', thud: 'fred'}},
  },
  {
    name: 'A.7 move an array element',
    original: {foo: ['all', 'grass', 'cows', 'eat']},
    ops: [{op: 'move', from: '/foo/1', path: '/foo/3'}],
    expected: {foo: ['all', 'cows', 'eat', 'grass']},
  },
  {
    name: 'A.8 test success',
    original: {baz: 'qux', foo: ['a', 2, 'c']},
    ops: [
      {op: 'test', path: '/baz', value: 'qux'},
      {op: 'test', path: '/foo/1', value: 2},
    ],
    expected: {baz: 'qux', foo: ['a', 2, 'c']},
  },
  {
    name: 'A.10 add a nested member object',
    original: {foo: 'bar'},
    ops: [{op: 'add', path: '/child', value: {grandchild: {}}}],
    expected: {foo: 'bar', child: {grandchild: {}}},
  },
  {
    name: 'A.11 ignore unrecognized members',
    original: {foo: 'bar'},
    ops: [{op: 'add', path: '/baz', value: 'qux', xyz: 123}],
    expected: {foo: 'bar', baz: 'qux'},
  },
  {name: 'A.14 ~ escape ordering', original: {'/': 9, '~1': 10}, ops: [{op: 'test', path: '/~01', value: 10}], expected: {'/': 9, '~1': 10}},
  {
    name: 'A.16 add an array value',
    original: {foo: ['bar']},
    ops: [{op: 'add', path: '/foo/-', value: ['abc', 'def']}],
    expected: {foo: ['bar', ['abc', 'def']]},
  },
  {name: 'replace of a missing object member adds it', original: {a: 1}, ops: [{op: 'replace', path: '/b', value: 2}], expected: {a: 1, b: 2}},
  {
    name: 'negative indices count from the end',
    original: {l: ['a', 'b', 'c']},
    ops: [
      {op: 'add', path: '/l/-1', value: 'x'},
      {op: 'remove', path: '/l/-4'},
    ],
    expected: {l: ['b', 'c', 'x']},
  },
  {name: 'a missing value is null', original: {}, ops: [{op: 'add', path: '/a'}], expected: {a: null}},
  {name: 'copy from a missing member copies null', original: {}, ops: [{op: 'copy', from: '/nope', path: '/a'}], expected: {a: null}},
  {
    name: 'copy is deep',
    original: {a: {b: 1}},
    ops: [
      {op: 'copy', from: '/a', path: '/c'},
      {op: 'replace', path: '/c/b', value: 2},
    ],
    expected: {a: {b: 1}, c: {b: 2}},
  },
  {name: 'test of null matches a missing member', original: {}, ops: [{op: 'test', path: '/a', value: null}], expected: {}},
  {name: 'root replace with an object', original: {a: 1}, ops: [{op: 'replace', path: '', value: {b: 2}}], expected: {b: 2}},
  {name: 'root replace with a scalar is ignored', original: {a: 1}, ops: [{op: 'replace', path: '', value: 3}], expected: {a: 1}},
  {name: 'null operation list', original: {a: 1}, ops: null, expected: {a: 1}},
];

interface ErrorRow {
  name: string;
  ops: unknown;
  message: string;
  code: 400 | 422;
}

const errorRows: ErrorRow[] = [
  {name: 'A.9 test failure', ops: [{op: 'test', path: '/baz', value: 'bar'}], message: 'testing value /baz failed: test failed', code: 422},
  {
    name: 'A.12 add to a nonexistent target',
    ops: [{op: 'add', path: '/baz/bat', value: 'qux'}],
    message: 'add operation does not apply: doc is missing path: "/baz/bat": missing value',
    code: 422,
  },
  {name: 'A.15 string is not a number', ops: [{op: 'test', path: '/n', value: '10'}], message: 'testing value /n failed: test failed', code: 422},
  {
    name: 'replace past the end of a list',
    ops: [{op: 'replace', path: '/l/9', value: 1}],
    message: 'replace operation does not apply: doc is missing key: /l/9: missing value',
    code: 422,
  },
  {
    name: 'remove of a missing member',
    ops: [{op: 'remove', path: '/x'}],
    message: "error in remove for path: '/x': Unable to remove nonexistent key: x: missing value",
    code: 422,
  },
  {
    name: 'index that is not a number',
    ops: [{op: 'add', path: '/l/x', value: 1}],
    message: "error in add for path: '/l/x': value was not a proper array index: 'x': strconv.Atoi: parsing \"x\": invalid syntax",
    code: 422,
  },
  {
    name: 'copy to a missing parent',
    ops: [{op: 'copy', from: '/n', path: '/q/r'}],
    message: 'copy operation does not apply: doc is missing destination path: /q/r: missing value',
    code: 422,
  },
  {name: 'unknown op', ops: [{op: 'merge', path: '/a'}], message: 'Unexpected kind: merge', code: 422},
  {name: 'body is not a list', ops: {op: 'add'}, message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch', code: 400},
  {name: 'operation is not an object', ops: ['add'], message: 'json: cannot unmarshal string into Go value of type jsonpatch.Operation', code: 400},
];

describe('applyJsonPatch', () => {
  test.each(rows)('$name', ({original, ops, expected}) => {
    const result = applyJsonPatch(deepFreeze(structuredClone(original)), deepFreeze(structuredClone(ops)));
    expect(canonical(result)).toBe(canonical(expected));
  });

  test.each(errorRows)('rejects: $name', ({ops, message, code}) => {
    const doc = {baz: 'qux', n: 10, l: ['a']};
    let caught: unknown;
    try {
      applyJsonPatch(doc, ops);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(JsonPatchError);
    expect(caught).toMatchObject({message, code, reason: code === 400 ? 'BadRequest' : 'Invalid'});
  });

  test('a failing operation leaves the caller object untouched', () => {
    const doc = {a: 1, l: [1]};
    expect(() =>
      applyJsonPatch(doc, [
        {op: 'add', path: '/b', value: 2},
        {op: 'test', path: '/a', value: 2},
      ]),
    ).toThrow(JsonPatchError);
    expect(doc).toEqual({a: 1, l: [1]});
  });
});
