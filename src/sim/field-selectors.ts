// Field selectors (`?fieldSelector=spec.nodeName=n1,status.phase!=Failed`): parsing with apimachinery's
// escaping rules, and the per-resource field values a real apiserver exposes to them.
import {RESOURCES, type ResourceName} from './resources.js';
import {badRequest} from './status-errors.js';

export interface FieldRequirement {
  readonly field: string;
  readonly op: '=' | '!=';
  readonly value: string;
}

export type FieldSelector = readonly FieldRequirement[];

// upstream: staging/src/k8s.io/apimachinery/pkg/fields/selector.go splitTerms / splitTerm / UnescapeValue
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      current += c + text[i + 1]!;
      i++;
    } else if (c === ',') {
      terms.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  terms.push(current);
  return terms;
}

function unescape(value: string, whole: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\') {
      const n = value[i + 1];
      if (n === '\\' || n === ',' || n === '=') {
        out += n;
        i++;
        continue;
      }
      throw badRequest(`invalid field selector: invalid escape sequence in "${whole}"`);
    }
    if (c === ',' || c === '=') throw badRequest(`invalid field selector: unescaped ${c} in "${whole}"`);
    out += c;
  }
  return out;
}

/** Parses a field selector; "" means everything. Throws a 400 StatusError on syntax errors. */
export function parseFieldSelector(text: string): FieldSelector {
  if (text.trim() === '') return [];
  const out: FieldRequirement[] = [];
  for (const term of splitTerms(text)) {
    if (term === '') continue;
    // The first unescaped operator splits the term; `!=` and `==` are tried before `=` at each position.
    let found: {at: number; op: string} | undefined;
    for (let i = 0; i < term.length && found === undefined; i++) {
      if (term[i] === '\\') {
        i++;
        continue;
      }
      for (const op of ['!=', '==', '=']) {
        if (term.startsWith(op, i)) {
          found = {at: i, op};
          break;
        }
      }
    }
    if (found === undefined) throw badRequest(`invalid field selector: '${term}' is not a valid field selector: no operator`);
    const field = term.slice(0, found.at).trim();
    const value = unescape(term.slice(found.at + found.op.length), term);
    out.push({field, op: found.op === '!=' ? '!=' : '=', value});
  }
  return out;
}

type Obj = {readonly [k: string]: unknown};

function str(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return String(v);
}

function at(obj: Obj, path: readonly string[]): unknown {
  let cur: unknown = obj;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Obj)[key];
  }
  return cur;
}

/** The value a field label has on an object, as the apiserver's GetAttrs would report it. */
export function fieldValue(resource: ResourceName, obj: Obj, field: string): string {
  switch (field) {
    case 'metadata.name':
      return str(at(obj, ['metadata', 'name']));
    case 'metadata.namespace':
      return RESOURCES[resource].namespaced ? str(at(obj, ['metadata', 'namespace'])) : '';
    case 'spec.hostNetwork':
    case 'spec.unschedulable':
      // Booleans default to false in the typed struct, so an absent field selects as "false".
      return at(obj, field.split('.')) === true ? 'true' : 'false';
    case 'source':
      return str(at(obj, ['source', 'component']));
    default:
      return str(at(obj, field.split('.')));
  }
}

/** 400 for fields the resource does not index, like a real apiserver. */
export function checkFieldSelector(resource: ResourceName, selector: FieldSelector): void {
  const allowed = RESOURCES[resource].fieldLabels;
  for (const req of selector) {
    if (req.field === 'metadata.name' || req.field === 'metadata.namespace') continue;
    if (!allowed.includes(req.field)) throw badRequest(`field label not supported: ${req.field}`);
  }
}

export function fieldSelectorMatches(resource: ResourceName, obj: Obj, selector: FieldSelector): boolean {
  for (const req of selector) {
    const v = fieldValue(resource, obj, req.field);
    if (req.op === '=' ? v !== req.value : v === req.value) return false;
  }
  return true;
}

/** The single `metadata.name=X` (or namespace) equality a selector pins, for index short-cuts. */
export function pinnedValue(selector: FieldSelector, field: string): string | undefined {
  for (const req of selector) if (req.field === field && req.op === '=') return req.value;
  return undefined;
}
