// ControllerRevisions of a DaemonSet: which one is current, what the controller creates, renumbers,
// relabels and deletes (docs/design/reconcile.md §10 and §11), and the template hash that names new revisions.
// Decisions only: callers (the sim's controller, the planner) perform the writes.
import {canonicalJson, deepEqualJson, stripNulls, withSortedKeys} from './canonical-json.js';
import {getControllerOf} from './claim.js';
import {CHANGE_CAUSE_ANNOTATION} from './pause.js';
import {CONTROLLER_REVISION_HASH_LABEL} from './pod-template.js';
import {compareRevisions, higherRevision, nextRevision, type Revision} from './revision-number.js';
import {labelSelectorMatches} from './selectors.js';
import type {ControllerRevision, DaemonSet, Labels, Pod, PodTemplateSpec} from './types.js';

const DEFAULT_REVISION_HISTORY_LIMIT = 10;
const NULL_AS_ABSENT = {nullAsAbsent: true} as const;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The hash a revision stands for: its label, or its name once the controller has labelled it (docs/design/reconcile.md §7.1). */
export function revisionHash(revision: ControllerRevision): string {
  return revision.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? revision.metadata.name;
}

/** Who caused a revision (`kubectl ... --record`, `ds-rollout undo`), as kubectl rollout history shows it. */
export function revisionChangeCause(revision: ControllerRevision): string | undefined {
  return revision.metadata.annotations?.[CHANGE_CAUSE_ANNOTATION] || undefined;
}

/**
 * The revisions that are the DaemonSet's history, as `kubectl rollout history` lists them: those whose controller
 * reference is the DaemonSet (by uid; a DaemonSet read without one, by name) and whose labels its selector matches
 * (it never adopts), one per revision number (a duplicate number: the later in the list wins), sorted by number.
 * The one rule for history, undo, ds-plan -f and the dashboard's revision pane.
 */
// upstream: staging/src/k8s.io/kubectl/pkg/polymorphichelpers/history.go daemonSetHistory, controlledHistories
export function controlledRevisions(ds: DaemonSet, revisions: readonly ControllerRevision[]): ControllerRevision[] {
  const byNumber = new Map<Revision, ControllerRevision>();
  const uid = ds.metadata.uid;
  for (const revision of revisions) {
    const owner = getControllerOf(revision.metadata);
    if (owner === undefined || (uid === undefined ? owner.kind !== 'DaemonSet' || owner.name !== ds.metadata.name : owner.uid !== uid)) continue;
    if (!labelSelectorMatches(ds.spec.selector, revision.metadata.labels)) continue;
    byNumber.set(revision.revision, revision);
  }
  return [...byNumber.values()].sort((a, b) => compareRevisions(a.revision, b.revision));
}

function hasHashLabel(revision: ControllerRevision): boolean {
  return revision.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL] !== undefined;
}

/**
 * The template as Go's typed struct would carry it: no null-valued keys, and `metadata` always present
 * (ObjectMeta is a value field, so an absent one and `{}` are the same template).
 */
function normalizedTemplate(template: PodTemplateSpec): JsonObject {
  const stripped = stripNulls(template) as unknown as JsonObject;
  return {...stripped, metadata: isObject(stripped['metadata']) ? stripped['metadata'] : {}};
}

/**
 * The patch the controller stores in a revision: `{"spec":{"template":{..., "$patch":"replace"}}}`, shaped like
 * Go's encoding of the typed template (null keys dropped, `metadata.creationTimestamp: null` present), so that
 * canonicalJson of it is byte-equal to what the controller and `kubectl rollout undo` compute from the same
 * (defaulted) template.
 */
// upstream: pkg/controller/daemon/update.go getPatch
export function revisionData(template: PodTemplateSpec): {spec: {template: unknown}} {
  const normalized = normalizedTemplate(template);
  const metadata = {creationTimestamp: null, ...(normalized['metadata'] as JsonObject)};
  // Keys in Go's order (sorted), so the data serialises to the bytes the controller and kubectl compute.
  return {spec: {template: withSortedKeys({...normalized, metadata, $patch: 'replace'})}};
}

/**
 * Whether `revision` records `template` (docs/design/reconcile.md §10.2, the practical equivalent of upstream's byte
 * comparison): its data is exactly `{spec: {template: T}}` where T is the template plus `$patch: replace`.
 * Null-valued keys count as absent and a missing template `metadata` equals `{}`, as they do for Go's typed
 * encoding. Allocation-free: the sim's controller calls this on every sync.
 */
// upstream: pkg/controller/daemon/update.go Match
export function revisionMatchesTemplate(revision: ControllerRevision, template: PodTemplateSpec): boolean {
  const data = revision.data;
  if (!isObject(data) || !hasOnlyKey(data, 'spec')) return false;
  const spec = data['spec'];
  if (!isObject(spec) || !hasOnlyKey(spec, 'template')) return false;
  const stored = spec['template'];
  if (!isObject(stored) || stored['$patch'] !== 'replace') return false;
  const wanted = template as unknown as JsonObject;
  // metadata compares as {} when absent on either side.
  if (!deepEqualJson(stored['metadata'] ?? {}, wanted['metadata'] ?? {}, NULL_AS_ABSENT)) return false;
  let storedKeys = 0;
  for (const key in stored) {
    if (key === '$patch' || key === 'metadata' || stored[key] === null || stored[key] === undefined) continue;
    storedKeys++;
    if (!deepEqualJson(stored[key], wanted[key], NULL_AS_ABSENT)) return false;
  }
  let wantedKeys = 0;
  for (const key in wanted) {
    if (key === 'metadata' || wanted[key] === null || wanted[key] === undefined) continue;
    wantedKeys++;
  }
  return storedKeys === wantedKeys;
}

function hasOnlyKey(object: JsonObject, key: string): boolean {
  let found = false;
  for (const k in object) {
    if (object[k] === null || object[k] === undefined) continue;
    if (k !== key) return false;
    found = true;
  }
  return found;
}

// The hash alphabet: rand.String's characters, without vowels so that hashes never spell words.
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

// upstream: staging/src/k8s.io/apimachinery/pkg/util/rand/rand.go SafeEncodeString
function safeEncodeString(s: string): string {
  let out = '';
  for (const ch of s) out += SAFE_ALPHABET[ch.codePointAt(0)! % SAFE_ALPHABET.length];
  return out;
}

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

function fnvByte(hash: number, byte: number): number {
  return Math.imul(hash ^ byte, FNV32_PRIME) >>> 0;
}

/** FNV-1a (32 bit) over the UTF-8 bytes of `s`, encoded on the fly to avoid a TextEncoder round trip. */
function fnv32aUtf8(hash: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      hash = fnvByte(hash, c);
      continue;
    }
    if (c < 0x800) {
      hash = fnvByte(fnvByte(hash, 0xc0 | (c >> 6)), 0x80 | (c & 0x3f));
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
        hash = fnvByte(hash, 0xf0 | (c >> 18));
        hash = fnvByte(hash, 0x80 | ((c >> 12) & 0x3f));
        hash = fnvByte(hash, 0x80 | ((c >> 6) & 0x3f));
        hash = fnvByte(hash, 0x80 | (c & 0x3f));
        continue;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd; // lone surrogate: UTF-8 encoders write U+FFFD
    hash = fnvByte(hash, 0xe0 | (c >> 12));
    hash = fnvByte(hash, 0x80 | ((c >> 6) & 0x3f));
    hash = fnvByte(hash, 0x80 | (c & 0x3f));
  }
  return hash;
}

/**
 * The project's deterministic stand-in for upstream's ComputeHash: FNV-32a over canonicalJson of the template
 * (null keys dropped, `metadata` defaulting to `{}`, so templates that match one another hash alike), then,
 * when `collisionCount` is given (0 included, as upstream distinguishes nil from 0), 8 bytes holding the count
 * as a little-endian uint32 followed by four zero bytes; the uint32 is printed in decimal and each digit mapped
 * onto `bcdfghjklmnpqrstvwxz2456789` as SafeEncodeString does.
 *
 * It can NOT equal the real controller's hash: upstream feeds FNV with go-spew's dump of the Go struct
 * (type names, pointers followed, every zero-valued field), which has no JSON equivalent. Use it only to name
 * revisions this project creates (the sim) and as the planner's stand-in for a revision that does not exist yet.
 */
// upstream: pkg/controller/controller_utils.go ComputeHash
export function computeTemplateHash(template: PodTemplateSpec, collisionCount?: number): string {
  let hash = fnv32aUtf8(FNV32_OFFSET, canonicalJson(normalizedTemplate(template)));
  if (collisionCount !== undefined) {
    const count = collisionCount >>> 0; // Go converts the int32 to uint32
    for (let i = 0; i < 4; i++) hash = fnvByte(hash, (count >>> (8 * i)) & 0xff);
    for (let i = 0; i < 4; i++) hash = fnvByte(hash, 0);
  }
  return safeEncodeString(String(hash >>> 0));
}

/** A short name for any text, in the hash alphabet (FNV-32a, as computeTemplateHash): a fleet rollout's id. */
export function textHash(text: string): string {
  return safeEncodeString(String(fnv32aUtf8(FNV32_OFFSET, text) >>> 0));
}

/** The highest revision number, 0 for none. */
// upstream: pkg/controller/daemon/update.go maxRevision
export function maxRevision(revisions: readonly ControllerRevision[]): Revision {
  let max: Revision = 0;
  for (const revision of revisions) if (revision.revision > max) max = revision.revision;
  return max;
}

function byRevisionThenName(a: ControllerRevision, b: ControllerRevision): number {
  return compareRevisions(a.revision, b.revision) || byName(a.metadata.name, b.metadata.name);
}

export interface HistoryDecision {
  /** The revision matching the template, after renumbering (or the one to create). */
  readonly update: {readonly name: string; readonly hash: string; readonly revision: Revision; readonly exists: boolean};
  /** To POST when no revision matches the template. */
  readonly create?: ControllerRevision;
  /** The kept current revision's number is below max(old) + 1: update it. */
  readonly renumber?: {readonly name: string; readonly from: Revision; readonly to: Revision};
  /** The kept current revision has no controller-revision-hash label: label it with its own name. */
  readonly labelHash?: {readonly name: string; readonly hash: string};
  /** Old revisions without the hash label: upstream labels every claimed revision with its name in the same loop. */
  readonly labelOld: readonly {readonly name: string; readonly hash: string}[];
  /** The other current revisions (dedupCurHistories), to DELETE. */
  readonly deleteDuplicates: readonly string[];
  /** Only when duplicates existed: every daemon pod whose hash label differs from the kept revision's (sorted by pod name). */
  readonly relabelPods: readonly {readonly pod: string; readonly hash: string}[];
  /** Every non-current revision, sorted by revision ascending then name (as given: not relabelled). */
  readonly old: readonly ControllerRevision[];
  /**
   * True when the name `<ds>-<hash>` is taken by a revision with different data (docs/design/reconcile.md §10.3). Upstream then bumps
   * status.collisionCount and creates on a later sync; here `create` already uses the bumped count, and the
   * caller must write `collisionCount` to status.collisionCount.
   */
  readonly collision?: boolean;
  /** The status.collisionCount the hash of `create` was computed with, when a collision bumped it. */
  readonly collisionCount?: number;
}

export interface ConstructHistoryOptions {
  /**
   * Revisions of the namespace that were not claimed as the DS's (other owners, or unadoptable). Only their
   * names matter: a new revision's name can collide with them. One with the same name and matching data is
   * reused as the current revision, as upstream's AlreadyExists path does.
   */
  readonly unclaimedRevisions?: readonly ControllerRevision[];
}

function newRevision(ds: DaemonSet, hash: string, revision: Revision): ControllerRevision {
  const {name, namespace, uid, annotations} = ds.metadata;
  const labels: Labels = {...(ds.spec.template.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH_LABEL]: hash};
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `${name}-${hash}`,
      ...(namespace !== undefined ? {namespace} : {}),
      labels,
      // CHANGE-CAUSE in `rollout history` comes from these.
      ...(annotations !== undefined ? {annotations: {...annotations}} : {}),
      ownerReferences: [{apiVersion: 'apps/v1', kind: 'DaemonSet', name, uid: uid ?? '', controller: true, blockOwnerDeletion: true}],
    },
    data: revisionData(ds.spec.template),
    revision,
  };
}

/**
 * What the controller does to the DS's revisions before each sync (docs/design/reconcile.md §10.3): split them into the
 * current one (data matches the template) and old ones, create the current one if missing, keep the highest of
 * duplicate current ones (relabelling pods to its hash and deleting the rest), and renumber it to max(old) + 1.
 * `revisions` are those already claimed as the DS's; `daemonPods` its claimed pods (used to relabel after dedup).
 * Where upstream depends on lister order, ties are broken by name: among current revisions with the same highest
 * number, the last by name is kept (upstream's `>=` walk over a name-sorted list).
 */
// upstream: pkg/controller/daemon/update.go constructHistory, dedupCurHistories, snapshot
export function constructHistory(
  ds: DaemonSet,
  revisions: readonly ControllerRevision[],
  daemonPods: readonly Pod[],
  options: ConstructHistoryOptions = {},
): HistoryDecision {
  const template = ds.spec.template;
  const current: ControllerRevision[] = [];
  const old: ControllerRevision[] = [];
  for (const revision of revisions) (revisionMatchesTemplate(revision, template) ? current : old).push(revision);
  old.sort(byRevisionThenName);
  const next = nextRevision(maxRevision(old));
  const labelOld = old.filter((r) => !hasHashLabel(r)).map((r) => ({name: r.metadata.name, hash: r.metadata.name}));

  if (current.length === 0) return snapshot(ds, revisions, options.unclaimedRevisions ?? [], next, old, labelOld);

  current.sort((a, b) => byName(a.metadata.name, b.metadata.name));
  let keep = current[0]!;
  for (const revision of current) if (revision.revision >= keep.revision) keep = revision;
  const hash = revisionHash(keep);
  const duplicates = current.filter((r) => r !== keep).map((r) => r.metadata.name);
  const relabelPods =
    duplicates.length === 0
      ? []
      : daemonPods
          .filter((pod) => pod.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL] !== hash)
          .map((pod) => ({pod: pod.metadata.name, hash}))
          .sort((a, b) => byName(a.pod, b.pod));
  const revision = higherRevision(keep.revision, next);
  return {
    update: {name: keep.metadata.name, hash, revision, exists: true},
    ...(keep.revision < next ? {renumber: {name: keep.metadata.name, from: keep.revision, to: next}} : {}),
    ...(hasHashLabel(keep) ? {} : {labelHash: {name: keep.metadata.name, hash}}),
    labelOld,
    deleteDuplicates: duplicates,
    relabelPods,
    old,
  };
}

// upstream: pkg/controller/daemon/update.go snapshot
function snapshot(
  ds: DaemonSet,
  claimed: readonly ControllerRevision[],
  unclaimed: readonly ControllerRevision[],
  next: Revision,
  old: ControllerRevision[],
  labelOld: {name: string; hash: string}[],
): HistoryDecision {
  const byRevisionName = new Map<string, ControllerRevision>();
  for (const revision of unclaimed) byRevisionName.set(revision.metadata.name, revision);
  for (const revision of claimed) byRevisionName.set(revision.metadata.name, revision);
  const base = ds.status?.collisionCount;
  let collisionCount = base;
  // Each taken name with other data bumps the count, as successive upstream syncs would; finite because every
  // bump needs a distinct existing revision to collide with.
  for (let attempt = 0; attempt <= byRevisionName.size; attempt++) {
    const hash = computeTemplateHash(ds.spec.template, collisionCount);
    const name = `${ds.metadata.name}-${hash}`;
    const existing = byRevisionName.get(name);
    const collided = collisionCount !== base ? {collision: true, collisionCount: collisionCount!} : {};
    if (existing === undefined) {
      return {
        update: {name, hash, revision: next, exists: false},
        create: newRevision(ds, hash, next),
        labelOld,
        deleteDuplicates: [],
        relabelPods: [],
        old,
        ...collided,
      };
    }
    if (revisionMatchesTemplate(existing, ds.spec.template)) {
      // Only an unclaimed revision can match here (a claimed match would have been current): upstream reuses it.
      const existingHash = revisionHash(existing);
      return {
        update: {name, hash: existingHash, revision: higherRevision(existing.revision, next), exists: true},
        ...(existing.revision < next ? {renumber: {name, from: existing.revision, to: next}} : {}),
        ...(hasHashLabel(existing) ? {} : {labelHash: {name, hash: existingHash}}),
        labelOld,
        deleteDuplicates: [],
        relabelPods: [],
        old,
        ...collided,
      };
    }
    collisionCount = (collisionCount ?? 0) + 1;
  }
  throw new Error(`constructHistory: could not find a free revision name for DaemonSet ${ds.metadata.name}`);
}

/**
 * Names of old revisions to delete (docs/design/reconcile.md §11): when there are more than revisionHistoryLimit (default 10)
 * old revisions, the oldest ones whose hash no daemon pod carries, oldest first, until the excess is gone.
 * `allDaemonPods` must include terminating and terminal-and-deleted pods, as upstream's cleanup does.
 * Equal revision numbers (an unstable sort upstream) are taken by name.
 */
// upstream: pkg/controller/daemon/update.go cleanupHistory
export function cleanupHistory(ds: DaemonSet, old: readonly ControllerRevision[], allDaemonPods: readonly Pod[]): string[] {
  let toKill = old.length - (ds.spec.revisionHistoryLimit ?? DEFAULT_REVISION_HISTORY_LIMIT);
  if (toKill <= 0) return [];
  const liveHashes = new Set<string>();
  for (const pod of allDaemonPods) {
    const hash = pod.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL];
    if (hash) liveHashes.add(hash);
  }
  const doomed: string[] = [];
  for (const revision of [...old].sort(byRevisionThenName)) {
    if (toKill <= 0) break;
    // An unlabelled revision was labelled with its name by constructHistory earlier in the same sync.
    if (liveHashes.has(revisionHash(revision))) continue;
    doomed.push(revision.metadata.name);
    toKill--;
  }
  return doomed;
}

/**
 * The revision the DS is rolling away from, for display: the revision most non-updated daemon pods carry
 * (ties: the higher revision); the update revision when no pod carries an old one. "Updated" is judged by the
 * hash label alone; pods whose hash matches no revision are not counted. When the update revision does not exist
 * yet, its number is max(revisions) + 1, as constructHistory would assign.
 */
export function currentRevisionOf(
  updateHash: string,
  revisions: readonly ControllerRevision[],
  daemonPods: readonly Pod[],
): {revision: Revision; hash: string; name?: string} {
  const byHash = new Map<string, ControllerRevision>();
  for (const revision of [...revisions].sort(byRevisionThenName)) byHash.set(revisionHash(revision), revision);
  const counts = new Map<ControllerRevision, number>();
  for (let i = 0; i < daemonPods.length; i++) {
    const pod = daemonPods[i]!;
    const hash = pod.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL];
    if (hash === undefined || hash === updateHash) continue;
    const revision = byHash.get(hash);
    if (revision !== undefined) counts.set(revision, (counts.get(revision) ?? 0) + 1);
  }
  let best: ControllerRevision | undefined;
  let bestCount = 0;
  for (const [revision, count] of counts) {
    if (count > bestCount || (count === bestCount && best !== undefined && byRevisionThenName(revision, best) > 0)) {
      best = revision;
      bestCount = count;
    }
  }
  if (best !== undefined) return {revision: best.revision, hash: revisionHash(best), name: best.metadata.name};
  const update = byHash.get(updateHash);
  if (update !== undefined) return {revision: update.revision, hash: updateHash, name: update.metadata.name};
  return {revision: nextRevision(maxRevision(revisions)), hash: updateHash};
}

/**
 * The pod template a revision records (what `rollout history --revision` and `undo` apply), without `$patch`
 * and without null-valued keys (Go's `creationTimestamp: null`), or undefined when the data is not a DaemonSet
 * template patch.
 */
export function templateOfRevision(revision: ControllerRevision): PodTemplateSpec | undefined {
  const data = revision.data;
  if (!isObject(data) || !isObject(data['spec'])) return undefined;
  const template = data['spec']['template'];
  if (!isObject(template) || !isObject(template['spec'])) return undefined;
  const {$patch: _patch, ...rest} = stripNulls(template);
  return rest as unknown as PodTemplateSpec;
}
