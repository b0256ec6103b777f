// JSON merge patch (RFC 7386) with the details of the evanphx/json-patch v4 library the apiserver uses:
// nulls are pruned from objects the patch adds (also inside added arrays), but null array elements stay,
// and an array or scalar that replaces an existing object is taken as is.

import {PatchError} from './errors.js';
import {cloneJson, hasKey, isJsonObject, setKey, type JsonObject, type JsonValue} from './json-value.js';

/**
 * Applies an RFC 7386 merge patch to a copy of `original`. Lists are replaced wholesale.
 * @throws PatchError (400) when the patch is not a JSON object.
 */
export function applyMergePatch(original: object, patch: unknown): object {
  if (Array.isArray(patch)) {
    // The library would return the array itself, which no Kubernetes object decodes from.
    throw new PatchError('json: cannot unmarshal array into Go value of type map[string]interface {}', 400);
  }
  if (!isJsonObject(patch)) throw new PatchError('Invalid JSON Patch', 400);
  const doc = cloneJson(original) as JsonValue;
  if (!isJsonObject(doc)) throw new PatchError('Invalid JSON Document', 400);
  mergeInto(doc, cloneJson(patch));
  return doc;
}

function mergeInto(doc: JsonObject, patch: JsonObject): void {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete doc[key];
    } else if (!hasKey(doc, key) || doc[key] === null) {
      setKey(doc, key, pruneNulls(value));
    } else {
      setKey(doc, key, mergeValue(doc[key] as JsonValue, value));
    }
  }
}

function mergeValue(current: JsonValue, patch: JsonValue): JsonValue {
  if (!isJsonObject(current)) return pruneNulls(patch);
  if (!isJsonObject(patch)) return patch;
  mergeInto(current, patch);
  return current;
}

function pruneNulls(value: JsonValue): JsonValue {
  if (Array.isArray(value)) {
    for (const item of value) if (item !== null) pruneNulls(item);
  } else if (isJsonObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (item === null) delete value[key];
      else pruneNulls(item);
    }
  }
  return value;
}
