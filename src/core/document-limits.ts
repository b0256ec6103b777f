// Limits on a parsed document's shape, so that no input can make the reader use unbounded time or memory.
// YAML aliases make a small text a huge tree (a "billion laughs" bomb): js-yaml shares the aliased node, so the
// parse is cheap, but every later walk (validation, hashing, printing) would expand it. The API server's YAML
// decoder refuses such aliasing; here the tree is walked once, as it would be expanded, and refused past a
// small multiple of the input's size. Nesting is bounded too: every later walk of the value recurses.

/** Deepest nesting a document may have (Go's encoding/json stops at 10,000; real objects stay under 50). */
export const MAX_DOCUMENT_DEPTH = 1000;

/**
 * Nodes an expanded document may have per byte of its text (beyond a floor of EXPANSION_FLOOR). Without aliases a
 * node takes at least one byte (`[1,1]` is three nodes in five), so only aliasing can pass this.
 */
export const EXPANSION_PER_BYTE = 10;
const EXPANSION_FLOOR = 100_000;
/**
 * Bytes of text (strings and keys) an expanded document may hold beyond its own size: few nodes can still be huge
 * when one long string is aliased thousands of times (8,000 references to 64 KiB are 500 MiB). Without aliases the
 * strings never exceed the text, so only aliasing can pass this.
 */
const EXPANDED_TEXT_FLOOR = 16 * 2 ** 20;

export type DocumentProblem =
  | {readonly kind: 'depth'; readonly limit: number}
  | {readonly kind: 'aliases'; readonly limit: number}
  | {readonly kind: 'alias-bytes'; readonly limit: number};

/**
 * Walks `value` as a tree (aliased nodes once per reference, as an expansion would) without recursion, and reports
 * the first limit it passes: nesting deeper than MAX_DOCUMENT_DEPTH, or more nodes than `textBytes` allows.
 * Stops at the limit, so a bomb costs no more than the limit's worth of steps.
 */
export function documentProblem(value: unknown, textBytes: number): DocumentProblem | undefined {
  const maxNodes = EXPANSION_FLOOR + EXPANSION_PER_BYTE * textBytes;
  const maxText = EXPANDED_TEXT_FLOOR + textBytes;
  const values: unknown[] = [value];
  const depths: number[] = [0];
  let nodes = 0;
  let text = 0;
  while (values.length > 0) {
    const current = values.pop();
    const depth = depths.pop()!;
    if (++nodes > maxNodes) return {kind: 'aliases', limit: maxNodes};
    if (typeof current === 'string' && (text += current.length) > maxText) return {kind: 'alias-bytes', limit: maxText};
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= MAX_DOCUMENT_DEPTH) return {kind: 'depth', limit: MAX_DOCUMENT_DEPTH};
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length; i++) {
        values.push(current[i]);
        depths.push(depth + 1);
      }
    } else {
      for (const key in current) {
        if ((text += key.length) > maxText) return {kind: 'alias-bytes', limit: maxText};
        values.push((current as Record<string, unknown>)[key]);
        depths.push(depth + 1);
      }
    }
  }
  return undefined;
}

/** The one-line reason for a problem, naming the limit. */
export function describeDocumentProblem(problem: DocumentProblem): string {
  switch (problem.kind) {
    case 'depth':
      return `nested deeper than ${problem.limit} levels`;
    case 'aliases':
      return `YAML aliases expand it past ${problem.limit.toLocaleString('en-US')} nodes (${EXPANSION_PER_BYTE} per byte of input): refused, as the API server refuses excessive aliasing`;
    case 'alias-bytes':
      return `YAML aliases expand it past ${problem.limit.toLocaleString('en-US')} characters of text (16 MiB more than the input): refused, as the API server refuses excessive aliasing`;
  }
}

/** Nesting depth of a JSON text, counted without parsing (brackets inside strings do not count); stops past `limit`. */
export function jsonTextDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}
