// `kubectl ds-plan` live (BUILT bin/kubectl-ds_plan): the same plan as from a snapshot of the same cluster, in at
// most five requests, and -f MANIFEST (diff, warnings, the plan of the new version). Goldens: test/fixtures/golden/plan/live-*.
import {writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {dump} from 'js-yaml';
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest';
import type {DaemonSet} from '../../src/core/index.js';
import {afterClusterHeader, runCli, type CliResult} from '../helpers/run-cli.js';
import {START_TEXT, startTestCluster, type TestCluster} from '../helpers/sim-cluster.js';

// Each test spawns the CLI (about 0.5 s per start) and shares two cores with the rest of the suite.
vi.setConfig({testTimeout: 20_000});

let t: TestCluster;
const NOW = ['--now', START_TEXT];

function plan(...args: string[]): Promise<CliResult> {
  return runCli([...args, '--kubeconfig', t.kubeconfig, ...NOW]);
}

/** A manifest file: the stored fluentd as a user would have written it, changed by `change`. */
async function manifest(name: string, change: (ds: DaemonSet) => DaemonSet): Promise<string> {
  const stored = t.cluster.store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet;
  const {selector, template, updateStrategy, minReadySeconds} = stored.spec;
  const base: DaemonSet = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {name: 'fluentd', namespace: 'kube-system'},
    spec: {selector, template, updateStrategy, minReadySeconds},
  };
  const path = join(t.dir, name);
  await writeFile(path, dump(change(base)));
  return path;
}

beforeAll(async () => {
  t = await startTestCluster({scenario: 'demo'});
});

afterAll(async () => {
  await t.stop();
});

describe('kubectl ds-plan, live', () => {
  test('the same plan as from a snapshot of the same cluster, in at most five requests', async () => {
    const store = t.cluster.store;
    const items = [...store.list('nodes').items, ...store.list('pods').items, ...store.list('daemonsets').items, ...store.list('controllerrevisions').items];
    const snapshot = join(t.dir, 'snapshot.yaml');
    await writeFile(snapshot, dump({apiVersion: 'v1', kind: 'List', items}));
    const before = t.cluster.requestLog.count;
    const live = await plan('fluentd', '-n', 'kube-system', '-o', 'json');
    const requests = t.cluster.requestLog.count - before;
    const offline = await runCli(['fluentd', '-n', 'kube-system', '--snapshot', snapshot, ...NOW, '--kube-version', '1.32', '-o', 'json']);
    expect(live.stderr).toBe('');
    expect(live.stdout).toBe(offline.stdout);
    expect(requests).toBeLessThanOrEqual(5);
    const [liveText, offlineText] = await Promise.all([
      plan('fluentd', '-n', 'kube-system'),
      runCli(['fluentd', '-n', 'kube-system', '--snapshot', snapshot, ...NOW, '--kube-version', '1.32']),
    ]);
    // Live text names the cluster first; the rest is the same plan.
    expect(afterClusterHeader(liveText.stdout, t.cluster.url)).toBe(offlineText.stdout);
  });

  test('-f MANIFEST: the diff against the current revision, warnings, and the plan of the new version', async () => {
    const path = await manifest('fluentd-v3.yaml', (ds) => ({
      ...ds,
      spec: {
        ...ds.spec,
        updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: 0}},
        template: {
          ...ds.spec.template,
          spec: {
            ...ds.spec.template.spec,
            affinity: {
              nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                  nodeSelectorTerms: [{matchExpressions: [{key: 'kubernetes.io/hostname', operator: 'NotIn', values: ['worker-19', 'worker-20']}]}],
                },
              },
            },
            containers: ds.spec.template.spec.containers.map((c) => ({...c, image: 'fluent/fluentd:v1.18.0'})),
          },
        },
      },
    }));
    const [text, json] = await Promise.all([
      runCli(['-f', path, '--kubeconfig', t.kubeconfig, ...NOW]),
      runCli(['fluentd', '-f', path, '--kubeconfig', t.kubeconfig, ...NOW, '-o', 'json']),
    ]);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    await expect(afterClusterHeader(text.stdout, t.cluster.url).replaceAll(t.dir, '<dir>')).toMatchFileSnapshot('../fixtures/golden/plan/live-manifest.txt');
    const document = JSON.parse(json.stdout) as {
      kind: string;
      revisions: {update: {revision: number; exists: boolean}};
      update: {warnings: Array<{kind: string}>; diff: string};
    };
    expect(document.kind).toBe('DaemonSetRolloutPlan');
    expect(document.revisions.update).toMatchObject({revision: 3, exists: false});
    expect(document.update.warnings.map((w) => w.kind)).toEqual(['cannot-start', 'node-loses-daemon']);
    expect(document.update.diff).toContain('+  fluentd: fluent/fluentd:v1.18.0');
  });

  test('-f MANIFEST of a DaemonSet that does not exist yet: the plan of creating it', async () => {
    const path = join(t.dir, 'vector.yaml');
    const vector: DaemonSet = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: {name: 'vector', namespace: 'kube-system'},
      spec: {
        selector: {matchLabels: {app: 'vector'}},
        template: {metadata: {labels: {app: 'vector'}}, spec: {containers: [{name: 'vector', image: 'timberio/vector:0.42.0'}]}},
      },
    };
    await writeFile(path, dump(vector));
    const result = await plan('-f', path);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--- (daemonset "vector" does not exist yet)\n+++ ');
    expect(result.stdout).toContain('images:\n+  vector: timberio/vector:0.42.0\n');
    expect(result.stdout).toContain('DaemonSet kube-system/vector: RollingUpdate, revision 1, 0 of 18 nodes updated');
    // One pod per eligible node in the first sync (burst 250 is far away); the tainted and the NotReady node get none.
    const json = JSON.parse((await plan('-f', path, '-o', 'json')).stdout) as {
      nextSync: {create: unknown[]};
      revisions: {update: {exists: boolean}};
      converges: boolean;
    };
    expect(json.nextSync.create).toHaveLength(18);
    expect(json.revisions.update.exists).toBe(false);
    expect(json.converges).toBe(true);
    expect(t.cluster.store.get('daemonsets', 'kube-system', 'vector')).toBeUndefined();
  });

  test('-f refusals: a selector change, a namespace that contradicts the manifest, no NAME and no -f', async () => {
    const path = await manifest('selector.yaml', (ds) => ({
      ...ds,
      spec: {
        ...ds.spec,
        selector: {matchLabels: {name: 'fluentd', tier: 'logs'}},
        template: {...ds.spec.template, metadata: {labels: {name: 'fluentd', tier: 'logs'}}},
      },
    }));
    const [selector, namespace, nothing] = await Promise.all([plan('-f', path), plan('-f', path, '-n', 'default'), plan()]);
    expect(selector.code).toBe(1);
    expect(selector.stderr).toMatch(
      // The server's own refusal of the dry run: one line, exit 1.
      /^error: the server refused to update daemonset fluentd in namespace kube-system: DaemonSet\.apps "fluentd" is invalid: spec\.selector: Invalid value: .*: field is immutable\n$/,
    );
    expect([namespace.code, namespace.stderr]).toEqual([
      1,
      'error: the namespace from the manifest ("kube-system") does not match the namespace "default"; pass --namespace=kube-system\n',
    ]);
    expect([nothing.code, nothing.stderr]).toEqual([1, "error: missing required argument NAME; see 'kubectl ds-plan --help'\n"]);
  });
});

describe('a server that is not the Kubernetes API', () => {
  test('a plain-text 404 ("404 page not found") is exit 2 naming the server, not "daemonset not found"', async () => {
    const {createServer} = await import('node:http');
    const {mkdtemp, rm} = await import('node:fs/promises');
    const {tmpdir} = await import('node:os');
    const server = createServer((_, response) => {
      response.writeHead(404, {'Content-Type': 'text/plain; charset=utf-8'});
      response.end('404 page not found\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const {port} = server.address() as {port: number};
    const dir = await mkdtemp(join(tmpdir(), 'ds-plain-404-'));
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      dump({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'proxy',
        clusters: [{name: 'proxy', cluster: {server: `http://127.0.0.1:${port}`}}],
        contexts: [{name: 'proxy', context: {cluster: 'proxy', user: 'u'}}],
        users: [{name: 'u', user: {token: 'not-a-secret-to-print'}}],
      }),
    );
    try {
      const result = await runCli(['fluentd', '-n', 'kube-system', '--kubeconfig', kubeconfig]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain(`the server at http://127.0.0.1:${port} is not a Kubernetes API server`);
      expect(result.stderr).not.toContain('not-a-secret-to-print');
    } finally {
      server.close();
      await rm(dir, {recursive: true, force: true});
    }
  });
});
