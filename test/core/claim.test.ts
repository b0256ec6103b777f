import {describe, expect, test} from 'vitest';
import {claimObjects, getControllerOf, getNodesToDaemonPods} from '../../src/core/claim.js';
import type {DaemonSet, ObjectMeta, Pod} from '../../src/core/types.js';
import {T0, newDaemonSet, newPod} from '../helpers/builders.js';

const ds = newDaemonSet('foo');
const other = {...newDaemonSet('bar'), metadata: {...newDaemonSet('bar').metadata, uid: 'other-uid'}};
const deletingDs: DaemonSet = {...ds, metadata: {...ds.metadata, deletionTimestamp: T0}};

describe('getControllerOf', () => {
  const ref = {apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'foo', uid: 'u1'};
  const rows: {name: string; meta: ObjectMeta; want: string | undefined}[] = [
    {name: 'no owner references', meta: {name: 'p'}, want: undefined},
    {name: 'plain owner reference is not a controller', meta: {name: 'p', ownerReferences: [ref]}, want: undefined},
    {name: 'controller: false', meta: {name: 'p', ownerReferences: [{...ref, controller: false}]}, want: undefined},
    {name: 'the controller among several', meta: {name: 'p', ownerReferences: [ref, {...ref, uid: 'u2', controller: true}]}, want: 'u2'},
  ];
  test.each(rows)('$name', ({meta, want}) => {
    expect(getControllerOf(meta)?.uid).toBe(want);
  });
});

describe('claimObjects', () => {
  const mine = newPod('mine', 'n1', ds);
  const mineRelabelled = newPod('mine-relabelled', 'n2', ds, {labels: {name: 'something-else'}});
  const orphan = newPod('orphan', 'n3', ds, {owner: null});
  const orphanDeleting = newPod('orphan-deleting', 'n4', ds, {owner: null, deleting: T0});
  const orphanNoMatch = newPod('orphan-nomatch', 'n5', ds, {owner: null, labels: {name: 'x'}});
  const foreign = newPod('foreign', 'n6', other, {labels: {name: 'foo'}});
  const plainRef: Pod = {
    ...orphan,
    metadata: {...orphan.metadata, name: 'plain-ref', ownerReferences: [{apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'foo', uid: ds.metadata.uid!}]},
  };
  const otherNamespace: Pod = {...orphan, metadata: {...orphan.metadata, name: 'elsewhere', namespace: 'other'}};

  const names = (pods: readonly Pod[]): string[] => pods.map((p) => p.metadata.name);
  const rows: {name: string; ds: DaemonSet; pods: Pod[]; owned: string[]; adopt: string[]; release: string[]}[] = [
    {name: 'own matching pod', ds, pods: [mine], owned: ['mine'], adopt: [], release: []},
    {name: 'own pod whose labels no longer match is released', ds, pods: [mineRelabelled], owned: [], adopt: [], release: ['mine-relabelled']},
    {name: 'no release while the DS is being deleted', ds: deletingDs, pods: [mineRelabelled, mine], owned: ['mine'], adopt: [], release: []},
    {name: 'matching orphan is adopted', ds, pods: [orphan], owned: ['orphan'], adopt: ['orphan'], release: []},
    {name: 'deleting orphan is not adopted', ds, pods: [orphanDeleting], owned: [], adopt: [], release: []},
    {name: 'non-matching orphan is ignored', ds, pods: [orphanNoMatch], owned: [], adopt: [], release: []},
    {name: 'no adoption while the DS is being deleted', ds: deletingDs, pods: [orphan], owned: [], adopt: [], release: []},
    {name: "another controller's pod is ignored even if it matches", ds, pods: [foreign], owned: [], adopt: [], release: []},
    {name: 'a plain owner reference makes an orphan', ds, pods: [plainRef], owned: ['plain-ref'], adopt: ['plain-ref'], release: []},
    {name: 'orphans of another namespace are not adopted', ds, pods: [otherNamespace], owned: [], adopt: [], release: []},
    {
      name: 'input order kept, adopted ones included',
      ds,
      pods: [orphan, foreign, mine, mineRelabelled, orphanNoMatch],
      owned: ['orphan', 'mine'],
      adopt: ['orphan'],
      release: ['mine-relabelled'],
    },
    {
      name: 'a DS without selector claims nothing',
      ds: {...ds, spec: {...ds.spec, selector: undefined}},
      pods: [mine, orphan],
      owned: [],
      adopt: [],
      release: ['mine'],
    },
  ];
  test.each(rows)('$name', ({ds: owner, pods, owned, adopt, release}) => {
    const got = claimObjects(owner, pods);
    expect(names(got.owned)).toEqual(owned);
    expect(names(got.adopt)).toEqual(adopt);
    expect(names(got.release)).toEqual(release);
  });
});

describe('getNodesToDaemonPods', () => {
  const a1 = newPod('a1', 'node-a', ds);
  const a2 = newPod('a2', 'node-a', ds, {bound: false});
  const b1 = newPod('b1', 'node-b', ds);
  const noTarget: Pod = {...newPod('lost', 'x', ds), spec: {containers: []}};
  const failedDeleting = newPod('failed-deleting', 'node-c', ds, {phase: 'Failed', deleting: T0});
  const succeededDeleting = newPod('succeeded-deleting', 'node-c', ds, {phase: 'Succeeded', deleting: T0});
  const failed = newPod('failed', 'node-d', ds, {phase: 'Failed'});
  const deleting = newPod('deleting', 'node-e', ds, {deleting: T0});
  const gone = newPod('gone', 'no-such-node', ds);

  const summary = (m: Map<string, Pod[]>): Record<string, string[]> => Object.fromEntries([...m].map(([k, v]) => [k, v.map((p) => p.metadata.name)]));
  const rows: {name: string; pods: Pod[]; keep?: boolean; want: Record<string, string[]>}[] = [
    {name: 'grouped by node, input order kept', pods: [a2, b1, a1], want: {'node-a': ['a2', 'a1'], 'node-b': ['b1']}},
    {name: 'pods without a target are skipped', pods: [noTarget, a1], want: {'node-a': ['a1']}},
    {
      name: 'terminal and deleting pods are dropped',
      pods: [failedDeleting, succeededDeleting, failed, deleting],
      want: {'node-d': ['failed'], 'node-e': ['deleting']},
    },
    {name: 'kept for history cleanup', pods: [failedDeleting, failed], keep: true, want: {'node-c': ['failed-deleting'], 'node-d': ['failed']}},
    {name: 'pods on nodes that do not exist stay in', pods: [gone], want: {'no-such-node': ['gone']}},
  ];
  test.each(rows)('$name', ({pods, keep, want}) => {
    expect(summary(getNodesToDaemonPods(pods, keep === undefined ? {} : {keepDeletedTerminal: keep}))).toEqual(want);
  });
});
