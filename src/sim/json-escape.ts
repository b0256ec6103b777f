// The real API server encodes JSON with Go's encoding/json, which escapes <, >, & and the line/paragraph
// separators inside strings. Clients that compare raw bytes depend on it: `kubectl rollout undo` says
// "skipped rollback" only when a ControllerRevision's raw data equals its own Go encoding of the template.
// Those characters only ever occur inside JSON strings, so escaping the whole text is safe (and idempotent).
const GO_ESCAPED = /[<>&\u2028\u2029]/g;
// Non-global twin for the cheap check: a /g regex's test() is stateful (lastIndex).
const HAS_GO_ESCAPED = /[<>&\u2028\u2029]/;
const ESCAPES: Readonly<Record<string, string>> = {'<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029'};

export function goJsonEscape(json: string): string {
  return HAS_GO_ESCAPED.test(json) ? json.replace(GO_ESCAPED, (ch) => ESCAPES[ch]!) : json;
}
