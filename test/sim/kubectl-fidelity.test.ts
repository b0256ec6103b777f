// The simulator against the real kubectl (docs/design/sim-api.md §11): every command below runs the installed
// kubectl (Google's dispatcher, which execs kubectl 1.32 because /version says 1.32) and asserts on its own
// output. Locally, without kubectl, the suite is skipped with a message; in CI a missing kubectl fails it.
import {spawn} from 'node:child_process';
import {writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {DaemonSet, Pod} from '../../src/core/types.js';
import {startSimulatedCluster, type SimulatedCluster} from '../../src/sim/index.js';
import {dsManifest, podManifest} from './helpers.js';
import {until} from './http-helpers.js';
import {type KubectlSession, type Run, kubectlMinor, kubectlPath, kubectlSession, skipWithoutKubectl, table} from '../helpers/kubectl.js';

let cluster: SimulatedCluster;
let dir: string;
let env: NodeJS.ProcessEnv;
let session: KubectlSession;

const kubectl = (...args: string[]): Promise<Run> => session.run(...args);
const ok = (...args: string[]): Promise<string> => session.ok(...args);

async function manifest(name: string, body: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify(body));
  return path;
}

function ownerRef(ds: DaemonSet): object {
  return {apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.metadata.name, uid: ds.metadata.uid, controller: true, blockOwnerDeletion: true};
}

function runningPod(name: string, node: string, ds: DaemonSet, ip: string): Record<string, unknown> {
  const pod = podManifest(name, {node, labels: {app: ds.metadata.name}});
  (pod['metadata'] as Record<string, unknown>)['ownerReferences'] = [ownerRef(ds)];
  pod['status'] = {
    phase: 'Running',
    podIP: ip,
    hostIP: '10.0.0.1',
    conditions: [{type: 'Ready', status: 'True'}],
    containerStatuses: [{name: 'main', ready: true, restartCount: 0, image: 'busybox:1.36', state: {running: {startedAt: '2026-11-21T12:00:00Z'}}}],
  };
  return pod;
}

describe.skipIf(skipWithoutKubectl)('real kubectl against the simulated cluster', () => {
  beforeAll(async () => {
    cluster = await startSimulatedCluster({podTerminationDelayMs: 200});
    cluster.seed({nodes: 3});
    cluster.store.modify('nodes', undefined, 'node-0', (n) => ({
      ...n,
      metadata: {...n.metadata, labels: {...n.metadata.labels, 'node-role.kubernetes.io/control-plane': ''}},
    }));
    session = await kubectlSession(cluster);
    dir = session.dir;
    env = session.env;
  });

  afterAll(async () => {
    if (process.env['SIM_DEBUG_LOG']) console.log(cluster.requestLog.entries.map((e) => `${e.status} ${e.method} ${e.path} ${e.userAgent ?? ''}`).join('\n'));
    await cluster?.stop();
    await session?.close();
  });

  it('get nodes (table, wide, json) and api-resources', async () => {
    const rows = table(await ok('get', 'nodes'));
    expect(rows[0]).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    expect(rows.slice(1).map((r) => [r[0], r[1], r[2], r[4]])).toEqual([
      ['node-0', 'Ready', 'control-plane', 'v1.32.5'],
      ['node-1', 'Ready', '<none>', 'v1.32.5'],
      ['node-2', 'Ready', '<none>', 'v1.32.5'],
    ]);
    expect(rows[1]![3]).toMatch(/^\d+s$/);
    const wide = table(await ok('get', 'nodes', '-o', 'wide'));
    expect(wide[0]).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME']);
    expect(wide[2]!.slice(5)).toEqual(['10.0.0.2', '<none>', 'Ubuntu 24.04.1 LTS', '6.8.0-1015-gcp', 'containerd://1.7.24']);
    const json = JSON.parse(await ok('get', 'nodes', '-o', 'json')) as {kind: string; items: {kind: string; metadata: {name: string}}[]};
    expect(json.kind).toBe('List');
    expect(json.items.map((n) => `${n.kind}/${n.metadata.name}`)).toEqual(['Node/node-0', 'Node/node-1', 'Node/node-2']);
    const resources = table(await ok('api-resources'));
    expect(resources).toEqual(
      expect.arrayContaining([
        ['daemonsets', 'ds', 'apps/v1', 'true', 'DaemonSet'],
        ['nodes', 'no', 'v1', 'false', 'Node'],
        ['pods', 'po', 'v1', 'true', 'Pod'],
      ]),
    );
  });

  it('create -f, get ds (table, wide, json), NotFound and AlreadyExists errors', async () => {
    const file = await manifest('created.json', dsManifest('created'));
    expect((await ok('create', '-f', file)).trim()).toBe('daemonset.apps/created created');
    const dup = await kubectl('create', '-f', file);
    expect(dup.code).toBe(1);
    expect(dup.stderr.trim()).toBe(`Error from server (AlreadyExists): error when creating "${file}": daemonsets.apps "created" already exists`);
    const rows = table(await ok('get', 'ds'));
    expect(rows[0]).toEqual(['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE']);
    expect(rows.find((r) => r[0] === 'created')!.slice(0, 7)).toEqual(['created', '0', '0', '0', '0', '0', '<none>']);
    const wide = table(await ok('get', 'daemonset', 'created', '-o', 'wide'));
    expect(wide[1]!.slice(8)).toEqual(['main', 'busybox:1.36', 'app=created']);
    const json = JSON.parse(await ok('get', 'ds', 'created', '-o', 'json')) as DaemonSet;
    expect(json.spec.updateStrategy).toEqual({type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: 0}});
    const missing = await kubectl('get', 'ds', 'x');
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe('Error from server (NotFound): daemonsets.apps "x" not found');
    // kubectl before 1.27 decides server dry-run support from OpenAPI v2 paths, which the simulator leaves empty.
    if (kubectlMinor >= 27) {
      const dry = await ok('create', '-f', await manifest('dry.json', dsManifest('dry')), '--dry-run=server');
      expect(dry.trim()).toBe('daemonset.apps/dry created (server dry run)');
      expect(cluster.store.get('daemonsets', 'default', 'dry')).toBeUndefined();
    }
  });

  it('apply -f: created, unchanged, configured', async () => {
    const file = await manifest('applied.json', dsManifest('applied'));
    expect((await ok('apply', '-f', file)).trim()).toBe('daemonset.apps/applied created');
    expect((await ok('apply', '-f', file)).trim()).toBe('daemonset.apps/applied unchanged');
    await manifest('applied.json', dsManifest('applied', 'busybox:1.37'));
    expect((await ok('apply', '-f', file)).trim()).toBe('daemonset.apps/applied configured');
    const ds = cluster.store.get('daemonsets', 'default', 'applied')!;
    expect(ds.metadata.generation).toBe(2);
    expect(ds.spec.template.spec.containers[0]!.image).toBe('busybox:1.37');
    expect(ds.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']).toContain('busybox:1.37');
  });

  it('patch: strategic, merge, json, and (no change)', async () => {
    await ok('create', '-f', await manifest('patched.json', dsManifest('patched')));
    const smp = '{"spec":{"template":{"spec":{"containers":[{"name":"main","image":"busybox:1.37"}]}}}}';
    expect((await ok('patch', 'ds', 'patched', '-p', smp)).trim()).toBe('daemonset.apps/patched patched');
    expect((await ok('patch', 'ds', 'patched', '-p', smp)).trim()).toBe('daemonset.apps/patched patched (no change)');
    expect((await ok('patch', 'ds', 'patched', '--type', 'merge', '-p', '{"metadata":{"labels":{"tier":"node"}}}')).trim()).toBe(
      'daemonset.apps/patched patched',
    );
    expect((await ok('patch', 'ds', 'patched', '--type', 'json', '-p', '[{"op":"replace","path":"/spec/minReadySeconds","value":5}]')).trim()).toBe(
      'daemonset.apps/patched patched',
    );
    const ds = cluster.store.get('daemonsets', 'default', 'patched')!;
    expect(ds.metadata.labels).toEqual({app: 'patched', tier: 'node'});
    expect(ds.spec.minReadySeconds).toBe(5);
    expect(ds.metadata.generation).toBe(3);
  });

  it('get pods -o wide and get controllerrevisions (table and json)', async () => {
    const ds = cluster.store.create(dsManifest('agent')) as unknown as DaemonSet;
    cluster.store.create(runningPod('agent-abcde', 'node-1', ds, '10.244.1.5'));
    cluster.store.create({
      ...podManifest('agent-fghij', {node: 'node-2', labels: {app: 'agent'}}),
      metadata: {name: 'agent-fghij', namespace: 'default', labels: {app: 'agent'}, ownerReferences: [ownerRef(ds)]},
    });
    cluster.store.create({
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: 'agent-6d4b8c9f7',
        namespace: 'default',
        labels: {app: 'agent', 'controller-revision-hash': '6d4b8c9f7'},
        ownerReferences: [ownerRef(ds)],
      },
      revision: 1,
      data: {spec: {template: {$patch: 'replace'}}},
    });
    const pods = table(await ok('get', 'pods', '-o', 'wide', '-l', 'app=agent'));
    expect(pods[0]).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
    expect(pods.slice(1).map((r) => [r[0], r[1], r[2], r[3], r[5], r[6], r[7], r[8]])).toEqual([
      ['agent-abcde', '1/1', 'Running', '0', '10.244.1.5', 'node-1', '<none>', '<none>'],
      ['agent-fghij', '0/1', 'Pending', '0', '<none>', 'node-2', '<none>', '<none>'],
    ]);
    const labels = table(await ok('get', 'pods', '-A', '--show-labels', '-l', 'app=agent'));
    expect(labels[1]).toEqual(['default', 'agent-abcde', '1/1', 'Running', '0', expect.any(String), 'app=agent']);
    const crs = table(await ok('get', 'controllerrevisions'));
    expect(crs[0]).toEqual(['NAME', 'CONTROLLER', 'REVISION', 'AGE']);
    expect(crs[1]!.slice(0, 3)).toEqual(['agent-6d4b8c9f7', 'daemonset.apps/agent', '1']);
    const json = JSON.parse(await ok('get', 'controllerrevisions', '-o', 'json')) as {items: {kind: string; revision: number}[]};
    expect(json.items).toEqual([expect.objectContaining({kind: 'ControllerRevision', revision: 1})]);
    const sorted = table(await ok('get', 'pods', '--sort-by=.metadata.name', '-l', 'app=agent'));
    expect(sorted.slice(1).map((r) => r[0])).toEqual(['agent-abcde', 'agent-fghij']);
  });

  it('describe node and describe ds', async () => {
    const node = await ok('describe', 'node', 'node-1');
    expect(node).toMatch(/^Name:\s+node-1$/m);
    expect(node).toMatch(/Non-terminated Pods:\s+\(1 in total\)/);
    const ds = await ok('describe', 'ds', 'agent');
    expect(ds).toMatch(/^Selector:\s+app=agent$/m);
    expect(ds).toMatch(/Pods Status:\s+1 Running \/ 1 Waiting \/ 0 Succeeded \/ 0 Failed/);
  });

  it('delete pod waits for graceful termination; --force deletes at once', async () => {
    cluster.store.create(podManifest('doomed', {node: 'node-0'}));
    expect((await ok('delete', 'pod', 'doomed')).trim()).toBe('pod "doomed" deleted');
    expect(cluster.store.get('pods', 'default', 'doomed')).toBeUndefined();
    cluster.store.create(podManifest('forced', {node: 'node-0'}));
    const forced = await kubectl('delete', 'pod', 'forced', '--grace-period=0', '--force');
    expect(forced.stdout.trim()).toBe('pod "forced" force deleted');
    expect(cluster.store.get('pods', 'default', 'forced')).toBeUndefined();
  });

  it('delete ds --cascade=background|foreground|orphan', async () => {
    const make = (name: string): DaemonSet => {
      const ds = cluster.store.create(dsManifest(name)) as unknown as DaemonSet;
      cluster.store.create(runningPod(`${name}-p1`, 'node-1', ds, '10.244.1.9'));
      cluster.store.create(runningPod(`${name}-p2`, 'node-2', ds, '10.244.2.9'));
      return ds;
    };
    const podsOf = (name: string): readonly Pod[] => cluster.store.list('pods', {labelSelector: `app=${name}`}).items;
    make('bg');
    expect((await ok('delete', 'ds', 'bg', '--cascade=background')).trim()).toBe('daemonset.apps "bg" deleted');
    expect(cluster.store.get('daemonsets', 'default', 'bg')).toBeUndefined();
    await until(() => podsOf('bg').length === 0);

    make('fg');
    expect((await ok('delete', 'ds', 'fg', '--cascade=foreground')).trim()).toBe('daemonset.apps "fg" deleted');
    // Foreground: kubectl returns only once the owner is gone, which needs its pods gone first.
    expect(cluster.store.get('daemonsets', 'default', 'fg')).toBeUndefined();
    expect(podsOf('fg')).toEqual([]);

    make('orph');
    expect((await ok('delete', 'ds', 'orph', '--cascade=orphan')).trim()).toBe('daemonset.apps "orph" deleted');
    expect(cluster.store.get('daemonsets', 'default', 'orph')).toBeUndefined();
    const orphans = podsOf('orph');
    expect(orphans).toHaveLength(2);
    expect(orphans.every((p) => p.metadata.ownerReferences === undefined && p.metadata.deletionTimestamp === undefined)).toBe(true);
  });

  it('cordon / uncordon and taint nodes', async () => {
    expect((await ok('cordon', 'node-2')).trim()).toBe('node/node-2 cordoned');
    expect((await ok('cordon', 'node-2')).trim()).toBe('node/node-2 already cordoned');
    expect(table(await ok('get', 'node', 'node-2'))[1]!.slice(0, 2)).toEqual(['node-2', 'Ready,SchedulingDisabled']);
    expect((await ok('uncordon', 'node-2')).trim()).toBe('node/node-2 uncordoned');
    expect(cluster.store.get('nodes', undefined, 'node-2')!.spec?.unschedulable).toBeUndefined();
    expect((await ok('taint', 'nodes', 'node-2', 'dedicated=gpu:NoSchedule')).trim()).toBe('node/node-2 tainted');
    expect(cluster.store.get('nodes', undefined, 'node-2')!.spec?.taints).toEqual([{key: 'dedicated', value: 'gpu', effect: 'NoSchedule'}]);
    expect((await ok('taint', 'nodes', 'node-2', 'dedicated=gpu:NoSchedule-')).trim()).toBe('node/node-2 untainted');
    expect(cluster.store.get('nodes', undefined, 'node-2')!.spec?.taints).toBeUndefined();
  });

  it('get events and namespaces', async () => {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const owner = cluster.store.get('daemonsets', 'default', 'agent')!;
    cluster.store.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {name: 'agent.1', namespace: 'default'},
      involvedObject: {kind: 'DaemonSet', namespace: 'default', name: 'agent', uid: owner.metadata.uid, apiVersion: 'apps/v1'},
      reason: 'SuccessfulCreate',
      message: 'Created pod: agent-abcde',
      type: 'Normal',
      count: 1,
      firstTimestamp: now,
      lastTimestamp: now,
      source: {component: 'daemonset-controller'},
    });
    const events = table(await ok('get', 'events'));
    expect(events[0]).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(events[1]!.slice(1)).toEqual(['Normal', 'SuccessfulCreate', 'daemonset/agent', 'Created pod: agent-abcde']);
    const described = await ok('describe', 'ds', 'agent');
    expect(described).toMatch(/Normal\s+SuccessfulCreate\s+\S+\s+daemonset-controller\s+Created pod: agent-abcde/);
    const namespaces = table(await ok('get', 'ns'));
    expect(namespaces.map((r) => r.slice(0, 2))).toEqual([
      ['NAME', 'STATUS'],
      ['default', 'Active'],
      ['kube-node-lease', 'Active'],
      ['kube-public', 'Active'],
      ['kube-system', 'Active'],
    ]);
  });

  it('get pods -w prints the listed row, then an ADDED pod and its change', async () => {
    cluster.store.create(podManifest('watched', {node: 'node-0', labels: {app: 'watch'}}));
    const child = spawn(kubectlPath!, ['--kubeconfig', join(dir, 'kubeconfig'), 'get', 'pods', '-w', '-l', 'app=watch'], {env});
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
    });
    try {
      await until(() => out.includes('watched'), 10_000);
      cluster.store.create(podManifest('arrived', {node: 'node-1', labels: {app: 'watch'}}));
      cluster.store.patchStatus('pods', 'default', 'arrived', {
        phase: 'Running',
        podIP: '10.244.1.7',
        containerStatuses: [{name: 'main', ready: true, restartCount: 0, state: {running: {startedAt: '2026-11-21T12:00:00Z'}}}],
      });
      await until(() => out.includes('Running'), 10_000);
    } finally {
      child.kill();
    }
    const rows = table(out);
    expect(rows[0]).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(rows.slice(1).map((r) => r.slice(0, 4))).toEqual([
      ['watched', '0/1', 'Pending', '0'],
      ['arrived', '0/1', 'Pending', '0'],
      ['arrived', '1/1', 'Running', '0'],
    ]);
  });
});
