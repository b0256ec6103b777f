import {describe, expect, test} from 'vitest';
import type {DaemonSet, PodSpec} from '../../src/core/types.js';
import {decodeObject, type DecodedKind, readStoredObjects} from '../../src/core/decode.js';
import {
  formatFieldError,
  formatInvalid,
  validateControllerRevision,
  validateDaemonSet,
  validateDaemonSetUpdate,
  validateNamespace,
  validateNode,
  validatePod,
  type FieldError,
} from '../../src/core/validation.js';
import {newDaemonSet, newNode, newPod} from '../helpers/builders.js';

const DS = newDaemonSet('foo');

function withSpec(ds: DaemonSet, spec: Partial<DaemonSet['spec']>): DaemonSet {
  return {...ds, spec: {...ds.spec, ...spec}};
}

function withPodSpec(ds: DaemonSet, podSpec: Partial<PodSpec>): DaemonSet {
  return withSpec(ds, {template: {...ds.spec.template, spec: {...ds.spec.template.spec, ...podSpec}}});
}

function withTemplateLabels(ds: DaemonSet, labels: Record<string, string> | undefined): DaemonSet {
  return withSpec(ds, {template: {...ds.spec.template, metadata: labels === undefined ? {} : {labels}}});
}

function lines(errors: readonly FieldError[]): string[] {
  return errors.map(formatFieldError);
}

const DNS_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('validateDaemonSet', () => {
  const rows: {name: string; ds: DaemonSet; errors: string[]}[] = [
    {name: 'builder DaemonSet is valid', ds: DS, errors: []},
    {
      name: 'a bare manifest is valid (defaults apply first)',
      ds: {
        metadata: {name: 'bare'},
        spec: {selector: {matchLabels: {app: 'x'}}, template: {metadata: {labels: {app: 'x'}}, spec: {containers: [{name: 'c', image: 'x'}]}}},
      },
      errors: [],
    },
    {
      name: 'selector does not match template labels',
      ds: withTemplateLabels(DS, {app: 'other'}),
      errors: ['spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`'],
    },
    {
      name: 'several template labels print sorted',
      ds: withTemplateLabels(DS, {z: '1', app: 'x'}),
      errors: ['spec.template.metadata.labels: Invalid value: map[string]string{"app":"x", "z":"1"}: `selector` does not match template `labels`'],
    },
    {
      name: 'missing selector selects nothing: mismatch, not Required',
      ds: withSpec(DS, {selector: undefined}),
      errors: ['spec.template.metadata.labels: Invalid value: map[string]string{"name":"foo"}: `selector` does not match template `labels`'],
    },
    {
      name: 'missing selector and template labels',
      ds: withTemplateLabels(withSpec(DS, {selector: undefined}), undefined),
      errors: ['spec.template.metadata.labels: Invalid value: map[string]string(nil): `selector` does not match template `labels`'],
    },
    {
      name: 'empty selector',
      ds: withSpec(DS, {selector: {}}),
      errors: [
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for daemonset',
      ],
    },
    {
      name: 'empty selector with empty matchLabels',
      ds: withSpec(DS, {selector: {matchLabels: {}}}),
      errors: [
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for daemonset',
      ],
    },
    {
      name: 'expression selector matching the labels is valid',
      ds: withSpec(DS, {selector: {matchExpressions: [{key: 'name', operator: 'In', values: ['foo', 'bar']}]}}),
      errors: [],
    },
    {
      name: 'In without values: required, and the label comparison is skipped',
      ds: withSpec(DS, {selector: {matchExpressions: [{key: 'name', operator: 'In'}]}}),
      errors: ["spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"],
    },
    {
      name: 'Exists with values is forbidden',
      ds: withSpec(DS, {selector: {matchExpressions: [{key: 'name', operator: 'Exists', values: ['x']}]}}),
      errors: ["spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"],
    },
    {
      name: 'unknown operator',
      ds: withSpec(DS, {selector: {matchExpressions: [{key: 'name', operator: 'Like', values: ['x']}]}}),
      errors: ['spec.selector.matchExpressions[0].operator: Invalid value: "Like": not a valid selector operator'],
    },
    {
      name: 'invalid label key in selector and template',
      ds: withTemplateLabels(withSpec(DS, {selector: {matchLabels: {'-bad': 'x'}}}), {'-bad': 'x'}),
      errors: [`spec.selector.matchLabels: Invalid value: "-bad": ${NAME_PART_MSG}`, `spec.template.metadata.labels: Invalid value: "-bad": ${NAME_PART_MSG}`],
    },
    {
      name: 'invalid metadata.name',
      ds: {...DS, metadata: {...DS.metadata, name: 'Foo'}},
      errors: [`metadata.name: Invalid value: "Foo": ${SUBDOMAIN_MSG}`],
    },
    {
      name: 'missing metadata.name',
      ds: {...DS, metadata: {...DS.metadata, name: ''}},
      errors: ['metadata.name: Required value: name or generateName is required'],
    },
    {name: 'no containers', ds: withPodSpec(DS, {containers: []}), errors: ['spec.template.spec.containers: Required value']},
    {
      name: 'container name and image required',
      ds: withPodSpec(DS, {containers: [{name: ''}]}),
      errors: ['spec.template.spec.containers[0].name: Required value', 'spec.template.spec.containers[0].image: Required value'],
    },
    {
      name: 'container name must be a DNS label',
      ds: withPodSpec(DS, {containers: [{name: 'Main', image: 'x'}]}),
      errors: [`spec.template.spec.containers[0].name: Invalid value: "Main": ${DNS_LABEL_MSG}`],
    },
    {
      name: 'container name with dots',
      ds: withPodSpec(DS, {containers: [{name: 'a.b', image: 'x'}]}),
      errors: ['spec.template.spec.containers[0].name: Invalid value: "a.b": must not contain dots'],
    },
    {
      name: 'duplicate container names, also across init containers',
      ds: withPodSpec(DS, {
        containers: [
          {name: 'a', image: 'x'},
          {name: 'a', image: 'y'},
        ],
        initContainers: [{name: 'a', image: 'z'}],
      }),
      errors: ['spec.template.spec.containers[1].name: Duplicate value: "a"', 'spec.template.spec.initContainers[0].name: Duplicate value: "a"'],
    },
    {
      name: 'image with surrounding whitespace',
      ds: withPodSpec(DS, {containers: [{name: 'a', image: 'nginx '}]}),
      errors: ['spec.template.spec.containers[0].image: Invalid value: "nginx ": must not have leading or trailing whitespace'],
    },
    {
      name: 'unknown imagePullPolicy',
      ds: withPodSpec(DS, {containers: [{name: 'a', image: 'x', imagePullPolicy: 'Sometimes'}]}),
      errors: ['spec.template.spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"'],
    },
    {
      name: 'restartPolicy OnFailure',
      ds: withPodSpec(DS, {restartPolicy: 'OnFailure'}),
      errors: ['spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"'],
    },
    {
      name: 'restartPolicy not a policy at all: two errors',
      ds: withPodSpec(DS, {restartPolicy: 'Sometimes'}),
      errors: [
        'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
        'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always"',
      ],
    },
    {
      name: 'activeDeadlineSeconds',
      ds: withPodSpec(DS, {activeDeadlineSeconds: 30}),
      errors: ['spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not Supported'],
    },
    {
      name: 'negative minReadySeconds',
      ds: withSpec(DS, {minReadySeconds: -1}),
      errors: ['spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0'],
    },
    {
      name: 'negative revisionHistoryLimit',
      ds: withSpec(DS, {revisionHistoryLimit: -2}),
      errors: ['spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0'],
    },
    {
      name: 'both budgets zero',
      ds: newDaemonSet('foo', {maxUnavailable: 0, maxSurge: 0}),
      errors: ['spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0'],
    },
    {
      name: 'both budgets non-zero',
      ds: newDaemonSet('foo', {maxUnavailable: 1, maxSurge: 1}),
      errors: ['spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero'],
    },
    {
      name: 'OnDelete ignores budgets',
      ds: newDaemonSet('foo', {type: 'OnDelete'}),
      errors: [],
    },
    {
      name: 'errors come in the server order',
      ds: withSpec(withPodSpec(withTemplateLabels(DS, {app: 'x'}), {containers: [], restartPolicy: 'Never'}), {minReadySeconds: -1, revisionHistoryLimit: -1}),
      errors: [
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: `selector` does not match template `labels`',
        'spec.template.spec.containers: Required value',
        'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
        'spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0',
        'spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0',
      ],
    },
  ];
  test.each(rows)('$name', ({ds, errors}) => {
    expect(lines(validateDaemonSet(ds))).toEqual(errors);
  });

  // Messages for these come from budgets.ts validateRollingUpdate; the field and type are this module's.
  const strategyRows: {name: string; ds: DaemonSet; field: string; type: FieldError['type']; ending: string}[] = [
    {
      name: 'unknown strategy type',
      ds: newDaemonSet('foo', {type: 'Recreate'}),
      field: 'spec.updateStrategy',
      type: 'FieldValueNotSupported',
      ending: 'supported values: "RollingUpdate", "OnDelete"',
    },
    {
      name: 'percentage above 100%',
      ds: newDaemonSet('foo', {maxUnavailable: '150%'}),
      field: 'spec.updateStrategy.rollingUpdate.maxUnavailable',
      type: 'FieldValueInvalid',
      ending: 'must not be greater than 100%',
    },
    {
      name: 'not a percentage',
      ds: newDaemonSet('foo', {maxUnavailable: '5x'}),
      field: 'spec.updateStrategy.rollingUpdate.maxUnavailable',
      type: 'FieldValueInvalid',
      ending: "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
    },
    {
      name: 'both zero is a Required cause',
      ds: newDaemonSet('foo', {maxUnavailable: '0%', maxSurge: 0}),
      field: 'spec.updateStrategy.rollingUpdate.maxUnavailable',
      type: 'FieldValueRequired',
      ending: 'cannot be 0 when maxSurge is 0',
    },
  ];
  test.each(strategyRows)('updateStrategy: $name', ({ds, field, type, ending}) => {
    const errors = validateDaemonSet(ds);
    expect(errors.map((e) => [e.field, e.type])).toContainEqual([field, type]);
    expect(errors.find((e) => e.field === field)!.message.endsWith(ending)).toBe(true);
  });

  test('causes carry type and value', () => {
    expect(validateDaemonSet(withTemplateLabels(DS, {app: 'other'}))).toEqual([
      {
        field: 'spec.template.metadata.labels',
        type: 'FieldValueInvalid',
        message: 'Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`',
        value: {app: 'other'},
      },
    ]);
  });
});

describe('validateDaemonSetUpdate', () => {
  const renamedSelector = withTemplateLabels(withSpec(DS, {selector: {matchLabels: {name: 'bar'}}}), {name: 'bar'});
  const rows: {name: string; old: DaemonSet; next: DaemonSet; errors: string[]}[] = [
    {name: 'template change only', old: DS, next: withPodSpec(DS, {containers: [{name: 'main', image: 'foo/bar:2'}]}), errors: []},
    {
      name: 'selector changed',
      old: DS,
      next: renamedSelector,
      errors: [
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"name":"bar"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
      ],
    },
    {
      name: 'selector expression added',
      old: DS,
      next: withSpec(DS, {selector: {matchLabels: {name: 'foo'}, matchExpressions: [{key: 'name', operator: 'Exists'}]}}),
      errors: [
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"name":"foo"}, MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"name", Operator:"Exists", Values:[]string(nil)}}}: field is immutable',
      ],
    },
    {
      name: 'empty and absent lists are the same selector',
      old: DS,
      next: withSpec(DS, {selector: {matchLabels: {name: 'foo'}, matchExpressions: []}}),
      errors: [],
    },
    {
      name: 'the new object is validated too, before the immutability error',
      old: DS,
      next: withSpec(renamedSelector, {minReadySeconds: -5}),
      errors: [
        'spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0',
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"name":"bar"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
      ],
    },
  ];
  test.each(rows)('$name', ({old, next, errors}) => {
    expect(lines(validateDaemonSetUpdate(old, next))).toEqual(errors);
  });
});

describe('formatInvalid', () => {
  const mismatch: FieldError = {
    field: 'spec.template.metadata.labels',
    type: 'FieldValueInvalid',
    message: 'Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`',
  };
  const required: FieldError = {field: 'spec.template.spec.containers', type: 'FieldValueRequired', message: 'Required value'};
  const rows: {name: string; kind: string; objectName: string; errors: FieldError[]; message: string}[] = [
    {
      name: 'one cause',
      kind: 'DaemonSet.apps',
      objectName: 'x',
      errors: [mismatch],
      message:
        'DaemonSet.apps "x" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`',
    },
    {
      name: 'several causes in brackets',
      kind: 'DaemonSet.apps',
      objectName: 'x',
      errors: [mismatch, required],
      message:
        'DaemonSet.apps "x" is invalid: [spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`, spec.template.spec.containers: Required value]',
    },
    {
      name: 'repeated causes collapse to one',
      kind: 'DaemonSet.apps',
      objectName: 'x',
      errors: [required, required],
      message: 'DaemonSet.apps "x" is invalid: spec.template.spec.containers: Required value',
    },
    {
      name: 'core kind without group',
      kind: 'Pod',
      objectName: 'p',
      errors: [required],
      message: 'Pod "p" is invalid: spec.template.spec.containers: Required value',
    },
  ];
  test.each(rows)('$name', ({kind, objectName, errors, message}) => {
    expect(formatInvalid(kind, objectName, errors)).toBe(message);
  });

  test('end to end: validate then format', () => {
    const ds = withTemplateLabels(newDaemonSet('x'), {app: 'other'});
    expect(formatInvalid('DaemonSet.apps', 'x', validateDaemonSet(ds))).toBe(
      'DaemonSet.apps "x" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`',
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The one validation pass over stored objects (decode.ts): Go-decoder types, then the API server's values.

describe('decodeObject: the types Go decodes into, with field paths', () => {
  const pod = newPod('p', 'node-a', DS, {hash: 'h'}) as unknown as Record<string, any>;
  const at = (object: Record<string, any>, path: readonly (string | number)[], value: unknown) => {
    const copy = structuredClone(object);
    let cursor = copy;
    for (const key of path.slice(0, -1)) cursor = cursor[key] ??= {};
    cursor[path[path.length - 1]!] = value;
    return copy;
  };
  const dsObject = DS as unknown as Record<string, any>;
  const rows: {name: string; kind: DecodedKind; value: unknown; error: string}[] = [
    {name: 'a DaemonSet that is a string', kind: 'DaemonSet', value: 'x', error: ': Invalid value: "x": must be an object'},
    {name: 'spec as a list', kind: 'DaemonSet', value: at(dsObject, ['spec'], []), error: 'spec: Invalid value: []: must be an object'},
    {
      name: 'minReadySeconds "abc"',
      kind: 'DaemonSet',
      value: at(dsObject, ['spec', 'minReadySeconds'], 'abc'),
      error: 'spec.minReadySeconds: Invalid value: "abc": must be an integer',
    },
    {
      name: 'minReadySeconds 1.5',
      kind: 'DaemonSet',
      value: at(dsObject, ['spec', 'minReadySeconds'], 1.5),
      error: 'spec.minReadySeconds: Invalid value: 1.5: must be an integer',
    },
    {
      name: 'minReadySeconds 2^31',
      kind: 'DaemonSet',
      value: at(dsObject, ['spec', 'minReadySeconds'], 2 ** 31),
      error: 'spec.minReadySeconds: Invalid value: 2147483648: must be an integer from -2147483648 to 2147483647',
    },
    {
      name: 'maxSurge true',
      kind: 'DaemonSet',
      value: at(dsObject, ['spec', 'updateStrategy', 'rollingUpdate', 'maxSurge'], true),
      error: 'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: true: must be an integer from -2147483648 to 2147483647 or a string such as "25%"',
    },
    {
      name: 'a label value that is a number',
      kind: 'Pod',
      value: at(pod, ['metadata', 'labels'], {app: 7}),
      error: 'metadata.labels[app]: Invalid value: 7: must be a string',
    },
    {
      name: 'labels as a list',
      kind: 'Pod',
      value: at(pod, ['metadata', 'labels'], ['a']),
      error: 'metadata.labels: Invalid value: ["a"]: must be a map of strings',
    },
    {name: 'nodeName a number', kind: 'Pod', value: at(pod, ['spec', 'nodeName'], 3), error: 'spec.nodeName: Invalid value: 3: must be a string'},
    {
      name: 'ready "yes"',
      kind: 'Pod',
      value: at(pod, ['status', 'containerStatuses'], [{name: 'c', ready: 'yes', restartCount: 0}]),
      error: 'status.containerStatuses[0].ready: Invalid value: "yes": must be a boolean',
    },
    {
      name: 'an impossible date',
      kind: 'Pod',
      value: at(pod, ['metadata', 'deletionTimestamp'], '2026-02-30T00:00:00Z'),
      error: 'metadata.deletionTimestamp: Invalid value: "2026-02-30T00:00:00Z": must be an RFC3339 time such as "2026-11-21T12:00:00Z"',
    },
    {name: 'taints as an object', kind: 'Node', value: {metadata: {name: 'n'}, spec: {taints: {}}}, error: 'spec.taints: Invalid value: {}: must be a list'},
    {
      name: 'a revision number as a string',
      kind: 'ControllerRevision',
      value: {metadata: {name: 'r'}, data: {}, revision: '1'},
      error: 'revision: Invalid value: "1": must be an integer',
    },
  ];
  test.each(rows)('$name', ({kind, value, error}) => {
    const decoded = decodeObject(kind, value);
    expect(decoded.object).toBeUndefined();
    expect(lines(decoded.errors)[0]).toBe(error);
  });

  test('null is Go\'s zero: absent fields, zero list elements, "" map values; null strings and times stay', () => {
    const input = {
      metadata: {name: 'p', labels: null, annotations: {a: null}, creationTimestamp: null},
      spec: {tolerations: [null], containers: null},
      status: {conditions: [null]},
    };
    expect(decodeObject('Pod', input).object).toEqual({
      metadata: {name: 'p', annotations: {a: ''}, creationTimestamp: null},
      spec: {tolerations: [{}]},
      status: {conditions: [{}]},
    });
  });

  test('Go structs that are absent decode as empty; a revision without number is 0', () => {
    expect(decodeObject('DaemonSet', {metadata: {name: 'x'}}).object).toEqual({metadata: {name: 'x'}, spec: {template: {spec: {}}}});
    expect(decodeObject('ControllerRevision', {metadata: {name: 'r'}, data: {}}).object).toMatchObject({revision: 0});
  });
});

describe('the value checks of stored objects, as the API server words them', () => {
  const pod = newPod('p', 'node-a', DS, {hash: 'h'});
  const node = newNode('node-a');
  const rows: {name: string; errors: FieldError[]; expected: string[]}[] = [
    {name: 'a valid pod', errors: validatePod(pod), expected: []},
    {name: 'a valid node', errors: validateNode(node), expected: []},
    {
      name: 'a zero toleration',
      errors: validatePod({...pod, spec: {...pod.spec, tolerations: [{}]}}),
      expected: ['spec.tolerations[0].operator: Invalid value: "": operator must be Exists when `key` is empty, which means "match all values and all keys"'],
    },
    {
      name: 'a toleration with a value and Exists',
      errors: validatePod({...pod, spec: {...pod.spec, tolerations: [{key: 'k', operator: 'Exists', value: 'v'}]}}),
      expected: ['spec.tolerations[0].operator: Invalid value: "v": value must be empty when `operator` is \'Exists\''],
    },
    {
      name: 'a toleration with a bad effect and tolerationSeconds',
      errors: validatePod({...pod, spec: {...pod.spec, tolerations: [{operator: 'Exists', effect: 'Never', tolerationSeconds: 5}]}}),
      expected: [
        'spec.tolerations[0].effect: Invalid value: "Never": effect must be \'NoExecute\' when `tolerationSeconds` is set',
        'spec.tolerations[0].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      ],
    },
    {
      name: 'no node selector terms',
      errors: validatePod({...pod, spec: {...pod.spec, affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}}}}}),
      expected: [
        'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term',
      ],
    },
    {
      name: 'a matchFields key that is not metadata.name',
      errors: validatePod({
        ...pod,
        spec: {
          ...pod.spec,
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: 'spec.x', operator: 'In', values: ['a']}]}]},
            },
          },
        },
      }),
      expected: [
        'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key: Invalid value: "spec.x": not a valid field selector key',
      ],
    },
    {
      name: 'a zero owner reference',
      errors: validatePod({...pod, metadata: {...pod.metadata, ownerReferences: [{} as never]}}),
      expected: [
        'metadata.ownerReferences[0].apiVersion: Invalid value: "": version must not be empty',
        'metadata.ownerReferences[0].kind: Invalid value: "": kind must not be empty',
        'metadata.ownerReferences[0].name: Invalid value: "": name must not be empty',
        'metadata.ownerReferences[0].uid: Invalid value: "": uid must not be empty',
      ],
    },
    {
      name: 'a condition without type',
      errors: validatePod({...pod, status: {conditions: [{} as never]}}),
      expected: ['status.conditions[0].type: Required value'],
    },
    {
      name: 'a 64-character namespace',
      errors: validatePod({...pod, metadata: {...pod.metadata, namespace: 'n'.repeat(64)}}),
      expected: [`metadata.namespace: Invalid value: "${'n'.repeat(64)}": must be no more than 63 characters`],
    },
    {
      name: 'a zero taint',
      errors: validateNode({...node, spec: {taints: [{} as never]}}),
      expected: [
        `spec.taints[0].key: Invalid value: "": name part must be non-empty`,
        `spec.taints[0].key: Invalid value: "": ${NAME_PART_MSG}`,
        'spec.taints[0].effect: Required value',
      ],
    },
    {
      name: 'the same taint twice',
      errors: validateNode({
        ...node,
        spec: {
          taints: [
            {key: 'a', effect: 'NoSchedule'},
            {key: 'a', value: 'x', effect: 'NoSchedule'},
          ],
        },
      }),
      expected: ['spec.taints[1]: Duplicate value: "a:NoSchedule": taints must be unique by key and effect pair'],
    },
    {
      name: 'a revision without data, negative',
      errors: validateControllerRevision({metadata: {name: 'r', namespace: 'd'}, revision: -1}),
      expected: ['data: Required value: data is mandatory', 'revision: Invalid value: -1: must be greater than or equal to 0'],
    },
    {
      name: 'a namespace name of 300 characters',
      errors: validateNamespace({name: 'a'.repeat(300)}),
      expected: ['metadata.name: Invalid value: "' + 'a'.repeat(300) + '": must be no more than 63 characters'],
    },
  ];
  test.each(rows)('$name', ({errors, expected}) => expect(lines(errors)).toEqual(expected));
});

describe('readStoredObjects: one pass, then duplicates named with both places', () => {
  const pod = newPod('p', 'node-a', DS, {hash: 'h'});
  test('duplicates by name (default namespace implied) and by uid', () => {
    const {problems, objects} = readStoredObjects([
      {kind: 'Pod', value: pod, where: 'items[0]'},
      {kind: 'Pod', value: {...pod, metadata: {...pod.metadata, namespace: undefined}}, where: 'items[1]'},
      {kind: 'Pod', value: {...pod, metadata: {...pod.metadata, name: 'q'}}, where: 'items[2]'},
      {kind: 'Node', value: newNode('n'), where: 'items[3]'},
      {kind: 'Node', value: {...newNode('n'), metadata: {...newNode('n').metadata, uid: 'other'}}, where: 'items[4]'},
    ]);
    expect(problems).toEqual([
      'items[1]: Duplicate value: Pod default/p is also items[0]',
      'items[2]: Duplicate value: Pod default/q has the uid "pod-uid-p" of items[0]',
      'items[4]: Duplicate value: Node n is also items[3]',
    ]);
    expect(objects.pods).toHaveLength(3);
  });

  test('a stored DaemonSet the API server would not admit now but the controller acts on passes (planned with a warning)', () => {
    const zero = {...DS, spec: {...DS.spec, updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 0, maxSurge: 0}}}};
    expect(readStoredObjects([{kind: 'DaemonSet', value: zero, where: 'items[0]'}]).problems).toEqual([]);
  });

  test('the first error of an object names where it was and what it is', () => {
    const {problems} = readStoredObjects([{kind: 'Pod', value: {...pod, spec: {...pod.spec, tolerations: [null]}}, where: 'items[9]'}]);
    expect(problems[0]).toMatch(/^items\[9\]\.spec\.tolerations\[0\]\.operator: Invalid value: "": .* \(Pod default\/p\)$/);
  });
});
