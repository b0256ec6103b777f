// Errors thrown by the patch engines. `message` is the library text the apiserver would put in its
// Status; `code` and `reason` say how the apiserver wraps it, so the server can answer the same way.

/**
 * A strategic merge patch or merge patch that cannot be applied.
 * The apiserver answers 400 BadRequest for malformed directive lists and undecodable bodies,
 * 422 for lists of lists, and 500 with an empty reason for everything else
 * (e.g. a missing merge key: kubectl prints `Error from server: map: map[...] does not contain declared merge key: name`).
 */
export class PatchError extends Error {
  readonly code: 400 | 422 | 500;
  readonly reason: '' | 'BadRequest' | 'Invalid';
  constructor(message: string, code: 400 | 422 | 500 = 500) {
    super(message);
    this.name = 'PatchError';
    this.code = code;
    this.reason = code === 400 ? 'BadRequest' : code === 422 ? 'Invalid' : '';
  }
}

/**
 * An RFC 6902 JSON patch that cannot be applied. The apiserver answers 422 Invalid with message
 * `the server rejected our request due to an error in our request` and this text as the cause;
 * a body that is not a list of operations is a 400 BadRequest.
 */
export class JsonPatchError extends Error {
  readonly code: 400 | 422;
  readonly reason: 'BadRequest' | 'Invalid';
  constructor(message: string, code: 400 | 422 = 422) {
    super(message);
    this.name = 'JsonPatchError';
    this.code = code;
    this.reason = code === 400 ? 'BadRequest' : 'Invalid';
  }
}
