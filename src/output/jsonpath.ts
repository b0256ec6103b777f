// kubectl's JSONPath templates (`-o jsonpath='{.verdict}'`): text with `{...}` expressions, `{range ...}{end}`, and
// `{"\n"}` literals. The subset kubectl documents: `.field`, `['field']`, `[n]` (negative from the end), `[a:b]`,
// `[*]`, `.*`, `..field`, unions `[a,b]`, and filters `[?(@.path OP literal)]`. Missing keys print nothing, as in
// `kubectl get` (allowMissingKeys). Pure: a template and a JSON value in, text out.

type Step =
  | {readonly kind: 'field'; readonly names: readonly string[]}
  | {readonly kind: 'recursive'; readonly name: string}
  | {readonly kind: 'wildcard'}
  | {readonly kind: 'index'; readonly indexes: readonly number[]}
  | {readonly kind: 'slice'; readonly start?: number; readonly end?: number; readonly step?: number}
  | {readonly kind: 'filter'; readonly path: readonly Step[]; readonly op?: string; readonly literal?: unknown};

type Segment =
  | {readonly kind: 'text'; readonly text: string}
  | {readonly kind: 'path'; readonly steps: readonly Step[]}
  | {readonly kind: 'range'; readonly steps: readonly Step[]; readonly body: readonly Segment[]};

/** A template kubectl would refuse: the user's input, so it carries exit code 1 (the command layer prints it). */
export class JsonPathError extends Error {
  readonly exitCode = 1;
}

/** Renders `template` against `data` as kubectl does. Throws JsonPathError with a one-line reason for a bad template. */
export function renderJsonPath(template: string, data: unknown): string {
  return render(parseTemplate(template), data, data);
}

function render(segments: readonly Segment[], root: unknown, current: unknown): string {
  let out = '';
  for (const segment of segments) {
    if (segment.kind === 'text') out += segment.text;
    else if (segment.kind === 'path') out += evaluate(segment.steps, root, current).map(toText).join(' ');
    else {
      const values = evaluate(segment.steps, root, current);
      const items = values.length === 1 && Array.isArray(values[0]) ? (values[0] as unknown[]) : values;
      for (const item of items) out += render(segment.body, root, item);
    }
  }
  return out;
}

function toText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function parseTemplate(template: string): Segment[] {
  const stack: Array<{steps: Step[]; body: Segment[]}> = [{steps: [], body: []}];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    if (open === -1) {
      stack.at(-1)!.body.push({kind: 'text', text: template.slice(i)});
      break;
    }
    if (open > i) stack.at(-1)!.body.push({kind: 'text', text: template.slice(i, open)});
    const close = closingBrace(template, open);
    const inner = template.slice(open + 1, close).trim();
    i = close + 1;
    if (inner === 'end') {
      if (stack.length === 1) throw new JsonPathError('jsonpath: {end} without {range}');
      const frame = stack.pop()!;
      stack.at(-1)!.body.push({kind: 'range', steps: frame.steps, body: frame.body});
    } else if (inner.startsWith('range ')) {
      stack.push({steps: parsePath(inner.slice(6).trim()), body: []});
    } else if (/^(["']).*\1$/s.test(inner)) {
      stack.at(-1)!.body.push({kind: 'text', text: unquote(inner)});
    } else {
      stack.at(-1)!.body.push({kind: 'path', steps: parsePath(inner)});
    }
  }
  if (stack.length > 1) throw new JsonPathError('jsonpath: {range} without {end}');
  return stack[0]!.body;
}

function closingBrace(text: string, open: number): number {
  let quote: string | undefined;
  for (let i = open + 1; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '}') return i;
  }
  throw new JsonPathError(`jsonpath: unclosed { in template at ${open}`);
}

function unquote(text: string): string {
  return text.slice(1, -1).replace(/\\(.)/g, (_m, c: string) => ({n: '\n', t: '\t', r: '\r'})[c] ?? c);
}

function parsePath(text: string): Step[] {
  let rest = text.replace(/^[$@]/, '');
  const steps: Step[] = [];
  // kubectl allows the leading dot to be left out: {items[0]} is {.items[0]}.
  if (/^[A-Za-z_]/.test(rest)) rest = `.${rest}`;
  while (rest !== '') {
    let match: RegExpExecArray | null;
    if ((match = /^\.\.([\w-]+|\*)/.exec(rest))) {
      steps.push(match[1] === '*' ? {kind: 'recursive', name: '*'} : {kind: 'recursive', name: match[1]!});
    } else if ((match = /^\.\*/.exec(rest))) steps.push({kind: 'wildcard'});
    else if ((match = /^\.([\w-]+)/.exec(rest))) steps.push({kind: 'field', names: [match[1]!]});
    else if (rest === '.') break;
    else if (rest.startsWith('[')) {
      const end = closingBracket(rest);
      steps.push(parseBracket(rest.slice(1, end).trim(), text));
      match = [rest.slice(0, end + 1)] as unknown as RegExpExecArray;
    } else throw new JsonPathError(`jsonpath: cannot parse "${text.slice(0, 60)}" at "${rest.slice(0, 20)}"`);
    rest = rest.slice(match[0].length);
  }
  return steps;
}

function closingBracket(text: string): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') if (--depth === 0) return i;
  }
  throw new JsonPathError(`jsonpath: unclosed [ in "${text.slice(0, 60)}"`);
}

function parseBracket(inner: string, whole: string): Step {
  if (inner === '*') return {kind: 'wildcard'};
  if (/^-?\d+(\s*,\s*-?\d+)*$/.test(inner)) return {kind: 'index', indexes: inner.split(',').map((n) => Number(n.trim()))};
  const slice = /^(-?\d+)?:(-?\d+)?(?::(-?\d+))?$/.exec(inner);
  if (slice) {
    const [, start, end, step] = slice;
    return {kind: 'slice', ...(start ? {start: Number(start)} : {}), ...(end ? {end: Number(end)} : {}), ...(step ? {step: Number(step)} : {})};
  }
  if (/^(["'])[^"']*\1(\s*,\s*(["'])[^"']*\3)*$/.test(inner)) {
    return {kind: 'field', names: inner.split(',').map((part) => unquote(part.trim()))};
  }
  const filter = /^\?\((.*)\)$/s.exec(inner);
  if (filter) {
    const condition = /^(@[^\s=!<>]*)\s*(==|!=|<=|>=|<|>)\s*(.+)$/s.exec(filter[1]!.trim());
    if (!condition) return {kind: 'filter', path: parsePath(filter[1]!.trim())};
    return {kind: 'filter', path: parsePath(condition[1]!), op: condition[2]!, literal: parseLiteral(condition[3]!.trim(), whole)};
  }
  throw new JsonPathError(`jsonpath: cannot parse [${inner.slice(0, 40)}] in "${whole.slice(0, 60)}"`);
}

function parseLiteral(text: string, whole: string): unknown {
  if (/^(["']).*\1$/s.test(text)) return unquote(text);
  if (text === 'true' || text === 'false') return text === 'true';
  if (text === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  throw new JsonPathError(`jsonpath: cannot parse the literal ${text.slice(0, 40)} in "${whole.slice(0, 60)}"`);
}

function evaluate(steps: readonly Step[], root: unknown, current: unknown): unknown[] {
  let values = [current];
  for (const step of steps) values = values.flatMap((value) => apply(step, value, root));
  return values;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function apply(step: Step, value: unknown, root: unknown): unknown[] {
  switch (step.kind) {
    case 'field':
      return isRecord(value) ? step.names.flatMap((name) => (value[name] === undefined ? [] : [value[name]])) : [];
    case 'wildcard':
      return Array.isArray(value) ? value : isRecord(value) ? Object.values(value) : [];
    case 'recursive':
      return descendants(value).flatMap((node) =>
        step.name === '*' ? (node === value ? [] : [node]) : isRecord(node) && node[step.name] !== undefined ? [node[step.name]] : [],
      );
    case 'index':
      if (!Array.isArray(value)) return [];
      return step.indexes.flatMap((index) => {
        const at = index < 0 ? value.length + index : index;
        return at >= 0 && at < value.length ? [value[at]] : [];
      });
    case 'slice': {
      if (!Array.isArray(value)) return [];
      const clamp = (n: number) => Math.min(value.length, Math.max(0, n < 0 ? value.length + n : n));
      const start = clamp(step.start ?? 0);
      const end = clamp(step.end ?? value.length);
      const by = step.step ?? 1;
      const out: unknown[] = [];
      for (let i = start; i < end; i += Math.max(1, by)) out.push(value[i]);
      return out;
    }
    case 'filter': {
      const items = Array.isArray(value) ? value : [value];
      return items.filter((item) => {
        const found = evaluate(step.path, root, item);
        if (step.op === undefined) return found.length > 0 && found[0] !== false && found[0] !== null;
        return found.some((left) => compare(left, step.op!, step.literal));
      });
    }
  }
}

function descendants(value: unknown): unknown[] {
  const out: unknown[] = [value];
  if (Array.isArray(value)) for (const item of value) out.push(...descendants(item));
  else if (isRecord(value)) for (const item of Object.values(value)) out.push(...descendants(item));
  return out;
}

function compare(left: unknown, op: string, right: unknown): boolean {
  switch (op) {
    case '==':
      return left === right;
    case '!=':
      return left !== right;
  }
  if (typeof left !== typeof right || (typeof left !== 'number' && typeof left !== 'string')) return false;
  const [a, b] = [left as number | string, right as number | string];
  return op === '<' ? a < b : op === '>' ? a > b : op === '<=' ? a <= b : a >= b;
}
