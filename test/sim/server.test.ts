import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest';
import {ManualClock} from '../../src/sim/clock.js';
import {startSimulatedCluster, type SimulatedCluster} from '../../src/sim/index.js';
import {START, dsManifest, podManifest} from './helpers.js';
import {TABLE_ACCEPT, call, until, watch} from './http-helpers.js';

let cluster: SimulatedCluster;
let clock: ManualClock;
let url: SimulatedCluster;
const DS = '/apis/apps/v1/namespaces/default/daemonsets';
const PODS = '/api/v1/namespaces/default/pods';

beforeAll(async () => {
  clock = new ManualClock(START);
  cluster = await startSimulatedCluster({clock, podTerminationDelayMs: 400});
  url = cluster;
  cluster.seed({nodes: 3});
});

afterAll(async () => {
  await cluster.stop();
});

beforeEach(() => {
  cluster.clearHooks();
  for (const ds of cluster.store.list('daemonsets').items)
    cluster.store.delete('daemonsets', ds.metadata.namespace, ds.metadata.name, {propagationPolicy: 'Background'});
  for (const p of cluster.store.list('pods').items) cluster.store.delete('pods', p.metadata.namespace, p.metadata.name, {gracePeriodSeconds: 0});
});

describe('version, discovery and OpenAPI', () => {
  it('reports v1.32 with no-cache headers', async () => {
    const r = await call(url, 'GET', '/version?timeout=5s');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({major: '1', minor: '32', gitVersion: expect.stringMatching(/^v1\.32\./)});
    expect(r.headers.get('cache-control')).toBe('no-cache, private');
  });

  it('negotiates aggregated discovery exactly (v2, v2beta1, legacy)', async () => {
    const v2 = await call(url, 'GET', '/apis', {
      headers: {
        accept:
          'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json',
      },
    });
    expect(v2.headers.get('content-type')).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    expect(v2.body.apiVersion).toBe('apidiscovery.k8s.io/v2');
    const apps = v2.body.items[0];
    expect(apps.metadata.name).toBe('apps');
    const ds = apps.versions[0].resources.find((r: {resource: string}) => r.resource === 'daemonsets');
    expect(ds).toMatchObject({
      responseKind: {group: 'apps', version: 'v1', kind: 'DaemonSet'},
      scope: 'Namespaced',
      singularResource: 'daemonset',
      shortNames: ['ds'],
      categories: ['all'],
      subresources: [{subresource: 'status', verbs: ['get', 'patch', 'update']}],
    });
    // kubectl 1.28/1.29 send only the v2beta1 and plain forms: "v=v2" must not match "v=v2beta1".
    const beta = await call(url, 'GET', '/api', {
      headers: {accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json'},
    });
    expect(beta.headers.get('content-type')).toBe('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
    expect(beta.body.items[0].metadata).toEqual({creationTimestamp: null});
    const nodes = beta.body.items[0].versions[0].resources.find((r: {resource: string}) => r.resource === 'nodes');
    expect(nodes).toMatchObject({scope: 'Cluster', shortNames: ['no']});
    const legacy = await call(url, 'GET', '/apis', {headers: {accept: 'application/json, */*'}});
    expect(legacy.body).toMatchObject({
      kind: 'APIGroupList',
      groups: [{name: 'apps', preferredVersion: {groupVersion: 'apps/v1'}}, {name: 'batch'}, {name: 'rbac.authorization.k8s.io'}],
    });
    const core = await call(url, 'GET', '/api');
    expect(core.body).toMatchObject({kind: 'APIVersions', versions: ['v1']});
  });

  it('serves legacy resource lists with status subresources', async () => {
    const core = await call(url, 'GET', '/api/v1');
    const names = core.body.resources.map((r: {name: string}) => r.name);
    expect(names).toEqual(expect.arrayContaining(['pods', 'pods/status', 'nodes', 'nodes/status', 'namespaces', 'events']));
    expect(core.body.resources.find((r: {name: string}) => r.name === 'pods')).toMatchObject({
      singularName: 'pod',
      namespaced: true,
      kind: 'Pod',
      shortNames: ['po'],
      categories: ['all'],
    });
    const apps = await call(url, 'GET', '/apis/apps/v1');
    expect(apps.body).toMatchObject({kind: 'APIResourceList', groupVersion: 'apps/v1'});
    expect((await call(url, 'GET', '/apis/apps')).body).toMatchObject({kind: 'APIGroup', name: 'apps'});
    expect((await call(url, 'GET', '/apis/batch/v1')).body).toMatchObject({kind: 'APIResourceList', groupVersion: 'batch/v1'});
    expect((await call(url, 'GET', '/apis/policy/v1')).status).toBe(404);
  });

  it('serves a minimal OpenAPI v3 with content-hashed URLs and fieldValidation on PATCH', async () => {
    const root = await call(url, 'GET', '/openapi/v3?timeout=32s');
    const ref = root.body.paths['apis/apps/v1'].serverRelativeURL as string;
    expect(ref).toMatch(/^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/);
    const doc = await call(url, 'GET', ref);
    const op = doc.body.paths['/apis/apps/v1/namespaces/{namespace}/daemonsets/{name}'].patch;
    expect(op['x-kubernetes-group-version-kind']).toEqual({group: 'apps', version: 'v1', kind: 'DaemonSet'});
    expect(op.parameters.map((p: {name: string}) => p.name)).toContain('fieldValidation');
    const core = await call(url, 'GET', root.body.paths['api/v1'].serverRelativeURL);
    expect(Object.keys(core.body.paths)).toContain('/api/v1/nodes/{name}');
    // An empty v2 document for old clients (kubectl < 1.27 validates against v2 only): protobuf, swagger "2.0".
    const v2 = await call(url, 'GET', '/openapi/v2');
    expect(v2.status).toBe(200);
    expect(v2.headers.get('content-type')).toBe('application/octet-stream');
    expect(v2.raw.subarray(0, 5)).toEqual(Buffer.from([0x0a, 3, 0x32, 0x2e, 0x30]));
  });
});

describe('CRUD and Status errors', () => {
  it('creates (201, defaulted, zeroed status) and refuses duplicates with the exact Status', async () => {
    const created = await call(url, 'POST', `${DS}?fieldManager=kubectl-create&fieldValidation=Strict`, {body: {...dsManifest(), status: {numberReady: 5}}});
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: 'DaemonSet',
      apiVersion: 'apps/v1',
      metadata: {name: 'agent', generation: 1, resourceVersion: expect.stringMatching(/^\d+$/)},
      spec: {updateStrategy: {type: 'RollingUpdate'}},
      status: {currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0},
    });
    const again = await call(url, 'POST', DS, {body: dsManifest()});
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'daemonsets.apps "agent" already exists',
      reason: 'AlreadyExists',
      details: {name: 'agent', group: 'apps', kind: 'daemonsets'},
      code: 409,
    });
  });

  it('answers 404 with the exact Status, and for a missing namespace', async () => {
    const r = await call(url, 'GET', `${DS}/x`, {headers: {accept: 'application/vnd.kubernetes.protobuf,application/json'}});
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'daemonsets.apps "x" not found',
      reason: 'NotFound',
      details: {name: 'x', group: 'apps', kind: 'daemonsets'},
      code: 404,
    });
    const ns = await call(url, 'POST', '/api/v1/namespaces/ghost/pods', {body: podManifest('p', {namespace: 'ghost'})});
    expect(ns.status).toBe(404);
    expect(ns.body).toMatchObject({message: 'namespaces "ghost" not found', details: {name: 'ghost', kind: 'namespaces'}});
    expect((await call(url, 'GET', '/api/v1/namespaces/default/widgets')).body.message).toBe('the server could not find the requested resource');
  });

  it('validates DaemonSets with 422 Invalid', async () => {
    const bad = dsManifest();
    (bad['spec'] as {selector: unknown}).selector = {matchLabels: {app: 'other'}};
    const r = await call(url, 'POST', DS, {body: bad});
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({
      reason: 'Invalid',
      details: {name: 'agent', group: 'apps', kind: 'DaemonSet', causes: [{field: 'spec.template.metadata.labels'}]},
    });
  });

  // The objects a real API server will not take: wrong types are decode errors (400 BadRequest, "cannot be handled
  // as"), wrong values are 422 Invalid with one cause per field; nothing is stored either way.
  describe('refuses what a real API server refuses, on create, update and patch', () => {
    const MERGE = {'content-type': 'application/merge-patch+json'};
    function ds(edit: (spec: Record<string, any>) => void): Record<string, unknown> {
      const manifest = dsManifest();
      edit(manifest['spec'] as Record<string, any>);
      return manifest;
    }
    function pod(edit: (pod: Record<string, any>) => void): Record<string, unknown> {
      const manifest = podManifest('bad-pod', {node: 'node-1'}) as Record<string, any>;
      edit(manifest);
      return manifest;
    }
    const NODE = {apiVersion: 'v1', kind: 'Node', metadata: {name: 'bad-node'}, spec: {taints: [null]}};
    const REVISION = {apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: {name: 'bad-rev'}, data: {}, revision: -1};
    const rows: {name: string; method: string; path: string; body: unknown; headers?: Record<string, string>; code: number; message: string; field?: string}[] =
      [
        {
          name: 'minReadySeconds "abc"',
          method: 'POST',
          path: DS,
          body: ds((spec) => (spec['minReadySeconds'] = 'abc')),
          code: 400,
          message: 'DaemonSet in version "apps/v1" cannot be handled as a DaemonSet: spec.minReadySeconds: Invalid value: "abc": must be an integer',
        },
        {
          name: 'minReadySeconds 1e300',
          method: 'POST',
          path: DS,
          body: ds((spec) => (spec['minReadySeconds'] = 1e300)),
          code: 400,
          message: 'spec.minReadySeconds: Invalid value: 1e+300',
        },
        {
          name: 'containers as a string',
          method: 'POST',
          path: DS,
          body: ds((spec) => (spec['template'].spec.containers = 'x')),
          code: 400,
          message: 'spec.template.spec.containers: Invalid value: "x": must be a list',
        },
        {
          name: 'updateStrategy as a string',
          method: 'POST',
          path: DS,
          body: ds((spec) => (spec['updateStrategy'] = 'RollingUpdate')),
          code: 400,
          message: 'spec.updateStrategy: Invalid value: "RollingUpdate"',
        },
        {
          name: 'minReadySeconds -1',
          method: 'POST',
          path: DS,
          body: ds((spec) => (spec['minReadySeconds'] = -1)),
          code: 422,
          message: 'DaemonSet.apps "agent" is invalid: spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0',
          field: 'spec.minReadySeconds',
        },
        {
          name: 'a pod with tolerations [null]',
          method: 'POST',
          path: PODS,
          body: pod((p) => (p['spec'].tolerations = [null])),
          code: 422,
          message: 'Pod "bad-pod" is invalid: spec.tolerations[0].operator: Invalid value: "": operator must be Exists when `key` is empty',
          field: 'spec.tolerations[0].operator',
        },
        {
          name: 'a pod with ownerReferences [null]',
          method: 'POST',
          path: PODS,
          body: pod((p) => (p['metadata'].ownerReferences = [null])),
          code: 422,
          message: 'metadata.ownerReferences[0].apiVersion: Invalid value: "": version must not be empty',
          field: 'metadata.ownerReferences[0].apiVersion',
        },
        {
          name: 'a pod label that is a number',
          method: 'POST',
          path: PODS,
          body: pod((p) => (p['metadata'].labels = {a: 1})),
          code: 400,
          message: 'metadata.labels[a]: Invalid value: 1: must be a string',
        },
        {
          name: 'a pod name with capitals',
          method: 'POST',
          path: PODS,
          body: pod((p) => (p['metadata'].name = 'Bad_Name')),
          code: 422,
          message: 'Pod "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"',
          field: 'metadata.name',
        },
        {
          name: 'a 300-character namespace',
          method: 'POST',
          path: '/api/v1/namespaces',
          body: {apiVersion: 'v1', kind: 'Namespace', metadata: {name: 'n'.repeat(300)}},
          code: 422,
          message: 'must be no more than 63 characters',
          field: 'metadata.name',
        },
        {
          name: 'node taints [null]',
          method: 'POST',
          path: '/api/v1/nodes',
          body: NODE,
          code: 422,
          message: 'Node "bad-node" is invalid: [spec.taints[0].key: Invalid value: ""',
          field: 'spec.taints[0].key',
        },
        {
          name: 'a negative revision',
          method: 'POST',
          path: '/apis/apps/v1/namespaces/default/controllerrevisions',
          body: REVISION,
          code: 422,
          message: 'ControllerRevision.apps "bad-rev" is invalid: revision: Invalid value: -1: must be greater than or equal to 0',
          field: 'revision',
        },
        // A patched object the decoder refuses is 422 (the API server's patcher, applyPatchToObject), not 400.
        {
          name: 'a merge patch with minReadySeconds 1e300',
          method: 'PATCH',
          path: `${DS}/agent`,
          headers: MERGE,
          body: {spec: {minReadySeconds: 1e300}},
          code: 422,
          message: 'spec.minReadySeconds',
        },
        {
          name: 'a merge patch with maxUnavailable 1e20',
          method: 'PATCH',
          path: `${DS}/agent`,
          headers: MERGE,
          body: {spec: {updateStrategy: {rollingUpdate: {maxUnavailable: 1e20}}}},
          code: 422,
          message: 'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 100000000000000000000',
        },
        {
          name: 'a merge patch with rollingUpdate "fast"',
          method: 'PATCH',
          path: `${DS}/agent`,
          headers: MERGE,
          body: {spec: {updateStrategy: {rollingUpdate: 'fast'}}},
          code: 422,
          message: 'must be an object',
        },
        {
          name: 'a merge patch with selector values as a string',
          method: 'PATCH',
          path: `${DS}/agent`,
          headers: MERGE,
          body: {spec: {selector: {matchExpressions: [{key: 'a', operator: 'In', values: 'x'}]}}},
          code: 422,
          message: 'spec.selector.matchExpressions[0].values: Invalid value: "x": must be a list',
        },
        {
          name: 'a status patch with pod conditions [null]',
          method: 'PATCH',
          path: `${PODS}/agent-pod/status`,
          headers: MERGE,
          body: {status: {conditions: [null]}},
          code: 422,
          message: 'Pod "agent-pod" is invalid: status.conditions[0].type: Required value',
          field: 'status.conditions[0].type',
        },
      ];

    it.each(rows)('$name: $code', async ({method, path, body, headers, code, message, field}) => {
      expect((await call(url, 'POST', DS, {body: dsManifest()})).status).toBe(201);
      expect((await call(url, 'POST', PODS, {body: podManifest('agent-pod', {node: 'node-1'})})).status).toBe(201);
      const before = cluster.store.list('daemonsets').items[0]!.metadata.resourceVersion;
      const r = await call(url, method, path, {body, ...(headers ? {headers} : {})});
      expect(r.status).toBe(code);
      expect(r.body).toMatchObject({kind: 'Status', status: 'Failure', code, reason: code === 400 ? 'BadRequest' : 'Invalid'});
      expect(r.body.message).toContain(message);
      expect(JSON.stringify(r.body)).not.toMatch(/\s{4}at |\.ts:\d|\.js:\d/);
      if (field !== undefined) expect(r.body.details.causes.map((c: {field: string}) => c.field)).toContain(field);
      // Nothing was stored.
      expect(cluster.store.list('daemonsets').items[0]!.metadata.resourceVersion).toBe(before);
      expect(cluster.store.get('pods', 'default', 'bad-pod')).toBeUndefined();
      expect(cluster.store.get('nodes', undefined, 'bad-node')).toBeUndefined();
    });
  });

  it('replaces with PUT, with a 409 for a stale resourceVersion and a 400 for a name mismatch', async () => {
    const created = (await call(url, 'POST', DS, {body: dsManifest()})).body;
    const put = await call(url, 'PUT', `${DS}/agent`, {body: {...created, metadata: {...created.metadata, labels: {v: '2'}}}});
    expect(put.status).toBe(200);
    expect(put.body.metadata.labels).toEqual({v: '2'});
    const stale = await call(url, 'PUT', `${DS}/agent`, {body: {...created, metadata: {...created.metadata, labels: {v: '3'}}}});
    expect(stale.status).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
    expect(stale.body.message).toContain('the object has been modified');
    const renamed = await call(url, 'PUT', `${DS}/agent`, {body: {...put.body, metadata: {...put.body.metadata, name: 'other'}}});
    expect(renamed.status).toBe(400);
    const status = await call(url, 'PUT', `${DS}/agent/status`, {body: {...put.body, status: {numberReady: 1}}});
    expect(status.body.status).toEqual({numberReady: 1});
  });

  it('supports dryRun=All on create and delete', async () => {
    const dry = await call(url, 'POST', `${DS}?dryRun=All`, {body: dsManifest()});
    expect(dry.status).toBe(201);
    expect(cluster.store.get('daemonsets', 'default', 'agent')).toBeUndefined();
    await call(url, 'POST', DS, {body: dsManifest()});
    const del = await call(url, 'DELETE', `${DS}/agent?dryRun=All`, {body: {propagationPolicy: 'Background'}});
    expect(del.status).toBe(200);
    expect(cluster.store.get('daemonsets', 'default', 'agent')).toBeDefined();
  });
});

describe('PATCH', () => {
  const smp = {'content-type': 'application/strategic-merge-patch+json'};

  it('applies strategic, merge and JSON patches; a no-op keeps the resourceVersion', async () => {
    const ds = (
      await call(url, 'POST', DS, {
        body: {
          ...dsManifest(),
          spec: {
            ...(dsManifest()['spec'] as object),
            template: {
              metadata: {labels: {app: 'agent'}},
              spec: {
                containers: [
                  {name: 'main', image: 'a:1'},
                  {name: 'side', image: 'b:1'},
                ],
              },
            },
          },
        },
      })
    ).body;
    const s = await call(url, 'PATCH', `${DS}/agent?fieldManager=kubectl-set`, {
      headers: smp,
      body: {spec: {template: {spec: {$setElementOrder: undefined, containers: [{name: 'main', image: 'a:2'}]}}}},
    });
    expect(s.status).toBe(200);
    expect(s.body.spec.template.spec.containers.map((c: {image: string}) => c.image)).toEqual(['a:2', 'b:1']);
    expect(s.body.metadata.generation).toBe(2);
    const noop = await call(url, 'PATCH', `${DS}/agent`, {headers: smp, body: {spec: {template: {spec: {containers: [{name: 'main', image: 'a:2'}]}}}}});
    expect(noop.body.metadata.resourceVersion).toBe(s.body.metadata.resourceVersion);
    const merge = await call(url, 'PATCH', `${DS}/agent`, {headers: {'content-type': 'application/merge-patch+json'}, body: {metadata: {labels: {x: 'y'}}}});
    expect(merge.body.metadata.labels).toEqual({app: 'agent', x: 'y'});
    const json = await call(url, 'PATCH', `${DS}/agent`, {
      headers: {'content-type': 'application/json-patch+json'},
      body: [{op: 'replace', path: '/metadata/labels/x', value: 'z'}],
    });
    expect(json.body.metadata.labels.x).toBe('z');
    const failed = await call(url, 'PATCH', `${DS}/agent`, {
      headers: {'content-type': 'application/json-patch+json'},
      body: [{op: 'test', path: '/metadata/labels/x', value: 'nope'}],
    });
    expect(failed.status).toBe(422);
    expect(failed.body.reason).toBe('Invalid');
    void ds;
  });

  it('answers 415 for apply patches and 409 when the patch names another resourceVersion', async () => {
    await call(url, 'POST', DS, {body: dsManifest()});
    const apply = await call(url, 'PATCH', `${DS}/agent`, {headers: {'content-type': 'application/apply-patch+yaml'}, body: 'metadata: {}'});
    expect(apply.status).toBe(415);
    expect(apply.body).toMatchObject({reason: 'UnsupportedMediaType', code: 415});
    const stale = await call(url, 'PATCH', `${DS}/agent`, {
      headers: {'content-type': 'application/merge-patch+json'},
      body: {metadata: {resourceVersion: '1', labels: {a: 'b'}}},
    });
    expect(stale.status).toBe(409);
    const node = await call(url, 'PATCH', '/api/v1/nodes/node-0', {headers: smp, body: {spec: {unschedulable: true}}});
    expect(node.body.spec.unschedulable).toBe(true);
    const uncordon = await call(url, 'PATCH', '/api/v1/nodes/node-0', {headers: smp, body: {spec: {unschedulable: null}}});
    expect(uncordon.body.spec.unschedulable).toBeUndefined();
    const status = await call(url, 'PATCH', '/api/v1/nodes/node-0/status', {
      headers: smp,
      body: {spec: {unschedulable: true}, status: {conditions: [{type: 'Ready', status: 'False'}]}},
    });
    expect(status.body.spec.unschedulable).toBeUndefined();
    expect(status.body.status.conditions.find((c: {type: string}) => c.type === 'Ready').status).toBe('False');
    await call(url, 'PATCH', '/api/v1/nodes/node-0/status', {headers: smp, body: {status: {conditions: [{type: 'Ready', status: 'True'}]}}});
  });
});

describe('DELETE', () => {
  it('answers a Success Status for a DaemonSet and the terminating object for a pod', async () => {
    const ds = (await call(url, 'POST', DS, {body: dsManifest()})).body;
    await call(url, 'POST', PODS, {body: podManifest('agent-x', {node: 'node-0', owner: ds})});
    const del = await call(url, 'DELETE', `${DS}/agent`, {body: {propagationPolicy: 'Background'}});
    expect(del.status).toBe(200);
    expect(del.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: {name: 'agent', group: 'apps', kind: 'daemonsets', uid: ds.metadata.uid},
    });
    const pod = cluster.store.get('pods', 'default', 'agent-x');
    expect(pod?.metadata.deletionTimestamp).toBeDefined();
    clock.advance(400);
    expect(cluster.store.get('pods', 'default', 'agent-x')).toBeUndefined();

    await call(url, 'POST', PODS, {body: podManifest('p', {node: 'node-0'})});
    const podDel = await call(url, 'DELETE', `${PODS}/p`, {body: {propagationPolicy: 'Background'}});
    expect(podDel.status).toBe(200);
    expect(podDel.body).toMatchObject({kind: 'Pod', metadata: {name: 'p', deletionGracePeriodSeconds: 30}});
    const force = await call(url, 'DELETE', `${PODS}/p?gracePeriodSeconds=0`);
    expect(force.body.kind).toBe('Pod');
    expect(cluster.store.get('pods', 'default', 'p')).toBeUndefined();
  });

  it('returns the pending owner for Foreground and finishes once dependents are gone', async () => {
    const ds = (await call(url, 'POST', DS, {body: dsManifest()})).body;
    await call(url, 'POST', PODS, {body: podManifest('agent-y', {node: 'node-1', owner: ds})});
    const del = await call(url, 'DELETE', `${DS}/agent`, {body: {propagationPolicy: 'Foreground'}});
    expect(del.body).toMatchObject({kind: 'DaemonSet', metadata: {finalizers: ['foregroundDeletion'], deletionTimestamp: expect.any(String)}});
    clock.advance(400);
    expect(cluster.store.get('daemonsets', 'default', 'agent')).toBeUndefined();
  });

  it('deletes collections by selector', async () => {
    await call(url, 'POST', PODS, {body: podManifest('a', {labels: {app: 'x'}})});
    await call(url, 'POST', PODS, {body: podManifest('b', {labels: {app: 'y'}})});
    const r = await call(url, 'DELETE', `${PODS}?labelSelector=app%3Dx`);
    expect(r.body.items.map((p: {metadata: {name: string}}) => p.metadata.name)).toEqual(['a']);
    expect(cluster.store.list('pods').items.map((p) => p.metadata.name)).toEqual(['b']);
  });
});

describe('lists and Tables', () => {
  it('lists typed JSON with a string resourceVersion and selectors', async () => {
    await call(url, 'POST', PODS, {body: podManifest('a', {node: 'node-0'})});
    await call(url, 'POST', PODS, {body: podManifest('b', {node: 'node-1'})});
    const all = await call(url, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1%2Cstatus.phase%21%3DFailed&limit=500');
    expect(all.body).toMatchObject({kind: 'PodList', apiVersion: 'v1', metadata: {resourceVersion: cluster.store.resourceVersion}});
    expect(all.body.items.map((p: {metadata: {name: string}}) => p.metadata.name)).toEqual(['b']);
    const bad = await call(url, 'GET', `${PODS}?fieldSelector=spec.whatever%3D1`);
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toBe('BadRequest');
  });

  it('prints nodes, pods, DaemonSets and ControllerRevisions as Tables with row objects', async () => {
    clock.advance(65_000);
    const nodes = await call(url, 'GET', '/api/v1/nodes?limit=500', {headers: {accept: TABLE_ACCEPT}});
    expect(nodes.headers.get('content-type')).toBe('application/json;as=Table;v=v1;g=meta.k8s.io');
    expect(nodes.body.kind).toBe('Table');
    expect(nodes.body.metadata.resourceVersion).toBe(cluster.store.resourceVersion);
    expect(nodes.body.columnDefinitions.map((c: {name: string}) => c.name)).toEqual([
      'Name',
      'Status',
      'Roles',
      'Age',
      'Version',
      'Internal-IP',
      'External-IP',
      'OS-Image',
      'Kernel-Version',
      'Container-Runtime',
    ]);
    expect(nodes.body.rows[0].cells.slice(0, 5)).toEqual(['node-0', 'Ready', '<none>', expect.stringMatching(/^\d+s$|^\dm\d*s?$/), 'v1.32.5']);
    expect(nodes.body.rows[0].object).toMatchObject({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: {name: 'node-0', labels: expect.any(Object)},
    });

    const ds = (await call(url, 'POST', DS, {body: dsManifest()})).body;
    await call(url, 'POST', PODS, {body: podManifest('agent-z', {node: 'node-2', owner: ds})});
    const pods = await call(url, 'GET', `${PODS}?includeObject=Object`, {headers: {accept: TABLE_ACCEPT}});
    expect(pods.body.rows[0].cells).toEqual(['agent-z', '0/1', 'Pending', '0', '0s', '<none>', 'node-2', '<none>', '<none>']);
    expect(pods.body.rows[0].object.kind).toBe('Pod');
    const dsTable = await call(url, 'GET', `${DS}/agent?includeObject=None`, {headers: {accept: TABLE_ACCEPT}});
    expect(dsTable.body.rows).toEqual([{cells: ['agent', 0, 0, 0, 0, 0, '<none>', '0s', 'main', 'busybox:1.36', 'app=agent']}]);
    expect(dsTable.body.metadata.resourceVersion).toBe(ds.metadata.resourceVersion);

    cluster.store.create({
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: 'agent-5d8f',
        namespace: 'default',
        ownerReferences: [{apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: ds.metadata.uid, controller: true}],
      },
      revision: 3,
      data: {},
    });
    const crs = await call(url, 'GET', '/apis/apps/v1/namespaces/default/controllerrevisions', {headers: {accept: TABLE_ACCEPT}});
    expect(crs.body.rows[0].cells).toEqual(['agent-5d8f', 'daemonset.apps/agent', 3, '0s']);
    cluster.store.delete('controllerrevisions', 'default', 'agent-5d8f');
  });

  it('pages with limit/continue, Tables included', async () => {
    for (let i = 0; i < 5; i++) cluster.store.create(podManifest(`page-${i}`));
    const first = await call(url, 'GET', `${PODS}?limit=2`);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.metadata.remainingItemCount).toBe(3);
    const second = await call(url, 'GET', `${PODS}?limit=2&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    expect(second.body.items.map((p: {metadata: {name: string}}) => p.metadata.name)).toEqual(['page-2', 'page-3']);
    expect(second.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
    const table = await call(url, 'GET', `${PODS}?limit=4`, {headers: {accept: TABLE_ACCEPT}});
    expect(table.body.rows).toHaveLength(4);
    expect(table.body.metadata.continue).toEqual(expect.any(String));
    const expired = await call(url, 'GET', `${PODS}?limit=2&continue=${Buffer.from(JSON.stringify({v: 1, rv: 1, s: 'gone', o: 2})).toString('base64url')}`);
    expect(expired.status).toBe(410);
    expect(expired.body.reason).toBe('Expired');
  });
});

describe('watch', () => {
  it('resumes from a resourceVersion with compact NDJSON events and no bookmarks unless asked', async () => {
    const rv = cluster.store.resourceVersion;
    const w = watch(url, `${PODS}?watch=true&resourceVersion=${rv}`);
    expect(await w.status).toBe(200);
    expect(await w.contentType).toBe('application/json');
    cluster.store.create(podManifest('w1'));
    cluster.store.patchStatus('pods', 'default', 'w1', {phase: 'Running'});
    cluster.store.delete('pods', 'default', 'w1');
    const events = await w.waitFor(3);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(events[2]!.object.kind).toBe('Pod');
    expect(w.lines.every((l) => !l.includes('\n') && !l.includes('  '))).toBe(true);
    w.close();
    await until(() => cluster.server.openWatches === 0);
  });

  it('starts with ADDED for the current state when resourceVersion is unset or 0', async () => {
    cluster.store.create(podManifest('s1'));
    cluster.store.create(podManifest('s2'));
    for (const q of ['', '&resourceVersion=0']) {
      const w = watch(url, `${PODS}?watch=1${q}`);
      const events = await w.waitFor(2);
      expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED s1', 'ADDED s2']);
      w.close();
    }
  });

  it('ends a too-old watch with a 410 ERROR event', async () => {
    const small = await startSimulatedCluster({historySize: 3, namespaces: ['default']});
    try {
      for (let i = 0; i < 6; i++) small.store.create(podManifest(`p${i}`));
      const w = watch(small, `${PODS}?watch=true&resourceVersion=1`);
      await w.ended;
      expect(w.events).toHaveLength(1);
      expect(w.events[0]).toMatchObject({
        type: 'ERROR',
        object: {kind: 'Status', reason: 'Expired', code: 410, message: expect.stringMatching(/^too old resource version: 1 \(\d+\)$/)},
      });
    } finally {
      await small.stop();
    }
  });

  it('turns selector transitions into ADDED / DELETED and honours field selectors', async () => {
    const rv = cluster.store.resourceVersion;
    const byLabel = watch(url, `${PODS}?watch=true&resourceVersion=${rv}&labelSelector=tier%3Dweb`);
    const byName = watch(url, `${PODS}?watch=true&resourceVersion=${rv}&fieldSelector=metadata.name%3Dsel`);
    await byLabel.status;
    await byName.status;
    cluster.store.create(podManifest('sel', {labels: {tier: 'db'}}));
    cluster.store.create(podManifest('other', {labels: {tier: 'web'}}));
    cluster.store.modify('pods', 'default', 'sel', (p) => ({...p, metadata: {...p.metadata, labels: {tier: 'web'}}}));
    cluster.store.modify('pods', 'default', 'sel', (p) => ({...p, metadata: {...p.metadata, labels: {tier: 'db'}}}));
    const labelEvents = await byLabel.waitFor(3);
    expect(labelEvents.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED other', 'ADDED sel', 'DELETED sel']);
    const nameEvents = await byName.waitFor(3);
    expect(nameEvents.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'MODIFIED']);
    byLabel.close();
    byName.close();
  });

  it('closes after timeoutSeconds, with a final bookmark only when bookmarks are allowed', async () => {
    const rv = cluster.store.resourceVersion;
    const plain = watch(url, `${DS}?watch=true&resourceVersion=${rv}&timeoutSeconds=1`);
    const marked = watch(url, `${DS}?watch=true&resourceVersion=${rv}&timeoutSeconds=1&allowWatchBookmarks=true`);
    await Promise.all([plain.ended, marked.ended]);
    expect(plain.events).toEqual([]);
    expect(marked.events).toEqual([
      {type: 'BOOKMARK', object: {kind: 'DaemonSet', apiVersion: 'apps/v1', metadata: {resourceVersion: cluster.store.resourceVersion}}},
    ]);
  });

  it('serves Table watches with one row per event', async () => {
    const rv = cluster.store.resourceVersion;
    const w = watch(url, `${PODS}?watch=true&resourceVersion=${rv}`, {accept: TABLE_ACCEPT});
    expect(await w.contentType).toBe('application/json;as=Table;v=v1;g=meta.k8s.io');
    cluster.store.create(podManifest('t1', {node: 'node-0'}));
    const [e] = await w.waitFor(1);
    expect(e!.object.kind).toBe('Table');
    expect(e!.object.rows).toHaveLength(1);
    expect(e!.object.rows[0].cells[0]).toBe('t1');
    expect(e!.object.rows[0].object.metadata.name).toBe('t1');
    w.close();
  });

  it('supports WatchList (sendInitialEvents) with the initial-events-end bookmark', async () => {
    cluster.store.create(podManifest('wl'));
    const w = watch(url, `${PODS}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    const events = await w.waitFor(2);
    expect(events[0]).toMatchObject({type: 'ADDED', object: {metadata: {name: 'wl'}}});
    expect(events[1]).toMatchObject({type: 'BOOKMARK', object: {metadata: {annotations: {'k8s.io/initial-events-end': 'true'}}}});
    w.close();
  });
});

describe('test hooks', () => {
  it('forbids with the real 403 Status', async () => {
    cluster.forbid({verb: 'delete', resource: 'pods', namespace: 'kube-system'});
    cluster.store.create(podManifest('sys', {namespace: 'kube-system'}));
    const r = await call(url, 'DELETE', '/api/v1/namespaces/kube-system/pods/sys');
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({
      reason: 'Forbidden',
      message: 'pods "sys" is forbidden: User "system:anonymous" cannot delete resource "pods" in API group "" in the namespace "kube-system"',
      details: {name: 'sys', kind: 'pods'},
      code: 403,
    });
    const list = await call(url, 'DELETE', '/api/v1/namespaces/kube-system/pods');
    expect(list.status).toBe(200);
    cluster.clearHooks();
    cluster.forbid({verb: 'list', resource: 'daemonsets'});
    expect((await call(url, 'GET', DS)).body.message).toBe(
      'daemonsets.apps is forbidden: User "system:anonymous" cannot list resource "daemonsets" in API group "apps" in the namespace "default"',
    );
  });

  it('injects faults deterministically from a seed', async () => {
    const codes = async (): Promise<number[]> => {
      const undo = cluster.injectFaults({rate: 0.5, codes: [500, 429], seed: 42});
      const out: number[] = [];
      for (let i = 0; i < 12; i++) out.push((await call(url, 'GET', '/api/v1/nodes')).status);
      expect((await call(url, 'GET', '/version')).status).toBe(200);
      undo();
      return out;
    };
    const a = await codes();
    const b = await codes();
    expect(a).toEqual(b);
    expect(a).toContain(200);
    expect(a.some((c) => c === 500 || c === 429)).toBe(true);
    cluster.injectFaults({rate: 1, codes: [429]});
    const r = await call(url, 'GET', '/api/v1/nodes');
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.body).toMatchObject({reason: 'TooManyRequests', code: 429});
  });

  it('drops watches when asked', async () => {
    cluster.injectFaults({rate: 1, codes: [500], dropWatches: true, match: {verb: 'create'}});
    const w = watch(url, `${PODS}?watch=true&resourceVersion=${cluster.store.resourceVersion}`);
    await w.status;
    cluster.store.create(podManifest('dropped'));
    await w.ended;
    expect(w.events).toEqual([]);
  });

  it('delays responses and logs requests', async () => {
    const before = cluster.requestLog.count;
    cluster.delay({ms: 150, verb: 'get', resource: 'nodes'});
    const t = Date.now();
    await call(url, 'GET', '/api/v1/nodes/node-1?pretty=1');
    expect(Date.now() - t).toBeGreaterThanOrEqual(140);
    expect(cluster.requestLog.count).toBe(before + 1);
    const last = cluster.requestLog.entries.at(-1)!;
    expect(last).toMatchObject({
      method: 'GET',
      path: '/api/v1/nodes/node-1',
      query: {pretty: '1'},
      status: 200,
      verb: 'get',
      resource: 'nodes',
      name: 'node-1',
    });
  });
});
