// JSON helpers that make plain JS values behave like the API's Go types: byte-stable encoding (Go's
// encoding/json on a generic map), structural equality, and the null-dropping of a round trip through
// typed structs. Revisions and the simulated API server compare and hash templates with these.

/** Go sorts map keys by their UTF-8 bytes, i.e. by code point; JS's default sort compares UTF-16 units. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (part of a code point >= U+10000) sorts after U+E000..U+FFFF in code point order.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) {
      if (xs && y >= 0xe000) return 1;
      if (ys && x >= 0xe000) return -1;
    }
    return x - y;
  }
  return a.length - b.length;
}

// Characters Go's encoder escapes: controls, quote, backslash, the HTML-sensitive three, U+2028/9,
// and (for JS strings) surrogates, which need a pairing check.
const NEEDS_ESCAPE = /[\u0000-\u001f"\\<>&\u2028\u2029\ud800-\udfff]/;
const HEX = '0123456789abcdef';

function unicodeEscape(code: number): string {
  return `\\u${HEX[(code >> 12) & 15]}${HEX[(code >> 8) & 15]}${HEX[(code >> 4) & 15]}${HEX[code & 15]}`;
}

// upstream: go encoding/json encode.go appendString (HTML escaping on, as json.Marshal does)
function encodeString(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += s[i]! + s[i + 1]!;
        i++;
        continue;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      // A lone surrogate is not valid UTF-8; Go writes the replacement character for invalid bytes.
      out += '\\ufffd';
      continue;
    }
    switch (c) {
      case 0x22:
        out += '\\"';
        break;
      case 0x5c:
        out += '\\\\';
        break;
      case 0x08:
        out += '\\b';
        break;
      case 0x0c:
        out += '\\f';
        break;
      case 0x0a:
        out += '\\n';
        break;
      case 0x0d:
        out += '\\r';
        break;
      case 0x09:
        out += '\\t';
        break;
      default:
        out += c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029 ? unicodeEscape(c) : s[i]!;
    }
  }
  return `${out}"`;
}

function encodeNumber(n: number): string {
  // Go refuses NaN and infinities; so do we rather than silently writing null.
  if (!Number.isFinite(n)) throw new TypeError(`canonicalJson: unsupported number ${n}`);
  // JS's shortest round-trip form matches Go's float64 output (exponent below 1e-6 and from 1e21 on);
  // -0 prints as 0, as it would after decoding into the API's integer fields.
  return Object.is(n, -0) ? '0' : String(n);
}

function skippable(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

function encode(value: unknown, out: string[]): void {
  if (value === null) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'string':
      out.push(encodeString(value));
      return;
    case 'number':
      out.push(encodeNumber(value));
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'object':
      break;
    default:
      throw new TypeError(`canonicalJson: unsupported value of type ${typeof value}`);
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      const item: unknown = value[i];
      // As JSON.stringify does: holes and undefined inside arrays become null.
      if (skippable(item)) out.push('null');
      else encode(item, out);
    }
    out.push(']');
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort(compareCodePoints);
  out.push('{');
  let first = true;
  for (const key of keys) {
    const v = record[key];
    if (skippable(v)) continue;
    if (!first) out.push(',');
    first = false;
    out.push(encodeString(key), ':');
    encode(v, out);
  }
  out.push('}');
}

/**
 * The bytes Go's json.Marshal writes for the same value decoded into `map[string]interface{}`: keys sorted
 * (by code point), no whitespace, `<` `>` `&` U+2028 U+2029 escaped as \u003c etc., `\b` `\f` `\n` `\r` `\t`
 * short escapes (Go >= 1.22), other control characters as \u00XX. Object keys holding undefined are dropped
 * (undefined inside arrays becomes null, as with JSON.stringify). Throws on NaN, infinities and bigint.
 */
// upstream: go encoding/json encode.go mapEncoder (sorted keys) and appendString
export function canonicalJson(value: unknown): string {
  if (skippable(value)) throw new TypeError('canonicalJson: undefined is not a JSON value');
  const out: string[] = [];
  encode(value, out);
  return out.join('');
}

export interface DeepEqualOptions {
  /** Treat an object key holding null as if it were absent (what a round trip through Go structs does). */
  readonly nullAsAbsent?: boolean;
}

function isAbsent(v: unknown, nullAsAbsent: boolean): boolean {
  return v === undefined || (nullAsAbsent && v === null);
}

function equal(a: unknown, b: unknown, nullAsAbsent: boolean): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const aArray = Array.isArray(a);
  if (aArray !== Array.isArray(b)) return false;
  if (aArray) {
    const x = a as readonly unknown[];
    const y = b as readonly unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!equal(x[i], y[i], nullAsAbsent)) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let count = 0;
  for (const key in x) {
    if (!Object.prototype.hasOwnProperty.call(x, key)) continue;
    const v = x[key];
    if (isAbsent(v, nullAsAbsent)) continue;
    count++;
    if (!Object.prototype.hasOwnProperty.call(y, key) || !equal(v, y[key], nullAsAbsent)) return false;
  }
  for (const key in y) {
    if (!Object.prototype.hasOwnProperty.call(y, key)) continue;
    if (!isAbsent(y[key], nullAsAbsent)) count--;
  }
  return count === 0;
}

/**
 * Structural equality of JSON values: key order ignored, array order significant, keys holding undefined
 * ignored; with `nullAsAbsent`, keys holding null are ignored too. Allocation-free; stops at the first difference.
 */
export function deepEqualJson(a: unknown, b: unknown, options: DeepEqualOptions = {}): boolean {
  return equal(a, b, options.nullAsAbsent === true);
}

/**
 * A copy of `value` without object keys that hold null or undefined, at any depth, as the API server's
 * decode into Go structs and re-encode leaves it (e.g. `metadata.creationTimestamp: null` from `rollout undo`).
 * Nulls inside arrays are kept. The input is not modified.
 */
export function stripNulls<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item: unknown) => stripNulls(item)) as T;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === null || v === undefined) continue;
    out[key] = stripNulls(v);
  }
  return out as T;
}

/**
 * A copy of a JSON value whose object keys are in Go's order (sorted by code point), so that JSON.stringify
 * prints the same key order as Go's encoder. Integer-like keys are the exception JavaScript objects impose.
 */
export function withSortedKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => withSortedKeys(item)) as T;
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source).sort(compareCodePoints)) out[key] = withSortedKeys(source[key]);
  return out as T;
}
