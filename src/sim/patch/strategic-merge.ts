// Strategic merge patch, applied the way the apiserver applies it (server side, parallel lists merged,
// unmatched nulls dropped). Behaviour, list order and error texts follow apimachinery's strategicpatch
// package as observed through `kubectl patch --local` (golden vectors in test/fixtures/smp).

import {PatchError} from './errors.js';
import {goS, goTypeName, goV} from './go-format.js';
import {cloneJson, hasKey, isJsonObject, setKey, type JsonObject, type JsonValue} from './json-value.js';
import {lookupField, rootMeta, type StructMeta} from './patch-meta.js';
import {goStableSort} from './stable-sort.js';

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

type ElementKind = 'map' | 'scalar';

interface ListField {
  readonly strategy?: string;
  readonly mergeKey: string;
  readonly type: StructMeta;
}

/**
 * Applies a strategic merge patch to a copy of `original`.
 * `kind` selects the patch metadata (Pod, Node, DaemonSet, ControllerRevision, Namespace, Event);
 * any other kind merges maps and replaces lists. Inputs are never mutated.
 * @throws PatchError with the apiserver's message, HTTP code and reason.
 */
export function applyStrategicMergePatch(original: object, patch: object, kind: string): object {
  if (!isJsonObject(original)) throw new PatchError(cannotUnmarshal(original), 400);
  if (patch === null) return cloneJson(original); // `null` decodes to an empty patch
  if (!isJsonObject(patch)) throw new PatchError(cannotUnmarshal(patch), 400);
  return mergeMap(cloneJson(original), cloneJson(patch), rootMeta(kind));
}

function cannotUnmarshal(value: unknown): string {
  const what = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
  return `json: cannot unmarshal ${what} into Go value of type map[string]interface {}`;
}

// ---------------------------------------------------------------------------------------------
// maps

function mergeMap(original: JsonObject | undefined, patch: JsonObject, meta: StructMeta): JsonObject {
  if (hasKey(patch, DIRECTIVE)) return mapDirective(patch);
  const target = original ?? {};
  applyRetainKeys(target, patch);
  mergeOrderedLists(target, patch, meta);

  for (const patchKey of Object.keys(patch)) {
    const value = patch[patchKey] as JsonValue;
    let key = patchKey;
    let deletionList = false;
    if (patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      key = directiveTarget(patchKey, DELETE_FROM_PRIMITIVE_LIST);
      deletionList = true;
    }
    if (value === null) {
      delete target[key];
      continue;
    }
    const current = hasKey(target, key) ? target[key] : undefined;
    if (current === undefined || goTypeName(current) !== goTypeName(value)) {
      // A new key or a changed type: the patch value is taken without its nulls and `$patch` maps.
      // A deletion list has nothing to delete from then.
      if (deletionList) continue;
      const cleaned = removeDirectives(discardNulls(value));
      if (cleaned === undefined) delete target[key];
      else setKey(target, key, cleaned);
      continue;
    }
    const field = lookupField(meta, key);
    if (isJsonObject(current) && isJsonObject(value)) {
      setKey(target, key, field.strategy === 'replace' ? value : mergeMap(current, value, field.type));
    } else if (Array.isArray(current) && Array.isArray(value)) {
      // A deletion list deletes even from a list that otherwise does not merge.
      setKey(target, key, field.strategy === 'merge' || deletionList ? mergeList(current, value, field, deletionList) : value);
    } else {
      setKey(target, key, value);
    }
  }
  return target;
}

/** Drops null members of maps at any depth (null list elements stay). Edits in place. */
function discardNulls(value: JsonValue): JsonValue {
  if (Array.isArray(value)) {
    for (const item of value) discardNulls(item);
  } else if (isJsonObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (item === null) delete value[key];
      else discardNulls(item);
    }
  }
  return value;
}

/** Drops every map carrying `$patch` (`undefined` when `value` itself is one). Edits in place. */
function removeDirectives(value: JsonValue): JsonValue | undefined {
  if (Array.isArray(value)) {
    const kept: JsonValue[] = [];
    for (const item of value) {
      const cleaned = removeDirectives(item);
      if (cleaned !== undefined) kept.push(cleaned);
    }
    return kept;
  }
  if (isJsonObject(value)) {
    if (hasKey(value, DIRECTIVE)) return undefined;
    for (const [key, item] of Object.entries(value)) {
      const cleaned = removeDirectives(item);
      if (cleaned === undefined) delete value[key];
      else setKey(value, key, cleaned);
    }
  }
  return value;
}

function mapDirective(patch: JsonObject): JsonObject {
  const directive = patch[DIRECTIVE];
  if (directive === 'replace') {
    delete patch[DIRECTIVE];
    return patch;
  }
  if (directive === 'delete') return {};
  throw new PatchError(`unknown patch type: ${goS(directive)} in map: ${goV(patch)}`);
}

/** `$retainKeys`: drop every original key that is not listed, after checking the patch only sets listed keys. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!hasKey(patch, RETAIN_KEYS)) return;
  const retain = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(retain)) throw new PatchError('invalid patch format of retainKeys', 400);
  const keep = new Set<JsonValue>(retain);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep.has(key)) throw new PatchError('invalid patch format of retainKeys', 400);
  }
  for (const key of Object.keys(original)) {
    if (!keep.has(key)) delete original[key];
  }
}

function directiveTarget(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw new PatchError(prefix === SET_ELEMENT_ORDER ? 'invalid patch format of setElementOrder list' : 'invalid patch format of primitive list', 400);
  }
  return key.slice(slash + 1);
}

/** `$setElementOrder/<list>`: merge that list now and order it by the directive. */
function mergeOrderedLists(original: JsonObject, patch: JsonObject, meta: StructMeta): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw badArgType('[]interface {}', order);
    const listKey = directiveTarget(key, SET_ELEMENT_ORDER);
    const foundOriginal = hasKey(original, listKey);
    const foundPatch = hasKey(patch, listKey);
    let originalList: JsonValue[] = [];
    let patchList: JsonValue[] = [];
    if (foundOriginal) {
      const value = original[listKey];
      if (!Array.isArray(value)) throw badArgType('[]interface {}', value);
      originalList = value;
    }
    if (foundPatch) {
      const value = patch[listKey];
      if (!Array.isArray(value)) throw badArgType('[]interface {}', value);
      patchList = value;
    }
    const field = lookupField(meta, listKey);
    validatePatchAgainstOrder(patchList, order, field.mergeKey);

    let merged: JsonValue[];
    if (foundOriginal && foundPatch) {
      merged = field.strategy === 'merge' ? mergeList(originalList, patchList, field, false) : patchList;
    } else if (foundOriginal) {
      merged = originalList;
    } else if (foundPatch) {
      merged = removeDirectives(patchList) as JsonValue[];
    } else {
      continue;
    }
    const [patchItems, serverOnly] = field.mergeKey ? partitionMaps(merged, order, field.mergeKey) : partitionScalars(merged, order);
    const kind = elementKind(originalList, patchList);
    // `originalList` is deliberately the array mergeList edited in place: the reference code reads the
    // live order from a slice that shares storage with the merge result (docs/design/sim-api.md §6.3 corner case).
    setKey(original, listKey, normalizeElementOrder(patchItems, serverOnly, order, originalList, field.mergeKey, kind));
    delete patch[listKey];
  }
}

/** Every non-deleting patch element must appear in `$setElementOrder`, in the same relative order. */
function validatePatchAgainstOrder(patchList: JsonValue[], order: JsonValue[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const kept = mergeKey ? splitDeletions(patchList)[0] : patchList;
  let p = 0;
  let o = 0;
  while (p < kept.length && o < order.length) {
    const item = kept[p] as JsonValue;
    if (isJsonObject(item) && hasKey(item, DIRECTIVE)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(item, order[o] as JsonValue, mergeKey)) p++;
    o++;
  }
  if (p < kept.length && o >= order.length) {
    throw new PatchError(`The order in patch list:\n${goV(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goV(order)}\n`);
  }
}

function mergeKeyValueEqual(left: JsonValue, right: JsonValue, mergeKey: string): boolean {
  if (!mergeKey) return left === right;
  if (!isJsonObject(left)) throw badArgType('map[string]interface {}', left);
  if (!isJsonObject(right)) throw badArgType('map[string]interface {}', right);
  if (!hasKey(left, mergeKey)) throw noMergeKey(left, mergeKey);
  if (!hasKey(right, mergeKey)) throw noMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}

// ---------------------------------------------------------------------------------------------
// lists

/**
 * A Go slice over `storage`: deletions shift elements inside the same array and appends reuse its
 * tail, so whoever still holds `storage` sees what the reference code's caller would see.
 */
class SharedSlice {
  storage: JsonValue[];
  length: number;
  constructor(storage: JsonValue[]) {
    this.storage = storage;
    this.length = storage.length;
  }
  at(i: number): JsonValue {
    return this.storage[i] as JsonValue;
  }
  set(i: number, value: JsonValue): void {
    this.storage[i] = value;
  }
  removeAt(i: number): void {
    for (let k = i; k < this.length - 1; k++) this.storage[k] = this.storage[k + 1] as JsonValue;
    this.length--;
  }
  append(value: JsonValue): void {
    if (this.length >= this.storage.length) this.storage = this.storage.slice(0, this.length);
    this.storage[this.length++] = value;
  }
  items(): JsonValue[] {
    return this.storage.slice(0, this.length);
  }
}

function mergeList(original: JsonValue[], patch: JsonValue[], field: ListField, deletionList: boolean): JsonValue[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind(original, patch);

  if (kind === 'scalar') {
    if (deletionList) return original.filter((v) => !patch.includes(v));
    const merged = deduplicateScalars([...original, ...patch]);
    const [patchItems, serverOnly] = partitionScalars(merged, patch);
    return normalizeElementOrder(patchItems, serverOnly, patch, original, '', kind);
  }

  const mergeKey = field.mergeKey;
  if (!mergeKey) {
    // Go names the element kind of the field: the merging lists without a key hold strings.
    throw new PatchError(`cannot merge lists without merge key for ${field.strategy === 'merge' ? 'string' : 'struct'}`);
  }
  const slice = new SharedSlice(original);
  let plain: JsonValue[] = [];
  let replace = false;
  for (const item of patch) {
    const element = item as JsonObject; // elementKind proved every element is a map
    if (!hasKey(element, DIRECTIVE)) {
      plain.push(element);
      continue;
    }
    const directive = element[DIRECTIVE];
    if (directive === 'delete') {
      if (!hasKey(element, mergeKey)) throw noMergeKey(element, mergeKey);
      for (let i = findByMergeKey(slice.items(), mergeKey, element[mergeKey] as JsonValue); i >= 0;) {
        slice.removeAt(i);
        i = findByMergeKey(slice.items(), mergeKey, element[mergeKey] as JsonValue);
      }
    } else if (directive === 'replace') {
      replace = true; // keep scanning so the other directive elements are still validated and dropped
    } else if (directive === 'merge') {
      throw new PatchError('merging lists cannot yet be specified in the patch');
    } else {
      throw new PatchError(`unknown patch type: ${goS(directive)} in map: ${goV(element)}`);
    }
  }

  let live: JsonValue[];
  let result: SharedSlice;
  if (replace) {
    live = plain;
    result = new SharedSlice([...plain]);
    plain = [];
  } else {
    live = slice.items();
    result = slice;
  }
  for (const item of plain) {
    const element = item as JsonObject;
    if (!hasKey(element, mergeKey)) throw noMergeKey(element, mergeKey);
    const at = findByMergeKey(result.items(), mergeKey, element[mergeKey] as JsonValue);
    if (at >= 0) {
      result.set(at, mergeMap(result.at(at) as JsonObject, element, field.type));
    } else {
      result.append(element);
    }
  }
  const [patchItems, serverOnly] = partitionMaps(result.items(), plain, mergeKey);
  return normalizeElementOrder(patchItems, serverOnly, plain, live, mergeKey, kind);
}

function findByMergeKey(list: JsonValue[], mergeKey: string, value: JsonValue): number {
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!isJsonObject(item)) throw new PatchError(`value for key ${i} is not a map`);
    if (hasKey(item, mergeKey) && item[mergeKey] === value) return i;
  }
  return -1;
}

/** The element type shared by all lists; mixed types and nested lists are rejected like upstream. */
function elementKind(...lists: JsonValue[][]): ElementKind {
  let first: string | undefined;
  for (const list of lists) {
    for (const item of list) {
      const type = goTypeName(item);
      if (first === undefined) {
        if (Array.isArray(item)) throw new PatchError('lists of lists are not supported', 422);
        first = type;
      } else if (type !== first) {
        throw new PatchError(`list element types are not identical: ${goV(lists)}`);
      }
    }
  }
  if (first === undefined) throw new PatchError('no elements in any of the given slices');
  return first === 'map[string]interface {}' ? 'map' : 'scalar';
}

/** Go's in-place duplicate removal: a duplicate is overwritten by the current last element. */
function deduplicateScalars(list: JsonValue[]): JsonValue[] {
  const s = [...list];
  let last = s.length - 1;
  for (let i = 0; i < last; i++) {
    for (let j = i + 1; j <= last; j++) {
      if (s[i] === s[j]) {
        s[j] = s[last] as JsonValue;
        s.length = last;
        last--;
        j--;
      }
    }
  }
  return s;
}

function partitionScalars(list: JsonValue[], present: JsonValue[]): [JsonValue[], JsonValue[]] {
  const inPatch = new Set(present);
  return [list.filter((v) => inPatch.has(v)), list.filter((v) => !inPatch.has(v))];
}

function partitionMaps(list: JsonValue[], present: JsonValue[], mergeKey: string): [JsonValue[], JsonValue[]] {
  const patchItems: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  for (const item of list) {
    if (!isJsonObject(item)) throw badArgType('map[string]interface {}', item);
    if (!hasKey(item, mergeKey)) throw noMergeKey(item, mergeKey);
    (findByMergeKey(present, mergeKey, item[mergeKey] as JsonValue) >= 0 ? patchItems : serverOnly).push(item);
  }
  return [patchItems, serverOnly];
}

function splitDeletions(list: JsonValue[]): [JsonValue[], JsonValue[]] {
  const kept: JsonValue[] = [];
  const deleted: JsonValue[] = [];
  for (const item of list) {
    if (!isJsonObject(item)) throw badArgType('map[string]interface {}', item);
    (item[DIRECTIVE] === 'delete' ? deleted : kept).push(item);
  }
  return [kept, deleted];
}

// ---------------------------------------------------------------------------------------------
// ordering (docs/design/sim-api.md §6.3)

/** Patch items in patch order, server-only items in live order, then interleaved by live position. */
function normalizeElementOrder(
  patchItems: JsonValue[],
  serverOnly: JsonValue[],
  patchOrder: JsonValue[],
  serverOrder: JsonValue[],
  mergeKey: string,
  kind: ElementKind,
): JsonValue[] {
  const sortedPatch = sortByOrder(patchItems, patchOrder, mergeKey, kind);
  const sortedServer = sortByOrder(serverOnly, serverOrder, mergeKey, kind);
  return interleave(sortedServer, sortedPatch, serverOrder, mergeKey, kind);
}

function sortByOrder(items: JsonValue[], order: JsonValue[], mergeKey: string, kind: ElementKind): JsonValue[] {
  let toSort = items;
  let deleted: JsonValue[] = [];
  if (kind === 'map') {
    for (const list of [items, order]) {
      for (const item of list) {
        if (!isJsonObject(item)) throw badArgType('map[string]interface {}', item);
        if (!hasKey(item, mergeKey)) throw noMergeKey(item, mergeKey);
      }
    }
    [toSort, deleted] = splitDeletions(items);
  }
  // The reference comparator claims "less" whenever either item is missing from `order`; reproducing
  // Go's stable sort keeps the same result even then.
  const sorted = goStableSort(toSort, (a, b) => {
    const ia = indexOf(order, a, mergeKey, kind);
    if (ia >= 0) {
      const ib = indexOf(order, b, mergeKey, kind);
      if (ib >= 0) return ia < ib;
    }
    return true;
  });
  return [...sorted, ...deleted];
}

function indexOf(list: JsonValue[], item: JsonValue, mergeKey: string, kind: ElementKind): number {
  const keyOf = (v: JsonValue): JsonValue | undefined => (kind === 'map' ? (isJsonObject(v) ? (v[mergeKey] ?? null) : null) : v);
  const wanted = keyOf(item);
  return list.findIndex((v) => keyOf(v) === wanted);
}

/** Takes a server-only item first only when both items are live and the server-only one comes earlier. */
function interleave(serverOnly: JsonValue[], patchItems: JsonValue[], serverOrder: JsonValue[], mergeKey: string, kind: ElementKind): JsonValue[] {
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < patchItems.length) {
    if (i >= serverOnly.length) {
      out.push(patchItems[j++] as JsonValue);
    } else if (j >= patchItems.length) {
      out.push(serverOnly[i++] as JsonValue);
    } else {
      const li = indexOf(serverOrder, serverOnly[i] as JsonValue, mergeKey, kind);
      const ri = indexOf(serverOrder, patchItems[j] as JsonValue, mergeKey, kind);
      out.push(li >= 0 && ri >= 0 && li < ri ? (serverOnly[i++] as JsonValue) : (patchItems[j++] as JsonValue));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// errors

function noMergeKey(map: JsonObject, mergeKey: string): PatchError {
  return new PatchError(`map: ${goV(map)} does not contain declared merge key: ${mergeKey}`);
}

function badArgType(expected: string, actual: JsonValue | undefined): PatchError {
  return new PatchError(`expected a ${expected}, but received a ${goTypeName(actual)}`);
}
