import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Readable} from 'node:stream';
import {dump} from 'js-yaml';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {parseSnapshot, SnapshotClusterSource, STDIN_NAME} from '../../src/cluster/snapshot/index.js';
import {InputError, NotFoundError, UsageError} from '../../src/errors.js';
import {newDaemonSet, newNode, newPod, newRevision} from '../helpers/builders.js';

const ds = newDaemonSet('fluentd');
const kubeSystemDs = {...ds, metadata: {...ds.metadata, namespace: 'kube-system'}};
const nodes = [newNode('node-a'), newNode('node-b')];
const pods = [newPod('fluentd-aaaaa', 'node-a', ds, {hash: 'h1'}), newPod('fluentd-bbbbb', 'node-b', ds, {hash: 'h2'})];
const revision = newRevision(ds, 'h2', 2);
const configMap = {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'x', namespace: 'default'}, data: {a: 'b'}};
const all = [...nodes, ...pods, ds, revision, configMap];
const list = {apiVersion: 'v1', kind: 'List', metadata: {resourceVersion: ''}, items: all};

function counts(objects: ReturnType<typeof parseSnapshot>) {
  return [objects.daemonSets.length, objects.nodes.length, objects.pods.length, objects.revisions.length];
}

describe('parseSnapshot', () => {
  test.each([
    {name: 'a List as YAML', text: dump(list)},
    {name: 'a List as JSON', text: JSON.stringify(list, null, 2)},
    {name: 'a multi-document YAML stream', text: all.map((o) => dump(o)).join('---\n')},
    {name: 'a stream with empty documents and a leading ---', text: `---\n${all.map((o) => dump(o)).join('---\n---\n')}---\n`},
    {name: 'a bare JSON array', text: JSON.stringify(all)},
    {name: 'a byte-order mark', text: `\uFEFF${dump(list)}`},
  ])('reads $name, ignoring other kinds', ({text}) => {
    expect(counts(parseSnapshot(text, 's.yaml'))).toEqual([1, 2, 2, 1]);
  });

  test('reads a single object', () => {
    const objects = parseSnapshot(dump(ds), 'ds.yaml');
    expect(objects.daemonSets[0]?.metadata.name).toBe('fluentd');
    expect(counts(objects)).toEqual([1, 0, 0, 0]);
  });

  test('fills in the kind of items of raw API lists (PodList, NodeList)', () => {
    const podList = {apiVersion: 'v1', kind: 'PodList', items: pods.map(({kind: _kind, ...pod}) => pod)};
    const nodeList = {apiVersion: 'v1', kind: 'NodeList', items: nodes.map(({kind: _kind, ...node}) => node)};
    const objects = parseSnapshot(`${dump(podList)}---\n${dump(nodeList)}`, 's.yaml');
    expect(objects.pods.map((p) => p.kind)).toEqual(['Pod', 'Pod']);
    expect(objects.nodes).toHaveLength(2);
  });

  test('keeps timestamps as strings, as the core expects', () => {
    const objects = parseSnapshot(dump(list), 's.yaml');
    expect(objects.pods[0]?.metadata.creationTimestamp).toBe('2026-11-21T11:00:00Z');
  });

  test('an empty file has no objects', () => {
    expect(counts(parseSnapshot('', 'empty.yaml'))).toEqual([0, 0, 0, 0]);
    expect(counts(parseSnapshot('# just a comment\n', 'empty.yaml'))).toEqual([0, 0, 0, 0]);
  });

  test.each([
    {
      name: 'bad YAML indentation, with the line',
      text: 'apiVersion: v1\nkind: List\nitems:\n- kind: Node\n  metadata:\n    name: a\n   labels: {}\n',
      message: 'examples/x.yaml: line 7: bad indentation of a mapping entry',
    },
    {
      name: 'an unclosed YAML flow mapping',
      text: 'kind: Node\nmetadata: {name: a\n',
      message: /^examples\/x\.yaml: line \d+: /,
    },
    {
      name: 'a JSON syntax error, with the line',
      text: '{\n  "kind": "List",\n  "items": [\n    {"kind": "Node" "metadata": {}}\n  ]\n}\n',
      message: /^examples\/x\.yaml: line 4: invalid JSON: /,
    },
    {name: 'truncated JSON', text: '{\n  "kind": "List",\n', message: /^examples\/x\.yaml: (line \d+: )?invalid JSON: /},
    {name: 'a scalar document', text: 'hello\n', message: 'examples/x.yaml: document 1 is a string, not a Kubernetes object or List'},
    {name: 'an object without kind', text: 'metadata:\n  name: a\n', message: 'examples/x.yaml: document 1 has no "kind", so it is not a Kubernetes object'},
    {
      name: 'a List item without kind',
      text: 'kind: List\nitems:\n- metadata: {name: a}\n',
      message: 'examples/x.yaml: document 1, item 1 has no "kind", so it is not a Kubernetes object',
    },
    {name: 'a Pod without a name', text: 'kind: Pod\nmetadata: {}\nspec: {}\n', message: 'examples/x.yaml: document 1 is a Pod without metadata.name'},
    {name: 'a Pod without spec', text: 'kind: Pod\nmetadata: {name: p, namespace: d}\n', message: 'examples/x.yaml: Pod d/p has no spec'},
    {
      name: 'a DaemonSet without template',
      text: 'kind: DaemonSet\nmetadata: {name: f, namespace: d}\nspec: {}\n',
      message: 'examples/x.yaml: DaemonSet d/f has no spec.template.spec',
    },
    {
      name: 'a revision without number',
      text: 'kind: ControllerRevision\nmetadata: {name: r}\nrevision: "2"\n',
      message: 'examples/x.yaml: ControllerRevision r has no integer "revision"',
    },
  ])('rejects $name as one InputError line', ({text, message}) => {
    let error: unknown;
    try {
      parseSnapshot(text, 'examples/x.yaml');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InputError);
    const line = (error as Error).message;
    expect(line).not.toContain('\n');
    if (typeof message === 'string') expect(line).toMatch(new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    else expect(line).toMatch(message);
  });
});

describe('SnapshotClusterSource', () => {
  const otherNamespacePod = {...newPod('fluentd-ccccc', 'node-a', kubeSystemDs, {hash: 'h1'})};
  const otherRevision = newRevision(kubeSystemDs, 'h9', 1);
  const exporter = {...ds, metadata: {...ds.metadata, name: 'node-exporter', uid: 'other'}};
  const objects = parseSnapshot(dump({kind: 'List', items: [...all, kubeSystemDs, otherNamespacePod, otherRevision, exporter]}), 's.yaml');
  const source = new SnapshotClusterSource(objects, 's.yaml');

  test('returns the DaemonSet, every node, and the pods and revisions of its namespace', async () => {
    const state = await source.readState({namespace: 'kube-system', name: 'fluentd'});
    expect(state.daemonSet.metadata.namespace).toBe('kube-system');
    expect(state.nodes.map((n) => n.metadata.name)).toEqual(['node-a', 'node-b']);
    expect(state.pods.map((p) => p.metadata.name)).toEqual(['fluentd-ccccc']);
    expect(state.revisions.map((r) => r.metadata.name)).toEqual(['fluentd-h9']);
  });

  test("does not filter pods by selector or owner: claiming is the core's job", async () => {
    const stray = {...newPod('stray', 'node-a', ds, {owner: null, labels: {app: 'other'}})};
    const withStray = new SnapshotClusterSource(parseSnapshot(dump({kind: 'List', items: [...all, stray]}), 's.yaml'), 's.yaml');
    const state = await withStray.readState({namespace: 'default', name: 'fluentd'});
    expect(state.pods.map((p) => p.metadata.name)).toEqual(['fluentd-aaaaa', 'fluentd-bbbbb', 'stray']);
  });

  test('puts objects without a namespace in "default", as the API server would', async () => {
    const {namespace: _namespace, ...metadata} = ds.metadata;
    const bare = new SnapshotClusterSource(parseSnapshot(dump({...ds, metadata}), 'ds.yaml'), 'ds.yaml');
    const state = await bare.readState({namespace: 'default', name: 'fluentd'});
    expect(state.daemonSet.metadata.namespace).toBe('default');
  });

  test('an unknown DaemonSet lists the ones the snapshot has, same namespace first', async () => {
    const error = await source.readState({namespace: 'kube-system', name: 'x'}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toBe(
      'daemonset "x" not found in namespace "kube-system" of snapshot s.yaml (it has: kube-system/fluentd, default/fluentd, default/node-exporter)',
    );
  });

  test('a snapshot without DaemonSets says so', async () => {
    const empty = new SnapshotClusterSource(parseSnapshot(dump({kind: 'List', items: nodes}), 'n.yaml'), 'n.yaml');
    await expect(empty.readState({namespace: 'default', name: 'x'})).rejects.toThrow(
      'daemonset "x" not found in namespace "default" of snapshot n.yaml (it has no DaemonSets)',
    );
  });

  test('a long list of DaemonSets is cut after ten', async () => {
    const many = Array.from({length: 13}, (_, i) => ({...ds, metadata: {...ds.metadata, name: `ds-${String(i).padStart(2, '0')}`}}));
    const big = new SnapshotClusterSource(parseSnapshot(dump({kind: 'List', items: many}), 'b.yaml'), 'b.yaml');
    await expect(big.readState({namespace: 'default', name: 'x'})).rejects.toThrow(/default\/ds-09, and 3 more\)$/);
  });

  describe('fromFile', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'ds-snapshot-'));
    });
    afterAll(async () => {
      await rm(dir, {recursive: true, force: true});
    });

    test('reads a file and names it in messages', async () => {
      const path = join(dir, 'cluster.yaml');
      await writeFile(path, dump(list));
      const fromFile = await SnapshotClusterSource.fromFile(path);
      await expect(fromFile.readState({namespace: 'default', name: 'nope'})).rejects.toThrow(`of snapshot ${path} (`);
    });

    test('a missing file is an InputError', async () => {
      const error = await SnapshotClusterSource.fromFile(join(dir, 'missing.yaml')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputError);
      expect((error as Error).message).toBe(`snapshot file "${join(dir, 'missing.yaml')}" does not exist`);
    });

    test('a directory is an InputError', async () => {
      await expect(SnapshotClusterSource.fromFile(dir)).rejects.toThrow(`snapshot "${dir}" is a directory, not a file`);
    });

    test('- reads stdin', async () => {
      const stdin = Readable.from([Buffer.from(JSON.stringify(list))]) as unknown as NodeJS.ReadStream;
      const fromStdin = await SnapshotClusterSource.fromFile('-', stdin);
      const state = await fromStdin.readState({namespace: 'default', name: 'fluentd'});
      expect(state.pods).toHaveLength(2);
      await expect(fromStdin.readState({namespace: 'default', name: 'x'})).rejects.toThrow(`of snapshot ${STDIN_NAME} (`);
    });

    test('- refuses a terminal instead of waiting on it', async () => {
      const tty = Object.assign(Readable.from([]), {isTTY: true}) as unknown as NodeJS.ReadStream;
      await expect(SnapshotClusterSource.fromFile('-', tty)).rejects.toBeInstanceOf(UsageError);
    });
  });
});

describe('the bundled example', () => {
  test('is a List with the fluentd DaemonSet, its revisions and other kube-system objects', async () => {
    const text = await readFile(new URL('../../examples/rollout-in-progress.yaml', import.meta.url), 'utf8');
    const objects = parseSnapshot(text, 'examples/rollout-in-progress.yaml');
    expect(objects.daemonSets.map((d) => d.metadata.name).sort()).toEqual(['fluentd', 'kube-proxy']);
    expect(objects.nodes).toHaveLength(12);
    const fluentd = objects.daemonSets.find((d) => d.metadata.name === 'fluentd')!;
    // The update revision's data must be the template plus $patch: replace, or the planner would see no match.
    const latest = objects.revisions.filter((r) => r.metadata.name.startsWith('fluentd-')).sort((a, b) => b.revision - a.revision)[0]!;
    expect(latest.data).toEqual({spec: {template: {...fluentd.spec.template, $patch: 'replace'}}});
  });
});
