// Label selectors: matching, the string form kubectl and the API server speak, and the label syntax
// rules that decide whether a selector or node-affinity requirement is valid at all.
import type {LabelSelector, LabelSelectorRequirement, Labels} from './types.js';

/** A label selector the API would reject; callers turn it into their own error (400, input error). */
export class SelectorError extends Error {
  override name = 'SelectorError';
}

// ---------------------------------------------------------------------------------------------
// Label syntax (apimachinery validation). Node affinity treats a term with a malformed key or value
// as never matching, so these checks change decisions, not just messages.

const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

// upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go IsQualifiedName
export function isValidLabelKey(key: string): boolean {
  const slash = key.indexOf('/');
  let name = key;
  if (slash >= 0) {
    const prefix = key.slice(0, slash);
    name = key.slice(slash + 1);
    if (prefix.length === 0 || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)) return false;
    if (name.includes('/')) return false;
  }
  return name.length > 0 && name.length <= 63 && NAME_PART.test(name);
}

// upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go IsValidLabelValue
export function isValidLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE.test(value);
}

// ---------------------------------------------------------------------------------------------
// Matching

function hasKey(labels: Labels | undefined, key: string): boolean {
  return labels !== undefined && Object.prototype.hasOwnProperty.call(labels, key);
}

// upstream: staging/src/k8s.io/apimachinery/pkg/labels/selector.go Requirement.Matches
function requirementMatches(req: LabelSelectorRequirement, labels: Labels | undefined): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      // A requirement the API would reject (no values) selects nothing rather than everything.
      return values.length > 0 && hasKey(labels, req.key) && values.includes(labels![req.key]!);
    case 'NotIn':
      if (values.length === 0) return false;
      return !hasKey(labels, req.key) || !values.includes(labels![req.key]!);
    case 'Exists':
      return values.length === 0 && hasKey(labels, req.key);
    case 'DoesNotExist':
      return values.length === 0 && !hasKey(labels, req.key);
    default:
      return false;
  }
}

/**
 * Standard label-selector semantics. An undefined selector selects nothing (apimachinery's
 * `Nothing()`); an empty one selects everything.
 */
// upstream: staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go LabelSelectorAsSelector
export function labelSelectorMatches(selector: LabelSelector | undefined, labels: Labels | undefined): boolean {
  if (selector === undefined) return false;
  const matchLabels = selector.matchLabels;
  if (matchLabels !== undefined) {
    for (const key in matchLabels) {
      if (!hasKey(labels, key) || labels![key] !== matchLabels[key]) return false;
    }
  }
  for (const req of selector.matchExpressions ?? []) {
    if (!requirementMatches(req, labels)) return false;
  }
  return true;
}

/** True for `{}` (and `{matchLabels: {}}`): a selector that selects every object. False for undefined. */
export function isEmptyLabelSelector(selector: LabelSelector | undefined): boolean {
  if (selector === undefined) return false;
  return Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
}

// ---------------------------------------------------------------------------------------------
// String form

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function checkKey(key: string): void {
  if (!isValidLabelKey(key)) throw new SelectorError(`invalid label key "${key}" in selector`);
}

function checkValue(key: string, value: string): void {
  if (!isValidLabelValue(value)) throw new SelectorError(`invalid label value "${value}" for key "${key}" in selector`);
}

function formatRequirement(req: LabelSelectorRequirement): string {
  checkKey(req.key);
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
    case 'NotIn': {
      if (values.length === 0) throw new SelectorError(`selector requirement on "${req.key}": operator ${req.operator} needs at least one value`);
      for (const v of values) checkValue(req.key, v);
      // Sorted and de-duplicated like apimachinery's string set, so equal selectors print equally.
      const sorted = [...new Set(values)].sort(byteOrder);
      return `${req.key} ${req.operator === 'In' ? 'in' : 'notin'} (${sorted.join(',')})`;
    }
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) throw new SelectorError(`selector requirement on "${req.key}": operator ${req.operator} takes no values`);
      return req.operator === 'Exists' ? req.key : `!${req.key}`;
    default:
      throw new SelectorError(`selector requirement on "${req.key}": "${req.operator}" is not a valid label selector operator`);
  }
}

/**
 * The kubectl / `?labelSelector=` form, e.g. `app=web,tier in (a,b),!canary,env`. Requirements are
 * sorted by key (stable, so matchLabels come before expressions on the same key), as apimachinery does.
 * Both `{}` and undefined print as "" — note that as a query parameter "" selects everything.
 * Throws SelectorError for a selector the API would reject.
 */
// upstream: staging/src/k8s.io/apimachinery/pkg/labels/selector.go internalSelector.String
export function formatLabelSelector(selector: LabelSelector | undefined): string {
  if (selector === undefined) return '';
  const parts: {key: string; text: string}[] = [];
  const matchLabels = selector.matchLabels ?? {};
  for (const key of Object.keys(matchLabels)) {
    checkKey(key);
    const value = matchLabels[key]!;
    checkValue(key, value);
    parts.push({key, text: `${key}=${value}`});
  }
  for (const req of selector.matchExpressions ?? []) parts.push({key: req.key, text: formatRequirement(req)});
  // Array.prototype.sort is stable, which keeps the tie order deterministic.
  parts.sort((a, b) => byteOrder(a.key, b.key));
  return parts.map((p) => p.text).join(',');
}

type Token = {kind: 'id'; text: string} | {kind: 'op'; text: '!' | '!=' | '=' | '==' | '(' | ')' | ',' | '<' | '>'} | {kind: 'end'};

const SPECIAL = new Set(['!', '=', '(', ')', ',', '<', '>']);

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (SPECIAL.has(c)) {
      const two = text.slice(i, i + 2);
      if (two === '!=' || two === '==') {
        tokens.push({kind: 'op', text: two});
        i += 2;
      } else {
        tokens.push({kind: 'op', text: c as '!' | '=' | '(' | ')' | ',' | '<' | '>'});
        i++;
      }
      continue;
    }
    let j = i;
    while (j < text.length && !SPECIAL.has(text[j]!) && !/\s/.test(text[j]!)) j++;
    tokens.push({kind: 'id', text: text.slice(i, j)});
    i = j;
  }
  tokens.push({kind: 'end'});
  return tokens;
}

function describe(token: Token): string {
  return token.kind === 'end' ? 'end of input' : `"${token.text}"`;
}

/** The parser's position in a selector's tokens, and how it reports an error. */
interface Cursor {
  peek(): Token;
  next(): Token;
  fail(what: string): never;
}

// upstream: staging/src/k8s.io/apimachinery/pkg/labels/selector.go Parser.parseValues
// The parenthesised value set of `in`/`notin`: at least one value, each a valid label value, duplicates dropped.
function parseValues(cursor: Cursor, op: string): string[] {
  const {peek, next, fail} = cursor;
  const open = next();
  if (!(open.kind === 'op' && open.text === '(')) fail(`expected "(" after "${op}", found ${describe(open)}`);
  const values: string[] = [];
  const first = peek();
  if (first.kind === 'op' && first.text === ')') fail(`operator ${op} needs at least one value`);
  // An empty slot such as `(a,)` stands for the empty value, as in apimachinery.
  let expectValue = true;
  for (;;) {
    const t = next();
    if (t.kind === 'id' && expectValue) {
      values.push(t.text);
      expectValue = false;
    } else if (t.kind === 'op' && t.text === ',') {
      if (expectValue) values.push('');
      expectValue = true;
    } else if (t.kind === 'op' && t.text === ')') {
      if (expectValue) values.push('');
      break;
    } else {
      fail(`expected a value, "," or ")", found ${describe(t)}`);
    }
  }
  const unique = [...new Set(values)];
  for (const v of unique) if (!isValidLabelValue(v)) fail(`invalid label value "${v}"`);
  return unique;
}

/**
 * Parses the string form (`a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, comma-separated)
 * into a LabelSelector. `=`/`==` become matchLabels (an expression `In` when the key repeats); the rest
 * become matchExpressions. "" parses to `{}` (everything). Throws SelectorError on anything else,
 * including `>`/`<`, which a LabelSelector cannot express.
 */
// upstream: staging/src/k8s.io/apimachinery/pkg/labels/selector.go Parse
export function parseLabelSelector(text: string): LabelSelector {
  const tokens = tokenize(text);
  let pos = 0;
  const peek = (): Token => tokens[pos]!;
  const next = (): Token => tokens[pos++]!;
  function fail(what: string): never {
    throw new SelectorError(`invalid label selector "${text}": ${what}`);
  }

  const matchLabels: Record<string, string> = {};
  const matchExpressions: LabelSelectorRequirement[] = [];
  if (peek().kind === 'end') return {};

  for (;;) {
    let token = next();
    if (token.kind === 'op' && token.text === '!') {
      const key = next();
      if (key.kind !== 'id') fail(`expected a key after "!", found ${describe(key)}`);
      if (!isValidLabelKey(key.text)) fail(`invalid label key "${key.text}"`);
      matchExpressions.push({key: key.text, operator: 'DoesNotExist'});
    } else {
      if (token.kind !== 'id') fail(`expected a key, found ${describe(token)}`);
      const key = token.text;
      if (!isValidLabelKey(key)) fail(`invalid label key "${key}"`);
      const op = peek();
      if (op.kind === 'end' || (op.kind === 'op' && op.text === ',')) {
        matchExpressions.push({key, operator: 'Exists'});
      } else if (op.kind === 'id' && (op.text === 'in' || op.text === 'notin')) {
        next();
        const unique = parseValues({peek, next, fail}, op.text);
        matchExpressions.push({key, operator: op.text === 'in' ? 'In' : 'NotIn', values: unique});
      } else if (op.kind === 'op' && (op.text === '=' || op.text === '==' || op.text === '!=')) {
        next();
        const v = peek();
        let value = '';
        if (v.kind === 'id') {
          value = v.text;
          next();
        } else if (!(v.kind === 'end' || (v.kind === 'op' && v.text === ','))) {
          fail(`expected a value after "${op.text}", found ${describe(v)}`);
        }
        if (!isValidLabelValue(value)) fail(`invalid label value "${value}"`);
        if (op.text === '!=') matchExpressions.push({key, operator: 'NotIn', values: [value]});
        else if (Object.prototype.hasOwnProperty.call(matchLabels, key)) matchExpressions.push({key, operator: 'In', values: [value]});
        else matchLabels[key] = value;
      } else if (op.kind === 'op' && (op.text === '<' || op.text === '>')) {
        fail(`operator "${op.text}" is not supported in a label selector`);
      } else {
        fail(`expected an operator after "${key}", found ${describe(op)}`);
      }
    }
    token = next();
    if (token.kind === 'end') break;
    if (!(token.kind === 'op' && token.text === ',')) fail(`expected "," or end of input, found ${describe(token)}`);
    if (peek().kind === 'end') fail('trailing ","');
  }

  const result: {matchLabels?: Labels; matchExpressions?: readonly LabelSelectorRequirement[]} = {};
  if (Object.keys(matchLabels).length > 0) result.matchLabels = matchLabels;
  if (matchExpressions.length > 0) result.matchExpressions = matchExpressions;
  return result;
}
