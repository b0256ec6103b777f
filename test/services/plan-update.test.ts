// ds-plan -f: the manifest planned over the live cluster, with the warnings worth reading before applying it.
import {afterEach, describe, expect, test} from 'vitest';
import {fixedClock} from '../../src/platform/clock.js';
import {connectLiveCluster} from '../../src/cluster/live/index.js';
import type {DaemonSet, PodSpec} from '../../src/core/index.js';
import {InputError} from '../../src/platform/errors.js';
import {asStoredUpdate, manifestNamespace, planUpdate} from '../../src/services/plan.js';
import {START, startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

const FLUENTD = {namespace: 'kube-system', name: 'fluentd'};
let t: TestCluster | undefined;

afterEach(async () => {
  await t?.stop();
  t = undefined;
});

/** The stored DaemonSet as a user would write it: no status, no server-set metadata, `change` applied. */
function manifest(cluster: TestCluster, change: (ds: DaemonSet) => DaemonSet): DaemonSet {
  const ds = cluster.cluster.store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet;
  return change({apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {name: 'fluentd', namespace: 'kube-system'}, spec: ds.spec});
}

function withPodSpec(ds: DaemonSet, spec: Partial<PodSpec>): DaemonSet {
  return {...ds, spec: {...ds.spec, template: {...ds.spec.template, spec: {...ds.spec.template.spec, ...spec}}}};
}

function withImage(ds: DaemonSet, image: string): DaemonSet {
  return withPodSpec(ds, {containers: ds.spec.template.spec.containers.map((c) => ({...c, image}))});
}

async function plan(cluster: TestCluster, next: DaemonSet, now = START) {
  const live = connectLiveCluster({kubeconfig: cluster.kubeconfig});
  return planUpdate({source: live.source, ref: FLUENTD, clock: fixedClock(now), manifest: next, manifestPath: 'fluentd.yaml'});
}

describe('planUpdate', () => {
  test('a new image: the whole rollout, diffed against the current revision, no warnings', async () => {
    t = await startTestCluster({scenario: 'large', nodes: 5});
    const result = await plan(
      t,
      manifest(t, (ds) => withImage(ds, 'fluent/fluentd:v1.18.0')),
    );
    expect(result.from.label).toMatch(/^revision 1 \(\w+\)$/);
    expect(result.warnings).toEqual([]);
    expect(result.plan.revisions.update).toMatchObject({revision: 2, exists: false});
    expect(result.plan.waves.flatMap((w) => w.delete.map((d) => d.node)).sort()).toEqual(['node-1', 'node-2', 'node-3', 'node-4', 'node-5']);
    expect(result.daemonSet.metadata.generation).toBe(2);
  });

  test('affinity, hostPort with surge, OnDelete', async () => {
    t = await startTestCluster({scenario: 'large', nodes: 5});
    const affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{matchExpressions: [{key: 'kubernetes.io/hostname', operator: 'NotIn', values: ['node-4', 'node-5']}]}],
        },
      },
    };
    const narrowed = await plan(
      t,
      manifest(t, (ds) => withPodSpec(ds, {affinity})),
    );
    expect(narrowed.warnings).toEqual([
      {
        kind: 'node-loses-daemon',
        message: 'the new template removes the daemon from 2 nodes (required node affinity does not match): node-4, node-5',
        nodes: ['node-4', 'node-5'],
      },
    ]);

    const surge = await plan(
      t,
      manifest(t, (ds) => {
        const next = withPodSpec(ds, {
          containers: [{...ds.spec.template.spec.containers[0]!, image: 'fluent/fluentd:v2', ports: [{containerPort: 24224, hostPort: 24224}]}],
        });
        return {...next, spec: {...next.spec, updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 0, maxSurge: 1}}}};
      }),
    );
    expect(surge.warnings.map((w) => w.kind)).toEqual(['host-port-surge']);

    const onDelete = await plan(
      t,
      manifest(t, (ds) => {
        const next = withImage(ds, 'fluent/fluentd:v2');
        return {...next, spec: {...next.spec, updateStrategy: {type: 'OnDelete'}}};
      }),
    );
    expect(onDelete.warnings.map((w) => w.kind)).toEqual(['on-delete']);
  });

  test('the rollout cannot start: unavailable pods already use the budget', async () => {
    // One pod stuck Terminating (a finalizer nobody removes) uses the whole maxUnavailable of 1.
    t = await startTestCluster({scenario: 'large', nodes: 4, agents: false});
    const pods = t.cluster.store.list('pods', {namespace: 'kube-system'}).items;
    const stuck = pods.find((p) => p.spec?.['nodeName'] === 'node-2')!;
    t.cluster.store.modify('pods', 'kube-system', stuck.metadata.name, (p) => ({...p, metadata: {...p.metadata, finalizers: ['example.com/hold']}}));
    t.cluster.store.delete('pods', 'kube-system', stuck.metadata.name, {gracePeriodSeconds: 0});
    const result = await plan(
      t,
      manifest(t, (ds) => {
        const next = withImage(ds, 'fluent/fluentd:v1.18.0');
        return {...next, spec: {...next.spec, updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1}}}};
      }),
      // More than a minute past its deletion: stuck (isStuckTerminating).
      START + 120_000,
    );
    expect(result.warnings).toEqual([
      {
        kind: 'cannot-start',
        message: `the rollout cannot start now: 1 unavailable node uses the whole maxUnavailable budget (1): node-2 (pod ${stuck.metadata.name} is stuck terminating)`,
        nodes: ['node-2'],
      },
    ]);
  });

  test('a selector change is refused, as the API server would', async () => {
    t = await startTestCluster({scenario: 'large', nodes: 2, agents: false});
    const next = manifest(t, (ds) => ({
      ...ds,
      spec: {
        ...ds.spec,
        selector: {matchLabels: {name: 'fluentd', tier: 'logs'}},
        template: {...ds.spec.template, metadata: {labels: {name: 'fluentd', tier: 'logs'}}},
      },
    }));
    const error = await plan(t, next).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toMatch(
      /^the API server would refuse this manifest: DaemonSet\.apps "fluentd" is invalid: spec\.selector: Invalid value: .*: field is immutable$/,
    );
  });
});

describe('asStoredUpdate and the namespace', () => {
  const current = {
    metadata: {name: 'x', namespace: 'ns', uid: 'u', resourceVersion: '7', generation: 3, annotations: {'deprecated.daemonset.template.generation': '2'}},
    spec: {selector: {matchLabels: {a: 'b'}}, template: {metadata: {labels: {a: 'b'}}, spec: {containers: [{name: 'c', image: 'i:1'}]}}},
  } as unknown as DaemonSet;

  test('defaults, keeps identity, bumps the generations the way the API server does', () => {
    const next = asStoredUpdate(current, withImage({metadata: {name: 'x'}, spec: current.spec} as DaemonSet, 'i:2'));
    expect(next.metadata).toMatchObject({uid: 'u', resourceVersion: '7', generation: 4, annotations: {'deprecated.daemonset.template.generation': '3'}});
    expect(next.spec.updateStrategy).toEqual({type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: 0}});
    expect(next.spec.template.spec['dnsPolicy']).toBe('ClusterFirst');
  });

  test('the manifest namespace wins unless -n contradicts it', () => {
    expect(manifestNamespace(current, undefined)).toBe('ns');
    expect(manifestNamespace({...current, metadata: {name: 'x'}}, undefined)).toBeUndefined();
    expect(() => manifestNamespace(current, 'other')).toThrow(
      'the namespace from the manifest ("ns") does not match the namespace "other"; pass --namespace=ns',
    );
  });
});
