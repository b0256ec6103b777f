// Patch engines used by the simulated API server for PATCH requests (docs/design/sim-api.md §6).

import {applyJsonPatch} from './json-patch.js';
import {applyMergePatch} from './merge-patch.js';
import {applyStrategicMergePatch} from './strategic-merge.js';

export {JsonPatchError, PatchError} from './errors.js';
export {applyJsonPatch} from './json-patch.js';
export {applyMergePatch} from './merge-patch.js';
export {SMP_KINDS} from './patch-meta.js';
export {applyStrategicMergePatch} from './strategic-merge.js';

/** Applies a decoded patch body to `original` for an object of kind `kind`. */
export type PatchEngine = (original: object, patch: unknown, kind: string) => object;

/**
 * The PATCH Content-Types the server understands, mapped to their engine. Any other type
 * (e.g. `application/apply-patch+yaml`) should be answered with 415 UnsupportedMediaType.
 * Look up the media type without parameters (`application/merge-patch+json; charset=utf-8` → strip after `;`).
 */
export const PATCH_CONTENT_TYPES: Readonly<Record<string, PatchEngine>> = Object.freeze({
  'application/strategic-merge-patch+json': (original: object, patch: unknown, kind: string) => applyStrategicMergePatch(original, patch as object, kind),
  'application/merge-patch+json': (original: object, patch: unknown) => applyMergePatch(original, patch),
  'application/json-patch+json': (original: object, patch: unknown) => applyJsonPatch(original, patch),
});
