// Comparison helpers for patch results: key order never matters in JSON objects, list order always does.

export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      Object.defineProperty(out, key, {value: sortKeys((value as Record<string, unknown>)[key]), enumerable: true, writable: true, configurable: true});
    }
    return out;
  }
  return value;
}

export function canonical(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

/** Every list in the document with its elements in order, keyed by JSON path. */
export function listOrders(value: unknown, path = '$', out: Record<string, string[]> = {}): Record<string, string[]> {
  if (Array.isArray(value)) {
    out[path] = value.map((item) => canonical(item));
    value.forEach((item, i) => listOrders(item, `${path}[${i}]`, out));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) listOrders(item, `${path}.${key}`, out);
  }
  return out;
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
