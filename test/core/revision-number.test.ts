// Revision numbers are int64 on the API server: read, compared, incremented and written exactly past 2^53.
import {describe, expect, test} from 'vitest';
import {compareRevisions, jsonText, nextRevision, restoreExactRevisions, revisionFromDigits} from '../../src/core/index.js';

const PAST_2_53 = '9007199254740993';

describe('restoreExactRevisions', () => {
  test('a JSON List: the rounded revision gets the digits written, safe ones stay numbers', () => {
    const text = `{"kind":"List","items":[{"kind":"ControllerRevision","revision":3},{"kind":"ControllerRevision","revision": ${PAST_2_53}}]}`;
    const items = (JSON.parse(text) as {items: {revision: unknown}[]}).items;
    restoreExactRevisions(items, text);
    expect(items.map((item) => item.revision)).toEqual([3, 9007199254740993n]);
  });

  test('YAML text, and two revisions that round to the same double keep their own digits', () => {
    const text = `- kind: ControllerRevision\n  revision: 9007199254740992\n- kind: ControllerRevision\n  revision: ${PAST_2_53}\n`;
    const items = [
      {kind: 'ControllerRevision', revision: 9007199254740992},
      {kind: 'ControllerRevision', revision: Number(PAST_2_53)},
    ];
    restoreExactRevisions(items, text);
    expect(items.map((item) => item.revision)).toEqual([9007199254740992n, 9007199254740993n]);
  });

  test('a list item without its kind (the API server leaves it out) is restored; an escaped key inside a string is not read', () => {
    const text = `{"metadata":{"annotations":{"note":"\\"revision\\": 9007199254740995"}},"revision":${PAST_2_53}}`;
    const item = JSON.parse(text) as {revision: unknown};
    restoreExactRevisions([item], text);
    expect(item.revision).toBe(9007199254740993n);
  });

  test('other kinds are left alone', () => {
    const text = `{"kind":"DaemonSet","revision":${PAST_2_53}}`;
    const item = JSON.parse(text) as {revision: unknown};
    restoreExactRevisions([item], text);
    expect(typeof item.revision).toBe('number');
  });
});

describe('restoreExactRevisions marks a revision written with a fraction or an exponent (Go refuses it for an int64)', () => {
  test.each([
    {text: '{"kind":"ControllerRevision","revision":1e3}', read: 1000, marked: true},
    {text: '{"kind":"ControllerRevision","revision": 1.0}', read: 1, marked: true},
    {text: 'kind: ControllerRevision\nrevision: 1e3\n', read: 1000, marked: true},
    {text: '- kind: ControllerRevision\n  revision: 1.0e3\n', read: 1000, marked: true},
    {text: '{"kind":"ControllerRevision","revision":1000}', read: 1000, marked: false},
    // The same words within a string are not the revision.
    {text: '{"kind":"ControllerRevision","metadata":{"annotations":{"c":"to revision: 1000.0"}},"revision":1000}', read: 1000, marked: false},
    {text: '{"kind":"ControllerRevision","metadata":{"annotations":{"c":"{\\"revision\\":1e3}"}},"revision":1000}', read: 1000, marked: false},
    {text: 'kind: ControllerRevision\nmetadata: {annotations: {c: "bump revision: 1000.0"}}\nrevision: 1000\n', read: 1000, marked: false},
  ])('$text', ({text, read, marked}) => {
    const object: Record<string, unknown> = {kind: 'ControllerRevision', revision: read};
    restoreExactRevisions([object], text);
    expect(typeof object['revision'] === 'object').toBe(marked);
  });
});

test('order, next and parse are exact past 2^53 and keep one representation', () => {
  expect([9007199254740993n, 5, 9007199254740992n].sort(compareRevisions)).toEqual([5, 9007199254740992n, 9007199254740993n]);
  expect(nextRevision(Number.MAX_SAFE_INTEGER)).toBe(9007199254740992n);
  expect(nextRevision(4)).toBe(5);
  expect(revisionFromDigits(PAST_2_53)).toBe(9007199254740993n);
  expect(revisionFromDigits('12')).toBe(12);
  expect(revisionFromDigits('1.5')).toBeUndefined();
});

test('jsonText writes a bigint as the JSON number it is, and is JSON.stringify otherwise', () => {
  expect(jsonText({revision: 9007199254740993n, name: 'a'})).toBe(`{"revision":${PAST_2_53},"name":"a"}`);
  expect(jsonText({revision: 1n << 62n}, 2)).toBe('{\n  "revision": 4611686018427387904\n}');
  expect(jsonText({a: [1, 'x']})).toBe(JSON.stringify({a: [1, 'x']}));
});
