// The plan service with a fake ClusterSource: no build, no files.
import {describe, expect, test} from 'vitest';
import type {ClusterSource} from '../../src/cluster/cluster-source.js';
import {planDaemonSet, planService} from '../../src/services/plan.js';
import {InputError, NotFoundError} from '../../src/errors.js';
import type {ClusterState, DaemonSet} from '../../src/core/types.js';
import {NOW, newDaemonSet, newNode, newPod, newRevision} from '../helpers/builders.js';

function sourceOf(state: ClusterState): ClusterSource & {refs: unknown[]} {
  const refs: unknown[] = [];
  return {
    refs,
    async readState(ref) {
      refs.push(ref);
      return state;
    },
  };
}

function stateWith(ds: DaemonSet): ClusterState {
  return {daemonSet: ds, nodes: [newNode('node-a')], pods: [newPod('foo-a', 'node-a', ds, {hash: 'h1'})], revisions: [newRevision(ds, 'h1', 1)]};
}

describe('planService', () => {
  test('reads the named DaemonSet and plans it', async () => {
    const source = sourceOf(stateWith(newDaemonSet('foo')));
    const plan = await planService({source, ref: {namespace: 'default', name: 'foo'}, now: NOW});
    expect(source.refs).toEqual([{namespace: 'default', name: 'foo'}]);
    expect(plan.kind).toBe('DaemonSetRolloutPlan');
    expect(plan.daemonSet).toEqual({namespace: 'default', name: 'foo'});
    expect(plan.complete).toBe(true);
  });

  test('returns the DaemonSet as read, for the renderers', async () => {
    const ds = newDaemonSet('foo', {maxUnavailable: '25%'});
    const {daemonSet} = await planDaemonSet({source: sourceOf(stateWith(ds)), ref: {namespace: 'default', name: 'foo'}, now: NOW});
    expect(daemonSet.spec.updateStrategy?.rollingUpdate?.maxUnavailable).toBe('25%');
  });

  test('an invalid DaemonSet is one InputError line naming it', async () => {
    const source = sourceOf(stateWith(newDaemonSet('foo', {maxUnavailable: '150%'})));
    const error = await planService({source, ref: {namespace: 'default', name: 'foo'}, now: NOW}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toBe(
      'daemonset "default/foo" is invalid: spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%',
    );
  });

  test("the source's errors pass through", async () => {
    const source: ClusterSource = {
      readState: async () => {
        throw new NotFoundError('daemonset "foo" not found');
      },
    };
    await expect(planService({source, ref: {namespace: 'default', name: 'foo'}, now: NOW})).rejects.toBeInstanceOf(NotFoundError);
  });
});
