import {describe, expect, test} from 'vitest';
import {createPodTemplate, isPodUpdated, newDaemonPod, templateGeneration} from '../../src/core/pod-template.js';
import type {DaemonSet, Pod, PodTemplateSpec} from '../../src/core/types.js';
import {newDaemonSet, withTolerations} from '../helpers/builders.js';

const DEFAULT_TOLERATIONS = [
  {key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute'},
  {key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute'},
  {key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule'},
  {key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule'},
  {key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule'},
  {key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule'},
];

function withAnnotations(ds: DaemonSet, annotations: Record<string, string> | undefined): DaemonSet {
  const {annotations: _drop, ...metadata} = ds.metadata;
  return {...ds, metadata: annotations === undefined ? metadata : {...metadata, annotations}};
}

describe('templateGeneration', () => {
  const rows: {name: string; annotations: Record<string, string> | undefined; want: number | undefined}[] = [
    {name: 'annotation present', annotations: {'deprecated.daemonset.template.generation': '7'}, want: 7},
    {name: 'no annotations', annotations: undefined, want: undefined},
    {name: 'other annotations only', annotations: {a: 'b'}, want: undefined},
    {name: 'not a number', annotations: {'deprecated.daemonset.template.generation': 'seven'}, want: undefined},
    {name: 'fraction', annotations: {'deprecated.daemonset.template.generation': '1.5'}, want: undefined},
  ];
  test.each(rows)('$name', ({annotations, want}) => {
    expect(templateGeneration(withAnnotations(newDaemonSet('foo'), annotations))).toBe(want);
  });
});

describe('createPodTemplate', () => {
  // Rows from daemonset_util_test.go TestCreatePodTemplate, plus our own.
  const empty: PodTemplateSpec = {spec: {containers: []}};
  const rows: {name: string; template: PodTemplateSpec; generation: number | undefined; hash: string; labels: Record<string, string>}[] = [
    {name: 'generation 1, no hash', template: empty, generation: 1, hash: '', labels: {'pod-template-generation': '1'}},
    {
      name: 'generation 2 and hash',
      template: empty,
      generation: 2,
      hash: '3242341807',
      labels: {'pod-template-generation': '2', 'controller-revision-hash': '3242341807'},
    },
    {name: 'unknown generation', template: empty, generation: undefined, hash: 'abc', labels: {'controller-revision-hash': 'abc'}},
    {
      name: 'template labels kept, stale hash label overwritten',
      template: {metadata: {labels: {app: 'x', 'controller-revision-hash': 'old'}}, spec: {containers: []}},
      generation: 3,
      hash: 'new',
      labels: {app: 'x', 'controller-revision-hash': 'new', 'pod-template-generation': '3'},
    },
  ];
  test.each(rows)('$name', ({template, generation, hash, labels}) => {
    const before = structuredClone(template);
    const got = createPodTemplate(template, generation, hash);
    expect(got.metadata?.labels).toEqual(labels);
    expect(got.spec.tolerations).toEqual(DEFAULT_TOLERATIONS);
    expect(template).toEqual(before);
  });

  test('hostNetwork adds the network-unavailable toleration', () => {
    const got = createPodTemplate({spec: {containers: [], hostNetwork: true}}, 1, 'h');
    expect(got.spec.tolerations?.at(-1)).toEqual({key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule'});
  });
});

describe('newDaemonPod', () => {
  const ds: DaemonSet = (() => {
    const base = withTolerations(newDaemonSet('fluentd'), {key: 'dedicated', operator: 'Exists'});
    return {
      ...base,
      metadata: {...base.metadata, namespace: 'kube-system', annotations: {'deprecated.daemonset.template.generation': '4'}},
      spec: {
        ...base.spec,
        template: {
          metadata: {labels: {name: 'fluentd'}, annotations: {'prometheus.io/scrape': 'true'}, finalizers: ['example.com/keep']},
          spec: {
            ...base.spec.template.spec,
            affinity: {
              nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: 'zone', operator: 'In', values: ['a']}]}]},
                preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1}],
              },
            },
          },
        },
      },
    };
  })();

  test('is what the controller POSTs', () => {
    const before = structuredClone(ds);
    const pod = newDaemonPod(ds, 'node-7', 'abc123');
    expect(pod.metadata).toEqual({
      name: '',
      generateName: 'fluentd-',
      namespace: 'kube-system',
      labels: {name: 'fluentd', 'pod-template-generation': '4', 'controller-revision-hash': 'abc123'},
      annotations: {'prometheus.io/scrape': 'true'},
      finalizers: ['example.com/keep'],
      ownerReferences: [{apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'fluentd', uid: ds.metadata.uid, controller: true, blockOwnerDeletion: true}],
    });
    expect(pod.spec.nodeName).toBeUndefined();
    expect(pod.status).toBeUndefined();
    expect(pod.spec.affinity).toEqual({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: 'metadata.name', operator: 'In', values: ['node-7']}]}]},
        preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1}],
      },
    });
    expect(pod.spec.tolerations).toEqual([{key: 'dedicated', operator: 'Exists'}, ...DEFAULT_TOLERATIONS]);
    expect(pod.spec.containers).toEqual(ds.spec.template.spec.containers);
    expect(ds).toEqual(before);
  });

  const prefixRows: {name: string; dsName: string; want: string}[] = [
    {name: 'short name gets a dash', dsName: 'fluentd', want: 'fluentd-'},
    {name: 'name at the length limit keeps no dash', dsName: 'a'.repeat(253), want: 'a'.repeat(253)},
  ];
  test.each(prefixRows)('generateName: $name', ({dsName, want}) => {
    const base = newDaemonSet('x');
    expect(newDaemonPod({...base, metadata: {...base.metadata, name: dsName}}, 'n', 'h').metadata.generateName).toBe(want);
  });

  test('without the generation annotation there is no generation label', () => {
    const pod = newDaemonPod(withAnnotations(newDaemonSet('foo'), undefined), 'n', 'h');
    expect(pod.metadata.labels).toEqual({name: 'foo', 'controller-revision-hash': 'h'});
  });
});

describe('isPodUpdated', () => {
  const pod = (labels: Record<string, string> | undefined): Pod => ({metadata: {name: 'pod1', ...(labels ? {labels} : {})}, spec: {containers: []}});
  const both = {'pod-template-generation': '12345', 'controller-revision-hash': '55555'};
  const noHash = {'pod-template-generation': '12345'};
  // Rows from daemonset_util_test.go TestIsPodUpdated.
  const rows: {name: string; generation: number | undefined; pod: Pod; hash: string; want: boolean}[] = [
    {name: 'templateGeneration and hash both match', generation: 12345, pod: pod(both), hash: '55555', want: true},
    {name: "templateGeneration matches, hash doesn't", generation: 12345, pod: pod(both), hash: '55555123', want: true},
    {name: 'templateGeneration matches, no hash label, has hash', generation: 12345, pod: pod(noHash), hash: '55555', want: true},
    {name: 'templateGeneration matches, no hash label, no hash', generation: 12345, pod: pod(noHash), hash: '', want: true},
    {name: 'templateGeneration matches, has hash label, no hash', generation: 12345, pod: pod(both), hash: '', want: true},
    {name: "templateGeneration doesn't match, hash does", generation: 12350, pod: pod(both), hash: '55555', want: true},
    {name: "templateGeneration and hash don't match", generation: 12350, pod: pod(both), hash: '55555123', want: false},
    {name: 'empty labels, no hash', generation: 12345, pod: pod({}), hash: '', want: false},
    {name: 'empty labels', generation: 12345, pod: pod({}), hash: '55555', want: false},
    {name: 'no labels', generation: 12345, pod: pod(undefined), hash: '55555', want: false},
    {name: 'unknown generation, hash matches', generation: undefined, pod: pod(both), hash: '55555', want: true},
    {name: 'unknown generation, hash differs', generation: undefined, pod: pod(both), hash: 'other', want: false},
    {name: 'empty hash never matches an empty label', generation: undefined, pod: pod({'controller-revision-hash': ''}), hash: '', want: false},
  ];
  test.each(rows)('$name', ({generation, pod: p, hash, want}) => {
    expect(isPodUpdated(p, hash, generation)).toBe(want);
  });
});
