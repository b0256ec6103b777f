// A ControllerRevision's number is an int64 on the API server (0..2^63-1). A JS number holds it exactly only up to
// 2^53-1, so a revision is a number while it is safe and a bigint beyond: one value has one representation, so
// `===`, `<` and `>` compare revisions exactly (JS compares number with bigint by value), and String() prints
// every digit. Arithmetic and sorting go through the helpers below. Reading the digits JSON.parse and js-yaml
// round is `restoreExactRevisions`; writing a bigint as JSON is `jsonText`.

/** A revision number: a safe integer as a number, a larger one as a bigint (never a safe value as a bigint). */
export type Revision = number | bigint;

export const INT64_MAX = 2n ** 63n - 1n;
export const INT64_MIN = -(2n ** 63n);

/** The one representation of an integer: a number when safe, a bigint beyond. */
export function canonicalRevision(value: bigint): Revision {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/** Orders revisions by number, exactly (a comparator for Array.prototype.sort). */
export function compareRevisions(a: Revision, b: Revision): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function higherRevision(a: Revision, b: Revision): Revision {
  return a >= b ? a : b;
}

/** The number after `revision`, exact past 2^53. */
export function nextRevision(revision: Revision): Revision {
  return canonicalRevision(BigInt(revision) + 1n);
}

/** A revision written in decimal (a flag's value), or undefined when the text is not a whole number. */
export function revisionFromDigits(text: string): Revision | undefined {
  return /^[-+]?\d+$/.test(text) ? canonicalRevision(BigInt(text)) : undefined;
}

// `revision` keys with a whole number too long to be a safe integer, in JSON (`"revision": N`) or YAML (`revision: N`).
const LONG_REVISION = /(?:"revision"|(?<![\w.\-/"])revision)[ \t]*:[ \t]*(-?\d{16,})(?![\d.eE])/g;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A ControllerRevision whose revision was read as a number. A list's items may leave out their kind; no other kind has a top-level `revision`. */
function hasNumberRevision(value: unknown): value is Record<string, unknown> & {revision: number} {
  return isRecord(value) && (value['kind'] === 'ControllerRevision' || value['kind'] === undefined) && typeof value['revision'] === 'number';
}

function isRoundedRevision(value: unknown): value is Record<string, unknown> & {revision: number} {
  return hasNumberRevision(value) && !Number.isSafeInteger(value.revision);
}

/**
 * Gives the ControllerRevisions among `objects` (parsed from `text`, in the text's order) the revision numbers
 * the text wrote, where parsing rounded them (past 2^53). The text is scanned only when such a revision was read,
 * so the usual read pays one type check per object. The digits are matched to objects in order and only where
 * they round to the value read; a revision left rounded is refused by the decoder as before. Mutates `objects`.
 */
export function restoreExactRevisions(objects: readonly unknown[], text: string): void {
  // Pods and nodes (nearly all of a large read) have no revision: their text is not scanned at all.
  const withRevision = objects.filter(hasNumberRevision);
  if (withRevision.length === 0) return;
  markNonIntegerRevisions(withRevision, text);
  const rounded = withRevision.filter(isRoundedRevision);
  if (rounded.length === 0) return;
  const written: string[] = [];
  for (const match of text.matchAll(LONG_REVISION)) if (!Number.isSafeInteger(Number(match[1]))) written.push(match[1]!);
  let next = 0;
  for (const object of rounded) {
    while (next < written.length && Number(written[next]) !== object.revision) next++;
    if (next === written.length) return;
    object.revision = canonicalRevision(BigInt(written[next++]!)) as number;
  }
}

// The key that marks a revision written with a fraction or an exponent: a plain object's, so that the mark survives
// structuredClone (the simulated cluster clones what it decodes), which a class instance would not.
const NON_INTEGER_TEXT = '\u0000non-integer number';

/**
 * A revision written with a fraction or an exponent (`1.0`, `1e3`): the parser reads an integer, but Go's JSON
 * decoder refuses such a number for an int64 field, so the decoder refuses it too, showing it as written.
 */
export type NonIntegerNumber = {readonly [NON_INTEGER_TEXT]: string};

/** The text of a number marked as written with a fraction or an exponent; undefined for any other value. */
export function nonIntegerNumberText(value: unknown): string | undefined {
  const text = isRecord(value) ? value[NON_INTEGER_TEXT] : undefined;
  return typeof text === 'string' ? text : undefined;
}

const NUMBER_AFTER_KEY = /^[ \t]*:[ \t]*(-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)(?![\w.])/;

/** Whether a bare word at `at` is where a YAML key starts: first on its line (after `- ` items), or after `{` or `,`. */
function startsYamlKey(text: string, at: number): boolean {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  const before = text.slice(lineStart, at);
  return /^[ \t]*(?:-[ \t]+)*$/.test(before) || /[{,][ \t]*$/.test(before);
}

// Where a `revision` key may be: the word, a closing quote for JSON, then its colon. A dump's
// `controller-revision-hash` label per pod is passed over inside the expression's own search, which skips
// through a 50 MB text several times faster than a loop of indexOf calls stopping at every label.
const KEY_CANDIDATE = /revision"?[ \t]*:/g;

/** Every `revision` key's number written with a fraction or an exponent, in the text's order. */
function nonIntegerRevisionLiterals(text: string): string[] {
  const found: string[] = [];
  for (const {index: at} of text.matchAll(KEY_CANDIDATE)) {
    let end = at + 'revision'.length;
    if (text[at - 1] === '"') {
      // A JSON key, not `\"revision\"` within a string.
      if (text[end] !== '"' || text[at - 2] === '\\') continue;
      end++;
    } else if (!startsYamlKey(text, at)) continue;
    const literal = NUMBER_AFTER_KEY.exec(text.slice(end, end + 80))?.[1];
    if (literal !== undefined && /[.eE]/.test(literal)) found.push(literal);
  }
  return found;
}

/** Replaces the revision of each object whose number was written `1.0` or `1e3` by a NonIntegerNumber mark. */
function markNonIntegerRevisions(objects: readonly unknown[], text: string): void {
  const literals = nonIntegerRevisionLiterals(text);
  if (literals.length === 0) return;
  let next = 0;
  for (const object of objects) {
    if (next === literals.length) return;
    if (!hasNumberRevision(object) || object.revision !== Number(literals[next])) continue;
    (object as Record<string, unknown>)['revision'] = {[NON_INTEGER_TEXT]: literals[next++]!} satisfies NonIntegerNumber;
  }
}

const BIGINT_MARK = '\u0000bigint:';
const MARKED = new RegExp(`"${JSON.stringify(BIGINT_MARK).slice(1, -1).replace(/\\/g, '\\\\')}(-?\\d+)"`, 'g');

/**
 * JSON.stringify that writes a bigint as the JSON number it is (JSON.stringify throws on one). Without a bigint
 * it costs nothing more: the replacer runs only after a plain attempt fails.
 */
export function jsonText(value: unknown, space?: number): string {
  try {
    return JSON.stringify(value, null, space);
  } catch (error) {
    if (!(error instanceof TypeError) || !/BigInt/i.test(error.message)) throw error;
    const marked = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${BIGINT_MARK}${v}` : v), space);
    return marked.replace(MARKED, '$1');
  }
}
