// JSON patch (RFC 6902) with the behaviour and error texts of gopkg.in/evanphx/json-patch.v4 (v4.12),
// which the apiserver uses. Its quirks are kept on purpose because clients see them: `replace` of a
// missing object member adds it, negative array indices count from the end, a missing `value` means
// null, and `copy` from a missing member copies null.

import {JsonPatchError} from './errors.js';
import {cloneJson, hasKey, isJsonObject, jsonDeepEqual, setKey, type JsonObject, type JsonValue} from './json-value.js';

type Container = JsonObject | JsonValue[];

/** A failure inside the library; its text becomes (part of) the JsonPatchError message. */
class OpFailure extends Error {}

const MISSING = 'missing value';
const INVALID_INDEX = 'invalid index referenced';

/**
 * Applies RFC 6902 operations to a copy of `original`.
 * @throws JsonPatchError: 400 when `ops` is not a list of operation objects, 422 when an operation fails.
 */
export function applyJsonPatch(original: object, ops: unknown): object {
  if (ops === null) return cloneJson(original); // `null` decodes to an empty patch
  if (!Array.isArray(ops)) throw new JsonPatchError(cannotUnmarshal(ops, 'jsonpatch.Patch'), 400);
  for (const op of ops) {
    if (op !== null && !isJsonObject(op)) throw new JsonPatchError(cannotUnmarshal(op, 'jsonpatch.Operation'), 400);
  }
  const state = {doc: cloneJson(original) as Container};
  for (const op of ops as (JsonObject | null)[]) {
    try {
      applyOperation(state, op ?? {});
    } catch (error) {
      if (error instanceof OpFailure) throw new JsonPatchError(error.message);
      throw error;
    }
  }
  if (Array.isArray(state.doc)) {
    throw new JsonPatchError('json: cannot unmarshal array into Go value of type map[string]interface {}', 400);
  }
  return state.doc;
}

function cannotUnmarshal(value: unknown, goType: string): string {
  const what = Array.isArray(value) ? 'array' : isJsonObject(value) ? 'object' : typeof value === 'boolean' ? 'bool' : typeof value;
  return `json: cannot unmarshal ${what} into Go value of type ${goType}`;
}

function applyOperation(state: {doc: Container}, op: JsonObject): void {
  const kind = typeof op.op === 'string' ? op.op : 'unknown';
  switch (kind) {
    case 'add':
      return add(state.doc, op);
    case 'remove':
      return remove(state.doc, op);
    case 'replace':
      return replace(state, op);
    case 'move':
      return move(state.doc, op);
    case 'test':
      return test(state.doc, op);
    case 'copy':
      return copy(state.doc, op);
    default:
      throw new OpFailure(`Unexpected kind: ${kind}`);
  }
}

// ---------------------------------------------------------------------------------------------
// operations

function add(doc: Container, op: JsonObject): void {
  const path = readString(op, 'path', () => new OpFailure(`add operation failed to decode path: ${MISSING}`));
  const target = findContainer(doc, path);
  if (!target) throw new OpFailure(`add operation does not apply: doc is missing path: "${path}": ${MISSING}`);
  wrap(`error in add for path: '${path}'`, () => addAt(target.container, target.key, opValue(op)));
}

function remove(doc: Container, op: JsonObject): void {
  const path = readString(op, 'path', () => new OpFailure(`remove operation failed to decode path: ${MISSING}`));
  const target = findContainer(doc, path);
  if (!target) throw new OpFailure(`remove operation does not apply: doc is missing path: "${path}": ${MISSING}`);
  wrap(`error in remove for path: '${path}'`, () => removeAt(target.container, target.key));
}

function replace(state: {doc: Container}, op: JsonObject): void {
  const path = readString(op, 'path', (cause) => new OpFailure(`replace operation failed to decode path: ${cause}`));
  if (path === '') {
    // Whole-document replace; a scalar value is silently ignored by the library.
    const value = opValue(op);
    if (isJsonObject(value) || Array.isArray(value)) state.doc = value;
    return;
  }
  const target = findContainer(state.doc, path);
  if (!target) throw new OpFailure(`replace operation does not apply: doc is missing path: ${path}: ${MISSING}`);
  try {
    getAt(target.container, target.key);
  } catch (error) {
    if (error instanceof OpFailure) {
      throw new OpFailure(`replace operation does not apply: doc is missing key: ${path}: ${MISSING}`);
    }
    throw error;
  }
  setAt(target.container, target.key, opValue(op));
}

function move(doc: Container, op: JsonObject): void {
  const from = readString(op, 'from', (cause) => new OpFailure(`move operation failed to decode from: ${cause}`), 'operation, missing from field');
  const source = findContainer(doc, from);
  if (!source) throw new OpFailure(`move operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
  const value = wrap(`error in move for path: '${source.key}'`, () => getAt(source.container, source.key));
  wrap(`error in move for path: '${source.key}'`, () => removeAt(source.container, source.key));
  const path = readString(op, 'path', (cause) => new OpFailure(`move operation failed to decode path: ${cause}`));
  const target = findContainer(doc, path);
  if (!target) throw new OpFailure(`move operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
  wrap(`error in move for path: '${path}'`, () => addAt(target.container, target.key, value ?? null));
}

function test(doc: Container, op: JsonObject): void {
  const path = readString(op, 'path', (cause) => new OpFailure(`test operation failed to decode path: ${cause}`));
  const failed = new OpFailure(`testing value ${path} failed: test failed`);
  if (path === '') {
    if (hasKey(op, 'value') && jsonDeepEqual(doc, op.value)) return;
    throw failed;
  }
  const target = findContainer(doc, path);
  if (!target) throw new OpFailure(`test operation does not apply: is missing path: ${path}: ${MISSING}`);
  const actual = wrap(`error in test for path: '${path}'`, () => getAt(target.container, target.key));
  // An absent member and a JSON null are the same to the library; a missing `value` never matches.
  if (actual === undefined || actual === null) {
    if (hasKey(op, 'value') && op.value === null) return;
    throw failed;
  }
  if (!hasKey(op, 'value') || op.value === null || !jsonDeepEqual(actual, op.value)) throw failed;
}

function copy(doc: Container, op: JsonObject): void {
  const from = readString(op, 'from', (cause) => new OpFailure(`copy operation failed to decode from: ${cause}`), 'operation, missing from field');
  const source = findContainer(doc, from);
  if (!source) throw new OpFailure(`copy operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
  const value = wrap(`error in copy for from: '${from}'`, () => getAt(source.container, source.key));
  const path = readString(op, 'path', () => new OpFailure(`copy operation failed to decode path: ${MISSING}`));
  const target = findContainer(doc, path);
  if (!target) throw new OpFailure(`copy operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
  wrap('error while adding value during copy', () => addAt(target.container, target.key, cloneJson(value ?? null)));
}

// ---------------------------------------------------------------------------------------------
// operation fields

function readString(op: JsonObject, field: 'path' | 'from', fail: (cause: string) => OpFailure, missing = 'operation missing path field'): string {
  const value = op[field];
  if (value === undefined || value === null) throw fail(`${missing}: ${MISSING}`);
  if (typeof value !== 'string') throw fail(cannotUnmarshal(value, 'string'));
  return value;
}

function opValue(op: JsonObject): JsonValue {
  return hasKey(op, 'value') ? cloneJson(op.value as JsonValue) : null;
}

function wrap<T>(context: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof OpFailure) throw new OpFailure(`${context}: ${error.message}`);
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// JSON pointers

function decodeToken(token: string): string {
  return token.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));
}

/**
 * Walks every token but the last. Like the library, the text before the first `/` is ignored, and
 * a pointer without any `/` (including the root `""`) has no container.
 */
function findContainer(doc: Container, path: string): {container: Container; key: string} | undefined {
  const tokens = path.split('/');
  if (tokens.length < 2) return undefined;
  let current: Container = doc;
  for (const token of tokens.slice(1, -1)) {
    let next: JsonValue | undefined;
    try {
      next = getAt(current, decodeToken(token));
    } catch (error) {
      if (error instanceof OpFailure) return undefined;
      throw error;
    }
    if (!isJsonObject(next) && !Array.isArray(next)) return undefined;
    current = next;
  }
  return {container: current, key: decodeToken(tokens[tokens.length - 1] as string)};
}

function atoi(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new OpFailure(`strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new OpFailure(`strconv.Atoi: parsing ${JSON.stringify(text)}: value out of range`);
  return n;
}

function invalidIndex(index: number): OpFailure {
  return new OpFailure(`Unable to access invalid index: ${index}: ${INVALID_INDEX}`);
}

/** Resolves a possibly negative index into [0, length). */
function resolveIndex(index: number, length: number): number {
  if (index >= length || index < -length) throw invalidIndex(index);
  return index < 0 ? index + length : index;
}

/** `undefined` means an absent object member. */
function getAt(container: Container, key: string): JsonValue | undefined {
  if (!Array.isArray(container)) return hasKey(container, key) ? container[key] : undefined;
  return container[resolveIndex(atoi(key), container.length)];
}

function setAt(container: Container, key: string, value: JsonValue): void {
  if (!Array.isArray(container)) {
    setKey(container, key, value);
    return;
  }
  container[resolveIndex(atoi(key), container.length)] = value;
}

function addAt(container: Container, key: string, value: JsonValue): void {
  if (!Array.isArray(container)) {
    setKey(container, key, value);
    return;
  }
  if (key === '-') {
    container.push(value);
    return;
  }
  let index: number;
  try {
    index = atoi(key);
  } catch (error) {
    if (error instanceof OpFailure) throw new OpFailure(`value was not a proper array index: '${key}': ${error.message}`);
    throw error;
  }
  // Inserting may also target the position just past the end.
  container.splice(resolveIndex(index, container.length + 1), 0, value);
}

function removeAt(container: Container, key: string): void {
  if (!Array.isArray(container)) {
    if (!hasKey(container, key)) throw new OpFailure(`Unable to remove nonexistent key: ${key}: ${MISSING}`);
    delete container[key];
    return;
  }
  container.splice(resolveIndex(atoi(key), container.length), 1);
}
