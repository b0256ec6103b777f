// Renders JSON values the way Go's fmt prints decoded `interface{}` values, because the apiserver's
// patch errors embed them (`map: map[image:x] does not contain declared merge key: name`).
// Numbers follow apimachinery's decoder: whole numbers are int64, the rest float64.

import {isJsonObject, type JsonValue} from './json-value.js';

function goFloat(n: number): string {
  // %v of a float64 switches to exponent form below 1e-4 and from 1e21 on, with at least two exponent digits.
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e21)) {
    return n.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  }
  return String(n);
}

/** Go's reflect type name of a decoded JSON value (used by `expected a X, but received a Y`). */
export function goTypeName(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (Array.isArray(value)) return '[]interface {}';
  if (isJsonObject(value)) return 'map[string]interface {}';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return typeof value === 'boolean' ? 'bool' : 'string';
}

/** `fmt.Sprintf("%v", value)` */
export function goV(value: JsonValue | undefined): string {
  return format(value, 'v');
}

/** `fmt.Sprintf("%s", value)` */
export function goS(value: JsonValue | undefined): string {
  return format(value, 's');
}

function format(value: JsonValue | undefined, verb: 'v' | 's'): string {
  if (value === null || value === undefined) return verb === 'v' ? '<nil>' : '%!s(<nil>)';
  if (Array.isArray(value)) return `[${value.map((v) => format(v, verb)).join(' ')}]`;
  if (isJsonObject(value)) {
    // fmt sorts map keys when printing.
    const keys = Object.keys(value).sort();
    return `map[${keys.map((k) => `${k}:${format(value[k], verb)}`).join(' ')}]`;
  }
  if (typeof value === 'string') return value;
  const text = typeof value === 'number' ? (Number.isInteger(value) ? String(value) : goFloat(value)) : String(value);
  return verb === 'v' ? text : `%!s(${goTypeName(value)}=${text})`;
}
