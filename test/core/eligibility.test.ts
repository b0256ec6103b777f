import {describe, expect, test} from 'vitest';
import {
  addOrUpdateDaemonPodTolerations,
  eligibilityCheckerFor,
  findMatchingUntoleratedTaint,
  getTargetNodeName,
  nodeMatchesNodeSelectorTerms,
  nodeShouldRunDaemonPod,
  replaceDaemonSetPodNodeNameNodeAffinity,
  requiredNodeAffinityMatches,
  toleratesTaint,
} from '../../src/core/eligibility.js';
import type {Affinity, DaemonSet, Node, NodeSelectorTerm, Pod, PodSpec, Taint, Toleration} from '../../src/core/types.js';
import {newDaemonSet, newNode, newPod, withTaints, withTolerations} from '../helpers/builders.js';

function withSpec(ds: DaemonSet, spec: Partial<PodSpec>): DaemonSet {
  return {...ds, spec: {...ds.spec, template: {...ds.spec.template, spec: {...ds.spec.template.spec, ...spec}}}};
}

function requiredAffinity(...terms: NodeSelectorTerm[]): Affinity {
  return {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: terms}}};
}

const NOT_READY_NO_EXECUTE: Taint = {key: 'node.kubernetes.io/not-ready', effect: 'NoExecute'};
const NOT_READY_NO_SCHEDULE: Taint = {key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule'};
const UNREACHABLE_NO_EXECUTE: Taint = {key: 'node.kubernetes.io/unreachable', effect: 'NoExecute'};
const NO_SCHEDULE_TAINT: Taint = {key: 'dedicated', value: 'user1', effect: 'NoSchedule'};
const NO_EXECUTE_TAINT: Taint = {key: 'dedicated', value: 'user1', effect: 'NoExecute'};
const NO_SCHEDULE_TOLERATION: Toleration = {key: 'dedicated', value: 'user1', effect: 'NoSchedule'};

// ---------------------------------------------------------------------------------------------

describe('toleratesTaint', () => {
  // Rows from staging/src/k8s.io/api/core/v1/toleration_test.go TestTolerationToleratesTaint, plus our own.
  const rows: {name: string; toleration: Toleration; taint: Taint; gate?: boolean; want: boolean}[] = [
    {
      name: 'same key and effect, Exists, taint without value',
      toleration: {key: 'foo', operator: 'Exists', effect: 'NoSchedule'},
      taint: {key: 'foo', effect: 'NoSchedule'},
      want: true,
    },
    {
      name: 'same key and effect, Exists, taint with value',
      toleration: {key: 'foo', operator: 'Exists', effect: 'NoSchedule'},
      taint: {key: 'foo', value: 'bar', effect: 'NoSchedule'},
      want: true,
    },
    {
      name: 'empty key with Exists matches every key',
      toleration: {key: '', operator: 'Exists', effect: 'NoSchedule'},
      taint: {key: 'foo', value: 'bar', effect: 'NoSchedule'},
      want: true,
    },
    {
      name: 'same key, effect and value, Equal',
      toleration: {key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule'},
      taint: {key: 'foo', value: 'bar', effect: 'NoSchedule'},
      want: true,
    },
    {
      name: 'different values, Equal',
      toleration: {key: 'foo', operator: 'Equal', value: 'value1', effect: 'NoSchedule'},
      taint: {key: 'foo', value: 'value2', effect: 'NoSchedule'},
      want: false,
    },
    {
      name: 'different effects',
      toleration: {key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule'},
      taint: {key: 'foo', value: 'bar', effect: 'NoExecute'},
      want: false,
    },
    {name: 'empty operator means Equal', toleration: {key: 'foo', value: 'bar'}, taint: {key: 'foo', value: 'bar', effect: 'NoExecute'}, want: true},
    {name: 'empty operator, both values empty', toleration: {key: 'foo'}, taint: {key: 'foo', effect: 'NoSchedule'}, want: true},
    {name: 'empty effect matches every effect', toleration: {key: 'foo', operator: 'Exists'}, taint: {key: 'foo', effect: 'NoExecute'}, want: true},
    {name: 'different key', toleration: {key: 'foo', operator: 'Exists'}, taint: {key: 'bar', effect: 'NoExecute'}, want: false},
    {
      name: 'unknown operator tolerates nothing',
      toleration: {key: 'foo', operator: 'Matches', value: 'bar'},
      taint: {key: 'foo', value: 'bar', effect: 'NoSchedule'},
      want: false,
    },
    {
      name: 'Gt with the gate off tolerates nothing',
      toleration: {key: 'sla', operator: 'Gt', value: '750'},
      taint: {key: 'sla', value: '950', effect: 'NoSchedule'},
      want: false,
    },
    {
      name: 'Gt, taint value below',
      toleration: {key: 'sla', operator: 'Gt', value: '950'},
      taint: {key: 'sla', value: '800', effect: 'NoSchedule'},
      gate: true,
      want: false,
    },
    {
      name: 'Gt, taint value above',
      toleration: {key: 'sla', operator: 'Gt', value: '750'},
      taint: {key: 'sla', value: '950', effect: 'NoSchedule'},
      gate: true,
      want: true,
    },
    {
      name: 'Lt, taint value above',
      toleration: {key: 'sla', operator: 'Lt', value: '800'},
      taint: {key: 'sla', value: '950', effect: 'NoSchedule'},
      gate: true,
      want: false,
    },
    {
      name: 'Lt, taint value below',
      toleration: {key: 'sla', operator: 'Lt', value: '950'},
      taint: {key: 'sla', value: '800', effect: 'NoSchedule'},
      gate: true,
      want: true,
    },
    {
      name: 'Gt, equal values',
      toleration: {key: 'sla', operator: 'Gt', value: '950'},
      taint: {key: 'sla', value: '950', effect: 'NoSchedule'},
      gate: true,
      want: false,
    },
    {
      name: 'Gt, non-numeric taint value',
      toleration: {key: 'sla', operator: 'Gt', value: '950'},
      taint: {key: 'sla', value: 'high', effect: 'NoSchedule'},
      gate: true,
      want: false,
    },
    {
      name: 'Gt, negative values',
      toleration: {key: 'k', operator: 'Gt', value: '-100'},
      taint: {key: 'k', value: '-200', effect: 'NoSchedule'},
      gate: true,
      want: false,
    },
    {
      name: 'Gt, large int64 threshold',
      toleration: {key: 'k', operator: 'Gt', value: '9223372036854775806'},
      taint: {key: 'k', value: '100', effect: 'NoSchedule'},
      gate: true,
      want: false,
    },
    {
      name: 'Lt, int64 precision beyond doubles',
      toleration: {key: 'k', operator: 'Lt', value: '9223372036854775807'},
      taint: {key: 'k', value: '9223372036854775806', effect: 'NoSchedule'},
      gate: true,
      want: true,
    },
    {
      name: 'Gt, taint value out of int64 range',
      toleration: {key: 'k', operator: 'Gt', value: '1'},
      taint: {key: 'k', value: '9223372036854775808', effect: 'NoSchedule'},
      gate: true,
      want: false,
    },
  ];
  test.each(rows)('$name', ({toleration, taint, gate, want}) => {
    expect(toleratesTaint(toleration, taint, {taintTolerationComparisonOperators: gate ?? false})).toBe(want);
  });
});

describe('findMatchingUntoleratedTaint', () => {
  const rows: {name: string; taints: Taint[]; tolerations: Toleration[]; effects: string[]; want: Taint | undefined}[] = [
    {name: 'no taints', taints: [], tolerations: [], effects: ['NoSchedule', 'NoExecute'], want: undefined},
    {name: 'untolerated NoSchedule', taints: [NO_SCHEDULE_TAINT], tolerations: [], effects: ['NoSchedule', 'NoExecute'], want: NO_SCHEDULE_TAINT},
    {name: 'tolerated NoSchedule', taints: [NO_SCHEDULE_TAINT], tolerations: [NO_SCHEDULE_TOLERATION], effects: ['NoSchedule'], want: undefined},
    {name: 'effect filtered out', taints: [NO_SCHEDULE_TAINT], tolerations: [], effects: ['NoExecute'], want: undefined},
    {
      name: 'PreferNoSchedule is ignored by the daemon filter',
      taints: [{key: 'a', effect: 'PreferNoSchedule'}],
      tolerations: [],
      effects: ['NoSchedule', 'NoExecute'],
      want: undefined,
    },
    {
      name: 'first untolerated in node order',
      taints: [NO_SCHEDULE_TAINT, NO_EXECUTE_TAINT, {key: 'b', effect: 'NoSchedule'}],
      tolerations: [NO_SCHEDULE_TOLERATION],
      effects: ['NoSchedule', 'NoExecute'],
      want: NO_EXECUTE_TAINT,
    },
  ];
  test.each(rows)('$name', ({taints, tolerations, effects, want}) => {
    expect(findMatchingUntoleratedTaint(taints, tolerations, effects)).toEqual(want);
  });
});

// ---------------------------------------------------------------------------------------------

describe('addOrUpdateDaemonPodTolerations', () => {
  const defaults = (hostNetwork: boolean): Toleration[] => [
    {key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute'},
    {key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute'},
    {key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule'},
    {key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule'},
    {key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule'},
    {key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule'},
    ...(hostNetwork ? [{key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule'}] : []),
  ];
  const rows: {name: string; input: Toleration[] | undefined; hostNetwork: boolean; want: Toleration[]}[] = [
    {name: 'no tolerations: the six defaults in upstream order', input: undefined, hostNetwork: false, want: defaults(false)},
    {name: 'hostNetwork adds network-unavailable last', input: [], hostNetwork: true, want: defaults(true)},
    {name: "template's own first, then the defaults", input: [NO_SCHEDULE_TOLERATION], hostNetwork: false, want: [NO_SCHEDULE_TOLERATION, ...defaults(false)]},
    {
      name: 'an identical default is not duplicated and keeps its position',
      input: [NO_SCHEDULE_TOLERATION, {key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule'}],
      hostNetwork: false,
      want: [NO_SCHEDULE_TOLERATION, {key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule'}, ...defaults(false).slice(0, 5)],
    },
    {
      name: 'a default with tolerationSeconds is overwritten in place (tolerate forever)',
      input: [{key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300}, NO_SCHEDULE_TOLERATION],
      hostNetwork: false,
      want: [{key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute'}, NO_SCHEDULE_TOLERATION, ...defaults(false).slice(1)],
    },
    {
      name: 'a broader toleration does not suppress a default (match is by key/operator/value/effect)',
      input: [{operator: 'Exists'}],
      hostNetwork: false,
      want: [{operator: 'Exists'}, ...defaults(false)],
    },
  ];
  test.each(rows)('$name', ({input, hostNetwork, want}) => {
    const before = input === undefined ? undefined : structuredClone(input);
    expect(addOrUpdateDaemonPodTolerations(input, hostNetwork)).toEqual(want);
    expect(input).toEqual(before);
  });
});

// ---------------------------------------------------------------------------------------------

function labelled(name: string, labels: Record<string, string>): Node {
  return {metadata: {name, labels}};
}

describe('requiredNodeAffinityMatches', () => {
  // Rows from nodeaffinity_test.go TestPodMatchesNodeSelectorAndAffinityTerms and TestNodeSelectorMatch, plus our own.
  const rows: {name: string; spec: Partial<PodSpec>; labels?: Record<string, string>; nodeName?: string; want: boolean}[] = [
    {name: 'no selector', spec: {}, want: true},
    {name: 'missing labels', spec: {nodeSelector: {foo: 'bar'}}, want: false},
    {name: 'same labels', spec: {nodeSelector: {foo: 'bar'}}, labels: {foo: 'bar'}, want: true},
    {name: 'node labels are superset', spec: {nodeSelector: {foo: 'bar'}}, labels: {foo: 'bar', baz: 'blah'}, want: true},
    {name: 'node labels are subset', spec: {nodeSelector: {foo: 'bar', baz: 'blah'}}, labels: {foo: 'bar'}, want: false},
    {name: 'nodeSelector with empty value needs the key', spec: {nodeSelector: {foo: ''}}, labels: {}, want: false},
    {
      name: 'In matches',
      spec: {affinity: requiredAffinity({matchExpressions: [{key: 'foo', operator: 'In', values: ['bar', 'value2']}]})},
      labels: {foo: 'bar'},
      want: true,
    },
    {
      name: 'Gt matches',
      spec: {affinity: requiredAffinity({matchExpressions: [{key: 'kernel-version', operator: 'Gt', values: ['0204']}]})},
      labels: {'kernel-version': '0206'},
      want: true,
    },
    {
      name: 'Gt equal does not match',
      spec: {affinity: requiredAffinity({matchExpressions: [{key: 'v', operator: 'Gt', values: ['7']}]})},
      labels: {v: '7'},
      want: false,
    },
    {name: 'Lt matches', spec: {affinity: requiredAffinity({matchExpressions: [{key: 'v', operator: 'Lt', values: ['7']}]})}, labels: {v: '6'}, want: true},
    {
      name: 'Lt with non-numeric node label',
      spec: {affinity: requiredAffinity({matchExpressions: [{key: 'v', operator: 'Lt', values: ['7']}]})},
      labels: {v: 'six'},
      want: false,
    },
    {
      name: 'Lt with missing node label',
      spec: {affinity: requiredAffinity({matchExpressions: [{key: 'v', operator: 'Lt', values: ['7']}]})},
      labels: {},
      want: false,
    },
    {
      name: 'Gt with two values is invalid',
      spec: {affinity: requiredAffinity({matchExpressions: [{key: 'v', operator: 'Gt', values: ['1', '2']}]})},
      labels: {v: '9'},
      want: false,
    },
    {
      name: 'Gt with a non-integer value is invalid',
      spec: {affinity: requiredAffinity({matchExpressions: [{key: 'v', operator: 'Gt', values: ['1.5']}]})},
      labels: {v: '9'},
      want: false,
    },
    {
      name: 'Gt with a negative value is not a valid label value',
      spec: {affinity: requiredAffinity({matchExpressions: [{key: 'v', operator: 'Gt', values: ['-1']}]})},
      labels: {v: '9'},
      want: false,
    },
    {
      name: 'NotIn matches',
      spec: {affinity: requiredAffinity({matchExpressions: [{key: 'mem-type', operator: 'NotIn', values: ['DDR', 'DDR2']}]})},
      labels: {'mem-type': 'DDR3'},
      want: true,
    },
    {
      name: 'NotIn matches an absent key',
      spec: {affinity: requiredAffinity({matchExpressions: [{key: 'mem-type', operator: 'NotIn', values: ['DDR']}]})},
      labels: {},
      want: true,
    },
    {
      name: 'Exists matches',
      spec: {affinity: requiredAffinity({matchExpressions: [{key: 'GPU', operator: 'Exists'}]})},
      labels: {GPU: 'NVIDIA-GRID-K1'},
      want: true,
    },
    {name: 'DoesNotExist', spec: {affinity: requiredAffinity({matchExpressions: [{key: 'GPU', operator: 'DoesNotExist'}]})}, labels: {GPU: 'x'}, want: false},
    {
      name: 'Exists with values is invalid',
      spec: {affinity: requiredAffinity({matchExpressions: [{key: 'GPU', operator: 'Exists', values: ['x']}]})},
      labels: {GPU: 'x'},
      want: false,
    },
    {
      name: 'In without values is invalid',
      spec: {affinity: requiredAffinity({matchExpressions: [{key: 'GPU', operator: 'In', values: []}]})},
      labels: {GPU: 'x'},
      want: false,
    },
    {
      name: 'unknown operator is invalid',
      spec: {affinity: requiredAffinity({matchExpressions: [{key: 'GPU', operator: 'Like', values: ['x']}]})},
      labels: {GPU: 'x'},
      want: false,
    },
    {
      name: 'affinity not matching labels',
      spec: {affinity: requiredAffinity({matchExpressions: [{key: 'foo', operator: 'In', values: ['value1', 'value2']}]})},
      labels: {foo: 'bar'},
      want: false,
    },
    {
      name: 'nil term list matches nothing',
      spec: {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: undefined as never}}}},
      labels: {foo: 'bar'},
      want: false,
    },
    {name: 'empty term list matches nothing', spec: {affinity: requiredAffinity()}, labels: {foo: 'bar'}, want: false},
    {name: 'empty matchExpressions term matches nothing', spec: {affinity: requiredAffinity({matchExpressions: []})}, labels: {foo: 'bar'}, want: false},
    {name: 'no affinity', spec: {affinity: {}}, labels: {foo: 'bar'}, want: true},
    {name: 'affinity without required selector', spec: {affinity: {nodeAffinity: {}}}, labels: {foo: 'bar'}, want: true},
    {
      name: 'multiple expressions ANDed, matching',
      spec: {
        affinity: requiredAffinity({
          matchExpressions: [
            {key: 'GPU', operator: 'Exists'},
            {key: 'GPU', operator: 'NotIn', values: ['AMD', 'INTER']},
          ],
        }),
      },
      labels: {GPU: 'NVIDIA-GRID-K1'},
      want: true,
    },
    {
      name: 'multiple expressions ANDed, not matching',
      spec: {
        affinity: requiredAffinity({
          matchExpressions: [
            {key: 'GPU', operator: 'Exists'},
            {key: 'GPU', operator: 'In', values: ['AMD', 'INTER']},
          ],
        }),
      },
      labels: {GPU: 'NVIDIA-GRID-K1'},
      want: false,
    },
    {
      name: 'terms ORed, second matches',
      spec: {
        affinity: requiredAffinity(
          {matchExpressions: [{key: 'foo', operator: 'In', values: ['bar', 'value2']}]},
          {matchExpressions: [{key: 'diffkey', operator: 'In', values: ['wrong', 'value2']}]},
        ),
      },
      labels: {foo: 'bar'},
      want: true,
    },
    {
      name: 'affinity and nodeSelector both satisfied',
      spec: {nodeSelector: {foo: 'bar'}, affinity: requiredAffinity({matchExpressions: [{key: 'foo', operator: 'Exists'}]})},
      labels: {foo: 'bar'},
      want: true,
    },
    {
      name: 'affinity satisfied but nodeSelector not',
      spec: {nodeSelector: {foo: 'bar'}, affinity: requiredAffinity({matchExpressions: [{key: 'foo', operator: 'Exists'}]})},
      labels: {foo: 'barrrrrr'},
      want: false,
    },
    {
      name: 'invalid value in term',
      spec: {affinity: requiredAffinity({matchExpressions: [{key: 'foo', operator: 'NotIn', values: ['invalid value: ___@#$%^']}]})},
      labels: {foo: 'bar'},
      want: false,
    },
    {
      name: 'invalid key in term',
      spec: {affinity: requiredAffinity({matchExpressions: [{key: 'invalid key', operator: 'DoesNotExist'}]})},
      labels: {},
      want: false,
    },
    {
      name: 'matchFields In matches',
      spec: {affinity: requiredAffinity({matchFields: [{key: 'metadata.name', operator: 'In', values: ['node_1']}]})},
      nodeName: 'node_1',
      want: true,
    },
    {
      name: 'matchFields In does not match',
      spec: {affinity: requiredAffinity({matchFields: [{key: 'metadata.name', operator: 'In', values: ['node_1']}]})},
      nodeName: 'node_2',
      want: false,
    },
    {
      name: 'matchFields NotIn',
      spec: {affinity: requiredAffinity({matchFields: [{key: 'metadata.name', operator: 'NotIn', values: ['node_1']}]})},
      nodeName: 'node_2',
      want: true,
    },
    {
      name: 'matchFields with two values is invalid',
      spec: {affinity: requiredAffinity({matchFields: [{key: 'metadata.name', operator: 'In', values: ['node_1', 'node_2']}]})},
      nodeName: 'node_1',
      want: false,
    },
    {
      name: 'matchFields Exists is invalid',
      spec: {affinity: requiredAffinity({matchFields: [{key: 'metadata.name', operator: 'Exists'}]})},
      nodeName: 'node_1',
      want: false,
    },
    {
      name: 'invalid term does not spoil a valid one',
      spec: {
        affinity: requiredAffinity(
          {matchFields: [{key: 'metadata.name', operator: 'In', values: ['a', 'b']}]},
          {matchExpressions: [{key: 'foo', operator: 'In', values: ['bar']}]},
        ),
      },
      labels: {foo: 'bar'},
      nodeName: 'x',
      want: true,
    },
    {
      name: 'two terms: fields do not match, expressions do',
      spec: {
        affinity: requiredAffinity(
          {matchFields: [{key: 'metadata.name', operator: 'In', values: ['node_1']}]},
          {matchExpressions: [{key: 'foo', operator: 'In', values: ['bar']}]},
        ),
      },
      nodeName: 'node_2',
      labels: {foo: 'bar'},
      want: true,
    },
    {
      name: 'one term: fields do not match, expressions do',
      spec: {
        affinity: requiredAffinity({
          matchFields: [{key: 'metadata.name', operator: 'In', values: ['node_1']}],
          matchExpressions: [{key: 'foo', operator: 'In', values: ['bar']}],
        }),
      },
      nodeName: 'node_2',
      labels: {foo: 'bar'},
      want: false,
    },
    {
      name: 'one term: both match',
      spec: {
        affinity: requiredAffinity({
          matchFields: [{key: 'metadata.name', operator: 'In', values: ['node_1']}],
          matchExpressions: [{key: 'foo', operator: 'In', values: ['bar']}],
        }),
      },
      nodeName: 'node_1',
      labels: {foo: 'bar'},
      want: true,
    },
    {
      name: 'two terms: neither matches',
      spec: {
        affinity: requiredAffinity(
          {matchFields: [{key: 'metadata.name', operator: 'In', values: ['node_1']}]},
          {matchExpressions: [{key: 'foo', operator: 'In', values: ['not-match-to-bar']}]},
        ),
      },
      nodeName: 'node_2',
      labels: {foo: 'bar'},
      want: false,
    },
  ];
  test.each(rows)('$name', ({spec, labels, nodeName, want}) => {
    const node = labelled(nodeName ?? 'some-node', labels ?? {});
    expect(requiredNodeAffinityMatches({containers: [], ...spec}, node)).toBe(want);
  });
});

describe('nodeMatchesNodeSelectorTerms', () => {
  const rows: {name: string; terms: NodeSelectorTerm[]; node: Node; want: boolean}[] = [
    {name: 'no terms', terms: [], node: labelled('a', {}), want: false},
    {name: 'label term', terms: [{matchExpressions: [{key: 'zone', operator: 'In', values: ['z1']}]}], node: labelled('a', {zone: 'z1'}), want: true},
    {name: 'field term', terms: [{matchFields: [{key: 'metadata.name', operator: 'In', values: ['a']}]}], node: labelled('a', {}), want: true},
    {name: 'field term, other node', terms: [{matchFields: [{key: 'metadata.name', operator: 'In', values: ['a']}]}], node: labelled('b', {}), want: false},
  ];
  test.each(rows)('$name', ({terms, node, want}) => {
    expect(nodeMatchesNodeSelectorTerms(node, terms)).toBe(want);
  });
});

// ---------------------------------------------------------------------------------------------

describe('nodeShouldRunDaemonPod', () => {
  const simpleLabels = {name: 'simple-daemon', type: 'production'};
  const base = newDaemonSet('simple');
  // TestNodeShouldRunDaemonPod cases, TestTaintedNode*/NotReady/Unreachable/pressure tests, plus our own; each
  // row also names the reason a person would read.
  const rows: {name: string; ds: DaemonSet; node: Node; want: [boolean, boolean]; reason: string}[] = [
    {name: 'ShouldRunDaemonPod', ds: base, node: newNode('test-node', simpleLabels), want: [true, true], reason: ''},
    {
      name: 'resources and host ports are not considered',
      ds: withSpec(base, {containers: [{name: 'c', ports: [{containerPort: 80, hostPort: 666}], resources: {requests: {memory: '200M', cpu: '0.5'}}}]}),
      node: newNode('test-node', simpleLabels),
      want: [true, true],
      reason: '',
    },
    {
      name: 'ErrPodNotMatchHostName',
      ds: withSpec(base, {nodeName: 'other-node'}),
      node: newNode('test-node'),
      want: [false, false],
      reason: 'nodeName pins the template to other-node',
    },
    {name: 'template nodeName equal to the node', ds: withSpec(base, {nodeName: 'test-node'}), node: newNode('test-node'), want: [true, true], reason: ''},
    {
      name: 'ErrNodeSelectorNotMatch',
      ds: withSpec(base, {nodeSelector: {name: 'simple-daemon', type: 'test'}}),
      node: newNode('test-node', simpleLabels),
      want: [false, false],
      reason: 'nodeSelector type=test does not match',
    },
    {name: 'nodeSelector matches', ds: withSpec(base, {nodeSelector: simpleLabels}), node: newNode('test-node', simpleLabels), want: [true, true], reason: ''},
    {
      name: 'nodeSelector missing label',
      ds: withSpec(base, {nodeSelector: {disktype: 'ssd'}}),
      node: newNode('test-node'),
      want: [false, false],
      reason: 'nodeSelector disktype=ssd does not match',
    },
    {
      name: 'ErrPodAffinityNotMatch',
      ds: withSpec(base, {affinity: requiredAffinity({matchExpressions: [{key: 'type', operator: 'In', values: ['test']}]})}),
      node: newNode('test-node', simpleLabels),
      want: [false, false],
      reason: 'required node affinity does not match',
    },
    {
      name: 'affinity matches',
      ds: withSpec(base, {affinity: requiredAffinity({matchExpressions: [{key: 'type', operator: 'In', values: ['production']}]})}),
      node: newNode('test-node', simpleLabels),
      want: [true, true],
      reason: '',
    },
    {
      name: 'ShouldRunDaemonPodOnUnschedulableNode (spec.unschedulable alone does not matter)',
      ds: base,
      node: {...newNode('test-node'), spec: {unschedulable: true}},
      want: [true, true],
      reason: '',
    },
    {
      name: 'node conditions do not matter',
      ds: base,
      node: {...newNode('test-node'), status: {conditions: [{type: 'Ready', status: 'False'}]}},
      want: [true, true],
      reason: '',
    },
    {
      name: 'cordoned node: unschedulable taint tolerated by default',
      ds: base,
      node: withTaints(newNode('n'), {key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule'}),
      want: [true, true],
      reason: '',
    },
    {
      name: 'TaintedNodeDaemonDoesNotLaunchIntolerantPod',
      ds: base,
      node: withTaints(newNode('n'), NO_SCHEDULE_TAINT),
      want: [false, true],
      reason: 'taint dedicated=user1:NoSchedule is not tolerated',
    },
    {
      name: 'TaintedNodeDaemonLaunchesToleratePod',
      ds: withTolerations(base, NO_SCHEDULE_TOLERATION),
      node: withTaints(newNode('n'), NO_SCHEDULE_TAINT),
      want: [true, true],
      reason: '',
    },
    {
      name: 'NoExecute taint evicts',
      ds: base,
      node: withTaints(newNode('n'), NO_EXECUTE_TAINT),
      want: [false, false],
      reason: 'taint dedicated=user1:NoExecute is not tolerated',
    },
    {
      name: 'NoSchedule first, NoExecute second: reason names the evicting taint',
      ds: base,
      node: withTaints(newNode('n'), {key: 'a', effect: 'NoSchedule'}, {key: 'b', value: 'x', effect: 'NoExecute'}),
      want: [false, false],
      reason: 'taint b=x:NoExecute is not tolerated',
    },
    {name: 'PreferNoSchedule is ignored', ds: base, node: withTaints(newNode('n'), {key: 'a', effect: 'PreferNoSchedule'}), want: [true, true], reason: ''},
    {
      name: 'NotReadyNodeDaemonLaunchesPod (upstream: NoExecute taint only)',
      ds: base,
      node: withTaints(newNode('n'), NOT_READY_NO_EXECUTE),
      want: [true, true],
      reason: '',
    },
    {name: 'UnreachableNodeDaemonLaunchesPod', ds: base, node: withTaints(newNode('n'), UNREACHABLE_NO_EXECUTE), want: [true, true], reason: ''},
    {
      name: 'real NotReady node (NoSchedule and NoExecute): keep the pod, create none',
      ds: base,
      node: withTaints(newNode('n'), NOT_READY_NO_SCHEDULE, NOT_READY_NO_EXECUTE),
      want: [false, true],
      reason: 'taint node.kubernetes.io/not-ready:NoSchedule is not tolerated (node not ready)',
    },
    {
      name: 'TaintPressureNodeDaemonLaunchesPod',
      ds: base,
      node: withTaints(
        newNode('n'),
        {key: 'node.kubernetes.io/disk-pressure', effect: 'NoSchedule'},
        {key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule'},
        {key: 'node.kubernetes.io/pid-pressure', effect: 'NoSchedule'},
      ),
      want: [true, true],
      reason: '',
    },
    {
      name: 'network-unavailable without hostNetwork',
      ds: base,
      node: withTaints(newNode('n'), {key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule'}),
      want: [false, true],
      reason: 'taint node.kubernetes.io/network-unavailable:NoSchedule is not tolerated (network unavailable)',
    },
    {
      name: 'network-unavailable with hostNetwork',
      ds: withSpec(base, {hostNetwork: true}),
      node: withTaints(newNode('n'), {key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule'}),
      want: [true, true],
      reason: '',
    },
    {
      name: 'template toleration with tolerationSeconds is made permanent for NoExecute',
      ds: withTolerations(base, {key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5}),
      node: withTaints(newNode('n'), UNREACHABLE_NO_EXECUTE),
      want: [true, true],
      reason: '',
    },
    {
      name: 'Gt toleration without the gate',
      ds: withTolerations(base, {key: 'sla', operator: 'Gt', value: '100', effect: 'NoSchedule'}),
      node: withTaints(newNode('n'), {key: 'sla', value: '200', effect: 'NoSchedule'}),
      want: [false, true],
      reason: 'taint sla=200:NoSchedule is not tolerated',
    },
  ];

  describe.each(['OnDelete', 'RollingUpdate'])('%s', (type) => {
    test.each(rows)('$name', ({ds, node, want, reason}) => {
      const withStrategy: DaemonSet = {...ds, spec: {...ds.spec, updateStrategy: {type}}};
      const got = nodeShouldRunDaemonPod(node, withStrategy);
      expect([got.shouldRun, got.shouldContinueRunning]).toEqual(want);
      expect(got.reason).toBe(reason);
    });
  });

  test('eligibilityCheckerFor gives the same answers as nodeShouldRunDaemonPod', () => {
    const ds = withSpec(base, {nodeSelector: {zone: 'a'}});
    const check = eligibilityCheckerFor(ds);
    for (const node of [newNode('x', {zone: 'a'}), newNode('y', {zone: 'b'}), withTaints(newNode('z', {zone: 'a'}), NO_EXECUTE_TAINT)]) {
      expect(check(node)).toEqual(nodeShouldRunDaemonPod(node, ds));
    }
  });

  test('the comparison-operator gate reaches the taint check', () => {
    const ds = withTolerations(base, {key: 'sla', operator: 'Gt', value: '100', effect: 'NoSchedule'});
    const node = withTaints(newNode('n'), {key: 'sla', value: '200', effect: 'NoSchedule'});
    expect(nodeShouldRunDaemonPod(node, ds, {taintTolerationComparisonOperators: true}).shouldRun).toBe(true);
  });

  test('does not mutate the DaemonSet or the node', () => {
    const ds = withTolerations(base, NO_SCHEDULE_TOLERATION);
    const node = withTaints(newNode('n'), NO_SCHEDULE_TAINT);
    const [dsBefore, nodeBefore] = [structuredClone(ds), structuredClone(node)];
    nodeShouldRunDaemonPod(node, ds);
    expect(ds).toEqual(dsBefore);
    expect(node).toEqual(nodeBefore);
  });
});

// ---------------------------------------------------------------------------------------------

describe('getTargetNodeName', () => {
  const ds = newDaemonSet('foo');
  const pinned = (...values: string[]): Pod => ({
    metadata: {name: 'p'},
    spec: {containers: [], affinity: requiredAffinity({matchFields: [{key: 'metadata.name', operator: 'In', values}]})},
  });
  // Rows from daemonset_util_test.go TestGetTargetNodeName, plus our own.
  const rows: {name: string; pod: Pod; want: string | undefined}[] = [
    {name: 'spec.nodeName', pod: {metadata: {name: 'pod1'}, spec: {nodeName: 'node-1', containers: []}}, want: 'node-1'},
    {name: 'matchFields In with one value', pod: pinned('node-1'), want: 'node-1'},
    {name: 'matchFields In with two values', pod: pinned('node-1', 'node-2'), want: undefined},
    {name: 'no affinity', pod: {metadata: {name: 'pod4'}, spec: {containers: []}}, want: undefined},
    {name: 'nodeName wins over affinity', pod: newPod('p', 'node-a', ds), want: 'node-a'},
    {name: 'unbound daemon pod uses the affinity pin', pod: newPod('p', 'node-b', ds, {bound: false}), want: 'node-b'},
    {
      name: 'first metadata.name In across terms, skipping other requirements',
      pod: {
        metadata: {name: 'p'},
        spec: {
          containers: [],
          affinity: requiredAffinity(
            {matchExpressions: [{key: 'zone', operator: 'In', values: ['z']}]},
            {
              matchFields: [
                {key: 'metadata.name', operator: 'NotIn', values: ['x']},
                {key: 'metadata.name', operator: 'In', values: ['node-c']},
              ],
            },
            {matchFields: [{key: 'metadata.name', operator: 'In', values: ['node-d']}]},
          ),
        },
      },
      want: 'node-c',
    },
    {name: 'empty term list', pod: {metadata: {name: 'p'}, spec: {containers: [], affinity: requiredAffinity()}}, want: undefined},
  ];
  test.each(rows)('$name', ({pod, want}) => {
    expect(getTargetNodeName(pod)).toBe(want);
  });
});

describe('replaceDaemonSetPodNodeNameNodeAffinity', () => {
  const pin = (node: string): Affinity => requiredAffinity({matchFields: [{key: 'metadata.name', operator: 'In', values: [node]}]});
  const preferred = [{weight: 1, preference: {matchExpressions: [{key: 'kubernetes.io/hostname', operator: 'In', values: ['host_1']}]}}];
  // Rows from daemonset_util_test.go TestReplaceDaemonSetPodNodeNameNodeAffinity, plus our own.
  const rows: {name: string; affinity: Affinity | undefined; want: Affinity}[] = [
    {name: 'nil affinity', affinity: undefined, want: pin('host_1')},
    {
      name: 'hostname expression replaced',
      affinity: requiredAffinity({matchExpressions: [{key: 'kubernetes.io/hostname', operator: 'In', values: ['host_1']}]}),
      want: pin('host_1'),
    },
    {
      name: 'preferred terms kept',
      affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: preferred}},
      want: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: preferred, ...pin('host_1').nodeAffinity}},
    },
    {
      name: 'two-value field pin replaced',
      affinity: requiredAffinity({matchFields: [{key: 'metadata.name', operator: 'In', values: ['host_1', 'host_2']}]}),
      want: pin('host_1'),
    },
    {
      name: 'several terms replaced by one',
      affinity: requiredAffinity(
        {matchExpressions: [{key: 'hostname', operator: 'In', values: ['host_1']}]},
        {matchFields: [{key: 'metadata.name', operator: 'In', values: ['host_2']}]},
      ),
      want: pin('host_1'),
    },
    {
      name: 'NotIn field replaced',
      affinity: requiredAffinity({matchFields: [{key: 'metadata.name', operator: 'NotIn', values: ['host_2']}]}),
      want: pin('host_1'),
    },
    {
      name: 'unknown field key replaced',
      affinity: requiredAffinity({matchFields: [{key: 'metadata.foo', operator: 'In', values: ['bar']}]}),
      want: pin('host_1'),
    },
    {name: 'pod anti-affinity kept', affinity: {podAntiAffinity: {x: 1}}, want: {podAntiAffinity: {x: 1}, ...pin('host_1')}},
  ];
  test.each(rows)('$name', ({affinity, want}) => {
    const before = structuredClone(affinity);
    expect(replaceDaemonSetPodNodeNameNodeAffinity(affinity, 'host_1')).toEqual(want);
    expect(affinity).toEqual(before);
  });
});
