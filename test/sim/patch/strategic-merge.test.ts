import {describe, expect, test} from 'vitest';
import {applyStrategicMergePatch, PatchError} from '../../../src/sim/patch/index.js';
import {canonical, deepFreeze} from './canonical.js';

const ds = (spec: object): object => ({kind: 'DaemonSet', spec: {template: {spec}}});
const podSpec = (spec: object): object => ({kind: 'Pod', spec});

interface Row {
  name: string;
  kind: string;
  original: object;
  patch: object;
  expected: object;
}

const rows: Row[] = [
  {
    name: 'containers merge by name and keep the live order',
    kind: 'DaemonSet',
    original: ds({
      containers: [
        {name: 'a', image: 'a:1'},
        {name: 'b', image: 'b:1'},
      ],
    }),
    patch: ds({containers: [{name: 'b', image: 'b:2'}]}),
    expected: ds({
      containers: [
        {name: 'a', image: 'a:1'},
        {name: 'b', image: 'b:2'},
      ],
    }),
  },
  {
    name: 'new ports come first (docs/design/sim-api.md §6.3)',
    kind: 'Pod',
    original: podSpec({containers: [{name: 'c', ports: [{containerPort: 80}, {containerPort: 81}]}]}),
    patch: podSpec({containers: [{name: 'c', ports: [{containerPort: 82}]}]}),
    expected: podSpec({containers: [{name: 'c', ports: [{containerPort: 82}, {containerPort: 80}, {containerPort: 81}]}]}),
  },
  {
    name: 'env delete and add (docs/design/sim-api.md §6.3)',
    kind: 'Pod',
    original: podSpec({containers: [{name: 'c', env: [{name: 'A'}, {name: 'B'}]}]}),
    patch: podSpec({containers: [{name: 'c', env: [{name: 'A', $patch: 'delete'}, {name: 'C'}]}]}),
    expected: podSpec({containers: [{name: 'c', env: [{name: 'C'}, {name: 'B'}]}]}),
  },
  {
    name: 'finalizers are a set of scalars, new ones first (docs/design/sim-api.md §6.3)',
    kind: 'Node',
    original: {metadata: {finalizers: ['f1', 'f2']}},
    patch: {metadata: {finalizers: ['f3', 'f1']}},
    expected: {metadata: {finalizers: ['f3', 'f1', 'f2']}},
  },
  {
    name: 'merge keys compare by JSON type: 80 is not "80"',
    kind: 'Pod',
    original: podSpec({containers: [{name: 'c', ports: [{containerPort: 80}]}]}),
    patch: podSpec({containers: [{name: 'c', ports: [{containerPort: '80', name: 'x'}]}]}),
    expected: podSpec({containers: [{name: 'c', ports: [{containerPort: '80', name: 'x'}, {containerPort: 80}]}]}),
  },
  {
    name: '$setElementOrder orders a scalar list',
    kind: 'Event',
    original: {metadata: {finalizers: ['a', 'b', 'c']}},
    patch: {metadata: {'$setElementOrder/finalizers': ['c', 'a', 'b']}},
    expected: {metadata: {finalizers: ['c', 'a', 'b']}},
  },
  {
    name: '$retainKeys drops unlisted original keys before merging',
    kind: 'Pod',
    original: podSpec({volumes: [{name: 'v', hostPath: {path: '/x'}, secret: {secretName: 's'}}]}),
    patch: podSpec({volumes: [{name: 'v', $retainKeys: ['name', 'emptyDir'], emptyDir: {medium: 'Memory'}}]}),
    expected: podSpec({volumes: [{name: 'v', emptyDir: {medium: 'Memory'}}]}),
  },
  {
    name: 'taints and tolerations are atomic',
    kind: 'Node',
    original: {spec: {taints: [{key: 'a', effect: 'NoSchedule'}]}},
    patch: {spec: {taints: [{key: 'b', effect: 'NoExecute'}]}},
    expected: {spec: {taints: [{key: 'b', effect: 'NoExecute'}]}},
  },
  {
    name: 'top-level $patch replace',
    kind: 'Namespace',
    original: {metadata: {name: 'a'}, spec: {}},
    patch: {$patch: 'replace', metadata: {name: 'b'}},
    expected: {metadata: {name: 'b'}},
  },
  {
    name: 'top-level $patch delete',
    kind: 'Namespace',
    original: {metadata: {name: 'a'}},
    patch: {$patch: 'delete'},
    expected: {},
  },
  {
    name: 'unknown kind: maps merge, lists are replaced, nulls delete',
    kind: 'ConfigMap',
    original: {metadata: {labels: {a: '1', b: '2'}, finalizers: ['f1']}, data: {x: 'y'}, items: [{name: 'a'}]},
    patch: {metadata: {labels: {b: null, c: '3'}, finalizers: ['f2']}, items: [{name: 'b'}]},
    expected: {metadata: {labels: {a: '1', c: '3'}, finalizers: ['f2']}, data: {x: 'y'}, items: [{name: 'b'}]},
  },
  {
    name: 'unknown kind still honours directives',
    kind: 'Widget',
    original: {spec: {a: 1, b: 2}, status: {x: 1}},
    patch: {spec: {$patch: 'replace', c: 3}, status: {$patch: 'delete'}},
    expected: {spec: {c: 3}, status: {}},
  },
  {
    name: 'ControllerRevision data merges as a plain map',
    kind: 'ControllerRevision',
    original: {data: {spec: {template: {spec: {containers: [{name: 'a'}]}}}}, revision: 1},
    patch: {data: {spec: {template: {spec: {containers: [{name: 'b'}]}}}}, revision: 2},
    expected: {data: {spec: {template: {spec: {containers: [{name: 'b'}]}}}}, revision: 2},
  },
  {
    name: 'a __proto__ key stays an ordinary label',
    kind: 'Pod',
    original: JSON.parse('{"metadata":{"labels":{"a":"1"}}}') as object,
    patch: JSON.parse('{"metadata":{"labels":{"__proto__":"x"}}}') as object,
    expected: JSON.parse('{"metadata":{"labels":{"a":"1","__proto__":"x"}}}') as object,
  },
  {
    name: 'empty patch is a no-op',
    kind: 'DaemonSet',
    original: ds({containers: [{name: 'a'}]}),
    patch: {},
    expected: ds({containers: [{name: 'a'}]}),
  },
];

interface ErrorRow {
  name: string;
  original: object;
  patch: unknown;
  message: string;
  code: number;
  reason: string;
}

const errorRows: ErrorRow[] = [
  {
    name: 'merge key missing',
    original: ds({containers: [{name: 'a'}]}),
    patch: ds({containers: [{image: 'x', $patch: 'delete'}]}),
    message: 'map: map[$patch:delete image:x] does not contain declared merge key: name',
    code: 500,
    reason: '',
  },
  {
    name: '$patch merge in a list',
    original: ds({containers: [{name: 'a'}]}),
    patch: ds({containers: [{name: 'a', $patch: 'merge'}]}),
    message: 'merging lists cannot yet be specified in the patch',
    code: 500,
    reason: '',
  },
  {
    name: 'unknown $patch value that is not a string',
    original: {metadata: {labels: {}}},
    patch: {metadata: {labels: {$patch: 7}}},
    message: 'unknown patch type: %!s(int64=7) in map: map[$patch:7]',
    code: 500,
    reason: '',
  },
  {
    name: 'invalid $retainKeys is a bad request',
    original: {spec: {}},
    patch: {spec: {$retainKeys: {}}},
    message: 'invalid patch format of retainKeys',
    code: 400,
    reason: 'BadRequest',
  },
  {
    name: 'malformed $setElementOrder key is a bad request',
    original: {spec: {}},
    patch: {spec: {$setElementOrderX: []}},
    message: 'invalid patch format of setElementOrder list',
    code: 400,
    reason: 'BadRequest',
  },
  {
    name: 'lists of lists are unprocessable',
    original: {metadata: {finalizers: []}},
    patch: {metadata: {finalizers: [['a']]}},
    message: 'lists of lists are not supported',
    code: 422,
    reason: 'Invalid',
  },
  {
    name: 'a patch that is not an object',
    original: {metadata: {}},
    patch: ['x'],
    message: 'json: cannot unmarshal array into Go value of type map[string]interface {}',
    code: 400,
    reason: 'BadRequest',
  },
];

describe('applyStrategicMergePatch', () => {
  test.each(rows)('$name', ({kind, original, patch, expected}) => {
    const result = applyStrategicMergePatch(deepFreeze(structuredClone(original)), deepFreeze(structuredClone(patch)), kind);
    expect(canonical(result)).toBe(canonical(expected));
  });

  test.each(errorRows)('rejects: $name', ({original, patch, message, code, reason}) => {
    let caught: unknown;
    try {
      applyStrategicMergePatch(original, patch as object, 'DaemonSet');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(PatchError);
    expect(caught).toMatchObject({message, code, reason});
  });

  test('never mutates its inputs and never shares structure with them', () => {
    const original = ds({containers: [{name: 'a', env: [{name: 'A'}]}, {name: 'b'}]});
    const patch = ds({'$setElementOrder/containers': [{name: 'b'}, {name: 'c'}], containers: [{name: 'c'}, {name: 'a', $patch: 'delete'}]});
    const before = [JSON.stringify(original), JSON.stringify(patch)];
    const result = applyStrategicMergePatch(original, patch, 'DaemonSet') as {spec: {template: {spec: {containers: object[]}}}};
    expect([JSON.stringify(original), JSON.stringify(patch)]).toEqual(before);
    result.spec.template.spec.containers.push({name: 'z'});
    expect(JSON.stringify(original)).toBe(before[0]);
  });

  test('a null patch is a no-op, as the apiserver decodes it to an empty map', () => {
    expect(applyStrategicMergePatch({a: 1}, null as unknown as object, 'Pod')).toEqual({a: 1});
  });
});
