// `kubectl ds-rollout status -A` / `status -n NS` (BUILT bin/kubectl-ds_rollout): a dozen DaemonSets in several
// states on one simulated cluster, read with one list per resource, each judged by core's rollout report; the same
// table offline from a snapshot; and kept live by watches on a cluster running in sped-up real time.
import {writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {dump} from 'js-yaml';
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest';
import type {DaemonSet} from '../../src/core/index.js';
import {afterClusterHeader, runCli, type CliResult} from '../helpers/run-cli.js';
import {startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

vi.setConfig({testTimeout: 30_000});

const ROLLOUT = {bin: 'bin/kubectl-ds_rollout'};

function daemonSet(namespace: string, name: string, image: string, strategy: DaemonSet['spec']['updateStrategy']): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {name, namespace},
    spec: {
      selector: {matchLabels: {app: name}},
      template: {metadata: {labels: {app: name}}, spec: {containers: [{name, image}]}},
      updateStrategy: strategy,
    },
  };
}

const ROLLING = {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: 0}} as const;

function setImage(t: TestCluster, namespace: string, name: string, image: string): void {
  t.cluster.store.modify('daemonsets', namespace, name, (current) => {
    const ds = current as unknown as DaemonSet;
    const containers = ds.spec.template.spec.containers.map((c) => ({...c, image}));
    return {...ds, spec: {...ds.spec, template: {...ds.spec.template, spec: {...ds.spec.template.spec, containers}}}} as never;
  });
}

// namespace, name, and what happens to it after every DaemonSet has rolled out once.
const FLEET = [
  ['kube-system', 'kube-proxy', 'complete'],
  ['kube-system', 'calico-node', 'progressing'],
  ['kube-system', 'csi-node', 'stuck'],
  ['logging', 'fluentd', 'progressing'],
  ['logging', 'fluent-bit', 'complete'],
  ['logging', 'vector', 'paused'],
  ['monitoring', 'node-exporter', 'complete'],
  ['monitoring', 'dcgm-exporter', 'stuck'],
  ['monitoring', 'otel-agent', 'progressing'],
  ['storage', 'ceph-csi', 'complete'],
  ['storage', 'local-pv', 'on-delete'],
  ['storage', 'nfs-node', 'paused'],
] as const;

describe('status of every DaemonSet (ManualClock: a dozen DaemonSets in several states)', () => {
  let t: TestCluster;
  const status = (...args: string[]): Promise<CliResult> => runCli(['status', ...args, '--kubeconfig', t.kubeconfig], ROLLOUT);

  beforeAll(async () => {
    t = await startTestCluster({scenario: 'empty', nodes: 4, kubelet: {startDelayMs: 1000, stopDelayMs: 200, failures: [{image: ':crash', mode: 'crash'}]}});
    for (const namespace of ['logging', 'monitoring', 'storage']) t.cluster.store.create({apiVersion: 'v1', kind: 'Namespace', metadata: {name: namespace}});
    for (const [namespace, name, fate] of FLEET) {
      t.cluster.store.create(daemonSet(namespace, name, `${name}:v1`, fate === 'on-delete' ? {type: 'OnDelete'} : ROLLING) as never);
    }
    t.advance(30_000);
    // Paused by the plugin itself, then given a new template that waits for a step.
    for (const [namespace, name, fate] of FLEET) {
      if (fate !== 'paused') continue;
      const paused = await runCli(['pause', name, '-n', namespace, '--kubeconfig', t.kubeconfig], ROLLOUT);
      expect(paused.code).toBe(0);
    }
    for (const [namespace, name, fate] of FLEET) {
      if (fate === 'stuck') setImage(t, namespace, name, `${name}:crash`);
      else if (fate !== 'complete') setImage(t, namespace, name, `${name}:v2`);
    }
    // Long enough for the crashing pods to be crash-looping, too short for the progressing ones to finish.
    t.advance(5_000);
    for (const [namespace, name, fate] of FLEET) if (fate === 'progressing') setImage(t, namespace, name, `${name}:v3`);
    t.advance(300);
  });

  afterAll(async () => {
    await t.stop();
  });

  test('-A: one row per DaemonSet from four list requests; the exit code is the worst verdict (stuck: 3)', async () => {
    const before = t.cluster.requestLog.count;
    const json = await status('-A', '--watch=false', '-o', 'json');
    const requests = t.cluster.requestLog.entries.slice(-(t.cluster.requestLog.count - before));
    expect(json.stderr).toBe('');
    expect(json.code).toBe(3);
    // daemonsets, pods, nodes and controllerrevisions, each listed once across namespaces, for twelve DaemonSets.
    expect(requests.map((r) => `${r.verb} ${r.resource} ${r.namespace ?? '*'}`).sort()).toEqual([
      'list controllerrevisions *',
      'list daemonsets *',
      'list nodes *',
      'list pods *',
    ]);
    const document = JSON.parse(json.stdout) as {
      apiVersion: string;
      kind: string;
      verdict: string;
      items: Array<{daemonSet: {namespace: string; name: string}; verdict: string; revisions: {current: number; update: number}; blocker?: string}>;
    };
    expect([document.apiVersion, document.kind, document.verdict]).toEqual(['ds-rollout.io/v1alpha1', 'DaemonSetRolloutStatusList', 'stuck']);
    const verdicts = Object.fromEntries(document.items.map((item) => [`${item.daemonSet.namespace}/${item.daemonSet.name}`, item.verdict]));
    const expected = Object.fromEntries(FLEET.map(([namespace, name, fate]) => [`${namespace}/${name}`, fate === 'on-delete' ? 'stuck' : fate]));
    expect(verdicts).toEqual(expected);
    const csi = document.items.find((item) => item.daemonSet.name === 'csi-node')!;
    expect(csi.revisions).toEqual({current: 1, update: 2});
    expect(csi.blocker).toMatch(/CrashLoopBackOff|budget|maxUnavailable/);

    const text = await status('-A', '--watch=false');
    expect(text.code).toBe(3);
    const lines = afterClusterHeader(text.stdout, t.cluster.url).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAMESPACE +NAME +VERDICT +REVISION +BUDGET +BLOCKER$/);
    expect(lines).toHaveLength(13);
    expect(lines.find((line) => line.includes('kube-proxy'))).toMatch(/^kube-system +kube-proxy +complete +1 +-$/);
    expect(lines.find((line) => line.includes('csi-node'))).toMatch(/^kube-system +csi-node +stuck +1->2 +1\/1 unavailable +\S/);

    const wide = await status('-A', '--watch=false', '-o', 'wide');
    expect(afterClusterHeader(wide.stdout, t.cluster.url).split('\n')[0]).toMatch(/ STRATEGY +UPDATED +BLOCKER$/);
  });

  // Issue 28, finding 7: the table once waited out --stuck-after (10 s) before printing; only -w follows it now.
  test('-A without -w answers at once: the table of one look, four lists and no watch', async () => {
    const before = t.cluster.requestLog.count;
    const [atOnce, once] = [await status('-A'), await status('-A', '--watch=false')];
    const requests = t.cluster.requestLog.entries.slice(-(t.cluster.requestLog.count - before));
    expect([atOnce.code, atOnce.stderr, atOnce.stdout]).toEqual([3, '', once.stdout]);
    expect(requests.map((r) => r.verb)).toEqual(Array(8).fill('list'));
  });

  test('-n NS without NAME: that namespace only, four requests scoped to it; exit code of its worst verdict', async () => {
    const before = t.cluster.requestLog.count;
    const result = await status('-n', 'logging', '--watch=false', '-o', 'name');
    const requests = t.cluster.requestLog.entries.slice(-(t.cluster.requestLog.count - before));
    // fluentd progressing, fluent-bit complete, vector paused: paused (5) is worse than progressing (4).
    expect([result.code, result.stdout]).toEqual([5, 'daemonset.apps/fluent-bit\ndaemonset.apps/fluentd\ndaemonset.apps/vector\n']);
    expect(requests.filter((r) => r.resource !== 'nodes').every((r) => r.verb === 'list' && r.namespace === 'logging')).toBe(true);
    expect(requests).toHaveLength(4);
    const jsonpath = await status('-n', 'storage', '--watch=false', '-o', 'jsonpath={range .items[*]}{.daemonSet.name}={.verdict}{"\\n"}{end}');
    expect(jsonpath.stdout).toBe('ceph-csi=complete\nlocal-pv=stuck\nnfs-node=paused\n');
  });

  test('offline: the same list from a snapshot of the same cluster at the same instant', async () => {
    const store = t.cluster.store;
    const items = [...store.list('nodes').items, ...store.list('pods').items, ...store.list('daemonsets').items, ...store.list('controllerrevisions').items];
    const snapshot = join(t.dir, 'snapshot.yaml');
    await writeFile(snapshot, dump({apiVersion: 'v1', kind: 'List', items}));
    const now = new Date(t.clock!.now()).toISOString().replace(/\.\d+Z$/, 'Z');
    const [live, offline] = await Promise.all([
      status('-A', '--now', now, '-o', 'json'),
      runCli(['status', '-A', '--snapshot', snapshot, '--now', now, '-o', 'json'], ROLLOUT),
    ]);
    expect(offline.stderr).toBe('');
    expect(offline.code).toBe(3);
    expect(offline.stdout).toBe(live.stdout);
    // From stdin too, and -A with NAME is refused.
    const piped = await runCli(['status', '-A', '--snapshot', '-', '--now', now, '-o', 'json'], {
      ...ROLLOUT,
      stdin: dump({apiVersion: 'v1', kind: 'List', items}),
    });
    expect(piped.stdout).toBe(live.stdout);
    const named = await runCli(['status', 'fluentd', '-A', '--snapshot', snapshot], ROLLOUT);
    expect([named.code, named.stderr]).toEqual([1, 'error: a DaemonSet cannot be named across all namespaces: drop -A, or NAME\n']);
  });
});

describe('status -A -w kept live (sped-up real time)', () => {
  test('re-renders as the rollouts move, and ends when every DaemonSet is complete: exit 0', async () => {
    const t = await startTestCluster({scenario: 'empty', nodes: 3, speed: 2, kubelet: {startDelayMs: 4000, stopDelayMs: 200}});
    try {
      t.cluster.store.create({apiVersion: 'v1', kind: 'Namespace', metadata: {name: 'logging'}});
      for (const [namespace, name] of [
        ['kube-system', 'kube-proxy'],
        ['logging', 'fluentd'],
        ['logging', 'fluent-bit'],
      ] as const) {
        t.cluster.store.create(daemonSet(namespace, name, `${name}:v1`, ROLLING) as never);
      }
      // Rolled out once (4 s of cluster time, 2 s of ours), then two of them get a new version: 3 waves of 2 s each.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      setImage(t, 'kube-system', 'kube-proxy', 'kube-proxy:v2');
      setImage(t, 'logging', 'fluentd', 'fluentd:v2');
      const result = await runCli(['status', '-A', '-w', '--timeout', '60s', '--kubeconfig', t.kubeconfig], ROLLOUT);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const tables = afterClusterHeader(result.stdout, t.cluster.url).split('\n\n');
      // First the rollouts in progress, last every one complete; only lists and watches were sent.
      expect(tables.length).toBeGreaterThan(1);
      expect(tables[0]).toContain('progressing');
      expect(tables.at(-1)!.trimEnd().split('\n').slice(1)).toEqual([
        expect.stringMatching(/^kube-system +kube-proxy +complete /),
        expect.stringMatching(/^logging +fluent-bit +complete /),
        expect.stringMatching(/^logging +fluentd +complete /),
      ]);
      expect(t.cluster.requestLog.entries.filter((e) => e.verb === 'list').length).toBe(4);
      expect(t.cluster.requestLog.entries.filter((e) => e.verb === 'get').length).toBe(0);
    } finally {
      await t.stop();
    }
  });
});
