// The slim copies of what a server answers: decoded as a client's Go types would be, managedFields reduced.
import {describe, expect, test} from 'vitest';
import {projectDaemonSet, projectPod} from '../../../src/cluster/live/project.js';
import {ClusterError} from '../../../src/platform/errors.js';
import {newDaemonSet, newPod} from '../../helpers/builders.js';

const ds = newDaemonSet('fluentd');

describe('projectDaemonSet', () => {
  test('keeps only the managedFields entries that own part of spec.updateStrategy, reduced to that', () => {
    const managedFields = [
      {
        manager: 'kubectl-client-side-apply',
        operation: 'Update',
        time: '2026-11-21T11:00:00Z',
        fieldsV1: {'f:spec': {'f:updateStrategy': {'f:type': {}}, 'f:template': {}}},
      },
      {manager: 'kube-controller-manager', operation: 'Update', time: '2026-11-21T11:01:00Z', subresource: 'status', fieldsV1: {'f:status': {}}},
    ];
    const projected = projectDaemonSet({...ds, metadata: {...ds.metadata, managedFields}});
    expect(projected.metadata.managedFields).toEqual([
      {manager: 'kubectl-client-side-apply', operation: 'Update', time: '2026-11-21T11:00:00Z', fieldsV1: {'f:spec': {'f:updateStrategy': {}}}},
    ]);
    expect(projectDaemonSet(ds).metadata).not.toHaveProperty('managedFields');
  });

  test('an answer no API server gives is a ClusterError naming the field', () => {
    expect(() => projectDaemonSet({...ds, spec: 'x'})).toThrow(ClusterError);
    expect(() => projectDaemonSet({...ds, spec: 'x'})).toThrow(
      'the server answered a DaemonSet that is not valid: spec: Invalid value: "x": must be an object (DaemonSet default/fluentd)',
    );
  });
});

describe('projectPod', () => {
  const pod = newPod('fluentd-a', 'node-a', ds, {hash: 'h1'});
  test('null fields are absent, as Go decodes them', () => {
    expect(projectPod({...pod, metadata: {...pod.metadata, labels: null}}).metadata).not.toHaveProperty('labels');
  });
  test('conditions as a string is refused with the field', () => {
    expect(() => projectPod({...pod, status: {conditions: 'x'}})).toThrow('status.conditions: Invalid value: "x": must be a list (Pod default/fluentd-a)');
  });
});

test('an answer that is not an object at all says so without an empty field', () => {
  expect(() => projectDaemonSet('x')).toThrow('the server answered a DaemonSet that is not valid: Invalid value: "x": must be an object');
});
