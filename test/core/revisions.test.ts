import {describe, expect, test} from 'vitest';
import {canonicalJson} from '../../src/core/canonical-json.js';
import {
  cleanupHistory,
  computeTemplateHash,
  constructHistory,
  currentRevisionOf,
  maxRevision,
  revisionData,
  revisionMatchesTemplate,
  templateOfRevision,
  type HistoryDecision,
} from '../../src/core/revisions.js';
import type {ControllerRevision, DaemonSet, Pod, PodTemplateSpec} from '../../src/core/types.js';
import {newDaemonSet, newPod, newRevision, T0} from '../helpers/builders.js';

const HASH = 'controller-revision-hash';

function withImage(ds: DaemonSet, image: string): DaemonSet {
  const template = ds.spec.template;
  return {...ds, spec: {...ds.spec, template: {...template, spec: {...template.spec, containers: [{name: 'main', image}]}}}};
}

function withCollisionCount(ds: DaemonSet, collisionCount: number): DaemonSet {
  return {...ds, status: {...ds.status, collisionCount}};
}

function withoutHashLabel(revision: ControllerRevision): ControllerRevision {
  const {[HASH]: _drop, ...labels} = revision.metadata.labels ?? {};
  return {...revision, metadata: {...revision.metadata, labels}};
}

function renamed(revision: ControllerRevision, name: string): ControllerRevision {
  return {...revision, metadata: {...revision.metadata, name}};
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** An independent FNV-32a + SafeEncodeString over TextEncoder bytes, to check computeTemplateHash against. */
function referenceHash(text: string, collisionCount?: number): string {
  const bytes = [...new TextEncoder().encode(text)];
  if (collisionCount !== undefined)
    bytes.push(collisionCount & 255, (collisionCount >>> 8) & 255, (collisionCount >>> 16) & 255, collisionCount >>> 24, 0, 0, 0, 0);
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  return [...String(h)].map((d) => alphabet[d.charCodeAt(0) % 27]).join('');
}

const DS = newDaemonSet('foo');
const TEMPLATE_A = DS.spec.template;
const DS_B = withImage(DS, 'foo/bar:2');
const TEMPLATE_B = DS_B.spec.template;
const DS_C = withImage(DS, 'foo/bar:3');
const TEMPLATE_C = DS_C.spec.template;

describe('revisionData', () => {
  test('is the replace patch with creationTimestamp null, as Go encodes the typed template', () => {
    expect(canonicalJson(revisionData(TEMPLATE_A))).toBe(
      '{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"name":"foo"}},"spec":{"containers":[{"image":"foo/bar:1","name":"main"}]}}}}',
    );
  });

  test('drops null keys and supplies a missing metadata', () => {
    const template = {spec: {containers: [{name: 'main', image: 'x', command: null}]}} as unknown as PodTemplateSpec;
    expect(revisionData(template)).toEqual({
      spec: {template: {$patch: 'replace', metadata: {creationTimestamp: null}, spec: {containers: [{name: 'main', image: 'x'}]}}},
    });
  });

  test('does not modify the template', () => {
    const template = deepFreeze(structuredClone(TEMPLATE_A));
    revisionData(template);
    expect(template).toEqual(TEMPLATE_A);
  });
});

describe('revisionMatchesTemplate', () => {
  const base = newRevision(DS, 'aaa', 1);
  const rows: {name: string; revision: ControllerRevision; template: PodTemplateSpec; matches: boolean}[] = [
    {name: 'builder revision of the same template', revision: base, template: TEMPLATE_A, matches: true},
    {name: 'revisionData of the same template', revision: {...base, data: revisionData(TEMPLATE_A)}, template: TEMPLATE_A, matches: true},
    {
      name: 'data parsed from Go bytes (creationTimestamp null) vs template without it',
      revision: {...base, data: JSON.parse(canonicalJson(revisionData(TEMPLATE_A)))},
      template: TEMPLATE_A,
      matches: true,
    },
    {
      name: 'template read from the API carries creationTimestamp null',
      revision: base,
      template: {...TEMPLATE_A, metadata: {...TEMPLATE_A.metadata, creationTimestamp: null}},
      matches: true,
    },
    {
      name: 'template without metadata vs stored {creationTimestamp: null}',
      revision: {...base, data: revisionData({spec: TEMPLATE_A.spec})},
      template: {spec: TEMPLATE_A.spec},
      matches: true,
    },
    {name: 'different image', revision: base, template: TEMPLATE_B, matches: false},
    {name: 'template has an extra field', revision: base, template: {...TEMPLATE_A, spec: {...TEMPLATE_A.spec, hostNetwork: true}}, matches: false},
    {
      name: 'stored template has an extra field',
      revision: {...base, data: {spec: {template: {...TEMPLATE_A, extra: 1, $patch: 'replace'}}}},
      template: TEMPLATE_A,
      matches: false,
    },
    {name: 'labels differ', revision: base, template: {...TEMPLATE_A, metadata: {labels: {name: 'foo', x: 'y'}}}, matches: false},
    {name: 'missing $patch', revision: {...base, data: {spec: {template: TEMPLATE_A}}}, template: TEMPLATE_A, matches: false},
    {name: 'extra top-level key', revision: {...base, data: {...revisionData(TEMPLATE_A), status: {}}}, template: TEMPLATE_A, matches: false},
    {
      name: 'extra key next to template',
      revision: {...base, data: {spec: {...revisionData(TEMPLATE_A).spec, minReadySeconds: 5}}},
      template: TEMPLATE_A,
      matches: false,
    },
    {name: 'no data', revision: {...base, data: undefined}, template: TEMPLATE_A, matches: false},
    {name: 'data is a string', revision: {...base, data: canonicalJson(revisionData(TEMPLATE_A))}, template: TEMPLATE_A, matches: false},
  ];
  test.each(rows)('$name', ({revision, template, matches}) => {
    expect(revisionMatchesTemplate(revision, template)).toBe(matches);
  });
});

describe('computeTemplateHash', () => {
  const unicode: PodTemplateSpec = {metadata: {labels: {app: 'é'}}, spec: {containers: [{name: 'main', image: 'x', args: ['日本😀', '<&>']}]}};
  const rows: {name: string; template: PodTemplateSpec; collisionCount?: number}[] = [
    {name: 'template A', template: TEMPLATE_A},
    {name: 'template A, collisionCount 0 appends 8 zero bytes', template: TEMPLATE_A, collisionCount: 0},
    {name: 'template A, collisionCount 1', template: TEMPLATE_A, collisionCount: 1},
    {name: 'template A, collisionCount 70000 (all four bytes)', template: TEMPLATE_A, collisionCount: 70000},
    {name: 'non-ASCII content hashed as UTF-8', template: unicode},
  ];
  test.each(rows)('$name: FNV-32a of canonical JSON, safe-encoded', ({template, collisionCount}) => {
    const expected = referenceHash(canonicalJson(template), collisionCount);
    expect(computeTemplateHash(template, collisionCount)).toBe(expected);
  });

  test('known FNV-32a vector through the reference: "Hello world" = 1498229191 -> 58fd66f5f5', () => {
    // SafeEncodeString maps digits 0-9 onto 4 5 6 7 8 9 b c d f.
    expect(referenceHash('Hello world')).toBe('58fd66f5f5');
  });

  test('uses only the characters SafeEncodeString can produce from digits', () => {
    expect(computeTemplateHash(TEMPLATE_A)).toMatch(/^[456789bcdf]+$/);
  });

  test('independent of key order, null keys and a missing metadata', () => {
    const reordered = {spec: {containers: [{image: 'foo/bar:1', name: 'main'}]}, metadata: {labels: {name: 'foo'}}} as PodTemplateSpec;
    const withNull = {...TEMPLATE_A, metadata: {...TEMPLATE_A.metadata, creationTimestamp: null}} as PodTemplateSpec;
    expect(computeTemplateHash(reordered)).toBe(computeTemplateHash(TEMPLATE_A));
    expect(computeTemplateHash(withNull)).toBe(computeTemplateHash(TEMPLATE_A));
    expect(computeTemplateHash({spec: TEMPLATE_A.spec})).toBe(computeTemplateHash({metadata: {}, spec: TEMPLATE_A.spec}));
  });

  test('changes with the template and with the collision count', () => {
    const hashes = new Set([
      computeTemplateHash(TEMPLATE_A),
      computeTemplateHash(TEMPLATE_B),
      computeTemplateHash(TEMPLATE_A, 0),
      computeTemplateHash(TEMPLATE_A, 1),
    ]);
    expect(hashes.size).toBe(4);
  });
});

describe('maxRevision', () => {
  const rows = [
    {name: 'none', numbers: [] as number[], max: 0},
    {name: 'unsorted', numbers: [3, 1, 2], max: 3},
    {name: 'single', numbers: [7], max: 7},
  ];
  test.each(rows)('$name', ({numbers, max}) => {
    expect(maxRevision(numbers.map((n, i) => newRevision(DS, `h${i}`, n)))).toBe(max);
  });
});

describe('constructHistory', () => {
  const hashA = computeTemplateHash(TEMPLATE_A);
  const hashB = computeTemplateHash(TEMPLATE_B);
  const revA1 = newRevision(DS, 'aaa', 1, TEMPLATE_A);
  const revB2 = newRevision(DS, 'bbb', 2, TEMPLATE_B);
  const revC3 = newRevision(DS, 'ccc', 3, TEMPLATE_C);

  interface Row {
    name: string;
    ds: DaemonSet;
    revisions: ControllerRevision[];
    pods?: Pod[];
    unclaimed?: ControllerRevision[];
    expected: Partial<HistoryDecision>;
    /** Names of `old`, in order. */
    old: string[];
  }

  const rows: Row[] = [
    {
      name: 'no revisions: create revision 1 named <ds>-<hash>',
      ds: DS,
      revisions: [],
      expected: {update: {name: `foo-${hashA}`, hash: hashA, revision: 1, exists: false}, deleteDuplicates: [], relabelPods: []},
      old: [],
    },
    {
      name: 'current revision exists with the next number: nothing to do',
      ds: DS,
      revisions: [revA1],
      expected: {update: {name: 'foo-aaa', hash: 'aaa', revision: 1, exists: true}, deleteDuplicates: [], relabelPods: [], labelOld: []},
      old: [],
    },
    {
      name: 'template changed: old revision 1 stays old, create revision 2',
      ds: DS_B,
      revisions: [revA1],
      expected: {update: {name: `foo-${hashB}`, hash: hashB, revision: 2, exists: false}},
      old: ['foo-aaa'],
    },
    {
      name: 'rollback A(1) -> B(2) -> A: A is renumbered to 3',
      ds: DS,
      revisions: [revA1, revB2],
      expected: {update: {name: 'foo-aaa', hash: 'aaa', revision: 3, exists: true}, renumber: {name: 'foo-aaa', from: 1, to: 3}},
      old: ['foo-bbb'],
    },
    {
      name: 'rollback to the middle of three: B renumbered to 4, old sorted by revision',
      ds: DS_B,
      revisions: [revC3, revA1, revB2],
      expected: {update: {name: 'foo-bbb', hash: 'bbb', revision: 4, exists: true}, renumber: {name: 'foo-bbb', from: 2, to: 4}},
      old: ['foo-aaa', 'foo-ccc'],
    },
    {
      name: 'current revision already above max(old): no renumber',
      ds: DS_B,
      revisions: [revA1, newRevision(DS, 'bbb', 5, TEMPLATE_B)],
      expected: {update: {name: 'foo-bbb', hash: 'bbb', revision: 5, exists: true}, deleteDuplicates: []},
      old: ['foo-aaa'],
    },
    {
      name: 'duplicate current revisions: keep the highest, delete the other, relabel every differing pod',
      ds: DS,
      revisions: [newRevision(DS, 'dup2', 2, TEMPLATE_A), revB2, newRevision(DS, 'dup4', 4, TEMPLATE_A), revC3],
      pods: [
        newPod('p-b', 'node-1', DS, {hash: 'bbb'}),
        newPod('p-a', 'node-0', DS, {hash: 'dup2'}),
        newPod('p-ok', 'node-2', DS, {hash: 'dup4'}),
        newPod('p-none', 'node-3', DS),
      ],
      expected: {
        update: {name: 'foo-dup4', hash: 'dup4', revision: 4, exists: true},
        deleteDuplicates: ['foo-dup2'],
        // Pods of genuinely old revisions are relabelled too (upstream quirk), and so is an unlabelled pod.
        relabelPods: [
          {pod: 'p-a', hash: 'dup4'},
          {pod: 'p-b', hash: 'dup4'},
          {pod: 'p-none', hash: 'dup4'},
        ],
      },
      old: ['foo-bbb', 'foo-ccc'],
    },
    {
      name: 'duplicates with the same number: the last by name is kept, then renumbered',
      ds: DS,
      revisions: [newRevision(DS, 'zzz', 1, TEMPLATE_A), newRevision(DS, 'mmm', 1, TEMPLATE_A), revB2],
      expected: {
        update: {name: 'foo-zzz', hash: 'zzz', revision: 3, exists: true},
        renumber: {name: 'foo-zzz', from: 1, to: 3},
        deleteDuplicates: ['foo-mmm'],
      },
      old: ['foo-bbb'],
    },
    {
      name: 'kept revision without hash label is labelled with its own name',
      ds: DS,
      revisions: [withoutHashLabel(revA1)],
      expected: {update: {name: 'foo-aaa', hash: 'foo-aaa', revision: 1, exists: true}, labelHash: {name: 'foo-aaa', hash: 'foo-aaa'}},
      old: [],
    },
    {
      name: 'old revisions without hash label are labelled too',
      ds: DS_C,
      revisions: [withoutHashLabel(revA1), revB2, newRevision(DS, 'ccc', 3, TEMPLATE_C)],
      expected: {labelOld: [{name: 'foo-aaa', hash: 'foo-aaa'}], update: {name: 'foo-ccc', hash: 'ccc', revision: 3, exists: true}},
      old: ['foo-aaa', 'foo-bbb'],
    },
    {
      name: 'old revisions with equal numbers sort by name',
      ds: DS_C,
      revisions: [newRevision(DS, 'yyy', 1, TEMPLATE_B), newRevision(DS, 'xxx', 1, TEMPLATE_A)],
      expected: {update: {name: `foo-${computeTemplateHash(TEMPLATE_C)}`, hash: computeTemplateHash(TEMPLATE_C), revision: 2, exists: false}},
      old: ['foo-xxx', 'foo-yyy'],
    },
    {
      name: 'status.collisionCount is part of the hash when set',
      ds: withCollisionCount(DS, 2),
      revisions: [],
      expected: {update: {name: `foo-${computeTemplateHash(TEMPLATE_A, 2)}`, hash: computeTemplateHash(TEMPLATE_A, 2), revision: 1, exists: false}},
      old: [],
    },
    {
      name: 'hash collision with a claimed revision of another template: collisionCount 1',
      ds: DS,
      revisions: [newRevision(DS, hashA, 1, TEMPLATE_B)],
      expected: {
        update: {name: `foo-${computeTemplateHash(TEMPLATE_A, 1)}`, hash: computeTemplateHash(TEMPLATE_A, 1), revision: 2, exists: false},
        collision: true,
        collisionCount: 1,
      },
      old: [`foo-${hashA}`],
    },
    {
      name: 'hash collision on top of collisionCount 2: count 3',
      ds: withCollisionCount(DS, 2),
      revisions: [newRevision(DS, computeTemplateHash(TEMPLATE_A, 2), 1, TEMPLATE_B)],
      expected: {
        update: {name: `foo-${computeTemplateHash(TEMPLATE_A, 3)}`, hash: computeTemplateHash(TEMPLATE_A, 3), revision: 2, exists: false},
        collision: true,
        collisionCount: 3,
      },
      old: [`foo-${computeTemplateHash(TEMPLATE_A, 2)}`],
    },
    {
      name: 'two successive collisions: count 2',
      ds: DS,
      revisions: [newRevision(DS, hashA, 1, TEMPLATE_B), newRevision(DS, computeTemplateHash(TEMPLATE_A, 1), 2, TEMPLATE_C)],
      expected: {
        update: {name: `foo-${computeTemplateHash(TEMPLATE_A, 2)}`, hash: computeTemplateHash(TEMPLATE_A, 2), revision: 3, exists: false},
        collision: true,
        collisionCount: 2,
      },
      old: [`foo-${hashA}`, `foo-${computeTemplateHash(TEMPLATE_A, 1)}`],
    },
    {
      name: 'name taken by an unclaimed revision with other data: collision',
      ds: DS,
      revisions: [],
      unclaimed: [newRevision(DS, hashA, 9, TEMPLATE_B)],
      expected: {
        update: {name: `foo-${computeTemplateHash(TEMPLATE_A, 1)}`, hash: computeTemplateHash(TEMPLATE_A, 1), revision: 1, exists: false},
        collision: true,
      },
      old: [],
    },
    {
      name: 'name taken by an unclaimed revision with the same data: reused and renumbered',
      ds: DS,
      revisions: [revB2],
      unclaimed: [newRevision(DS, hashA, 1, TEMPLATE_A)],
      expected: {update: {name: `foo-${hashA}`, hash: hashA, revision: 3, exists: true}, renumber: {name: `foo-${hashA}`, from: 1, to: 3}},
      old: ['foo-bbb'],
    },
  ];

  test.each(rows)('$name', ({ds, revisions, pods, unclaimed, expected, old}) => {
    const decision = constructHistory(ds, revisions, pods ?? [], {unclaimedRevisions: unclaimed});
    expect(decision).toMatchObject(expected);
    expect(decision.old.map((r) => r.metadata.name)).toEqual(old);
    if (expected.update?.exists === false) expect(decision.create?.metadata.name).toBe(expected.update.name);
    else expect(decision.create).toBeUndefined();
    if (!('renumber' in expected)) expect(decision.renumber).toBeUndefined();
    if (!('collision' in expected)) expect(decision.collision).toBeUndefined();
  });

  test('the created revision: labels, annotations, owner, data, number', () => {
    const ds: DaemonSet = {...DS_B, metadata: {...DS_B.metadata, annotations: {'kubernetes.io/change-cause': 'set image'}}};
    const decision = constructHistory(ds, [revA1], []);
    expect(decision.create).toEqual({
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: `foo-${hashB}`,
        namespace: 'default',
        labels: {name: 'foo', [HASH]: hashB},
        annotations: {'kubernetes.io/change-cause': 'set image'},
        ownerReferences: [{apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'foo', uid: DS.metadata.uid, controller: true, blockOwnerDeletion: true}],
      },
      data: revisionData(TEMPLATE_B),
      revision: 2,
    });
    expect(revisionMatchesTemplate(decision.create!, TEMPLATE_B)).toBe(true);
  });

  test('a second sync after creating finds it current (stable)', () => {
    const first = constructHistory(DS_B, [revA1], []);
    const second = constructHistory(DS_B, [revA1, first.create!], []);
    expect(second.update).toEqual({...first.update, exists: true});
    expect(second.create).toBeUndefined();
    expect(second.renumber).toBeUndefined();
  });

  test('no pod relabelling without duplicates', () => {
    const decision = constructHistory(DS, [revA1, revB2], [newPod('p', 'n', DS, {hash: 'bbb'})]);
    expect(decision.relabelPods).toEqual([]);
  });

  test('does not modify its inputs', () => {
    const revisions = deepFreeze([withoutHashLabel(revA1), revB2, newRevision(DS, 'dup', 1, TEMPLATE_A)]);
    const pods = deepFreeze([newPod('p', 'n', DS, {hash: 'bbb'})]);
    const ds = deepFreeze(structuredClone(DS));
    expect(() => constructHistory(ds, revisions, pods)).not.toThrow();
    expect(revisions[0]!.metadata.labels?.[HASH]).toBeUndefined();
  });
});

describe('cleanupHistory', () => {
  function olds(...specs: [string, number][]): ControllerRevision[] {
    return specs.map(([hash, n]) => newRevision(DS, hash, n, TEMPLATE_B));
  }
  function limited(limit: number | undefined): DaemonSet {
    return {...DS, spec: {...DS.spec, revisionHistoryLimit: limit}};
  }
  const live = (hash: string, options: {deleting?: string; phase?: string} = {}): Pod => newPod(`pod-${hash}`, 'node-0', DS, {hash, ...options});
  const many = Array.from({length: 11}, (_, i) => [`r${String(i).padStart(2, '0')}`, i + 1] as [string, number]);

  const rows: {name: string; ds: DaemonSet; old: ControllerRevision[]; pods: Pod[]; deleted: string[]}[] = [
    {name: 'not more than the limit: keep all', ds: limited(3), old: olds(['a', 1], ['b', 2], ['c', 3]), pods: [], deleted: []},
    {
      name: 'two over the limit: delete the two oldest',
      ds: limited(2),
      old: olds(['d', 4], ['a', 1], ['c', 3], ['b', 2]),
      pods: [],
      deleted: ['foo-a', 'foo-b'],
    },
    {
      name: 'a live oldest revision is skipped',
      ds: limited(2),
      old: olds(['a', 1], ['b', 2], ['c', 3], ['d', 4]),
      pods: [live('a')],
      deleted: ['foo-b', 'foo-c'],
    },
    {name: 'terminating pods keep their revision', ds: limited(1), old: olds(['a', 1], ['b', 2]), pods: [live('a', {deleting: T0})], deleted: ['foo-b']},
    {
      name: 'terminal and deleted pods keep their revision',
      ds: limited(1),
      old: olds(['a', 1], ['b', 2]),
      pods: [live('a', {deleting: T0, phase: 'Failed'})],
      deleted: ['foo-b'],
    },
    {name: 'more survive than the limit while pods use them', ds: limited(0), old: olds(['a', 1], ['b', 2]), pods: [live('a'), live('b')], deleted: []},
    {name: 'limit 0 deletes every unused old revision', ds: limited(0), old: olds(['a', 1], ['b', 2]), pods: [], deleted: ['foo-a', 'foo-b']},
    {name: 'default limit is 10', ds: limited(undefined), old: olds(...many), pods: [], deleted: ['foo-r00']},
    {name: 'equal numbers are taken by name', ds: limited(1), old: olds(['z', 1], ['y', 1], ['x', 2]), pods: [], deleted: ['foo-y', 'foo-z']},
    {
      name: 'an unlabelled revision counts its name as hash',
      ds: limited(0),
      old: [withoutHashLabel(newRevision(DS, 'a', 1, TEMPLATE_B))],
      pods: [live('foo-a')],
      deleted: [],
    },
  ];
  test.each(rows)('$name', ({ds, old, pods, deleted}) => {
    expect(cleanupHistory(ds, old, pods)).toEqual(deleted);
  });
});

describe('currentRevisionOf', () => {
  const revisions = [newRevision(DS, 'aaa', 1, TEMPLATE_A), newRevision(DS, 'bbb', 2, TEMPLATE_B), newRevision(DS, 'ccc', 3, TEMPLATE_C)];
  const pod = (name: string, hash: string | undefined): Pod => newPod(name, name, DS, hash === undefined ? {} : {hash});
  const rows: {name: string; update: string; pods: Pod[]; current: {revision: number; hash: string; name?: string}}[] = [
    {name: 'every pod updated: the update revision', update: 'ccc', pods: [pod('a', 'ccc')], current: {revision: 3, hash: 'ccc', name: 'foo-ccc'}},
    {name: 'no pods: the update revision', update: 'ccc', pods: [], current: {revision: 3, hash: 'ccc', name: 'foo-ccc'}},
    {
      name: 'the revision most old pods run',
      update: 'ccc',
      pods: [pod('a', 'aaa'), pod('b', 'aaa'), pod('c', 'bbb'), pod('d', 'ccc'), pod('e', 'ccc'), pod('f', 'ccc')],
      current: {revision: 1, hash: 'aaa', name: 'foo-aaa'},
    },
    {name: 'tie: the higher revision', update: 'ccc', pods: [pod('a', 'bbb'), pod('b', 'aaa')], current: {revision: 2, hash: 'bbb', name: 'foo-bbb'}},
    {name: 'tie in the other pod order', update: 'ccc', pods: [pod('b', 'aaa'), pod('a', 'bbb')], current: {revision: 2, hash: 'bbb', name: 'foo-bbb'}},
    {
      name: 'pods of unknown or missing hashes are not counted',
      update: 'bbb',
      pods: [pod('a', 'gone'), pod('b', undefined)],
      current: {revision: 2, hash: 'bbb', name: 'foo-bbb'},
    },
    {name: 'update revision not created yet: max + 1, no name', update: 'new', pods: [pod('a', 'new')], current: {revision: 4, hash: 'new'}},
  ];
  test.each(rows)('$name', ({update, pods, current}) => {
    expect(currentRevisionOf(update, revisions, pods)).toEqual(current);
  });
});

describe('templateOfRevision', () => {
  const rows: {name: string; revision: ControllerRevision; template: PodTemplateSpec | undefined}[] = [
    {name: 'builder revision', revision: newRevision(DS, 'a', 1, TEMPLATE_B), template: TEMPLATE_B},
    {
      name: 'Go-shaped data: $patch and creationTimestamp null removed',
      revision: {...newRevision(DS, 'a', 1), data: JSON.parse(canonicalJson(revisionData(TEMPLATE_A)))},
      template: TEMPLATE_A,
    },
    {name: 'not a template patch', revision: {...newRevision(DS, 'a', 1), data: {spec: {replicas: 1}}}, template: undefined},
    {name: 'no data', revision: {...newRevision(DS, 'a', 1), data: undefined}, template: undefined},
  ];
  test.each(rows)('$name', ({revision, template}) => {
    expect(templateOfRevision(revision)).toEqual(template);
  });

  test('round trip with revisionData', () => {
    const got = templateOfRevision(renamed(newRevision(DS, 'a', 1), 'x'));
    expect(revisionMatchesTemplate({...newRevision(DS, 'b', 1), data: revisionData(got!)}, TEMPLATE_A)).toBe(true);
  });
});
