// Pausing a plain DaemonSet, as ds-rollout does it: the RollingUpdate settings are recorded in an annotation and
// the strategy becomes OnDelete, so the controller stops replacing pods while the template (and so every pod and
// revision) stays as it is. Everything here is pure: reading the record, and the patches that pause and resume.
import {rolloutBudgets, validateRollingUpdate} from './budgets.js';
import type {Blocker, DaemonSet, IntOrString, ManagedFieldsEntry, PausedInfo} from './types.js';

export const PAUSED_STRATEGY_ANNOTATION = 'ds-rollout.io/paused-strategy';
export const CHANGE_CAUSE_ANNOTATION = 'kubernetes.io/change-cause';

const ROLLING_UPDATE = 'RollingUpdate';
const ON_DELETE = 'OnDelete';
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

export interface RecordedRollingUpdate {
  readonly maxUnavailable: IntOrString;
  readonly maxSurge: IntOrString;
}

/** What the annotation holds: the strategy to restore, when the pause began, and how many steps ran since. */
export interface PausedStrategy {
  readonly type: 'RollingUpdate';
  readonly rollingUpdate: RecordedRollingUpdate;
  /** RFC3339. */
  readonly pausedAt: string;
  /** Waves `step` has run since the pause (the N of the change-cause "ds-rollout step N/M"). */
  readonly steps: number;
}

export type ParsedRecord = {readonly ok: true; readonly strategy: PausedStrategy} | {readonly ok: false; readonly error: string};

function isIntOrString(value: unknown): value is IntOrString {
  return (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'string';
}

/** The recorded strategy, or why the annotation cannot be used; undefined when there is no annotation. */
export function pausedStrategyOf(ds: DaemonSet): ParsedRecord | undefined {
  const raw = ds.metadata.annotations?.[PAUSED_STRATEGY_ANNOTATION];
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return {ok: false, error: `annotation ${PAUSED_STRATEGY_ANNOTATION} is not JSON`};
  }
  const bad = (what: string): ParsedRecord => ({ok: false, error: `annotation ${PAUSED_STRATEGY_ANNOTATION}: ${what}`});
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return bad('want a JSON object');
  const record = parsed as Record<string, unknown>;
  if (record['type'] !== ROLLING_UPDATE) return bad(`type must be "${ROLLING_UPDATE}"`);
  const rollingUpdate = record['rollingUpdate'] as Record<string, unknown> | undefined;
  if (typeof rollingUpdate !== 'object' || rollingUpdate === null) return bad('rollingUpdate is missing');
  const maxUnavailable = rollingUpdate['maxUnavailable'] ?? 0;
  const maxSurge = rollingUpdate['maxSurge'] ?? 0;
  if (!isIntOrString(maxUnavailable) || !isIntOrString(maxSurge)) return bad('maxUnavailable and maxSurge must be integers or percentages');
  const pausedAt = record['pausedAt'];
  if (typeof pausedAt !== 'string' || !RFC3339.test(pausedAt) || Number.isNaN(Date.parse(pausedAt))) return bad('pausedAt must be an RFC3339 time');
  const steps = record['steps'] ?? 0;
  if (typeof steps !== 'number' || !Number.isInteger(steps) || steps < 0) return bad('steps must be a non-negative integer');
  // The record is restored as the strategy: it must be one the API server accepts.
  const errors = validateRollingUpdate(withStrategy(ds, {type: ROLLING_UPDATE, rollingUpdate: {maxUnavailable, maxSurge}}));
  if (errors.length > 0) return bad(errors.join('; '));
  return {ok: true, strategy: {type: ROLLING_UPDATE, rollingUpdate: {maxUnavailable, maxSurge}, pausedAt, steps}};
}

/** The annotation's value: the record as JSON, keys in a fixed order so that equal records are equal strings. */
export function formatPausedStrategy(strategy: PausedStrategy): string {
  const {maxUnavailable, maxSurge} = strategy.rollingUpdate;
  return JSON.stringify({
    type: strategy.type,
    rollingUpdate: {maxUnavailable, maxSurge},
    pausedAt: strategy.pausedAt,
    ...(strategy.steps > 0 ? {steps: strategy.steps} : {}),
  });
}

/**
 * Where a DaemonSet stands with respect to ds-rollout's pause:
 * `running` (RollingUpdate, no record), `paused` (OnDelete with a valid record), `on-delete` (OnDelete that the
 * tool did not set), `stale` (a record left on a DaemonSet that is no longer OnDelete, e.g. someone restored the
 * strategy by hand, or `step --controller` was killed), `invalid` (a record that cannot be read).
 */
export type PauseState =
  | {readonly kind: 'running'; readonly type: string}
  | {readonly kind: 'paused'; readonly strategy: PausedStrategy}
  | {readonly kind: 'on-delete'}
  | {readonly kind: 'stale'; readonly type: string; readonly strategy: PausedStrategy}
  | {readonly kind: 'invalid'; readonly type: string; readonly error: string};

export function pauseStateOf(ds: DaemonSet): PauseState {
  const type = ds.spec.updateStrategy?.type ?? '';
  const record = pausedStrategyOf(ds);
  if (record && !record.ok) return {kind: 'invalid', type, error: record.error};
  if (type === ON_DELETE) return record ? {kind: 'paused', strategy: record.strategy} : {kind: 'on-delete'};
  return record ? {kind: 'stale', type, strategy: record.strategy} : {kind: 'running', type};
}

/** What `status`, `ds-plan` and the dashboard show for a DaemonSet paused by ds-rollout (undefined otherwise). */
export function pausedInfoOf(ds: DaemonSet, desired: number): PausedInfo | undefined {
  const state = pauseStateOf(ds);
  if (state.kind !== 'paused') return undefined;
  const {strategy} = state;
  const scaled = rolloutBudgets(withStrategy(ds, strategy), desired);
  return {
    by: 'ds-rollout',
    pausedAt: strategy.pausedAt,
    strategy: {type: strategy.type, maxUnavailable: strategy.rollingUpdate.maxUnavailable, maxSurge: strategy.rollingUpdate.maxSurge},
    // A record passed validation when it was read, so scaling cannot fail; 0/0 keeps the type total.
    budgets: scaled.ok ? scaled.budgets : {maxUnavailable: 0, maxSurge: 0},
    steps: strategy.steps,
  };
}

/** The field manager ds-rollout's own writes carry (pause, resume, step). */
export const DS_ROLLOUT_FIELD_MANAGER = 'ds-rollout';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Who last changed spec.updateStrategy, if managedFields can tell: the newest entry of another manager than
 * ds-rollout that owns a field under it, no older than the pause. Ownership moves to whoever sets a field, and an
 * entry's time is that manager's last change, so this dates the un-pause (or a later change by the same hand).
 */
// upstream: staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go ManagedFieldsEntry
function strategyChangeOf(entries: readonly ManagedFieldsEntry[] | undefined, pausedAt: string): {readonly time: string; readonly manager: string} | undefined {
  let found: {time: string; manager: string} | undefined;
  const since = Date.parse(pausedAt);
  for (const entry of entries ?? []) {
    if (entry.manager === DS_ROLLOUT_FIELD_MANAGER || typeof entry.time !== 'string') continue;
    const spec = isRecord(entry.fieldsV1) ? entry.fieldsV1['f:spec'] : undefined;
    if (!isRecord(spec) || !isRecord(spec['f:updateStrategy'])) continue;
    const at = Date.parse(entry.time);
    if (Number.isNaN(at) || at < since) continue;
    if (found === undefined || at > Date.parse(found.time)) found = {time: entry.time, manager: entry.manager ?? 'unknown'};
  }
  return found;
}

/**
 * The warning for a pause record left on a DaemonSet that runs a rolling update again: someone changed
 * spec.updateStrategy behind ds-rollout's back (a `kubectl apply` of the original manifest, an edit), so the
 * controller replaces pods again. `pause` and `resume` clean the record up. Undefined when there is none.
 */
export function unpausedWarning(ds: DaemonSet): Blocker | undefined {
  const state = pauseStateOf(ds);
  if (state.kind === 'invalid' && state.type !== ON_DELETE) {
    return {
      kind: 'unpaused',
      message: `a pause record that cannot be read (${state.error}) is left on a DaemonSet that runs ${state.type || 'no strategy'}: 'kubectl ds-rollout resume' removes it`,
    };
  }
  if (state.kind !== 'stale') return undefined;
  const change = strategyChangeOf(ds.metadata.managedFields, state.strategy.pausedAt);
  const when = change === undefined ? '' : ` at ${change.time} (field manager ${change.manager})`;
  return {
    kind: 'unpaused',
    message:
      `un-paused by someone else${when}, by a change to spec.updateStrategy: it is ${state.type || 'unset'} again, so the controller replaces pods, ` +
      `but the pause record of ${state.strategy.pausedAt} (annotation ${PAUSED_STRATEGY_ANNOTATION}) is still there; ` +
      `'kubectl ds-rollout pause' pauses again, 'kubectl ds-rollout resume' removes the record`,
  };
}

/** The DaemonSet with another update strategy: how the budget rules are asked about a recorded or chosen strategy. */
export function withStrategy(
  ds: DaemonSet,
  strategy: {readonly type: string; readonly rollingUpdate?: {readonly maxUnavailable?: IntOrString; readonly maxSurge?: IntOrString}},
): DaemonSet {
  return {...ds, spec: {...ds.spec, updateStrategy: {type: strategy.type, ...(strategy.rollingUpdate ? {rollingUpdate: strategy.rollingUpdate} : {})}}};
}

// ---------------------------------------------------------------------------------------------------------------
// Patches (JSON merge patches, RFC 7386). The writer adds the resourceVersion they were computed from.

export type MergePatch = Readonly<Record<string, unknown>>;

export type PauseDecision =
  | {readonly kind: 'patch'; readonly body: MergePatch; readonly strategy: PausedStrategy; readonly replacedStale: boolean}
  | {readonly kind: 'already-paused'; readonly strategy: PausedStrategy}
  | {readonly kind: 'on-delete'}
  | {readonly kind: 'invalid'; readonly error: string};

/**
 * Pausing in one patch: record the RollingUpdate settings and switch to OnDelete. The template is not touched, so
 * no pod restarts and no revision is created. A stale record is replaced by the strategy in force now.
 */
export function pauseDecision(ds: DaemonSet, pausedAt: string): PauseDecision {
  const state = pauseStateOf(ds);
  switch (state.kind) {
    case 'paused':
      return {kind: 'already-paused', strategy: state.strategy};
    case 'on-delete':
      return {kind: 'on-delete'};
    case 'invalid':
      // A record nobody can read on an OnDelete DaemonSet: refuse rather than guess what to restore later.
      if (state.type === ON_DELETE) return {kind: 'invalid', error: state.error};
      break;
    default:
      break;
  }
  const current = ds.spec.updateStrategy?.rollingUpdate;
  // The API server defaults a RollingUpdate strategy to maxUnavailable 1, maxSurge 0: record what it enforces.
  const strategy: PausedStrategy = {
    type: ROLLING_UPDATE,
    rollingUpdate: {maxUnavailable: current?.maxUnavailable ?? 1, maxSurge: current?.maxSurge ?? 0},
    pausedAt,
    steps: 0,
  };
  return {kind: 'patch', body: pauseBody(strategy), strategy, replacedStale: state.kind !== 'running'};
}

/** The patch that pauses with `strategy` as the record (also used to re-pause after `step --controller`). */
export function pauseBody(strategy: PausedStrategy): MergePatch {
  return {
    metadata: {annotations: {[PAUSED_STRATEGY_ANNOTATION]: formatPausedStrategy(strategy)}},
    spec: {updateStrategy: {type: ON_DELETE, rollingUpdate: null}},
  };
}

export type ResumeDecision =
  | {readonly kind: 'patch'; readonly body: MergePatch; readonly restored: RecordedRollingUpdate; readonly from: 'record' | 'flags'}
  | {readonly kind: 'stale'; readonly body: MergePatch; readonly type: string}
  | {readonly kind: 'not-paused'; readonly type: string}
  | {readonly kind: 'needs-force'; readonly state: 'on-delete' | 'invalid'; readonly error?: string}
  | {readonly kind: 'invalid-strategy'; readonly errors: readonly string[]};

/**
 * Resuming in one patch: the recorded RollingUpdate settings come back and the record goes. A DaemonSet the tool
 * did not pause is resumed only with an explicit strategy (`--force --max-unavailable X [--max-surge Y]`).
 */
export function resumeDecision(ds: DaemonSet, forced?: {readonly maxUnavailable: IntOrString; readonly maxSurge?: IntOrString}): ResumeDecision {
  const state = pauseStateOf(ds);
  if (state.kind === 'running') return {kind: 'not-paused', type: state.type};
  if (state.kind === 'stale' || (state.kind === 'invalid' && state.type !== ON_DELETE)) {
    // Running again already: only the leftover record goes.
    return {kind: 'stale', body: {metadata: {annotations: {[PAUSED_STRATEGY_ANNOTATION]: null}}}, type: state.type};
  }
  let restored: RecordedRollingUpdate;
  if (forced) {
    restored = {maxUnavailable: forced.maxUnavailable, maxSurge: forced.maxSurge ?? 0};
  } else if (state.kind === 'paused') {
    restored = state.strategy.rollingUpdate;
  } else {
    return {kind: 'needs-force', state: state.kind, ...(state.kind === 'invalid' ? {error: state.error} : {})};
  }
  const errors = validateRollingUpdate(withStrategy(ds, {type: ROLLING_UPDATE, rollingUpdate: restored}));
  if (errors.length > 0) return {kind: 'invalid-strategy', errors};
  return {kind: 'patch', body: resumeBody(restored), restored, from: forced ? 'flags' : 'record'};
}

export function resumeBody(restored: RecordedRollingUpdate): MergePatch {
  return {
    metadata: {annotations: {[PAUSED_STRATEGY_ANNOTATION]: null}},
    spec: {updateStrategy: {type: ROLLING_UPDATE, rollingUpdate: {maxUnavailable: restored.maxUnavailable, maxSurge: restored.maxSurge}}},
  };
}
