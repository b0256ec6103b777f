// kubectl's JSONPath subset (src/output/jsonpath.ts), the examples of kubectl's JSONPath reference page applied to
// a small document.
import {describe, expect, test} from 'vitest';
import {JsonPathError, renderJsonPath} from '../../src/output/jsonpath.js';

const DOC = {
  kind: 'List',
  items: [
    {metadata: {name: 'a', labels: {'app.kubernetes.io/name': 'x'}}, status: {ready: 2, nodes: ['n1', 'n2']}},
    {metadata: {name: 'b'}, status: {ready: 0, nodes: []}},
    {metadata: {name: 'c'}, status: {ready: 5, nodes: ['n3']}},
  ],
};

describe('renderJsonPath', () => {
  test.each([
    ['{.kind}', 'List'],
    ['{kind}', 'List'],
    ['{$.kind}', 'List'],
    ['kind={.kind}!', 'kind=List!'],
    ['{.items[*].metadata.name}', 'a b c'],
    ['{.items[0].metadata.name}', 'a'],
    ['{.items[-1].metadata.name}', 'c'],
    ['{.items[0:2].metadata.name}', 'a b'],
    ['{.items[0,2].metadata.name}', 'a c'],
    ["{.items[0].metadata.labels['app.kubernetes.io/name']}", 'x'],
    ['{..name}', 'a b c'],
    ['{.items[?(@.status.ready > 1)].metadata.name}', 'a c'],
    ['{.items[?(@.metadata.name == "b")].status.ready}', '0'],
    ['{.items[?(@.metadata.labels)].metadata.name}', 'a'],
    ['{.items[0].status.nodes}', '["n1","n2"]'],
    ['{.items[0].status}', '{"ready":2,"nodes":["n1","n2"]}'],
    ['{range .items[*]}{.metadata.name}:{.status.ready}{"\\n"}{end}', 'a:2\nb:0\nc:5\n'],
    ['{range .items}{.metadata.name}{"\\t"}{end}', 'a\tb\tc\t'],
    ['{.missing.key}', ''],
  ])('%s', (template, expected) => {
    expect(renderJsonPath(template, DOC)).toBe(expected);
  });

  test.each([
    ['{.kind', 'jsonpath: unclosed { in template at 0'],
    ['{range .items[*]}{.x}', 'jsonpath: {range} without {end}'],
    ['{end}', 'jsonpath: {end} without {range}'],
    ['{.items[?(@.a == nope)]}', 'jsonpath: cannot parse the literal nope in ".items[?(@.a == nope)]"'],
  ])('refuses %s', (template, message) => {
    expect(() => renderJsonPath(template, DOC)).toThrow(new JsonPathError(message));
  });
});
