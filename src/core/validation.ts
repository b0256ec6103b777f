// What the API server rejects (422) when a DaemonSet is created or updated, worded as the server words it
// (docs/design/sim-api.md §4 and §7.1). Not the whole of apps/v1 validation: the checks a DaemonSet manifest or rollout edit
// realistically trips over. Inputs are defaulted first (defaultDaemonSet), as the server validates after
// defaulting. Not modelled: volumes, probes, resources, security contexts, pod affinity, and the rest of
// ValidatePodSpec.
import {validateRollingUpdate} from './budgets.js';
import {deepEqualJson} from './canonical-json.js';
import {defaultDaemonSet} from './defaults.js';
import {labelSelectorMatches} from './selectors.js';
import type {
  Affinity,
  Container,
  ControllerRevision,
  DaemonSet,
  LabelSelector,
  Labels,
  Node,
  NodeSelectorRequirement,
  ObjectMeta,
  Pod,
  Toleration,
} from './types.js';

export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong'
  | 'FieldValueNotFound';

/** One field-level error: `field` and `message` are the cause's `field` and `message` in the 422 Status. */
export interface FieldError {
  readonly field: string;
  readonly type: FieldErrorType;
  /** The message without the field, e.g. `Invalid value: -1: must be greater than or equal to 0`. */
  readonly message: string;
  /** The offending value, when the message shows one. */
  readonly value?: unknown;
}

// ---------------------------------------------------------------------------------------------
// Go's printing of values in messages (fmt %q and %#v)

/** strconv.Quote for the strings that occur in manifests. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c === 0x07) out += '\\a';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0b) out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

function goBytesOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** %#v of a map[string]string: keys sorted, as fmt prints maps. */
function goStringMap(map: Labels | undefined): string {
  if (map === undefined || map === null) return 'map[string]string(nil)';
  const entries = Object.keys(map)
    .sort(goBytesOrder)
    .map((k) => `${goQuote(k)}:${goQuote(map[k]!)}`);
  return `map[string]string{${entries.join(', ')}}`;
}

function goStringSlice(values: readonly string[] | undefined): string {
  return values === undefined || values === null ? '[]string(nil)' : `[]string{${values.map(goQuote).join(', ')}}`;
}

/** %#v of a metav1.LabelSelector, as the server prints it in selector errors. */
function goLabelSelector(selector: LabelSelector): string {
  const expressions = selector.matchExpressions;
  const exprs =
    expressions === undefined || expressions === null
      ? '[]v1.LabelSelectorRequirement(nil)'
      : `[]v1.LabelSelectorRequirement{${expressions
          .map((e) => `v1.LabelSelectorRequirement{Key:${goQuote(e.key ?? '')}, Operator:${goQuote(e.operator ?? '')}, Values:${goStringSlice(e.values)}}`)
          .join(', ')}}`;
  return `v1.LabelSelector{MatchLabels:${goStringMap(selector.matchLabels)}, MatchExpressions:${exprs}}`;
}

// ---------------------------------------------------------------------------------------------
// Error constructors (field.Required, field.Invalid, ...) with the server's ErrorBody wording

function required(field: string, detail = ''): FieldError {
  return {field, type: 'FieldValueRequired', message: detail ? `Required value: ${detail}` : 'Required value'};
}

/** `shown` is the value as Go prints it in the message. */
function invalid(field: string, value: unknown, shown: string, detail: string): FieldError {
  return {field, type: 'FieldValueInvalid', message: `Invalid value: ${shown}: ${detail}`, value};
}

function notSupported(field: string, value: string, supported: readonly string[]): FieldError {
  return {
    field,
    type: 'FieldValueNotSupported',
    message: `Unsupported value: ${goQuote(value)}: supported values: ${supported.map(goQuote).join(', ')}`,
    value,
  };
}

function forbidden(field: string, detail: string): FieldError {
  return {field, type: 'FieldValueForbidden', message: `Forbidden: ${detail}`};
}

function duplicate(field: string, value: string): FieldError {
  return {field, type: 'FieldValueDuplicate', message: `Duplicate value: ${goQuote(value)}`, value};
}

function notFound(field: string, value: string): FieldError {
  return {field, type: 'FieldValueNotFound', message: `Not found: ${goQuote(value)}`, value};
}

function nonNegative(field: string, value: number | bigint | undefined): FieldError[] {
  return value !== undefined && value < 0 ? [invalid(field, value, String(value), 'must be greater than or equal to 0')] : [];
}

// ---------------------------------------------------------------------------------------------
// Name and label syntax (apimachinery/pkg/util/validation), with the server's messages

// upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go RegexError
function regexError(msg: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${format}')`;
  // Upstream's loop leaves a doubled space before each " or ": kept, so messages match byte for byte.
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${format}')`;
}

const LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const SUBDOMAIN_FMT = `${LABEL_FMT}(\\.${LABEL_FMT})*`;
const DNS_LABEL = new RegExp(`^${LABEL_FMT}$`);
const DNS_SUBDOMAIN = new RegExp(`^${SUBDOMAIN_FMT}$`);
const QUALIFIED_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED = new RegExp(`^${QUALIFIED_FMT}$`);
const LABEL_VALUE_FMT = `(${QUALIFIED_FMT})?`;
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const QUALIFIED_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

function maxLen(n: number): string {
  return `must be no more than ${n} characters`;
}

// upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go IsDNS1123Subdomain
function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLen(253));
  if (!DNS_SUBDOMAIN.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  }
  return errs;
}

// upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go IsDNS1123Label
function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLen(63));
  if (!DNS_LABEL.test(value)) {
    if (DNS_SUBDOMAIN.test(value)) errs.push('must not contain dots');
    else {
      errs.push(
        regexError(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
          LABEL_FMT,
          'my-name',
          '123-abc',
        ),
      );
    }
  }
  return errs;
}

// upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go IsQualifiedName
/**
 * A pure check of a string, remembered: label keys and values repeat across thousands of objects (every pod of a
 * DaemonSet carries the same ones). Bounded, so that a stream of distinct strings cannot grow it without end.
 */
function remembered(check: (value: string) => string[]): (value: string) => readonly string[] {
  const known = new Map<string, readonly string[]>();
  return (value) => {
    let result = known.get(value);
    if (result === undefined) {
      if (known.size >= 4096) known.clear();
      result = check(value);
      known.set(value, result);
    }
    return result;
  };
}

const isQualifiedName = remembered((value: string): string[] => {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_MSG, QUALIFIED_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLen(63)}`);
  if (!QUALIFIED.test(name)) errs.push(`name part ${regexError(QUALIFIED_MSG, QUALIFIED_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
});

// upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go IsValidLabelValue
const isValidLabelValue = remembered((value: string): string[] => {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLen(63));
  if (!LABEL_VALUE.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
});

// upstream: staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go ValidateLabels
function validateLabels(labels: Labels | undefined, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (labels === undefined || labels === null || labelsAreValid(labels)) return errs;
  // Go walks the map in random order; sorted keys keep the message stable.
  for (const key of Object.keys(labels).sort(goBytesOrder)) {
    for (const msg of isQualifiedName(key)) errs.push(invalid(field, key, goQuote(key), msg));
    const value = labels[key]!;
    for (const msg of isValidLabelValue(value)) errs.push(invalid(field, value, goQuote(value), msg));
  }
  return errs;
}

/** Whether every key and value of `labels` is valid: nearly always so, and then no keys are sorted to word errors. */
function labelsAreValid(labels: Labels): boolean {
  for (const key in labels) if (isQualifiedName(key).length > 0 || isValidLabelValue(labels[key]!).length > 0) return false;
  return true;
}

// upstream: staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go ValidateLabelSelector
function validateLabelSelector(selector: LabelSelector | undefined, field: string): FieldError[] {
  if (selector === undefined || selector === null) return [];
  const errs = validateLabels(selector.matchLabels, `${field}.matchLabels`);
  (selector.matchExpressions ?? []).forEach((req, i) => {
    const path = `${field}.matchExpressions[${i}]`;
    const values = req.values ?? [];
    const key = req.key ?? '';
    const operator = req.operator ?? '';
    switch (operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(invalid(`${path}.operator`, operator, goQuote(operator), 'not a valid selector operator'));
    }
    for (const msg of isQualifiedName(key)) errs.push(invalid(`${path}.key`, key, goQuote(key), msg));
    values.forEach((v, j) => {
      for (const msg of isValidLabelValue(v)) errs.push(invalid(`${path}.values[${j}]`, v, goQuote(v), msg));
    });
  });
  return errs;
}

/** Whether LabelSelectorAsSelector would fail (then the server skips the template-labels comparison). */
function selectorConversionFails(selector: LabelSelector): boolean {
  if (selector.matchLabels && !labelsAreValid(selector.matchLabels)) return true;
  for (const req of selector.matchExpressions ?? []) {
    if (isQualifiedName(req.key ?? '').length > 0) return true;
    const values = req.values ?? [];
    if (req.operator === 'In' || req.operator === 'NotIn') {
      if (values.length === 0 || values.some((v) => isValidLabelValue(v).length > 0)) return true;
    } else if (req.operator === 'Exists' || req.operator === 'DoesNotExist') {
      if (values.length > 0) return true;
    } else return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Pod template

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];

// upstream: pkg/apis/core/validation/validation.go validateContainers, validateInitContainers (names, images, pull
// policy, ports, env names, volume mounts, resources, security context)
function validateContainerList(containers: readonly Container[], field: string, taken: Set<string>, pod: PodContext): FieldError[] {
  const errs: FieldError[] = [];
  containers.forEach((container, i) => {
    const path = `${field}[${i}]`;
    const name = typeof container.name === 'string' ? container.name : '';
    if (name === '') errs.push(required(`${path}.name`));
    else {
      for (const msg of isDNS1123Label(name)) errs.push(invalid(`${path}.name`, name, goQuote(name), msg));
      if (taken.has(name)) errs.push(duplicate(`${path}.name`, name));
      else taken.add(name);
    }
    const image = typeof container.image === 'string' ? container.image : '';
    if (image === '') errs.push(required(`${path}.image`));
    else if (image.trim() !== image) errs.push(invalid(`${path}.image`, image, goQuote(image), 'must not have leading or trailing whitespace'));
    const policy = container['imagePullPolicy'];
    if (typeof policy === 'string' && !PULL_POLICIES.includes(policy)) errs.push(notSupported(`${path}.imagePullPolicy`, policy, PULL_POLICIES));
    validateContainerPorts(errs, container.ports, `${path}.ports`, pod.hostNetwork);
    validateEnv(errs, container['env'], `${path}.env`);
    validateVolumeMounts(errs, container['volumeMounts'], `${path}.volumeMounts`, pod.volumes);
    validateResources(errs, container['resources'], `${path}.resources`);
    validateRunAsUser(errs, container['securityContext'], `${path}.securityContext`);
  });
  return errs;
}

/** What the container checks need of their pod: hostNetwork and the names of its volumes. */
interface PodContext {
  readonly hostNetwork: boolean;
  readonly volumes: ReadonlySet<string>;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

// upstream: pkg/apis/core/validation/validation.go ValidateEnv (the name is required)
function validateEnv(errs: FieldError[], env: unknown, field: string): void {
  listOf(env).forEach((item, i) => {
    if (!isRecord(item) || typeof item['name'] !== 'string' || item['name'] === '') errs.push(required(itemPath(field, i, 'name')));
  });
}

// upstream: pkg/apis/core/validation/validation.go ValidateVolumeMounts (the volume must exist)
function validateVolumeMounts(errs: FieldError[], mounts: unknown, field: string, volumes: ReadonlySet<string>): void {
  listOf(mounts).forEach((item, i) => {
    const name = isRecord(item) && typeof item['name'] === 'string' ? item['name'] : '';
    if (name === '') errs.push(required(itemPath(field, i, 'name')));
    else if (!volumes.has(name)) errs.push(notFound(itemPath(field, i, 'name'), name));
  });
}

// upstream: pkg/apis/core/validation/validation.go validateVolumes (names are unique DNS labels)
function volumeNames(errs: FieldError[], volumes: unknown, field: string): Set<string> {
  const names = new Set<string>();
  listOf(volumes).forEach((item, i) => {
    const name = isRecord(item) && typeof item['name'] === 'string' ? item['name'] : '';
    if (name === '') errs.push(required(itemPath(field, i, 'name')));
    else if (names.has(name)) errs.push(duplicate(itemPath(field, i, 'name'), name));
    else {
      for (const msg of isDNS1123Label(name)) errs.push(invalid(itemPath(field, i, 'name'), name, goQuote(name), msg));
      names.add(name);
    }
  });
  return names;
}

// upstream: staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go ParseQuantity (the grammar and its error)
const QUANTITY = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const QUANTITY_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const SUFFIXES: Readonly<Record<string, number>> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** A quantity's value (close enough to compare a request with its limit), or undefined when it is no quantity. */
function quantityValue(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = QUANTITY.exec(value);
  if (!match || !/^[+-]?(?:\d+\.?\d*|\.\d+)$/.test(match[1]!)) return undefined;
  const suffix = match[2]!;
  const exponent = /^[eE]([-+]?\d+)$/.exec(suffix);
  const scale = exponent ? 10 ** Number(exponent[1]) : SUFFIXES[suffix];
  return scale === undefined ? undefined : Number(match[1]) * scale;
}

// upstream: pkg/apis/core/validation/validation.go ValidateResourceRequirements (quantities, requests within limits)
function validateResources(errs: FieldError[], resources: unknown, field: string): void {
  if (!isRecord(resources)) return;
  const values: Record<'limits' | 'requests', Record<string, number>> = {limits: {}, requests: {}};
  for (const part of ['limits', 'requests'] as const) {
    const list = resources[part];
    if (!isRecord(list)) continue;
    for (const [name, quantity] of Object.entries(list)) {
      const value = quantityValue(quantity);
      if (value === undefined) errs.push(invalid(`${field}.${part}[${name}]`, quantity, goQuote(String(quantity)), QUANTITY_MESSAGE));
      else if (value < 0) errs.push(invalid(`${field}.${part}[${name}]`, quantity, goQuote(String(quantity)), 'must be greater than or equal to 0'));
      else values[part][name] = value;
    }
  }
  for (const [name, request] of Object.entries(values.requests)) {
    const limit = values.limits[name];
    if (limit !== undefined && request > limit) {
      const shown = String((resources['requests'] as Record<string, unknown>)[name]);
      errs.push(invalid(`${field}.requests`, shown, goQuote(shown), `must be less than or equal to ${name} limit`));
    }
  }
}

// upstream: pkg/apis/core/validation/validation.go ValidatePodSecurityContext, ValidateSecurityContext (runAsUser)
function validateRunAsUser(errs: FieldError[], context: unknown, field: string): void {
  if (!isRecord(context)) return;
  for (const key of ['runAsUser', 'runAsGroup']) {
    const id = context[key];
    if (typeof id === 'number' && !(Number.isInteger(id) && id >= 0 && id <= 2147483647)) {
      errs.push(invalid(`${field}.${key}`, id, String(id), 'must be between 0 and 2147483647, inclusive'));
    }
  }
}

const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

// upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go IsValidPortName
function isValidPortName(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push(maxLen(15));
  if (!/^[-a-z0-9]+$/.test(name)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter or number (a-z, 0-9)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

// upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go IsValidPortNum
function isValidPortNum(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

// upstream: pkg/apis/core/validation/validation.go validateContainerPorts, validateHostNetwork
function validateContainerPorts(errs: FieldError[], ports: Container['ports'], field: string, hostNetwork: boolean): void {
  if (ports === undefined || ports === null) return;
  ports.forEach((port, i) => {
    const name = port['name'];
    if (typeof name === 'string' && name !== '')
      for (const msg of isValidPortName(name)) errs.push(invalid(itemPath(field, i, 'name'), name, goQuote(name), msg));
    const hostPort = port.hostPort ?? 0;
    if (hostPort !== 0) for (const msg of isValidPortNum(hostPort)) errs.push(invalid(itemPath(field, i, 'hostPort'), hostPort, String(hostPort), msg));
    const containerPort = port.containerPort ?? 0;
    if (containerPort === 0) errs.push(required(itemPath(field, i, 'containerPort')));
    else for (const msg of isValidPortNum(containerPort)) errs.push(invalid(itemPath(field, i, 'containerPort'), containerPort, String(containerPort), msg));
    const protocol = port['protocol'];
    if (typeof protocol === 'string' && protocol !== '' && !PROTOCOLS.includes(protocol))
      errs.push(notSupported(itemPath(field, i, 'protocol'), protocol, PROTOCOLS));
    if (hostNetwork && hostPort !== 0 && hostPort !== containerPort) {
      errs.push(invalid(itemPath(field, i, 'containerPort'), containerPort, String(containerPort), 'must match `hostPort` when `hostNetwork` is true'));
    }
  });
}

// Thousands of stored pods and nodes carry the same valid tolerations, taints and node selectors: the checks
// below push to the caller's list and build a field path only for an error.

/** The path of part `part` of item `index` of the list at `field`: `spec.tolerations[2].key`. */
function itemPath(field: string, index: number, part: string): string {
  return `${field}[${index}].${part}`;
}

// upstream: staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go ValidateLabelName
function checkLabelName(errs: FieldError[], name: string, field: string, index: number, part: string): void {
  const problems = isQualifiedName(name);
  for (const msg of problems) errs.push(invalid(itemPath(field, index, part), name, goQuote(name), msg));
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

// upstream: pkg/apis/core/validation/validation.go validateTaintEffect
function checkTaintEffect(errs: FieldError[], effect: string, allowEmpty: boolean, field: string, index: number): void {
  if (effect === '') {
    if (!allowEmpty) errs.push(required(itemPath(field, index, 'effect')));
  } else if (!TAINT_EFFECTS.includes(effect)) errs.push(notSupported(itemPath(field, index, 'effect'), effect, TAINT_EFFECTS));
}

// upstream: pkg/apis/core/validation/validation.go ValidateTolerations
function validateTolerations(tolerations: readonly Toleration[] | undefined, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (tolerations === undefined || tolerations === null) return errs;
  for (let i = 0; i < tolerations.length; i++) {
    const toleration = tolerations[i]!;
    const key = toleration.key ?? '';
    const operator = toleration.operator ?? '';
    const value = toleration.value ?? '';
    const effect = toleration.effect ?? '';
    if (key !== '') checkLabelName(errs, key, field, i, 'key');
    if (key === '' && operator !== 'Exists') {
      errs.push(
        invalid(
          itemPath(field, i, 'operator'),
          operator,
          goQuote(operator),
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    }
    if (toleration.tolerationSeconds !== undefined && effect !== 'NoExecute') {
      errs.push(invalid(itemPath(field, i, 'effect'), effect, goQuote(effect), "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (operator === 'Equal' || operator === '') {
      const problems = isValidLabelValue(value);
      if (problems.length > 0) errs.push(invalid(itemPath(field, i, 'operator'), value, goQuote(value), problems.join(';')));
    } else if (operator === 'Exists') {
      if (value !== '') errs.push(invalid(itemPath(field, i, 'operator'), toleration, goQuote(value), "value must be empty when `operator` is 'Exists'"));
    } else errs.push(notSupported(itemPath(field, i, 'operator'), operator, ['Equal', 'Exists']));
    checkTaintEffect(errs, effect, true, field, i);
  }
  return errs;
}

// upstream: pkg/apis/core/validation/validation.go validateNodeSelectorRequirement, validateNodeFieldSelectorRequirement
function checkNodeSelectorRequirements(errs: FieldError[], requirements: readonly NodeSelectorRequirement[] | undefined, field: string, fields: boolean): void {
  if (requirements === undefined || requirements === null) return;
  for (let i = 0; i < requirements.length; i++) {
    const req = requirements[i]!;
    const values = req.values ?? [];
    const operator = req.operator ?? '';
    switch (operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(required(itemPath(field, i, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(forbidden(itemPath(field, i, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      case 'Gt':
      case 'Lt':
        if (values.length !== 1) errs.push(required(itemPath(field, i, 'values'), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
        break;
      default:
        errs.push(invalid(itemPath(field, i, 'operator'), operator, goQuote(operator), 'not a valid selector operator'));
    }
    const key = req.key ?? '';
    if (fields) {
      if (key !== 'metadata.name') errs.push(invalid(itemPath(field, i, 'key'), key, goQuote(key), 'not a valid field selector key'));
    } else checkLabelName(errs, key, field, i, 'key');
  }
}

// upstream: pkg/apis/core/validation/validation.go validateAffinity, validateNodeAffinity, ValidateNodeSelector
function validateAffinity(affinity: Affinity | undefined, field: string): FieldError[] {
  const nodeAffinity = affinity?.nodeAffinity;
  if (nodeAffinity === undefined) return [];
  const errs: FieldError[] = [];
  const requiredTerms = nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
  if (requiredTerms !== undefined) {
    const path = `${field}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
    const terms = requiredTerms.nodeSelectorTerms ?? [];
    if (terms.length === 0) errs.push(required(path, 'must have at least one node selector term'));
    terms.forEach((term, i) => {
      checkNodeSelectorRequirements(errs, term.matchExpressions, `${path}[${i}].matchExpressions`, false);
      checkNodeSelectorRequirements(errs, term.matchFields, `${path}[${i}].matchFields`, true);
    });
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Object metadata

/** The API server's limit on the total size of an object's annotations (keys and values, in bytes). */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code < 0xdc00) {
      bytes += 4; // a surrogate pair: one code point of four bytes
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * The API server's check of an object's annotations' total size (keys and values in UTF-8 bytes): `Too long` past
 * 256 KiB. Exported for the writers that add an annotation of their own (a rollout record) to check it first.
 */
// upstream: staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go ValidateAnnotationsSize
export function validateAnnotationsSize(annotations: Labels | undefined, field = 'metadata.annotations'): FieldError[] {
  if (annotations === undefined || annotations === null) return [];
  let total = 0;
  for (const key in annotations) {
    const value = annotations[key];
    total += utf8Length(key) + (typeof value === 'string' ? utf8Length(value) : 0);
    if (total > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) {
      return [{field, type: 'FieldValueTooLong', message: `Too long: must have at most ${TOTAL_ANNOTATION_SIZE_LIMIT_BYTES} bytes`}];
    }
  }
  return [];
}

// upstream: staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go ValidateAnnotations
function validateAnnotations(annotations: Labels | undefined, field: string): FieldError[] {
  if (annotations === undefined || annotations === null) return [];
  const errs: FieldError[] = [];
  for (const key in annotations) {
    // Keys are qualified names in any case.
    for (const msg of isQualifiedName(key.toLowerCase())) errs.push(invalid(field, key, goQuote(key), msg));
  }
  errs.push(...validateAnnotationsSize(annotations, field));
  return errs;
}

type NameRule = 'subdomain' | 'label';

// upstream: staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go ValidateObjectMeta, validateOwnerReference
function validateObjectMeta(meta: ObjectMeta, rule: NameRule, namespaced: boolean, stored: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const {name, generateName, namespace} = meta;
  if (!name) {
    // A stored object has a name: generateName is only a request to make one up.
    if (stored || !generateName) errs.push(required('metadata.name', 'name or generateName is required'));
  } else {
    const problems = rule === 'label' ? isDNS1123Label(name) : isDNS1123Subdomain(name);
    for (const msg of problems) errs.push(invalid('metadata.name', name, goQuote(name), msg));
  }
  if (namespaced && namespace) {
    for (const msg of isDNS1123Label(namespace)) errs.push(invalid('metadata.namespace', namespace, goQuote(namespace), msg));
  }
  if (!namespaced && namespace) errs.push(forbidden('metadata.namespace', 'not allowed on this type'));
  errs.push(...nonNegative('metadata.generation', meta.generation));
  errs.push(...validateLabels(meta.labels, 'metadata.labels'));
  errs.push(...validateAnnotations(meta.annotations, 'metadata.annotations'));
  const controllers: string[] = [];
  (meta.ownerReferences ?? []).forEach((ref, i) => {
    const field = 'metadata.ownerReferences';
    if (!ref.apiVersion) errs.push(invalid(itemPath(field, i, 'apiVersion'), '', '""', 'version must not be empty'));
    if (!ref.kind) errs.push(invalid(itemPath(field, i, 'kind'), '', '""', 'kind must not be empty'));
    if (!ref.name) errs.push(invalid(itemPath(field, i, 'name'), '', '""', 'name must not be empty'));
    if (!ref.uid) errs.push(invalid(itemPath(field, i, 'uid'), '', '""', 'uid must not be empty'));
    if (ref.controller === true) controllers.push(`${ref.kind}/${ref.name}`);
  });
  if (controllers.length > 1) {
    errs.push(
      invalid(
        'metadata.ownerReferences',
        meta.ownerReferences,
        `${controllers.length} references`,
        `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(' and ')}`,
      ),
    );
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Update strategy (delegated to budgets.ts, which words them as the server does)

const STRATEGY_BODY_TYPES: readonly [string, FieldErrorType][] = [
  ['Required value', 'FieldValueRequired'],
  ['Invalid value', 'FieldValueInvalid'],
  ['Unsupported value', 'FieldValueNotSupported'],
];

function strategyErrors(ds: DaemonSet, minor: number | undefined): FieldError[] {
  return validateRollingUpdate(ds, minor).map((line) => {
    // budgets.ts returns "<field>: <body>" lines; split them back into a cause.
    const at = line.indexOf(': ');
    const field = line.slice(0, at);
    const message = line.slice(at + 2);
    const type = STRATEGY_BODY_TYPES.find(([prefix]) => message.startsWith(prefix))?.[1] ?? 'FieldValueInvalid';
    return {field, type, message};
  });
}

// ---------------------------------------------------------------------------------------------
// DaemonSet

/**
 * The field errors the API server reports for creating `ds` (after defaulting it), in the server's order:
 * metadata.name; selector syntax, selector vs template labels, empty selector; template labels, containers
 * (name, image, pull policy), restartPolicy; activeDeadlineSeconds; minReadySeconds; updateStrategy and
 * rollingUpdate budgets (budgets.ts validateRollingUpdate); revisionHistoryLimit. Empty when valid.
 * A missing selector is not "Required" upstream: it selects nothing, so it fails the template-labels check.
 * `minor`: the Kubernetes minor whose rules and words apply (default: the newest).
 */
// upstream: pkg/apis/apps/validation/validation.go ValidateDaemonSet, ValidateDaemonSetSpec
export function validateDaemonSet(input: DaemonSet, minor?: number): FieldError[] {
  const ds = defaultDaemonSet(input);
  const errs: FieldError[] = validateObjectMeta(ds.metadata, 'subdomain', true, false);

  const spec = ds.spec;
  const selector = spec.selector ?? undefined;
  const templateLabels = spec.template.metadata?.labels;
  errs.push(...validateLabelSelector(selector, 'spec.selector'));
  if ((selector === undefined || !selectorConversionFails(selector)) && !labelSelectorMatches(selector, templateLabels)) {
    errs.push(invalid('spec.template.metadata.labels', templateLabels, goStringMap(templateLabels), '`selector` does not match template `labels`'));
  }
  if (selector !== undefined && Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length === 0) {
    errs.push(invalid('spec.selector', selector, goLabelSelector(selector), 'empty selector is invalid for daemonset'));
  }

  errs.push(...validateLabels(templateLabels, 'spec.template.metadata.labels'));
  errs.push(...validateAnnotations(spec.template.metadata?.annotations, 'spec.template.metadata.annotations'));
  const podSpec = spec.template.spec;
  const containers = podSpec.containers ?? [];
  if (containers.length === 0) errs.push(required('spec.template.spec.containers'));
  const names = new Set<string>();
  const pod = {hostNetwork: podSpec.hostNetwork === true, volumes: volumeNames(errs, podSpec['volumes'], 'spec.template.spec.volumes')};
  errs.push(...validateContainerList(containers, 'spec.template.spec.containers', names, pod));
  errs.push(...validateContainerList(podSpec.initContainers ?? [], 'spec.template.spec.initContainers', names, pod));
  const dnsPolicy = podSpec['dnsPolicy'];
  if (typeof dnsPolicy === 'string' && dnsPolicy !== '' && !DNS_POLICIES.includes(dnsPolicy)) {
    errs.push(notSupported('spec.template.spec.dnsPolicy', dnsPolicy, DNS_POLICIES));
  }
  validateRunAsUser(errs, podSpec['securityContext'], 'spec.template.spec.securityContext');
  const restartPolicy = String(podSpec['restartPolicy'] ?? 'Always');
  if (!RESTART_POLICIES.includes(restartPolicy)) errs.push(notSupported('spec.template.spec.restartPolicy', restartPolicy, RESTART_POLICIES));
  // A DaemonSet's pods must always run.
  if (restartPolicy !== 'Always') errs.push(notSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  errs.push(...validateLabels(podSpec.nodeSelector, 'spec.template.spec.nodeSelector'));
  errs.push(...validateTolerations(podSpec.tolerations, 'spec.template.spec.tolerations'));
  errs.push(...validateAffinity(podSpec.affinity, 'spec.template.spec.affinity'));
  if (podSpec['activeDeadlineSeconds'] !== undefined && podSpec['activeDeadlineSeconds'] !== null) {
    errs.push(forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in DaemonSet is not Supported'));
  }
  errs.push(...nonNegative('spec.minReadySeconds', spec.minReadySeconds));
  errs.push(...strategyErrors(ds, minor));
  errs.push(...nonNegative('spec.revisionHistoryLimit', spec.revisionHistoryLimit));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Objects the core reads as they are stored (snapshot, server): the checks of the fields it reads

/**
 * The field errors of a stored Pod: metadata (name, namespace, labels, owner references), tolerations and
 * node affinity (what eligibility and claims read), and conditions without a type.
 */
// upstream: pkg/apis/core/validation/validation.go ValidatePodCreate (the parts above)
export function validatePod(pod: Pod): FieldError[] {
  const errs = validateObjectMeta(pod.metadata, 'subdomain', true, true);
  errs.push(...validateLabels(pod.spec.nodeSelector, 'spec.nodeSelector'));
  errs.push(...validateTolerations(pod.spec.tolerations, 'spec.tolerations'));
  errs.push(...validateAffinity(pod.spec.affinity, 'spec.affinity'));
  (pod.status?.conditions ?? []).forEach((condition, i) => {
    if (!condition.type) errs.push(required(`status.conditions[${i}].type`));
  });
  return errs;
}

/** The field errors of a stored Node: metadata and taints (key, value, effect, unique by key and effect). */
// upstream: pkg/apis/core/validation/validation.go ValidateNode, validateNodeTaints
export function validateNode(node: Node): FieldError[] {
  const errs = validateObjectMeta(node.metadata, 'subdomain', false, true);
  const seen = new Set<string>();
  (node.spec?.taints ?? []).forEach((taint, i) => {
    const field = 'spec.taints';
    const key = taint.key ?? '';
    const value = taint.value ?? '';
    const effect = taint.effect ?? '';
    checkLabelName(errs, key, field, i, 'key');
    const problems = isValidLabelValue(value);
    if (problems.length > 0) errs.push(invalid(itemPath(field, i, 'value'), value, goQuote(value), problems.join(';')));
    checkTaintEffect(errs, effect, false, field, i);
    const id = `${effect}\u0000${key}`;
    if (seen.has(id)) {
      errs.push({
        field: `${field}[${i}]`,
        type: 'FieldValueDuplicate',
        message: `Duplicate value: ${goQuote(`${key}:${effect}`)}: taints must be unique by key and effect pair`,
      });
    }
    seen.add(id);
  });
  (node.status?.conditions ?? []).forEach((condition, i) => {
    if (!condition.type) errs.push(required(`status.conditions[${i}].type`));
  });
  return errs;
}

/** The field errors of a ControllerRevision: metadata, data present, revision not negative. */
// upstream: pkg/apis/apps/validation/validation.go ValidateControllerRevision
export function validateControllerRevision(revision: ControllerRevision): FieldError[] {
  const errs = validateObjectMeta(revision.metadata, 'subdomain', true, true);
  if (revision.data === undefined || revision.data === null) errs.push(required('data', 'data is mandatory'));
  errs.push(...nonNegative('revision', revision.revision));
  return errs;
}

/** The field errors of a Namespace: its name is a DNS label (at most 63 characters). */
// upstream: pkg/apis/core/validation/validation.go ValidateNamespace
export function validateNamespace(meta: ObjectMeta): FieldError[] {
  return validateObjectMeta(meta, 'label', false, false);
}

/** Selectors compare as Go's Semantic.DeepEqual does: empty and absent maps and lists are the same. */
function normalizedSelector(selector: LabelSelector | undefined): unknown {
  if (selector === undefined || selector === null) return null;
  const matchLabels = selector.matchLabels ?? {};
  const expressions = (selector.matchExpressions ?? []).map((e) => ({key: e.key, operator: e.operator, values: e.values ?? []}));
  return {matchLabels, matchExpressions: expressions};
}

/**
 * The field errors of an update from `old` to `next`: everything validateDaemonSet reports for `next`, then
 * `spec.selector` immutability (apps/v1 refuses any selector change).
 */
// upstream: pkg/registry/apps/daemonset/strategy.go daemonSetStrategy.ValidateUpdate; pkg/apis/core/validation ValidateImmutableField
export function validateDaemonSetUpdate(old: DaemonSet, next: DaemonSet, minor?: number): FieldError[] {
  const errs = validateDaemonSet(next, minor);
  const before = old.spec.selector ?? undefined;
  const after = next.spec.selector ?? undefined;
  if (!deepEqualJson(normalizedSelector(before), normalizedSelector(after))) {
    errs.push(invalid('spec.selector', after, after === undefined ? 'null' : goLabelSelector(after), 'field is immutable'));
  }
  return errs;
}

/** `<field>: <message>`, one cause as Go's field.Error prints it. */
/**
 * An error the API server refuses a write for, but the controller still acts on when an object that has it is
 * stored (written before validation tightened, or past it): an empty selector (SelectingAll, nothing done) and
 * both budgets zero (maxUnavailable falls back to 1). A stored object is planned as the controller acts on it.
 */
export function isToleratedByController(error: FieldError): boolean {
  return (
    (error.field === 'spec.selector' && error.message.endsWith('empty selector is invalid for daemonset')) ||
    (error.field.endsWith('rollingUpdate.maxUnavailable') && error.message.endsWith('cannot be 0 when maxSurge is 0'))
  );
}

export function formatFieldError(error: FieldError): string {
  return `${error.field}: ${error.message}`;
}

/**
 * The 422 Status message: `DaemonSet.apps "x" is invalid: <field>: <message>`, several causes as
 * `[a, b]` with repeated lines dropped (utilerrors aggregate). `kind` is the qualified kind, e.g. `DaemonSet.apps`.
 */
// upstream: staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go NewInvalid; pkg/util/errors aggregate.Error
export function formatInvalid(kind: string, name: string, errors: readonly FieldError[]): string {
  const lines = [...new Set(errors.map(formatFieldError))];
  const body = lines.length === 1 ? lines[0]! : `[${lines.join(', ')}]`;
  return `${kind} ${goQuote(name)} is invalid: ${body}`;
}
