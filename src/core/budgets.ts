// Rolling-update budgets: scaling maxUnavailable / maxSurge against the number of nodes that should run
// the DaemonSet, the both-zero fallback, and what apps/v1 validation would reject about the strategy.
import type {DaemonSet, IntOrString, RolloutBudgets} from './types.js';

export type Scaled = {readonly ok: true; readonly value: number} | {readonly ok: false; readonly error: string};

const ROLLING_UPDATE = 'RollingUpdate';
const ON_DELETE = 'OnDelete';

/** Go's strconv.Atoi: optional sign and decimal digits only. */
const ATOI = /^[+-]?[0-9]+$/;

/**
 * An integer is used as is; a string must be `<int>%` and scales to ceil (roundUp) or floor of
 * p * total / 100. Anything else is an error, worded like upstream's.
 */
// upstream: staging/src/k8s.io/apimachinery/pkg/util/intstr/intstr.go GetScaledValueFromIntOrPercent
export function getScaledValueFromIntOrPercent(value: IntOrString | undefined, total: number, roundUp: boolean): Scaled {
  if (value === undefined || value === null) return {ok: false, error: 'nil value for IntOrString'};
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return {ok: false, error: 'invalid value for IntOrString: invalid type: neither int nor percentage'};
    return {ok: true, value};
  }
  if (typeof value !== 'string') return {ok: false, error: 'invalid value for IntOrString: invalid type: neither int nor percentage'};
  if (!value.endsWith('%')) return {ok: false, error: 'invalid value for IntOrString: invalid type: string is not a percentage'};
  const digits = value.slice(0, -1);
  if (!ATOI.test(digits)) {
    return {ok: false, error: `invalid value for IntOrString: invalid value "${value}": strconv.Atoi: parsing "${digits}": invalid syntax`};
  }
  const percent = Number.parseInt(digits, 10);
  const scaled = (percent * total) / 100;
  return {ok: true, value: roundUp ? Math.ceil(scaled) : Math.floor(scaled)};
}

function isRollingUpdate(ds: DaemonSet): boolean {
  return ds.spec.updateStrategy?.type === ROLLING_UPDATE;
}

/** maxSurge scaled against numberToSchedule; 0 when not RollingUpdate or maxSurge is absent. */
// upstream: pkg/controller/daemon/util/daemonset_util.go SurgeCount
export function surgeCount(ds: DaemonSet, numberToSchedule: number): Scaled {
  const rollingUpdate = ds.spec.updateStrategy?.rollingUpdate;
  if (!isRollingUpdate(ds) || rollingUpdate?.maxSurge === undefined) return {ok: true, value: 0};
  return getScaledValueFromIntOrPercent(rollingUpdate.maxSurge, numberToSchedule, true);
}

/** maxUnavailable scaled against numberToSchedule; 0 when not RollingUpdate; an absent value is an error. */
// upstream: pkg/controller/daemon/util/daemonset_util.go UnavailableCount
export function unavailableCount(ds: DaemonSet, numberToSchedule: number): Scaled {
  const rollingUpdate = ds.spec.updateStrategy?.rollingUpdate;
  if (!isRollingUpdate(ds) || rollingUpdate === undefined) return {ok: true, value: 0};
  return getScaledValueFromIntOrPercent(rollingUpdate.maxUnavailable, numberToSchedule, true);
}

/** Whether more than one pod per node may exist during an update. */
// upstream: pkg/controller/daemon/util/daemonset_util.go AllowsSurge
export function allowsSurge(ds: DaemonSet): boolean {
  const surge = surgeCount(ds, 1);
  return surge.ok && surge.value > 0;
}

/**
 * The budgets rollingUpdate works with for `desired` nodes that should run the DaemonSet (docs/design/reconcile.md §8.1).
 * When both scale to 0 and desired > 0, maxUnavailable becomes 1, as upstream does for objects that bypassed
 * validation. A strategy other than RollingUpdate never runs rollingUpdate, so its budgets are 0 / 0.
 */
// upstream: pkg/controller/daemon/update.go updatedDesiredNodeCounts
export function rolloutBudgets(ds: DaemonSet, desired: number): {ok: true; budgets: RolloutBudgets} | {ok: false; error: string} {
  if (!isRollingUpdate(ds)) return {ok: true, budgets: {maxUnavailable: 0, maxSurge: 0}};
  const unavailable = unavailableCount(ds, desired);
  if (!unavailable.ok) return {ok: false, error: `invalid value for MaxUnavailable: ${unavailable.error}`};
  const surge = surgeCount(ds, desired);
  if (!surge.ok) return {ok: false, error: `invalid value for MaxSurge: ${surge.error}`};
  if (desired > 0 && unavailable.value === 0 && surge.value === 0) return {ok: true, budgets: {maxUnavailable: 1, maxSurge: 0, bothZeroFallback: true}};
  return {ok: true, budgets: {maxUnavailable: unavailable.value, maxSurge: surge.value}};
}

// ---------------------------------------------------------------------------------------------
// Validation (pkg/apis/apps/validation): the API server's own messages, so users recognise them.

const PATH = 'spec.updateStrategy';
const RU_PATH = `${PATH}.rollingUpdate`;
const VALID_PERCENT = /^[0-9]+%$/;
const PERCENT_MESSAGE =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

function show(value: IntOrString): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** The numeric value validation reasons with: a valid percent's number, else Go's IntValue (Atoi of a string, 0 on failure). */
// upstream: pkg/apis/apps/validation/validation.go getIntOrPercentValue
function intOrPercentValue(value: IntOrString | undefined): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  if (VALID_PERCENT.test(value)) return Number.parseInt(value.slice(0, -1), 10);
  return ATOI.test(value) ? Number.parseInt(value, 10) : 0;
}

// upstream: pkg/apis/apps/validation/validation.go ValidatePositiveIntOrPercent, IsNotMoreThan100Percent
function validateIntOrPercent(value: IntOrString | undefined, path: string): string[] {
  if (value === undefined) return [];
  if (typeof value === 'string') {
    if (!VALID_PERCENT.test(value)) return [`${path}: Invalid value: ${show(value)}: ${PERCENT_MESSAGE}`];
    if (Number.parseInt(value.slice(0, -1), 10) > 100) return [`${path}: Invalid value: ${show(value)}: must not be greater than 100%`];
    return [];
  }
  if (typeof value !== 'number' || !Number.isInteger(value)) return [`${path}: Invalid value: ${String(value)}: must be an integer or percentage (e.g '5%')`];
  if (value < 0) return [`${path}: Invalid value: ${value}: must be greater than or equal to 0`];
  return [];
}

/**
 * What apps/v1 validation rejects in spec.updateStrategy, as the API server of `minor` (default: the newest) words
 * it (one message per problem).
 * Absent maxUnavailable / maxSurge count as 0 here; apply the API defaults first (maxUnavailable 1, maxSurge 0)
 * to judge a manifest the way the server would after defaulting.
 */
// upstream: pkg/apis/apps/validation/validation.go ValidateDaemonSetUpdateStrategy, ValidateRollingUpdateDaemonSet
export function validateRollingUpdate(ds: DaemonSet, minor?: number): string[] {
  const strategy = ds.spec.updateStrategy;
  const type = strategy?.type ?? '';
  if (type === ON_DELETE) return [];
  if (type !== ROLLING_UPDATE) {
    return [`${PATH}: Unsupported value: ${JSON.stringify(type)}: supported values: "${ROLLING_UPDATE}", "${ON_DELETE}"`];
  }
  const rollingUpdate = strategy?.rollingUpdate;
  if (rollingUpdate === undefined) return [`${RU_PATH}: Required value`];
  const {maxUnavailable, maxSurge} = rollingUpdate;
  // Before 1.21 there is no maxSurge (the server drops it): maxUnavailable alone must not be 0, in those words.
  if (minor !== undefined && minor < 21) {
    const errors = validateIntOrPercent(maxUnavailable, `${RU_PATH}.maxUnavailable`);
    if (intOrPercentValue(maxUnavailable) === 0) errors.push(`${RU_PATH}.maxUnavailable: Invalid value: ${show(maxUnavailable ?? 0)}: cannot be 0`);
    return errors;
  }
  const errors = [...validateIntOrPercent(maxUnavailable, `${RU_PATH}.maxUnavailable`), ...validateIntOrPercent(maxSurge, `${RU_PATH}.maxSurge`)];
  // Exactly one of the two must be non-zero.
  const hasUnavailable = intOrPercentValue(maxUnavailable) !== 0;
  const hasSurge = intOrPercentValue(maxSurge) !== 0;
  if (hasUnavailable && hasSurge) {
    errors.push(`${RU_PATH}.maxSurge: Invalid value: ${show(maxSurge!)}: may not be set when maxUnavailable is non-zero`);
  } else if (!hasUnavailable && !hasSurge) {
    errors.push(`${RU_PATH}.maxUnavailable: Required value: cannot be 0 when maxSurge is 0`);
  }
  return errors;
}
