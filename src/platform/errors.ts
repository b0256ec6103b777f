// Typed errors of the project. Services and adapters throw these; only the command layer prints them
// (one line on stderr) and turns them into exit codes: 0 success, 1 usage/input, 2 cluster unreachable/refused,
// 3 the rollout did not get where it should (a wave of `step` did not become available in time).

export const EXIT_OK = 0;
export const EXIT_INPUT = 1;
export const EXIT_CLUSTER = 2;
export const EXIT_STUCK = 3;
/** `ds-rollout status`: the rollout is in progress (4) or paused by `ds-rollout pause` (5). */
export const EXIT_PROGRESSING = 4;
export const EXIT_PAUSED = 5;

export abstract class DsRolloutError extends Error {
  abstract readonly exitCode: number;
  constructor(message: string, options?: {cause?: unknown}) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad flags or argument combinations. */
export class UsageError extends DsRolloutError {
  readonly exitCode = EXIT_INPUT;
}

/** Broken YAML, an impossible strategy, a missing revision, a write attempted on a snapshot. */
export class InputError extends DsRolloutError {
  readonly exitCode = EXIT_INPUT;
}

/** The named object does not exist (in the cluster or the snapshot). */
export class NotFoundError extends InputError {}

/** The cluster could not be used: unreachable, forbidden, or it refused the request. */
export class ClusterError extends DsRolloutError {
  readonly exitCode = EXIT_CLUSTER;
}

export class ClusterUnreachableError extends ClusterError {}

export class ClusterForbiddenError extends ClusterError {}

/** A write lost an optimistic-concurrency race (HTTP 409). Writers retry it; it surfaces only when retries run out. */
export class ConflictError extends ClusterError {}

/** Another `ds-rollout step` holds the DaemonSet's step lease (or took it over from this one): refused, exit 2. */
export class StepInProgressError extends ClusterError {}

/** The rollout did not get where it should: a wave did not become available in time, or it cannot start. */
export class RolloutStuckError extends DsRolloutError {
  readonly exitCode = EXIT_STUCK;
}

// `scheme://user:password@` in a URL: what comes before the @ is a credential, never shown.
const URL_USERINFO = /\b([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)[^\s/?#@"]*@/g;

/** `text` with the user and password of every URL in it dropped (`http://user:pw@host` is shown `http://host`). */
export function withoutUrlUserinfo(text: string): string {
  return text.replace(URL_USERINFO, '$1');
}
