// The RBAC of a detached rollout (core/detach.ts) when its metric gate reaches Prometheus through the API server's
// service proxy: `get` on `services/proxy` named NAME:PORT (the name the API server's RequestInfo takes from
// /services/NAME:PORT/proxy/...), in the Job's Role for a Service in its namespace, in a Role and RoleBinding of
// their own in the Service's namespace otherwise; without such a gate the manifests are what they were.
import {describe, expect, test} from 'vitest';
import {
  DETACHED_JOB_LABEL,
  DETACHED_JOB_NAMESPACE_LABEL,
  type DetachInput,
  type GatedPhase,
  type GatedRecord,
  type Manifest,
  detachManifests,
  detachProxiedService,
  detachProxyRoleName,
  detachRoleRules,
  rulesAllow,
  serviceProxyName,
  serviceProxyRules,
} from '../../src/core/index.js';

const JOB = 'ds-rollout-agent-0123456789';
const INPUT: DetachInput = {
  namespace: 'default',
  daemonSet: 'agent',
  template: '0123456789abcdef',
  job: JOB,
  image: 'ds-rollout:test',
  args: ['step', 'agent'],
};
const PROXY_RULE = {apiGroups: [''], resources: ['services/proxy'], resourceNames: ['prometheus:9090'], verbs: ['get']};

const kinds = (manifests: readonly Manifest[]) => manifests.map((m) => `${m.kind} ${m.metadata.namespace ?? ''}/${m.metadata.name}`);
const role = (manifests: readonly Manifest[]) => manifests.find((m) => m.kind === 'Role' && m.metadata.name === JOB)!;

describe('the service proxy rule', () => {
  test('names NAME:PORT, as the API server names a proxy request; get only', () => {
    expect(serviceProxyName({name: 'prometheus-k8s', port: 'web'})).toBe('prometheus-k8s:web');
    const rules = serviceProxyRules({namespace: 'monitoring', name: 'prometheus', port: '9090'});
    expect(rules).toEqual([PROXY_RULE]);
    expect(rulesAllow(rules, '', 'services/proxy', 'get', 'prometheus:9090')).toBe(true);
    // Another port, the bare name, another verb, the Service itself: not granted.
    expect(rulesAllow(rules, '', 'services/proxy', 'get', 'prometheus:9091')).toBe(false);
    expect(rulesAllow(rules, '', 'services/proxy', 'get', 'prometheus')).toBe(false);
    expect(rulesAllow(rules, '', 'services/proxy', 'create', 'prometheus:9090')).toBe(false);
    expect(rulesAllow(rules, '', 'services', 'get', 'prometheus')).toBe(false);
  });
});

describe('detachManifests with a metric gate through the service proxy', () => {
  test('no metric gate (or Prometheus by URL): the manifests are unchanged, no services/proxy anywhere', () => {
    const plain = detachManifests(INPUT);
    expect(kinds(plain)).toEqual([
      `ServiceAccount default/${JOB}`,
      `Role default/${JOB}`,
      `RoleBinding default/${JOB}`,
      'ClusterRole /ds-rollout:node-reader',
      `ClusterRoleBinding /ds-rollout:default:${JOB}`,
      `Job default/${JOB}`,
    ]);
    expect(role(plain)['rules']).toEqual(detachRoleRules('agent', JOB));
    expect(JSON.stringify(plain)).not.toContain('services/proxy');
  });

  test('a Service in the Job namespace: one more rule in the Job Role, nothing else', () => {
    const manifests = detachManifests({...INPUT, prometheusService: {namespace: 'default', name: 'prometheus', port: '9090'}});
    expect(kinds(manifests)).toEqual(kinds(detachManifests(INPUT)));
    expect(role(manifests)['rules']).toEqual([...detachRoleRules('agent', JOB), PROXY_RULE]);
    expect(role(manifests)['rules']).toEqual(detachRoleRules('agent', JOB, {namespace: 'default', name: 'prometheus', port: '9090'}));
  });

  test("a Service in another namespace: a Role and RoleBinding there, labelled with the Job as the node binding is; the Job's Role unchanged", () => {
    const manifests = detachManifests({...INPUT, prometheusService: {namespace: 'monitoring', name: 'prometheus', port: '9090'}});
    const name = detachProxyRoleName('default', JOB);
    expect(name).toBe(`ds-rollout:default:${JOB}`);
    // First: a namespace that is not there fails the creation before anything is made.
    expect(kinds(manifests)).toEqual([
      `Role monitoring/${name}`,
      `RoleBinding monitoring/${name}`,
      `ServiceAccount default/${JOB}`,
      `Role default/${JOB}`,
      `RoleBinding default/${JOB}`,
      'ClusterRole /ds-rollout:node-reader',
      `ClusterRoleBinding /ds-rollout:default:${JOB}`,
      `Job default/${JOB}`,
    ]);
    expect(role(manifests)['rules']).toEqual(detachRoleRules('agent', JOB));
    const labels = {
      'app.kubernetes.io/managed-by': 'ds-rollout',
      'app.kubernetes.io/name': 'ds-rollout',
      [DETACHED_JOB_NAMESPACE_LABEL]: 'default',
      [DETACHED_JOB_LABEL]: JOB,
    };
    expect(manifests[0]).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: {name, namespace: 'monitoring', labels},
      rules: [PROXY_RULE],
    });
    expect(manifests[1]).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: {name, namespace: 'monitoring', labels},
      roleRef: {apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name},
      subjects: [{kind: 'ServiceAccount', name: JOB, namespace: 'default'}],
    });
    // The same labels as the cluster-scoped node binding: one selector finds both once the Job is gone.
    expect(manifests[6]!.metadata.labels).toEqual(labels);
  });
});

describe('detachProxiedService: the Service the Job will query', () => {
  const service = {namespace: 'monitoring', name: 'prometheus', port: '9090'};
  const other = {namespace: 'monitoring', name: 'thanos', port: 'http'};
  const record = (phase: GatedPhase, template = 'T', metrics = true): GatedRecord => ({
    template,
    stages: [],
    stage: 0,
    phase,
    failures: [],
    maxRestarts: 0,
    progressDeadlineMs: 0,
    onFailure: 'pause',
    ...(metrics
      ? {metrics: [{name: 'm', query: 'up', max: 1, forMs: 0, intervalMs: 10_000, noData: 'fail', onError: 'fail'}], prometheus: {service: other}}
      : {}),
  });

  test("a new rollout: the strategy's Service; by URL or none: none", () => {
    expect(detachProxiedService(undefined, 'T', {service})).toEqual(service);
    expect(detachProxiedService(undefined, 'T', {url: 'http://prometheus.monitoring:9090'})).toBeUndefined();
    expect(detachProxiedService(undefined, 'T', undefined)).toBeUndefined();
    // A record of another template, or one that ended: the Job starts a new rollout with the strategy.
    expect(detachProxiedService(record('baking', 'OLD'), 'T', {service})).toEqual(service);
    expect(detachProxiedService(record('aborted'), 'T', {service})).toEqual(service);
  });

  test("a rollout of this template under way (a rerun, a promote): the record's, as the driver asks it", () => {
    for (const phase of ['rolling', 'baking', 'awaiting-approval'] as const) {
      expect(detachProxiedService(record(phase), 'T', {service})).toEqual(other);
      expect(detachProxiedService(record(phase), 'T', undefined)).toEqual(other);
    }
    expect(detachProxiedService(record('baking', 'T', false), 'T', {service})).toBeUndefined();
  });
});
