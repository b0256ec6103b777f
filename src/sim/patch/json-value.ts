// Plain JSON values and the few helpers every patch engine needs.

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function hasKey(obj: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** Sets an own property; `__proto__` arrives as a normal key in JSON and must stay one. */
export function setKey(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, {value, writable: true, enumerable: true, configurable: true});
  } else {
    obj[key] = value;
  }
}

/** Deep copy through JSON, so callers' objects are never shared with (or mutated by) an engine. */
export function cloneJson<T>(value: T): T {
  if (value === undefined) return value;
  try {
    return JSON.parse(JSON.stringify(value)) as T;
  } catch (error) {
    // A revision past 2^53 is a bigint, which JSON.stringify refuses: such objects are copied structurally.
    if (error instanceof TypeError && /BigInt/i.test(error.message)) return structuredClone(value);
    throw error;
  }
}

export function jsonDeepEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonDeepEqual(v, b[i]));
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const ak = Object.keys(a);
    if (ak.length !== Object.keys(b).length) return false;
    return ak.every((k) => hasKey(b, k) && jsonDeepEqual(a[k], b[k]));
  }
  return false;
}
