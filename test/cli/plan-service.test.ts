// The plan service with a fake ClusterSource: no build, no files.
import {describe, expect, test} from 'vitest';
import {fixedClock} from '../../src/platform/clock.js';
import type {ClusterSource} from '../../src/cluster/cluster-source.js';
import {renderManifestPreamble} from '../../src/output/manifest-text.js';
import {planDaemonSet, planService, planUpdate} from '../../src/services/plan.js';
import {ClusterForbiddenError, InputError, NotFoundError} from '../../src/platform/errors.js';
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
    async readSurroundings() {
      const {daemonSet: _ds, ...rest} = state;
      return rest;
    },
  };
}

function stateWith(ds: DaemonSet): ClusterState {
  return {daemonSet: ds, nodes: [newNode('node-a')], pods: [newPod('foo-a', 'node-a', ds, {hash: 'h1'})], revisions: [newRevision(ds, 'h1', 1)]};
}

describe('planService', () => {
  test('reads the named DaemonSet and plans it', async () => {
    const source = sourceOf(stateWith(newDaemonSet('foo')));
    const plan = await planService({source, ref: {namespace: 'default', name: 'foo'}, clock: fixedClock(NOW)});
    expect(source.refs).toEqual([{namespace: 'default', name: 'foo'}]);
    expect(plan.kind).toBe('DaemonSetRolloutPlan');
    expect(plan.daemonSet).toEqual({namespace: 'default', name: 'foo'});
    expect(plan.complete).toBe(true);
  });

  test('returns the DaemonSet as read, for the renderers', async () => {
    const ds = newDaemonSet('foo', {maxUnavailable: '25%'});
    const {daemonSet} = await planDaemonSet({source: sourceOf(stateWith(ds)), ref: {namespace: 'default', name: 'foo'}, clock: fixedClock(NOW)});
    expect(daemonSet.spec.updateStrategy?.rollingUpdate?.maxUnavailable).toBe('25%');
  });

  test('an invalid DaemonSet is one InputError line naming it', async () => {
    const source = sourceOf(stateWith(newDaemonSet('foo', {maxUnavailable: '150%'})));
    const error = await planService({source, ref: {namespace: 'default', name: 'foo'}, clock: fixedClock(NOW)}).catch((e: unknown) => e);
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
      readSurroundings: async () => ({nodes: [], pods: [], revisions: []}),
    };
    await expect(planService({source, ref: {namespace: 'default', name: 'foo'}, clock: fixedClock(NOW)})).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('planUpdate for a DaemonSet that does not exist yet', () => {
  test('plans the create: revision 1 (to be made), a pod on every eligible node, no warnings about what runs now', async () => {
    const existing = newDaemonSet('other');
    const nodes = [newNode('n1'), newNode('n2'), {...newNode('n3'), spec: {taints: [{key: 'dedicated', effect: 'NoSchedule'}]}}];
    const state: ClusterState = {daemonSet: existing, nodes, pods: [newPod('orphan', 'n2', newDaemonSet('fresh'), {hash: 'x', owner: null})], revisions: []};
    const source: ClusterSource = {
      readState: async () => {
        throw new NotFoundError('daemonset "fresh" not found');
      },
      readSurroundings: async () => ({nodes: state.nodes, pods: state.pods, revisions: state.revisions}),
    };
    const fresh = newDaemonSet('fresh');
    const manifest: DaemonSet = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: {name: 'fresh'},
      spec: {selector: fresh.spec.selector, template: fresh.spec.template},
    };
    const result = await planUpdate({source, ref: {namespace: 'default', name: 'fresh'}, clock: fixedClock(NOW), manifest, manifestPath: 'fresh.yaml'});
    expect(result.current).toBeUndefined();
    expect(result.plan.revisions.update).toMatchObject({revision: 1, exists: false});
    expect(result.plan.strategy).toEqual({type: 'RollingUpdate', maxUnavailable: 1, maxSurge: 0});
    // The orphan on n2 matches the selector: it is adopted (an old pod, replaced later); n1 gets a pod; n3 is tainted.
    expect(result.plan.nextSync.create).toEqual([{node: 'n1'}]);
    expect(result.plan.nodes.find((n) => n.name === 'n2')!.pods.map((p) => p.name)).toEqual(['orphan']);
    expect(result.plan.converges).toBe(true);
    expect(result.warnings).toEqual([]);
    expect(result.from.label).toBe('(daemonset "fresh" does not exist yet)');
    // Nothing is removed from a DaemonSet that does not exist: every line of the diff is an addition.
    const diff = renderManifestPreamble(result, {color: false});
    expect(diff).toContain('+++ fresh.yaml');
    expect(diff.split('\n').filter((line) => /^-(?!--)/.test(line.trim()))).toEqual([]);
    expect(diff).not.toContain('containers: []');
  });

  test('an invalid new DaemonSet is refused as the API server would', async () => {
    const source: ClusterSource = {
      readState: async () => {
        throw new NotFoundError('not found');
      },
      readSurroundings: async () => ({nodes: [], pods: [], revisions: []}),
    };
    const manifest: DaemonSet = {
      metadata: {name: 'bad'},
      spec: {selector: {matchLabels: {a: 'b'}}, template: {metadata: {labels: {a: 'c'}}, spec: {containers: [{name: 'm', image: 'x'}]}}},
    };
    await expect(planUpdate({source, ref: {namespace: 'default', name: 'bad'}, clock: fixedClock(NOW), manifest, manifestPath: 'bad.yaml'})).rejects.toThrow(
      /the API server would refuse this manifest: .*selector/,
    );
  });
});

describe('planUpdate as a user the server refuses a dry run', () => {
  const forbidden = async (): Promise<DaemonSet> => {
    throw new ClusterForbiddenError('forbidden: cannot update daemonsets.apps in namespace default');
  };
  const current = newDaemonSet('foo', {maxUnavailable: 1});
  const withBudget = (rollingUpdate: Record<string, unknown>): DaemonSet => ({
    ...current,
    spec: {...current.spec, updateStrategy: {type: 'RollingUpdate', rollingUpdate}},
  });

  test('says in one line that the server check was skipped, and why', async () => {
    const result = await planUpdate({
      source: sourceOf(stateWith(current)),
      ref: {namespace: 'default', name: 'foo'},
      clock: fixedClock(NOW),
      kubeVersion: 20,
      manifest: withBudget({maxUnavailable: 2}),
      manifestPath: 'foo.yaml',
      serverDryRun: forbidden,
    });
    expect(result.warnings[0]).toEqual({
      kind: 'server-check-skipped',
      message:
        "the server's check (a dry-run update) was skipped: forbidden for this user; checked locally with Kubernetes 1.20's rules, which may miss what the server refuses or drops",
    });
    expect(renderManifestPreamble(result, {color: false})).toContain("the server's check (a dry-run update) was skipped: forbidden");
  });

  test("the local check speaks the chosen version's rules and words", async () => {
    const plan = (kubeVersion: number) =>
      planUpdate({
        source: sourceOf(stateWith(current)),
        ref: {namespace: 'default', name: 'foo'},
        clock: fixedClock(NOW),
        kubeVersion,
        manifest: withBudget({maxUnavailable: 0}),
        manifestPath: 'foo.yaml',
        serverDryRun: forbidden,
      }).catch((e: unknown) => (e as Error).message);
    expect(await plan(20)).toMatch(/spec\.updateStrategy\.rollingUpdate\.maxUnavailable: Invalid value: 0: cannot be 0$/);
    expect(await plan(36)).toMatch(/spec\.updateStrategy\.rollingUpdate\.maxUnavailable: Required value: cannot be 0 when maxSurge is 0$/);
  });
});
