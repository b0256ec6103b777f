import {describe, expect, test} from 'vitest';
import {canonicalJson, compareCodePoints, deepEqualJson, stripNulls} from '../../src/core/canonical-json.js';

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

describe('canonicalJson', () => {
  // Expected strings are what Go's json.Marshal writes for the same map[string]interface{}.
  const rows: {name: string; value: unknown; json: string}[] = [
    {name: 'sorts keys', value: {b: 1, a: 2, c: {z: true, y: null}}, json: '{"a":2,"b":1,"c":{"y":null,"z":true}}'},
    {name: 'keeps array order', value: [3, 1, {b: 1, a: 1}], json: '[3,1,{"a":1,"b":1}]'},
    {name: 'no whitespace, empty containers', value: {a: [], b: {}}, json: '{"a":[],"b":{}}'},
    {name: 'escapes HTML characters like Go', value: {b: '<x>', a: [1, '&']}, json: '{"a":[1,"\\u0026"],"b":"\\u003cx\\u003e"}'},
    {name: 'short escapes for \\b \\f \\n \\r \\t', value: '\b\f\n\r\t', json: '"\\b\\f\\n\\r\\t"'},
    {name: 'other control characters as \\u00XX (lowercase hex)', value: '\u0001\u001f\u001b', json: '"\\u0001\\u001f\\u001b"'},
    {name: 'quote and backslash', value: 'a"b\\c', json: '"a\\"b\\\\c"'},
    {name: 'U+2028 and U+2029 escaped', value: '\u2028\u2029', json: '"\\u2028\\u2029"'},
    {name: 'non-ASCII written as is', value: 'é日本😀', json: '"é日本😀"'},
    {name: 'lone surrogate becomes U+FFFD', value: 'a\ud800b', json: '"a\\ufffdb"'},
    {name: 'undefined keys dropped', value: {a: undefined, b: 1}, json: '{"b":1}'},
    {name: 'undefined in arrays becomes null', value: [undefined, 1], json: '[null,1]'},
    {name: 'numbers: integers and fractions', value: [0, -3, 100, 0.5, 1.25e-3], json: '[0,-3,100,0.5,0.00125]'},
    {name: 'numbers: exponent form as Go prints float64', value: [1e21, 1e-7, 123456789012345680000], json: '[1e+21,1e-7,123456789012345680000]'},
    {name: 'negative zero prints 0', value: -0, json: '0'},
    {name: 'literals', value: [true, false, null], json: '[true,false,null]'},
    {name: '$patch sorts before metadata', value: {metadata: {}, spec: {}, $patch: 'replace'}, json: '{"$patch":"replace","metadata":{},"spec":{}}'},
    {name: 'keys by code point, not UTF-16 unit', value: {'\u{1F600}': 2, '\uff01': 1}, json: '{"！":1,"😀":2}'},
    {name: 'escaped keys', value: {'a<b': 1}, json: '{"a\\u003cb":1}'},
  ];
  test.each(rows)('$name', ({value, json}) => {
    expect(canonicalJson(value)).toBe(json);
  });

  const invalid: {name: string; value: unknown}[] = [
    {name: 'NaN', value: {a: Number.NaN}},
    {name: 'Infinity', value: [Number.POSITIVE_INFINITY]},
    {name: 'bigint', value: {a: 1n}},
    {name: 'top-level undefined', value: undefined},
  ];
  test.each(invalid)('throws on $name', ({value}) => {
    expect(() => canonicalJson(value)).toThrow(TypeError);
  });

  test('parses back to the same value as JSON.stringify would give', () => {
    const value = {z: [1, {y: 'a<b', x: [null, true]}], a: {c: 'é', b: 0.1}};
    expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
  });

  test('key order of the input does not matter', () => {
    expect(canonicalJson({a: 1, b: {c: 2, d: 3}})).toBe(canonicalJson({b: {d: 3, c: 2}, a: 1}));
  });
});

describe('compareCodePoints', () => {
  const rows: {name: string; a: string; b: string; sign: number}[] = [
    {name: 'plain ASCII', a: 'a', b: 'b', sign: -1},
    {name: 'prefix first', a: 'ab', b: 'abc', sign: -1},
    {name: 'equal', a: 'x', b: 'x', sign: 0},
    {name: 'astral after U+FFxx (UTF-16 order would say before)', a: '\u{1F600}', b: '\uff01', sign: 1},
    {name: 'U+E000 before astral', a: '\ue000', b: '\u{10000}', sign: -1},
    {name: 'BMP below surrogates before astral', a: '\u0100', b: '\u{10000}', sign: -1},
  ];
  test.each(rows)('$name', ({a, b, sign}) => {
    expect(Math.sign(compareCodePoints(a, b))).toBe(sign);
  });
});

describe('deepEqualJson', () => {
  const rows: {name: string; a: unknown; b: unknown; nullAsAbsent?: boolean; equal: boolean}[] = [
    {name: 'key order ignored', a: {a: 1, b: {c: [1, 2]}}, b: {b: {c: [1, 2]}, a: 1}, equal: true},
    {name: 'array order matters', a: [1, 2], b: [2, 1], equal: false},
    {name: 'array length matters', a: [1], b: [1, 1], equal: false},
    {name: 'nested value differs', a: {a: {b: {c: 1}}}, b: {a: {b: {c: 2}}}, equal: false},
    {name: 'extra key on the right', a: {a: 1}, b: {a: 1, b: 2}, equal: false},
    {name: 'extra key on the left', a: {a: 1, b: 2}, b: {a: 1}, equal: false},
    {name: 'undefined keys ignored', a: {a: 1, b: undefined}, b: {a: 1}, equal: true},
    {name: 'null is not absent by default', a: {a: 1, b: null}, b: {a: 1}, equal: false},
    {name: 'null is absent with nullAsAbsent', a: {a: 1, b: null}, b: {a: 1}, nullAsAbsent: true, equal: true},
    {name: 'null on the right with nullAsAbsent', a: {m: {x: 1}}, b: {m: {x: 1, creationTimestamp: null}}, nullAsAbsent: true, equal: true},
    {name: 'null vs value still differs with nullAsAbsent', a: {a: null}, b: {a: 0}, nullAsAbsent: true, equal: false},
    {name: 'nulls inside arrays are values', a: [null], b: [], nullAsAbsent: true, equal: false},
    {name: 'number vs string', a: 1, b: '1', equal: false},
    {name: 'array vs object', a: [], b: {}, equal: false},
    {name: 'object vs null', a: {}, b: null, equal: false},
    {name: 'primitives', a: 'x', b: 'x', equal: true},
  ];
  test.each(rows)('$name', ({a, b, nullAsAbsent, equal}) => {
    expect(deepEqualJson(a, b, {nullAsAbsent})).toBe(equal);
    expect(deepEqualJson(b, a, {nullAsAbsent})).toBe(equal);
  });
});

describe('stripNulls', () => {
  const rows: {name: string; value: unknown; stripped: unknown}[] = [
    {name: 'drops null keys at any depth', value: {a: null, b: {c: null, d: 1}}, stripped: {b: {d: 1}}},
    {name: 'drops undefined keys', value: {a: undefined, b: 2}, stripped: {b: 2}},
    {name: 'keeps nulls inside arrays, strips objects in them', value: {a: [null, {b: null, c: 1}]}, stripped: {a: [null, {c: 1}]}},
    {
      name: 'template creationTimestamp from rollout undo',
      value: {metadata: {creationTimestamp: null, labels: {a: 'b'}}},
      stripped: {metadata: {labels: {a: 'b'}}},
    },
    {name: 'primitives unchanged', value: 'x', stripped: 'x'},
    {name: 'top-level null stays null', value: null, stripped: null},
    {name: 'empty objects stay', value: {a: {b: null}}, stripped: {a: {}}},
  ];
  test.each(rows)('$name', ({value, stripped}) => {
    const frozen = deepFreeze(structuredClone(value));
    const out = stripNulls(frozen);
    expect(out).toStrictEqual(stripped);
    expect(frozen).toStrictEqual(value);
  });

  test('returns a new object', () => {
    const input = {a: {b: 1}};
    const out = stripNulls(input);
    expect(out).not.toBe(input);
    expect(out.a).not.toBe(input.a);
  });
});
