// Reading an object as the API server's decoder reads it, for the fields the core uses: each must have the Go
// type of its field (a string, an int32, a list, ...), or the object is refused with the field's path. null
// is what Go's decoder makes of it: an absent field (kubectl apply accepts `labels:` with nothing under it;
// `rollingUpdate: null` is then defaulted), and a null list element is the element's zero value, which the
// value checks then refuse where the API server does (a toleration or owner reference with nothing in it).
// Fields the core does not read are passed through unchecked.
import {isRfc3339Time} from './rfc3339.js';
import {INT64_MAX, INT64_MIN, nonIntegerNumberText} from './revision-number.js';
import type {ControllerRevision, DaemonSet, Node, ObjectMeta, Pod} from './types.js';
import {
  type FieldError,
  formatFieldError,
  goQuote,
  isToleratedByController,
  validateControllerRevision,
  validateDaemonSet,
  validateNode,
  validatePod,
} from './validation.js';

type Schema =
  | {readonly t: 'string' | 'bool' | 'time' | 'intOrString' | 'stringMap' | 'any'}
  | {readonly t: 'int'; readonly bits: 32 | 64}
  | {readonly t: 'list'; readonly of: Schema}
  | {readonly t: 'object'; readonly entries: readonly FieldEntry[]};

/** A field of an object schema; `struct`: a Go struct (not a pointer), so an absent one decodes to an empty object. */
interface FieldEntry {
  readonly key: string;
  readonly schema: Schema;
  readonly struct: boolean;
}

const str: Schema = {t: 'string'};
const bool: Schema = {t: 'bool'};
const time: Schema = {t: 'time'};
const intOrString: Schema = {t: 'intOrString'};
const stringMap: Schema = {t: 'stringMap'};
const any: Schema = {t: 'any'};
const int32: Schema = {t: 'int', bits: 32};
const int64: Schema = {t: 'int', bits: 64};
const list = (of: Schema): Schema => ({t: 'list', of});
const obj = (fields: Record<string, Schema>, struct: readonly string[] = []): Schema => ({
  t: 'object',
  entries: Object.entries(fields).map(([key, schema]) => ({key, schema, struct: struct.includes(key)})),
});

const ownerReference = obj({apiVersion: str, kind: str, name: str, uid: str, controller: bool, blockOwnerDeletion: bool});
const objectMeta = obj({
  name: str,
  generateName: str,
  namespace: str,
  uid: str,
  resourceVersion: str,
  generation: int64,
  creationTimestamp: time,
  deletionTimestamp: time,
  deletionGracePeriodSeconds: int64,
  labels: stringMap,
  annotations: stringMap,
  ownerReferences: list(ownerReference),
  finalizers: list(str),
  managedFields: list(obj({manager: str, operation: str, time, fieldsType: str, fieldsV1: any})),
});
const requirement = obj({key: str, operator: str, values: list(str)});
const labelSelector = obj({matchLabels: stringMap, matchExpressions: list(requirement)});
const nodeSelectorTerm = obj({matchExpressions: list(requirement), matchFields: list(requirement)});
const affinity = obj({
  nodeAffinity: obj({
    requiredDuringSchedulingIgnoredDuringExecution: obj({nodeSelectorTerms: list(nodeSelectorTerm)}),
    preferredDuringSchedulingIgnoredDuringExecution: list(obj({weight: int32, preference: nodeSelectorTerm}, ['preference'])),
  }),
  podAffinity: obj({}),
  podAntiAffinity: obj({}),
});
const toleration = obj({key: str, operator: str, value: str, effect: str, tolerationSeconds: int64});
const container = obj({
  name: str,
  image: str,
  imagePullPolicy: str,
  ports: list(obj({containerPort: int32, hostPort: int32, protocol: str, name: str, hostIP: str})),
});
const podSpec = obj({
  nodeName: str,
  nodeSelector: stringMap,
  affinity,
  tolerations: list(toleration),
  hostNetwork: bool,
  containers: list(container),
  initContainers: list(container),
  terminationGracePeriodSeconds: int64,
  activeDeadlineSeconds: int64,
  restartPolicy: str,
});
const containerState = obj({
  waiting: obj({reason: str, message: str}),
  running: obj({startedAt: time}),
  terminated: obj({reason: str, exitCode: int32, message: str}),
});
const containerStatus = obj({name: str, ready: bool, restartCount: int32, image: str, started: bool, state: containerState, lastState: containerState});
const condition = obj({type: str, status: str, reason: str, message: str, lastTransitionTime: time});

const SCHEMAS = {
  Pod: obj(
    {
      metadata: objectMeta,
      spec: podSpec,
      status: obj({
        phase: str,
        reason: str,
        message: str,
        startTime: time,
        conditions: list(condition),
        containerStatuses: list(containerStatus),
        initContainerStatuses: list(containerStatus),
      }),
    },
    ['metadata', 'spec'],
  ),
  DaemonSet: obj(
    {
      metadata: objectMeta,
      spec: obj(
        {
          selector: labelSelector,
          template: obj({metadata: objectMeta, spec: podSpec}, ['spec']),
          updateStrategy: obj({type: str, rollingUpdate: obj({maxUnavailable: intOrString, maxSurge: intOrString})}),
          minReadySeconds: int32,
          revisionHistoryLimit: int32,
        },
        ['template'],
      ),
      status: obj({
        observedGeneration: int64,
        desiredNumberScheduled: int32,
        currentNumberScheduled: int32,
        numberMisscheduled: int32,
        numberReady: int32,
        updatedNumberScheduled: int32,
        numberAvailable: int32,
        numberUnavailable: int32,
        collisionCount: int32,
        conditions: list(any),
      }),
    },
    ['metadata', 'spec'],
  ),
  Node: obj(
    {
      metadata: objectMeta,
      spec: obj({taints: list(obj({key: str, value: str, effect: str, timeAdded: time})), unschedulable: bool}),
      status: obj({conditions: list(condition)}),
    },
    ['metadata'],
  ),
  ControllerRevision: obj({metadata: objectMeta, data: any, revision: int64}, ['metadata']),
} as const;

export type DecodedKind = keyof typeof SCHEMAS;

export function isDecodedKind(kind: string): kind is DecodedKind {
  return Object.hasOwn(SCHEMAS, kind);
}

export interface Decoded {
  /** The object with nulls decoded as Go decodes them; undefined when it has type errors. */
  readonly object: Record<string, unknown> | undefined;
  readonly errors: readonly FieldError[];
}

/**
 * Decodes `value` as a `kind`: type errors (a string where a list belongs, 1.5 or 2^31 for an int32, an
 * impossible date) with their field paths, or the object with null fields removed and null list elements
 * replaced by their zero value. A ControllerRevision without `revision` gets 0, as Go gives it.
 */
export function decodeObject(kind: DecodedKind, value: unknown): Decoded {
  const errors: FieldError[] = [];
  let decoded = decode(SCHEMAS[kind], value, UNTRACKED, undefined, errors) as Record<string, unknown>;
  if (errors.length > 0) {
    const named: FieldError[] = [];
    decode(SCHEMAS[kind], value, undefined, undefined, named);
    return {object: undefined, errors: named};
  }
  if (kind === 'ControllerRevision' && decoded['revision'] === undefined) decoded = {...decoded, revision: 0};
  return {object: decoded, errors};
}

/** `path: message` for the first error, with a count of the others: the one line a command prints. */
export function summarizeFieldErrors(errors: readonly FieldError[], prefix = ''): string {
  const first = errors[0]!;
  const rest = errors.length > 1 ? ` (and ${errors.length - 1} more ${errors.length === 2 ? 'error' : 'errors'})` : '';
  const field = join(prefix, first.field);
  // The whole object (a string where an object belongs) has no field to name.
  return `${field === '' ? first.message : formatFieldError({...first, field})}${rest}`;
}

function join(prefix: string, field: string): string {
  if (prefix === '') return field;
  if (field === '') return prefix;
  return field.startsWith('[') ? `${prefix}${field}` : `${prefix}.${field}`;
}

const INT_RANGE = {32: [-(2 ** 31), 2 ** 31 - 1]} as const;

/** Where a value is, kept as links and written out only for an error (most objects have none). */
interface PathNode {
  readonly parent: PathNode | undefined;
  readonly key: string;
  /** `[key]` (a list index or a map key) rather than `.key`. */
  readonly bracket: boolean;
}

function pathText(node: PathNode | undefined): string {
  let text = '';
  for (let at = node; at !== undefined; at = at.parent) {
    text = at.bracket ? `[${at.key}]${text}` : at.parent === undefined ? `${at.key}${text}` : `.${at.key}${text}`;
  }
  return text;
}

function typeError(path: PathNode | undefined, value: unknown, detail: string): FieldError {
  return {field: pathText(path), type: 'FieldValueInvalid', message: `Invalid value: ${shown(value)}: ${detail}`, value};
}

/** A value as the messages show it: strings quoted as Go quotes them, lists and objects as short JSON. */
function shown(value: unknown): string {
  const written = nonIntegerNumberText(value);
  if (written !== undefined) return written;
  if (typeof value === 'string') return goQuote(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (typeof value !== 'object') return String(value);
  let json: string;
  try {
    json = JSON.stringify(value);
  } catch {
    // Nested past the stack (a hostile value): its shape is enough.
    return Array.isArray(value) ? '[...]' : '{...}';
  }
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function zeroOf(schema: Schema): unknown {
  switch (schema.t) {
    case 'string':
    case 'time':
      return '';
    case 'bool':
      return false;
    case 'int':
    case 'intOrString':
      return 0;
    case 'object':
    case 'stringMap':
      return {};
    default:
      return undefined;
  }
}

const KEEPS_NULL = new Set<Schema['t']>(['string', 'time', 'bool', 'any']);

/**
 * The path node of the value at `key` of `parent` (a number: a list index), made only when needed: for an error,
 * or as the parent of a list's or an object's children. Most values are leaves without errors.
 */
function pathTo(parent: PathNode | undefined, key: string | number | undefined): PathNode | undefined {
  if (parent === UNTRACKED) return UNTRACKED;
  return key === undefined ? parent : {parent, key: String(key), bracket: typeof key === 'number'};
}

/**
 * The parent of a first pass that makes no path nodes at all: objects nearly always decode without an error, so
 * decodeObject first only learns whether there is one, and names the fields in a second pass when there is.
 */
const UNTRACKED: PathNode = {parent: undefined, key: '', bracket: false};

/**
 * Decodes one value: `value` itself when decoding changes nothing (the common case: no copy is made), errors
 * pushed to `errors`. `parent` and `key` say where the value is, for the errors' field paths.
 */
type Decoder = (value: unknown, parent: PathNode | undefined, key: string | number | undefined, errors: FieldError[]) => unknown;

// Each schema is turned into one function, once: decoding every object of a large cluster walks the same few
// schemas tens of thousands of times, and a function per schema node is faster to run (and to warm up) than
// one function that interprets the schema at every value.
const decoders = new WeakMap<Schema, Decoder>();

function decoderOf(schema: Schema): Decoder {
  let decoder = decoders.get(schema);
  if (decoder === undefined) {
    decoder = compile(schema);
    decoders.set(schema, decoder);
  }
  return decoder;
}

function decode(schema: Schema, value: unknown, parent: PathNode | undefined, key: string | number | undefined, errors: FieldError[]): unknown {
  return decoderOf(schema)(value, parent, key, errors);
}

/** A decoder that checks a leaf's type: `valid` or an error saying `detail`. */
function leaf(valid: (value: unknown) => boolean, detail: (value: unknown) => string): Decoder {
  return (value, parent, key, errors) => {
    if (!valid(value)) errors.push(typeError(pathTo(parent, key), value, detail(value)));
    return value;
  };
}

/** The one decoder of a schema node: a leaf's type check, or a walk over a map's, a list's or an object's values. */
function compile(schema: Schema): Decoder {
  switch (schema.t) {
    case 'any':
      return (value) => value;
    case 'string':
      return leaf(
        (value) => typeof value === 'string',
        () => 'must be a string',
      );
    case 'bool':
      return leaf(
        (value) => typeof value === 'boolean',
        () => 'must be a boolean',
      );
    case 'time':
      return leaf(
        (value) => typeof value === 'string' && isRfc3339Time(value),
        () => 'must be an RFC3339 time such as "2026-11-21T12:00:00Z"',
      );
    case 'int':
      return schema.bits === 64 ? int64Decoder() : int32Decoder();
    case 'intOrString': {
      const [min, max] = INT_RANGE[32];
      return leaf(
        (value) => typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max),
        () => `must be an integer from ${min} to ${max} or a string such as "25%"`,
      );
    }
    case 'stringMap':
      return stringMapDecoder();
    case 'list':
      return listDecoder(schema.of);
    case 'object':
      return objectDecoder(schema.entries);
  }
}

// A JSON number is read as a double: past 2^53 it is no longer the integer written (2^53+1 reads as 2^53).
// A revision's digits are restored as a bigint before decoding (restoreExactRevisions); any other int64
// still a rounded double is refused rather than used rounded.
function int64Decoder(): Decoder {
  return leaf(
    (value) => (typeof value === 'number' && Number.isSafeInteger(value)) || (typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX),
    (value) =>
      nonIntegerNumberText(value) !== undefined
        ? 'must be an integer written without a fraction or an exponent, as Go reads an int64'
        : typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) >= 2 ** 63)
          ? `must be an integer from ${INT64_MIN} to ${INT64_MAX}`
          : typeof value !== 'number' || !Number.isInteger(value)
            ? 'must be an integer'
            : 'must be an integer from -9007199254740991 to 9007199254740991 (larger ones cannot be read exactly)',
  );
}

function int32Decoder(): Decoder {
  const [min, max] = INT_RANGE[32];
  return leaf(
    (value) => typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max,
    (value) => (typeof value !== 'number' || !Number.isInteger(value) ? 'must be an integer' : `must be an integer from ${min} to ${max}`),
  );
}

/** Labels and annotations: each value a string, a null one decoded to "" as Go decodes it. */
function stringMapDecoder(): Decoder {
  return (value, parent, key, errors) => {
    if (!isRecord(value)) {
      errors.push(typeError(pathTo(parent, key), value, 'must be a map of strings'));
      return value;
    }
    let out: Record<string, unknown> | undefined;
    for (const name in value) {
      const v = value[name];
      if (typeof v === 'string') continue;
      if (v === null) (out ??= {...value})[name] = '';
      else errors.push(typeError({parent: pathTo(parent, key), key: name, bracket: true}, v, 'must be a string'));
    }
    return out ?? value;
  };
}

/** A list: each element decoded, a null one replaced by its zero value; copied only when an element changed. */
function listDecoder(of: Schema): Decoder {
  const item = decoderOf(of);
  return (value, parent, key, errors) => {
    if (!Array.isArray(value)) {
      errors.push(typeError(pathTo(parent, key), value, 'must be a list'));
      return value;
    }
    let out: unknown[] | undefined;
    const path = pathTo(parent, key);
    for (let i = 0; i < value.length; i++) {
      const element: unknown = value[i];
      const decoded = element === null ? zeroOf(of) : item(element, path, i, errors);
      if (decoded !== element) (out ??= [...value])[i] = decoded;
    }
    return out ?? value;
  };
}

/** An object: its known fields decoded, null ones removed, absent structs made empty; unknown fields passed through. */
function objectDecoder(entries: readonly FieldEntry[]): Decoder {
  const fields = entries.map((field) => ({
    key: field.key,
    decode: decoderOf(field.schema),
    struct: field.struct,
    // A null string, time or boolean stays as written (kubectl prints `creationTimestamp: null` in
    // templates, and revisions hold them), the core reads it as absent; other nulls go.
    keepsNull: KEEPS_NULL.has(field.schema.t),
  }));
  return (value, parent, key, errors) => {
    if (!isRecord(value)) {
      errors.push(typeError(pathTo(parent, key), value, 'must be an object'));
      return value;
    }
    let out: Record<string, unknown> | undefined;
    const path = pathTo(parent, key);
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i]!;
      const v = value[field.key];
      if (v === undefined || v === null) {
        if (v === null && field.keepsNull) continue;
        if (v === null) delete (out ??= {...value})[field.key];
        if (field.struct) (out ??= {...value})[field.key] = field.decode({}, path, field.key, errors);
        continue;
      }
      const decoded = field.decode(v, path, field.key, errors);
      if (decoded !== v) (out ??= {...value})[field.key] = decoded;
    }
    return out ?? value;
  };
}

// ---------------------------------------------------------------------------------------------
// The one validation pass over stored objects (a snapshot's, a server's)

/** The value checks of a stored object of each kind, after its types decoded. */
/** The API server's value checks of an object of a kind this tool reads (also the simulated cluster's admission). */
export function valueErrorsOf(kind: DecodedKind, object: Record<string, unknown>): FieldError[] {
  switch (kind) {
    case 'DaemonSet':
      return validateDaemonSet(object as unknown as DaemonSet);
    case 'Pod':
      return validatePod(object as unknown as Pod);
    case 'Node':
      return validateNode(object as unknown as Node);
    case 'ControllerRevision':
      return validateControllerRevision(object as unknown as ControllerRevision);
  }
}

function storedObjectErrors(kind: DecodedKind, object: Record<string, unknown>): FieldError[] {
  const errors = valueErrorsOf(kind, object);
  // What only admission refuses is planned as the controller acts on it (a warning in the plan).
  return kind === 'DaemonSet' ? errors.filter((error) => !isToleratedByController(error)) : errors;
}

export interface ReadObject {
  readonly object: Record<string, unknown> | undefined;
  /** Type errors, else the value errors: fields as the API server names them. */
  readonly errors: readonly FieldError[];
}

/** One stored object through the pass: decoded as the API server decodes it, then checked as it validates it. */
export function readStoredObject(kind: DecodedKind, value: unknown): ReadObject {
  const decoded = decodeObject(kind, value);
  if (decoded.object === undefined) return decoded;
  const errors = storedObjectErrors(kind, decoded.object);
  return errors.length > 0 ? {object: undefined, errors} : decoded;
}

export interface InputObject {
  readonly kind: DecodedKind;
  readonly value: unknown;
  /** Where it was found, for messages: e.g. `items[12]`. */
  readonly where: string;
}

export interface StoredObjects {
  readonly daemonSets: readonly DaemonSet[];
  readonly nodes: readonly Node[];
  readonly pods: readonly Pod[];
  readonly revisions: readonly ControllerRevision[];
}

export interface StoredObjectsRead {
  readonly objects: StoredObjects;
  /** One line per problem, `<where>.<field>: <message> (<Kind> <namespace>/<name>)`; empty when all is well. */
  readonly problems: readonly string[];
}

function identity(kind: DecodedKind, value: unknown): string {
  const meta = isRecord(value) && isRecord(value['metadata']) ? value['metadata'] : {};
  const name = typeof meta['name'] === 'string' ? meta['name'] : '';
  const namespace = typeof meta['namespace'] === 'string' && kind !== 'Node' ? meta['namespace'] : '';
  return `${kind} ${namespace === '' ? '' : `${namespace}/`}${name}`;
}

/**
 * Every object of a snapshot (or any set of stored objects) through the one pass: types, values, then
 * duplicates: the same kind with the same namespace and name, or with the same uid, would be one object on a
 * server, so two of them are an error naming both places. Objects without a namespace are in "default".
 */
export function readStoredObjects(items: readonly InputObject[]): StoredObjectsRead {
  const problems: string[] = [];
  const out = {DaemonSet: [] as unknown[], Node: [] as unknown[], Pod: [] as unknown[], ControllerRevision: [] as unknown[]};
  const byName = new Map<string, string>();
  const byUid = new Map<string, string>();
  for (const item of items) {
    const {object, errors} = readStoredObject(item.kind, item.value);
    if (object === undefined) {
      for (const error of errors) problems.push(`${summarizeFieldErrors([error], item.where)} (${identity(item.kind, item.value)})`);
      continue;
    }
    const meta = object['metadata'] as unknown as ObjectMeta;
    const namespace = item.kind === 'Node' ? '' : (meta.namespace ?? 'default');
    const nameKey = `${item.kind}\u0000${namespace}\u0000${meta.name}`;
    // Worded only for a problem: names are unique in nearly every snapshot of thousands of objects.
    const shownName = () => `${item.kind} ${namespace === '' ? '' : `${namespace}/`}${meta.name}`;
    const sameName = byName.get(nameKey);
    if (sameName !== undefined) problems.push(`${item.where}: Duplicate value: ${shownName()} is also ${sameName}`);
    else byName.set(nameKey, item.where);
    if (meta.uid) {
      const uidKey = `${item.kind}\u0000${meta.uid}`;
      const sameUid = byUid.get(uidKey);
      if (sameUid !== undefined && sameName === undefined)
        problems.push(`${item.where}: Duplicate value: ${shownName()} has the uid ${goQuote(meta.uid)} of ${sameUid}`);
      else if (sameUid === undefined) byUid.set(uidKey, item.where);
    }
    out[item.kind].push(object);
  }
  return {
    objects: {
      daemonSets: out.DaemonSet as DaemonSet[],
      nodes: out.Node as Node[],
      pods: out.Pod as Pod[],
      revisions: out.ControllerRevision as ControllerRevision[],
    },
    problems,
  };
}
