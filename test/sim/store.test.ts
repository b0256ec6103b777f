import {describe, expect, it} from 'vitest';
import type {DaemonSet, Pod} from '../../src/core/types.js';
import {ManualClock} from '../../src/sim/clock.js';
import {StatusError} from '../../src/sim/status-errors.js';
import type {StoreEvent} from '../../src/sim/store.js';
import {START, dsManifest, newStore, podManifest} from './helpers.js';

function statusOf(fn: () => unknown): {code: number; reason: string; message: string} {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return {code: err.code, reason: err.reason, message: err.message};
    throw err;
  }
  throw new Error('expected a StatusError');
}

function record(store: ReturnType<typeof newStore>['store']): string[] {
  const seen: string[] = [];
  store.subscribe((e) => seen.push(`${e.type} ${e.resource}/${e.object.metadata.name} ${e.resourceVersion}`));
  return seen;
}

describe('Store: identity, resourceVersion, timestamps', () => {
  it('assigns a global monotonic string resourceVersion, uid and creationTimestamp from the clock', () => {
    const {store, clock} = newStore();
    const before = Number(store.resourceVersion);
    clock.advance(1500);
    const a = store.create(podManifest('a')) as unknown as Pod;
    const b = store.create(dsManifest()) as unknown as DaemonSet;
    expect(typeof a.metadata.resourceVersion).toBe('string');
    expect(Number(a.metadata.resourceVersion)).toBe(before + 1);
    expect(Number(b.metadata.resourceVersion)).toBe(before + 2);
    expect(store.resourceVersion).toBe(b.metadata.resourceVersion);
    expect(a.metadata.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a.metadata.uid).not.toBe(b.metadata.uid);
    expect(a.metadata.creationTimestamp).toBe('2026-11-21T12:00:01Z');
    expect(a.kind).toBe('Pod');
    expect(a.apiVersion).toBe('v1');
    expect(Object.isFrozen(a.metadata)).toBe(true);
  });

  it('generates names from generateName with the apiserver alphabet', () => {
    const {store} = newStore();
    const pod = store.create({...podManifest(''), metadata: {generateName: 'agent-', namespace: 'default'}}) as unknown as Pod;
    expect(pod.metadata.name).toMatch(/^agent-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('is deterministic for a given seed', () => {
    const uids = (): string[] => {
      const {store} = newStore({seed: 7});
      return [store.create(podManifest('a')), store.create(podManifest('b'))].map((p) => (p as unknown as Pod).metadata.uid!);
    };
    expect(uids()).toEqual(uids());
  });

  it('drops nulls and applies defaults before storing', () => {
    const {store} = newStore();
    const manifest = dsManifest();
    (manifest['spec'] as Record<string, unknown>)['template'] = {
      metadata: {labels: {app: 'agent'}, creationTimestamp: null},
      spec: {containers: [{name: 'main', image: 'busybox', env: null}]},
    };
    const ds = store.create(manifest) as unknown as DaemonSet;
    expect(ds.spec.template.metadata).toEqual({labels: {app: 'agent'}});
    expect(ds.spec.updateStrategy).toEqual({type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: 0}});
    expect(ds.spec.revisionHistoryLimit).toBe(10);
    expect(ds.spec.template.spec.containers[0]).toMatchObject({imagePullPolicy: 'Always', terminationMessagePolicy: 'File', resources: {}});
    expect(ds.metadata.generation).toBe(1);
    expect(ds.metadata.annotations?.['deprecated.daemonset.template.generation']).toBe('1');
  });

  it('gives a namespace its finalizer, phase and name label', () => {
    const {store} = newStore();
    const ns = store.create({kind: 'Namespace', metadata: {name: 'team-a'}});
    expect(ns).toMatchObject({spec: {finalizers: ['kubernetes']}, status: {phase: 'Active'}, metadata: {labels: {'kubernetes.io/metadata.name': 'team-a'}}});
  });
});

describe('Store: updates', () => {
  it('bumps generation (and the template generation) on spec changes only', () => {
    const {store} = newStore();
    const ds = store.create(dsManifest()) as unknown as DaemonSet;
    const labelled = store.update({...ds, metadata: {...ds.metadata, labels: {app: 'agent', extra: 'x'}}});
    expect(labelled.metadata.generation).toBe(1);
    const withStatus = store.updateStatus({...labelled, status: {...labelled.status, numberReady: 3}});
    expect(withStatus.metadata.generation).toBe(1);
    const minReady = store.update({...withStatus, spec: {...withStatus.spec, minReadySeconds: 5}});
    expect(minReady.metadata.generation).toBe(2);
    expect(minReady.metadata.annotations?.['deprecated.daemonset.template.generation']).toBe('1');
    const image = store.update({
      ...minReady,
      spec: {...minReady.spec, template: {...minReady.spec.template, spec: {containers: [{name: 'main', image: 'busybox:1.37'}]}}},
    });
    expect(image.metadata.generation).toBe(3);
    expect(image.metadata.annotations?.['deprecated.daemonset.template.generation']).toBe('2');
  });

  it('keeps status on main-resource updates and everything else on status updates', () => {
    const {store} = newStore();
    const ds = store.create(dsManifest()) as unknown as DaemonSet;
    const ignored = store.update({...ds, status: {numberReady: 9}});
    expect(ignored).toBe(ds);
    const s = store.updateStatus({
      ...ds,
      metadata: {...ds.metadata, labels: {changed: 'yes'}},
      spec: {...ds.spec, minReadySeconds: 9},
      status: {numberReady: 2},
    });
    expect(s.status).toEqual({numberReady: 2});
    expect(s.metadata.labels).toEqual({app: 'agent'});
    expect(s.spec.minReadySeconds).toBeUndefined();
  });

  it('treats a write that changes nothing as a no-op: same object, same resourceVersion, no event', () => {
    const {store} = newStore();
    const ds = store.create(dsManifest()) as unknown as DaemonSet;
    const events = record(store);
    const rv = store.resourceVersion;
    const again = store.update(structuredClone(ds));
    expect(again).toBe(ds);
    const patched = store.patchStatus('daemonsets', 'default', 'agent', {numberReady: 0});
    expect(patched).toBe(ds);
    expect(store.resourceVersion).toBe(rv);
    expect(events).toEqual([]);
  });

  it('answers 409 Conflict to a stale resourceVersion and to a uid mismatch', () => {
    const {store} = newStore();
    const ds = store.create(dsManifest()) as unknown as DaemonSet;
    store.update({...ds, metadata: {...ds.metadata, labels: {v: '2'}}});
    const stale = statusOf(() => store.update({...ds, metadata: {...ds.metadata, labels: {v: '3'}}}));
    expect(stale).toEqual({
      code: 409,
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on daemonsets.apps "agent": the object has been modified; please apply your changes to the latest version and try again',
    });
    const {resourceVersion: _rv, ...withoutRv} = ds.metadata;
    expect(statusOf(() => store.update({...ds, metadata: {...withoutRv, uid: 'other'}})).code).toBe(409);
    // Without a resourceVersion the update is unconditional.
    expect(store.update({...ds, metadata: {...withoutRv, labels: {v: '4'}}}).metadata.labels).toEqual({v: '4'});
  });

  it('answers 404, 409 AlreadyExists and 404 for a missing namespace', () => {
    const {store} = newStore();
    expect(statusOf(() => store.update(podManifest('nope')))).toMatchObject({code: 404, message: 'pods "nope" not found'});
    store.create(dsManifest());
    expect(statusOf(() => store.create(dsManifest()))).toMatchObject({code: 409, reason: 'AlreadyExists', message: 'daemonsets.apps "agent" already exists'});
    expect(statusOf(() => store.create(podManifest('x', {namespace: 'ghost'})))).toMatchObject({code: 404, message: 'namespaces "ghost" not found'});
  });

  it('validates DaemonSets (422 Invalid with causes)', () => {
    const {store} = newStore();
    const bad = dsManifest();
    (bad['spec'] as {selector: unknown}).selector = {matchLabels: {app: 'other'}};
    const err = (() => {
      try {
        store.create(bad);
      } catch (e) {
        return e as StatusError;
      }
      throw new Error('no error');
    })();
    expect(err.code).toBe(422);
    expect(err.toStatus()).toMatchObject({
      reason: 'Invalid',
      message:
        'DaemonSet.apps "agent" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"agent"}: `selector` does not match template `labels`',
      details: {name: 'agent', group: 'apps', kind: 'DaemonSet', causes: [{reason: 'FieldValueInvalid', field: 'spec.template.metadata.labels'}]},
    });
    const ds = store.create(dsManifest()) as unknown as DaemonSet;
    const moved = {...ds, spec: {...ds.spec, selector: {matchLabels: {app: 'agent', x: 'y'}}}};
    expect(statusOf(() => store.update(moved)).code).toBe(422);
  });

  it('supports dry runs without storing anything', () => {
    const {store} = newStore();
    const rv = store.resourceVersion;
    const ds = store.create(dsManifest(), {dryRun: true}) as unknown as DaemonSet;
    expect(ds.spec.revisionHistoryLimit).toBe(10);
    expect(store.get('daemonsets', 'default', 'agent')).toBeUndefined();
    expect(store.resourceVersion).toBe(rv);
  });
});

describe('Store: events and watch history', () => {
  it('delivers events in resourceVersion order even when a listener writes', () => {
    const {store} = newStore();
    const seen: string[] = [];
    store.subscribe((e) => {
      if (e.type === 'ADDED' && e.object.metadata.name === 'a') store.create(podManifest('b'));
    });
    store.subscribe((e) => seen.push(`${e.type} ${e.object.metadata.name} ${e.resourceVersion}`));
    store.create(podManifest('a'));
    const rvs = seen.map((s) => Number(s.split(' ')[2]));
    expect(seen.map((s) => s.split(' ').slice(0, 2).join(' '))).toEqual(['ADDED a', 'ADDED b']);
    expect(rvs[1]).toBe(rvs[0]! + 1);
  });

  it('resumes from any retained resourceVersion and expires older ones with 410', () => {
    const {store} = newStore({historySize: 5});
    const first = store.create(podManifest('p0')) as unknown as Pod;
    for (let i = 1; i < 4; i++) store.create(podManifest(`p${i}`));
    const since = store.eventsSince(first.metadata.resourceVersion!);
    expect(since.map((e: StoreEvent) => e.object.metadata.name)).toEqual(['p1', 'p2', 'p3']);
    for (let i = 4; i < 10; i++) store.create(podManifest(`p${i}`));
    const err = statusOf(() => store.eventsSince(first.metadata.resourceVersion!));
    expect(err.code).toBe(410);
    expect(err.reason).toBe('Expired');
    expect(err.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
    expect(store.eventsSince(store.oldestResumableResourceVersion)).toHaveLength(5);
    expect(store.eventsSince(store.resourceVersion)).toEqual([]);
  });

  it('gives DELETED events the deletion resourceVersion and the last state', () => {
    const {store} = newStore();
    const pod = store.create(podManifest('a')) as unknown as Pod;
    const events: StoreEvent[] = [];
    store.subscribe((e) => events.push(e));
    store.delete('pods', 'default', 'a');
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe('DELETED');
    expect(Number(events[0]!.object.metadata.resourceVersion)).toBeGreaterThan(Number(pod.metadata.resourceVersion));
    expect(JSON.parse(events[0]!.objectJson)).toMatchObject({kind: 'Pod', metadata: {name: 'a'}});
  });
});

describe('Store: lists, selectors and pagination', () => {
  it('filters by namespace, label selector and field selector, sorted by name', () => {
    const {store} = newStore();
    store.create(podManifest('b', {node: 'n1', labels: {app: 'x', tier: 'web'}}));
    store.create(podManifest('a', {node: 'n2', labels: {app: 'x'}, phase: 'Failed'}));
    store.create(podManifest('c', {node: 'n1', labels: {app: 'y'}, namespace: 'kube-system'}));
    const names = (opts: Parameters<typeof store.list>[1]): string[] => store.list('pods', opts).items.map((p) => p.metadata.name);
    expect(names({})).toEqual(['a', 'b', 'c']);
    expect(names({namespace: 'default'})).toEqual(['a', 'b']);
    expect(names({labelSelector: 'app=x,tier'})).toEqual(['b']);
    expect(names({labelSelector: 'app in (x,y),tier notin (web)'})).toEqual(['a', 'c']);
    expect(names({fieldSelector: 'spec.nodeName=n1'})).toEqual(['b', 'c']);
    expect(names({fieldSelector: 'spec.nodeName=n2,status.phase!=Failed'})).toEqual([]);
    expect(names({fieldSelector: 'metadata.name=b', namespace: 'default'})).toEqual(['b']);
    expect(statusOf(() => store.list('pods', {fieldSelector: 'spec.bogus=1'}))).toMatchObject({code: 400, message: 'field label not supported: spec.bogus'});
    expect(statusOf(() => store.list('pods', {labelSelector: 'a in b'})).code).toBe(400);
    expect(
      store
        .podsOnNode('n1')
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual(['b', 'c']);
  });

  it('pages with stable continue tokens from a consistent snapshot', () => {
    const {store} = newStore();
    for (let i = 0; i < 7; i++) store.create(podManifest(`p${i}`));
    const first = store.list('pods', {limit: 3});
    expect(first.items.map((p) => p.metadata.name)).toEqual(['p0', 'p1', 'p2']);
    expect(first.remainingItemCount).toBe(4);
    store.create(podManifest('p00'));
    store.delete('pods', 'default', 'p5');
    const second = store.list('pods', {limit: 3, continue: first.continue});
    const again = store.list('pods', {limit: 3, continue: first.continue});
    expect(second.items.map((p) => p.metadata.name)).toEqual(['p3', 'p4', 'p5']);
    expect(again.items).toEqual(second.items);
    expect(second.resourceVersion).toBe(first.resourceVersion);
    const last = store.list('pods', {limit: 3, continue: second.continue});
    expect(last.items.map((p) => p.metadata.name)).toEqual(['p6']);
    expect(last.continue).toBeUndefined();
    expect(statusOf(() => store.list('pods', {continue: 'garbage'})).code).toBe(400);
  });

  it('expires tokens whose snapshot was evicted', () => {
    const {store} = newStore({maxListSnapshots: 2});
    for (let i = 0; i < 4; i++) store.create(podManifest(`p${i}`));
    const token = store.list('pods', {limit: 1}).continue;
    store.list('pods', {limit: 1});
    store.list('pods', {limit: 1});
    expect(statusOf(() => store.list('pods', {limit: 1, continue: token}))).toMatchObject({code: 410, reason: 'Expired'});
  });
});

describe('Store: deletion', () => {
  it('terminates bound pods gracefully and removes them after the short delay', () => {
    const {store, clock} = newStore({podTerminationDelayMs: 800});
    store.create(podManifest('bound', {node: 'n1'}));
    store.create(podManifest('unbound'));
    const pending = store.delete('pods', 'default', 'bound');
    expect(pending.deleted).toBe(false);
    expect(pending.object.metadata.deletionTimestamp).toBe('2026-11-21T12:00:30Z');
    expect(pending.object.metadata.deletionGracePeriodSeconds).toBe(30);
    expect(store.delete('pods', 'default', 'unbound').deleted).toBe(true);
    clock.advance(799);
    expect(store.get('pods', 'default', 'bound')).toBeDefined();
    clock.advance(1);
    expect(store.get('pods', 'default', 'bound')).toBeUndefined();
  });

  it('deletes at once with gracePeriodSeconds=0 and honours shorter grace periods', () => {
    const {store, clock} = newStore({podTerminationDelayMs: 5000});
    store.create(podManifest('a', {node: 'n1'}));
    store.create(podManifest('b', {node: 'n1'}));
    expect(store.delete('pods', 'default', 'a', {gracePeriodSeconds: 0}).deleted).toBe(true);
    store.delete('pods', 'default', 'b', {gracePeriodSeconds: 2});
    clock.advance(2000);
    expect(store.get('pods', 'default', 'b')).toBeUndefined();
  });

  it('lets a kubelet hook take over pod termination', () => {
    const {store, clock} = newStore();
    const calls: string[] = [];
    store.setPodDeletingHook((pod, grace) => {
      calls.push(`${pod.metadata.name}:${grace}`);
      return pod.spec.nodeName === 'managed';
    });
    const managed = store.create(podManifest('m', {node: 'managed'})) as unknown as Pod;
    store.create(podManifest('u', {node: 'other'}));
    store.delete('pods', 'default', 'm', {gracePeriodSeconds: 10});
    store.delete('pods', 'default', 'u', {gracePeriodSeconds: 10});
    clock.advance(60_000);
    expect(calls).toEqual(['m:10', 'u:10']);
    expect(store.get('pods', 'default', 'm')?.metadata.deletionTimestamp).toBeDefined();
    expect(store.get('pods', 'default', 'u')).toBeUndefined();
    expect(store.finishPodDeletion('default', 'm', 'wrong-uid')).toBe(false);
    expect(store.finishPodDeletion('default', 'm', managed.metadata.uid!)).toBe(true);
    expect(store.get('pods', 'default', 'm')).toBeUndefined();
  });

  it('checks uid and resourceVersion preconditions', () => {
    const {store} = newStore();
    const pod = store.create(podManifest('a')) as unknown as Pod;
    expect(statusOf(() => store.delete('pods', 'default', 'a', {preconditions: {uid: 'x'}}))).toMatchObject({
      code: 409,
      message: `Operation cannot be fulfilled on pods "a": Precondition failed: UID in precondition: x, UID in object meta: ${pod.metadata.uid}`,
    });
    expect(statusOf(() => store.delete('pods', 'default', 'a', {preconditions: {resourceVersion: '1'}})).code).toBe(409);
    expect(store.delete('pods', 'default', 'a', {preconditions: {uid: pod.metadata.uid, resourceVersion: pod.metadata.resourceVersion}}).deleted).toBe(true);
  });

  it('keeps objects with finalizers until the last one is removed', () => {
    const {store} = newStore();
    const ds = store.create({...dsManifest(), metadata: {name: 'agent', namespace: 'default', finalizers: ['example.com/hold']}}) as unknown as DaemonSet;
    const pending = store.delete('daemonsets', 'default', 'agent');
    expect(pending.deleted).toBe(false);
    expect(pending.object.metadata.deletionTimestamp).toBeDefined();
    expect(pending.object.metadata.generation).toBe(2);
    const current = store.get('daemonsets', 'default', 'agent')!;
    const {finalizers: _f, ...meta} = current.metadata;
    store.update({...current, metadata: meta});
    expect(store.get('daemonsets', 'default', 'agent')).toBeUndefined();
    void ds;
  });

  it('empties and removes a deleted namespace; protects the system namespaces', () => {
    const {store, clock} = newStore();
    store.create({kind: 'Namespace', metadata: {name: 'team'}});
    store.create(podManifest('a', {namespace: 'team', node: 'n1'}));
    store.create(dsManifest('d', 'x:1', 'team'));
    const pending = store.delete('namespaces', undefined, 'team');
    expect(pending.deleted).toBe(false);
    expect(store.get('namespaces', undefined, 'team')?.status?.phase).toBe('Terminating');
    expect(statusOf(() => store.create(podManifest('late', {namespace: 'team'}))).code).toBe(403);
    clock.advance(1000);
    expect(store.get('namespaces', undefined, 'team')).toBeUndefined();
    expect(statusOf(() => store.delete('namespaces', undefined, 'kube-system'))).toMatchObject({code: 403, reason: 'Forbidden'});
  });
});

describe('Store + GC: propagation policies', () => {
  function setup(podTerminationDelayMs = 300) {
    const ctx = newStore({podTerminationDelayMs});
    const ds = ctx.store.create(dsManifest()) as unknown as DaemonSet;
    ctx.store.create(podManifest('agent-a', {node: 'n1', owner: ds}));
    ctx.store.create(podManifest('agent-b', {node: 'n2', owner: ds}));
    ctx.store.create(podManifest('loose', {node: 'n2', owner: ds, block: false}));
    ctx.store.create({
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: 'agent-1',
        namespace: 'default',
        ownerReferences: [{apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: ds.metadata.uid, controller: true, blockOwnerDeletion: true}],
      },
      revision: 1,
      data: {},
    });
    return {...ctx, ds};
  }

  it('Background: the owner goes at once, dependents are deleted afterwards', () => {
    const {store, clock} = setup();
    const result = store.delete('daemonsets', 'default', 'agent', {propagationPolicy: 'Background'});
    expect(result.deleted).toBe(true);
    expect(store.get('controllerrevisions', 'default', 'agent-1')).toBeUndefined();
    expect(store.get('pods', 'default', 'agent-a')?.metadata.deletionTimestamp).toBeDefined();
    clock.advance(300);
    expect(store.list('pods').items).toEqual([]);
  });

  it('Foreground: the owner waits with the foregroundDeletion finalizer for blocking dependents', () => {
    const {store, clock} = setup();
    const result = store.delete('daemonsets', 'default', 'agent', {propagationPolicy: 'Foreground'});
    expect(result.deleted).toBe(false);
    expect(result.object.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(store.get('daemonsets', 'default', 'agent')?.metadata.deletionTimestamp).toBeDefined();
    clock.advance(299);
    expect(store.get('daemonsets', 'default', 'agent')).toBeDefined();
    clock.advance(1);
    expect(store.get('daemonsets', 'default', 'agent')).toBeUndefined();
    expect(store.list('pods').items).toEqual([]);
  });

  it('Orphan: dependents lose the owner reference and stay', () => {
    const {store} = setup();
    const result = store.delete('daemonsets', 'default', 'agent', {propagationPolicy: 'Orphan'});
    expect(result.object.metadata.finalizers).toEqual(['orphan']);
    expect(store.get('daemonsets', 'default', 'agent')).toBeUndefined();
    const pods = store.list('pods').items;
    expect(pods.map((p) => p.metadata.name)).toEqual(['agent-a', 'agent-b', 'loose']);
    expect(pods.every((p) => p.metadata.ownerReferences === undefined && p.metadata.deletionTimestamp === undefined)).toBe(true);
    expect(store.get('controllerrevisions', 'default', 'agent-1')?.metadata.ownerReferences).toBeUndefined();
  });

  it('keeps a dependent that still has another live owner, minus the deleted owner', () => {
    const {store, ds} = setup();
    const other = store.create(dsManifest('other')) as unknown as DaemonSet;
    const shared = podManifest('shared', {node: 'n1', owner: ds});
    const meta = shared['metadata'] as {ownerReferences: object[]};
    meta.ownerReferences = [...meta.ownerReferences, {apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'other', uid: other.metadata.uid}];
    store.create(shared);
    store.delete('daemonsets', 'default', 'agent');
    const kept = store.get('pods', 'default', 'shared')!;
    expect(kept.metadata.deletionTimestamp).toBeUndefined();
    expect(kept.metadata.ownerReferences?.map((r) => r.name)).toEqual(['other']);
  });
});

describe('ManualClock', () => {
  it('fires timers in due order, including timers set by timers', () => {
    const clock = new ManualClock(START);
    const fired: string[] = [];
    clock.setTimer(20, () => fired.push('b'));
    clock.setTimer(10, () => {
      fired.push('a');
      clock.setTimer(5, () => fired.push('a2'));
    });
    const cancel = clock.setTimer(12, () => fired.push('never'));
    cancel();
    clock.advance(30);
    expect(fired).toEqual(['a', 'a2', 'b']);
    expect(clock.now()).toBe(START + 30);
    expect(clock.pendingTimers).toBe(0);
  });
});
