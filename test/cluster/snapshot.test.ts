import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Readable} from 'node:stream';
import {dump} from 'js-yaml';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {compareRevisions} from '../../src/core/index.js';
import {parseSnapshot, SnapshotClusterSource, STDIN_NAME} from '../../src/cluster/snapshot/index.js';
import {InputError, NotFoundError, UsageError} from '../../src/platform/errors.js';
import {newDaemonSet, newNode, newPod, newRevision} from '../helpers/builders.js';

const ds = newDaemonSet('fluentd');
const kubeSystemDs = {...ds, metadata: {...ds.metadata, namespace: 'kube-system', uid: 'ds-uid-kube-system'}};
const nodes = [newNode('node-a'), newNode('node-b')];
const pods = [newPod('fluentd-aaaaa', 'node-a', ds, {hash: 'h1'}), newPod('fluentd-bbbbb', 'node-b', ds, {hash: 'h2'})];
const revision = newRevision(ds, 'h2', 2);
const configMap = {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'x', namespace: 'default'}, data: {a: 'b'}};
const all = [...nodes, ...pods, ds, revision, configMap];
const list = {apiVersion: 'v1', kind: 'List', metadata: {resourceVersion: ''}, items: all};

function counts(objects: Awaited<ReturnType<typeof parseSnapshot>>) {
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
  ])('reads $name, ignoring other kinds', async ({text}) => {
    expect(counts(await parseSnapshot(text, 's.yaml'))).toEqual([1, 2, 2, 1]);
  });

  test('reads a single object', async () => {
    const objects = await parseSnapshot(dump(ds), 'ds.yaml');
    expect(objects.daemonSets[0]?.metadata.name).toBe('fluentd');
    expect(counts(objects)).toEqual([1, 0, 0, 0]);
  });

  test('fills in the kind of items of raw API lists (PodList, NodeList)', async () => {
    const podList = {apiVersion: 'v1', kind: 'PodList', items: pods.map(({kind: _kind, ...pod}) => pod)};
    const nodeList = {apiVersion: 'v1', kind: 'NodeList', items: nodes.map(({kind: _kind, ...node}) => node)};
    const objects = await parseSnapshot(`${dump(podList)}---\n${dump(nodeList)}`, 's.yaml');
    expect(objects.pods.map((p) => p.kind)).toEqual(['Pod', 'Pod']);
    expect(objects.nodes).toHaveLength(2);
  });

  test('keeps timestamps as strings, as the core expects', async () => {
    const objects = await parseSnapshot(dump(list), 's.yaml');
    expect(objects.pods[0]?.metadata.creationTimestamp).toBe('2026-11-21T11:00:00Z');
  });

  test('an empty file has no objects', async () => {
    expect(counts(await parseSnapshot('', 'empty.yaml'))).toEqual([0, 0, 0, 0]);
    expect(counts(await parseSnapshot('# just a comment\n', 'empty.yaml'))).toEqual([0, 0, 0, 0]);
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
      message: 'examples/x.yaml: items[0] has no "kind", so it is not a Kubernetes object',
    },
    {
      name: 'a Pod without a name',
      text: 'kind: Pod\nmetadata: {}\nspec: {}\n',
      message: 'examples/x.yaml: metadata.name: Required value: name or generateName is required (Pod )',
    },
    {
      name: 'a DaemonSet without template',
      text: 'kind: DaemonSet\nmetadata: {name: f, namespace: d}\nspec: {selector: {matchLabels: {a: b}}}\n',
      message:
        'examples/x.yaml: spec.template.metadata.labels: Invalid value: map[string]string(nil): `selector` does not match template `labels` (DaemonSet d/f); and 1 more problem',
    },
    {
      name: 'a revision number that is a string',
      text: 'kind: ControllerRevision\nmetadata: {name: r}\ndata: {}\nrevision: "2"\n',
      message: 'examples/x.yaml: revision: Invalid value: "2": must be an integer (ControllerRevision r)',
    },
  ])('rejects $name as one InputError line', async ({text, message}) => {
    let error: unknown;
    try {
      await parseSnapshot(text, 'examples/x.yaml');
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

// The battery of wrong types and values a person (or a tool) can put in a snapshot: each is one InputError line
// naming the item and the field as the API server names it, never a crash of the rules behind.
describe('parseSnapshot validates every object once, as the API server would', () => {
  // all = [node-a, node-b, pod-a, pod-b, fluentd, revision, configMap]
  function withValue(index: number, path: readonly (string | number)[], value: unknown): unknown[] {
    const items = structuredClone(all) as unknown[];
    let at = items[index] as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) {
      if (at[key] === undefined || at[key] === null) at[key] = {};
      at = at[key] as Record<string | number, unknown>;
    }
    at[path[path.length - 1]!] = value;
    return items;
  }
  const ru = ['spec', 'updateStrategy', 'rollingUpdate'];
  const tpl = ['spec', 'template'];
  const AFFINITY = ['spec', 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms'];
  const rows: {name: string; items: unknown[]; message: string | RegExp}[] = [
    {
      name: 'containers as a string',
      items: withValue(4, [...tpl, 'spec', 'containers'], 'x'),
      message: 'items[4].spec.template.spec.containers: Invalid value: "x": must be a list (DaemonSet default/fluentd)',
    },
    {
      name: 'matchExpressions as a string',
      items: withValue(4, ['spec', 'selector', 'matchExpressions'], 'x'),
      message: 'items[4].spec.selector.matchExpressions: Invalid value: "x": must be a list',
    },
    {
      name: 'matchExpressions [null]',
      items: withValue(4, ['spec', 'selector', 'matchExpressions'], [null]),
      message: 'items[4].spec.selector.matchExpressions[0].operator: Invalid value: "": not a valid selector operator',
    },
    {
      name: 'selector values as a string',
      items: withValue(4, ['spec', 'selector', 'matchExpressions'], [{key: 'a', operator: 'In', values: 'x'}]),
      message: 'items[4].spec.selector.matchExpressions[0].values: Invalid value: "x": must be a list',
    },
    {
      name: 'template labels that are numbers',
      items: withValue(4, [...tpl, 'metadata', 'labels'], {name: 1}),
      message: 'items[4].spec.template.metadata.labels[name]: Invalid value: 1: must be a string',
    },
    {
      name: 'tolerations [null]',
      items: withValue(2, ['spec', 'tolerations'], [null]),
      message:
        'items[2].spec.tolerations[0].operator: Invalid value: "": operator must be Exists when `key` is empty, which means "match all values and all keys" (Pod default/fluentd-aaaaa)',
    },
    {
      name: 'node-affinity terms as a string',
      items: withValue(2, AFFINITY, 'x'),
      message: `items[2].${AFFINITY.join('.')}: Invalid value: "x": must be a list`,
    },
    {
      name: 'template node-affinity terms []',
      items: withValue(4, [...tpl, ...AFFINITY], []),
      message: `items[4].spec.template.${AFFINITY.join('.')}: Required value: must have at least one node selector term`,
    },
    {
      name: 'ownerReferences as a string',
      items: withValue(2, ['metadata', 'ownerReferences'], 'x'),
      message: 'items[2].metadata.ownerReferences: Invalid value: "x": must be a list',
    },
    {
      name: 'ownerReferences [null]',
      items: withValue(2, ['metadata', 'ownerReferences'], [null]),
      message: 'items[2].metadata.ownerReferences[0].apiVersion: Invalid value: "": version must not be empty',
    },
    {
      name: 'pod conditions as a string',
      items: withValue(2, ['status', 'conditions'], 'x'),
      message: 'items[2].status.conditions: Invalid value: "x": must be a list',
    },
    {
      name: 'pod conditions [null]',
      items: withValue(2, ['status', 'conditions'], [null]),
      message: 'items[2].status.conditions[0].type: Required value (Pod default/fluentd-aaaaa)',
    },
    {
      name: 'node taints [null]',
      items: withValue(0, ['spec', 'taints'], [null]),
      message: 'items[0].spec.taints[0].key: Invalid value: "": name part must be non-empty (Node node-a)',
    },
    {name: 'metadata as a string', items: withValue(3, ['metadata'], 'x'), message: 'items[3].metadata: Invalid value: "x": must be an object (Pod )'},
    {
      name: 'a DaemonSet spec as a string',
      items: withValue(4, ['spec'], 'x'),
      message: 'items[4].spec: Invalid value: "x": must be an object (DaemonSet default/fluentd)',
    },
    {
      name: 'minReadySeconds "abc"',
      items: withValue(4, ['spec', 'minReadySeconds'], 'abc'),
      message: 'items[4].spec.minReadySeconds: Invalid value: "abc": must be an integer',
    },
    {
      name: 'minReadySeconds 1.5',
      items: withValue(4, ['spec', 'minReadySeconds'], 1.5),
      message: 'items[4].spec.minReadySeconds: Invalid value: 1.5: must be an integer',
    },
    {
      name: 'minReadySeconds 1e300',
      items: withValue(4, ['spec', 'minReadySeconds'], 1e300),
      message: 'items[4].spec.minReadySeconds: Invalid value: 1e+300: must be an integer from -2147483648 to 2147483647',
    },
    {
      name: 'minReadySeconds 2^31',
      items: withValue(4, ['spec', 'minReadySeconds'], 2 ** 31),
      message: 'items[4].spec.minReadySeconds: Invalid value: 2147483648: must be an integer from',
    },
    {
      name: 'minReadySeconds -1',
      items: withValue(4, ['spec', 'minReadySeconds'], -1),
      message: 'items[4].spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0',
    },
    {
      name: 'maxUnavailable 1e20',
      items: withValue(4, [...ru, 'maxUnavailable'], 1e20),
      message: 'items[4].spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 100000000000000000000: must be an integer from',
    },
    {
      name: 'updateStrategy as a string',
      items: withValue(4, ['spec', 'updateStrategy'], 'RollingUpdate'),
      message: 'items[4].spec.updateStrategy: Invalid value: "RollingUpdate": must be an object',
    },
    {
      name: 'rollingUpdate "fast"',
      items: withValue(4, ru, 'fast'),
      message: 'items[4].spec.updateStrategy.rollingUpdate: Invalid value: "fast": must be an object',
    },
    {
      name: 'an impossible date',
      items: withValue(2, ['metadata', 'creationTimestamp'], '2024-02-30T00:00:00Z'),
      message: 'items[2].metadata.creationTimestamp: Invalid value: "2024-02-30T00:00:00Z": must be an RFC3339 time',
    },
    {
      name: 'a 300-character namespace',
      items: withValue(2, ['metadata', 'namespace'], 'n'.repeat(300)),
      message: /^items\[2\]\.metadata\.namespace: Invalid value: "n{300}": must be no more than 63 characters/,
    },
    {name: 'a negative revision', items: withValue(5, ['revision'], -1), message: 'items[5].revision: Invalid value: -1: must be greater than or equal to 0'},
    {name: 'the same pod twice', items: [...all, pods[0]], message: 'items[7]: Duplicate value: Pod default/fluentd-aaaaa is also items[2]'},
    {name: 'the same node twice', items: [...all, nodes[1]], message: 'items[7]: Duplicate value: Node node-b is also items[1]'},
    {
      name: 'two pods with one uid',
      items: [...all, {...pods[0], metadata: {...pods[0]!.metadata, name: 'other'}}],
      message: 'items[7]: Duplicate value: Pod default/other has the uid "pod-uid-fluentd-aaaaa" of items[2]',
    },
    {
      name: 'a Pod in the default namespace twice, once implied',
      items: [...all, {...pods[0], metadata: {...pods[0]!.metadata, namespace: undefined, uid: 'u'}}],
      message: 'items[7]: Duplicate value: Pod default/fluentd-aaaaa is also items[2]',
    },
  ];

  test.each(rows)('$name', async ({items, message}) => {
    let error: unknown;
    try {
      await parseSnapshot(JSON.stringify({apiVersion: 'v1', kind: 'List', items}), 's.json');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InputError);
    const line = (error as Error).message;
    expect(line).not.toContain('\n');
    expect(line).not.toMatch(/internal error|\s{4}at /);
    if (typeof message === 'string') expect(line).toContain(`s.json: ${message}`);
    else expect(line.slice('s.json: '.length)).toMatch(message);
  });

  test('null is an absent field, as Go decodes it: labels: null and rollingUpdate: null are read as not set', async () => {
    const items = withValue(4, ru, null);
    (items[2] as {metadata: {labels: unknown}}).metadata.labels = null;
    const objects = await parseSnapshot(JSON.stringify({kind: 'List', items}), 's.json');
    expect(objects.pods[0]!.metadata).not.toHaveProperty('labels');
    expect(objects.daemonSets[0]!.spec.updateStrategy).toEqual({type: 'RollingUpdate'});
  });

  test('several problems: the first, with a count of the rest', async () => {
    const items = withValue(2, ['status', 'conditions'], 'x');
    (items[3] as {status: unknown}).status = 'y';
    await expect(parseSnapshot(JSON.stringify({kind: 'List', items}), 's.json')).rejects.toThrow(
      's.json: items[2].status.conditions: Invalid value: "x": must be a list (Pod default/fluentd-aaaaa); and 1 more problem',
    );
  });

  test('a multi-document stream names the document', async () => {
    const text = `${dump(nodes[0])}---\n${dump({...nodes[1], spec: {taints: 'x'}})}`;
    await expect(parseSnapshot(text, 's.yaml')).rejects.toThrow('s.yaml: document 2.spec.taints: Invalid value: "x": must be a list (Node node-b)');
  });
});

describe('SnapshotClusterSource', () => {
  const otherNamespacePod = {...newPod('fluentd-ccccc', 'node-a', kubeSystemDs, {hash: 'h1'})};
  const otherRevision = newRevision(kubeSystemDs, 'h9', 1);
  const exporter = {...ds, metadata: {...ds.metadata, name: 'node-exporter', uid: 'other'}};
  let source: SnapshotClusterSource;
  beforeAll(async () => {
    const objects = await parseSnapshot(dump({kind: 'List', items: [...all, kubeSystemDs, otherNamespacePod, otherRevision, exporter]}), 's.yaml');
    source = new SnapshotClusterSource(objects, 's.yaml');
  });

  test('returns the DaemonSet, every node, and the pods and revisions of its namespace', async () => {
    const state = await source.readState({namespace: 'kube-system', name: 'fluentd'});
    expect(state.daemonSet.metadata.namespace).toBe('kube-system');
    expect(state.nodes.map((n) => n.metadata.name)).toEqual(['node-a', 'node-b']);
    expect(state.pods.map((p) => p.metadata.name)).toEqual(['fluentd-ccccc']);
    expect(state.revisions.map((r) => r.metadata.name)).toEqual(['fluentd-h9']);
  });

  test("does not filter pods by selector or owner: claiming is the core's job", async () => {
    const stray = {...newPod('stray', 'node-a', ds, {owner: null, labels: {app: 'other'}})};
    const withStray = new SnapshotClusterSource(await parseSnapshot(dump({kind: 'List', items: [...all, stray]}), 's.yaml'), 's.yaml');
    const state = await withStray.readState({namespace: 'default', name: 'fluentd'});
    expect(state.pods.map((p) => p.metadata.name)).toEqual(['fluentd-aaaaa', 'fluentd-bbbbb', 'stray']);
  });

  test('puts objects without a namespace in "default", as the API server would', async () => {
    const {namespace: _namespace, ...metadata} = ds.metadata;
    const bare = new SnapshotClusterSource(await parseSnapshot(dump({...ds, metadata}), 'ds.yaml'), 'ds.yaml');
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
    const empty = new SnapshotClusterSource(await parseSnapshot(dump({kind: 'List', items: nodes}), 'n.yaml'), 'n.yaml');
    await expect(empty.readState({namespace: 'default', name: 'x'})).rejects.toThrow(
      'daemonset "x" not found in namespace "default" of snapshot n.yaml (it has no DaemonSets)',
    );
  });

  test('a long list of DaemonSets is cut after ten', async () => {
    const many = Array.from({length: 13}, (_, i) => ({...ds, metadata: {...ds.metadata, name: `ds-${String(i).padStart(2, '0')}`, uid: `uid-${i}`}}));
    const big = new SnapshotClusterSource(await parseSnapshot(dump({kind: 'List', items: many}), 'b.yaml'), 'b.yaml');
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
      await expect(SnapshotClusterSource.fromFile(dir)).rejects.toThrow(`snapshot file "${dir}" is a directory, not a file`);
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
    const objects = await parseSnapshot(text, 'examples/rollout-in-progress.yaml');
    expect(objects.daemonSets.map((d) => d.metadata.name).sort()).toEqual(['fluentd', 'kube-proxy']);
    expect(objects.nodes).toHaveLength(12);
    const fluentd = objects.daemonSets.find((d) => d.metadata.name === 'fluentd')!;
    // The update revision's data must be the template plus $patch: replace, or the planner would see no match.
    const latest = objects.revisions.filter((r) => r.metadata.name.startsWith('fluentd-')).sort((a, b) => compareRevisions(b.revision, a.revision))[0]!;
    expect(latest.data).toEqual({spec: {template: {...fluentd.spec.template, $patch: 'replace'}}});
  });
});
