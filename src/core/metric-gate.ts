// The metric gate of a gated rollout: PromQL queries judged against a bound while a stage steps and bakes. Pure:
// the query's text for a stage, the answer of Prometheus's /api/v1/query read into a value (or "no data", or an
// error), and a breach judged over time on the clock the caller passes (the server's, as bakes are). The service
// (services/metric-gate.ts) asks Prometheus; this module decides.
import type {GateFailure, GateReading, StrategyPath, StrategyProblem} from './types.js';

/** What an answer without a value, or a failed query, counts as: a breach, a pass, or nothing (the last verdict stands). */
export type Inconclusive = 'fail' | 'pass' | 'ignore';

export interface MetricQuery {
  /** The name the user knows it by (readings, failures, Events). */
  readonly name: string;
  /** PromQL; `$nodes` stands for the stage's nodes as a regular expression (`node-1|node-2`). */
  readonly query: string;
  /** A value above fails. */
  readonly max?: number;
  /** A value below fails. */
  readonly min?: number;
  /** How long (server ms) a breach must last before the stage fails; 0: at once. */
  readonly forMs: number;
  /** How often (server ms) the query runs. */
  readonly intervalMs: number;
  readonly noData: Inconclusive;
  readonly onError: Inconclusive;
}

/** Where Prometheus is: a URL, or a Service reached through the API server's service proxy. */
export interface PrometheusTarget {
  readonly url?: string;
  readonly service?: ServiceRef;
  /** A bearer token, read from this file (URL only: the proxy uses the kubeconfig's credentials). */
  readonly tokenFile?: string;
  /** The CA that signs Prometheus's certificate (URL only). */
  readonly caFile?: string;
}

export interface ServiceRef {
  readonly namespace: string;
  readonly name: string;
  /** A port number or name. */
  readonly port: string;
}

export const DEFAULT_METRIC_INTERVAL_MS = 10_000;
/** The most queries a rollout keeps (its record lives in an annotation). */
export const MAX_METRIC_QUERIES = 5;
const MAX_QUERY_CHARS = 1024;
const MAX_NAME_CHARS = 63;
/** A reading's value as the record keeps it. */
const MAX_VALUE_CHARS = 48;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** `service/NAMESPACE/NAME:PORT` (or `NAMESPACE/NAME:PORT`), or a one-line reason. */
export function parseServiceRef(text: string): ServiceRef | string {
  const match = /^(?:service\/)?([^/:\s]+)\/([^/:\s]+):([^/:\s]+)$/.exec(text.trim());
  const want = 'want service/NAMESPACE/NAME:PORT, e.g. service/monitoring/prometheus-k8s:9090';
  if (!match) return `"${text.slice(0, 80)}": ${want}`;
  const [, namespace, name, port] = match as unknown as [string, string, string, string];
  if (!DNS_LABEL.test(namespace) || !DNS_LABEL.test(name)) return `"${text.slice(0, 80)}": the namespace and name are DNS labels; ${want}`;
  if (!/^\d+$/.test(port) && !DNS_LABEL.test(port)) return `"${text.slice(0, 80)}": the port is a number or a port name; ${want}`;
  return {namespace, name, port};
}

/** A Prometheus URL, or a one-line reason (no credentials in it: a token goes in a file). */
export function checkPrometheusUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `"${text.slice(0, 80)}" is not a URL (want e.g. http://prometheus.monitoring:9090)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `"${url.protocol}" is not http: or https:`;
  if (url.username !== '' || url.password !== '')
    return 'a Prometheus URL carries no credentials: put a bearer token in a file and name it with tokenFile (--prometheus-token-file)';
  return undefined;
}

/** RE2's metacharacters, escaped for a regular expression inside a PromQL string literal ("..." or '...'). */
function escapeRegex(text: string): string {
  // One backslash for the regular expression, doubled for the string literal it sits in.
  return text.replace(/[\\.+*?()|[\]{}^$"']/g, (c) => (c === '"' || c === "'" ? `\\${c}` : `\\\\${c}`));
}

/**
 * The query for a stage: `$nodes` becomes the stage's nodes, each escaped, joined with `|` (for `{node=~"$nodes"}`);
 * every node (no list): `.+`.
 */
export function templateMetricQuery(query: string, nodes: readonly string[] | undefined): string {
  const pattern = nodes === undefined ? '.+' : nodes.length === 0 ? '^$' : nodes.map(escapeRegex).join('|');
  return query.replace(/\$nodes\b/g, () => pattern);
}

/** What one query returned: a value, nothing (an empty vector, NaN), or an error. */
export type MetricAnswer =
  /** `node`: the worst series' `node` label, when it has one (`max by (node) (...)`). */
  {readonly kind: 'value'; readonly value: number; readonly node?: string} | {readonly kind: 'no-data'} | {readonly kind: 'error'; readonly message: string};

function sampleValue(sample: unknown): number | undefined {
  if (!Array.isArray(sample) || sample.length !== 2 || typeof sample[1] !== 'string') return undefined;
  const value = Number(sample[1]);
  return Number.isNaN(value) ? undefined : value;
}

/**
 * The answer of `/api/v1/query` (its JSON body) for a query bounded by `max` or `min`: a scalar's value, or of a
 * vector's series the worst (the highest against a max, the lowest against a min). An empty vector or NaN: no data.
 */
export function readMetricAnswer(body: unknown, bound: Pick<MetricQuery, 'max' | 'min'>): MetricAnswer {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  if (fields['status'] === 'error')
    return {kind: 'error', message: `${String(fields['errorType'] ?? 'error')}: ${String(fields['error'] ?? '')}`.slice(0, 200)};
  const data = fields['data'] as {resultType?: unknown; result?: unknown} | undefined;
  if (fields['status'] !== 'success' || typeof data !== 'object' || data === null) return {kind: 'error', message: 'not an answer of Prometheus /api/v1/query'};
  if (data.resultType === 'scalar') {
    const value = sampleValue(data.result);
    return value === undefined ? {kind: 'no-data'} : {kind: 'value', value};
  }
  if (data.resultType !== 'vector' || !Array.isArray(data.result)) {
    return {kind: 'error', message: `the query returns a ${String(data.resultType)}, not an instant vector or a scalar`};
  }
  const lowest = bound.min !== undefined && bound.max === undefined;
  let worst: {value: number; node?: string} | undefined;
  for (const series of data.result as {value?: unknown; metric?: Record<string, unknown>}[]) {
    const value = sampleValue(series?.value);
    if (value === undefined || (worst !== undefined && (lowest ? value >= worst.value : value <= worst.value))) continue;
    const node = series.metric?.['node'];
    worst = typeof node === 'string' && node !== '' ? {value, node} : {value};
  }
  return worst === undefined ? {kind: 'no-data'} : {kind: 'value', ...worst};
}

/** What the gate remembers of one query between its runs. */
export interface MetricState {
  /** Server ms: since when the breach under way has lasted. */
  readonly breachSince?: number;
}

export interface MetricJudgement {
  readonly state: MetricState;
  readonly reading: GateReading;
  /** Set once the breach has lasted the query's `for`. */
  readonly failure?: GateFailure;
}

function formatValue(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(4)));
}

export function boundText(query: Pick<MetricQuery, 'max' | 'min'>): string {
  const parts = [...(query.min !== undefined ? [`min ${query.min}`] : []), ...(query.max !== undefined ? [`max ${query.max}`] : [])];
  return parts.join(', ');
}

function durationText(ms: number): string {
  return ms % 60_000 === 0 && ms > 0 ? `${ms / 60_000}m` : `${ms / 1000}s`;
}

/**
 * One run of a query judged at `now` (server ms): a value outside its bound, or an inconclusive answer that counts
 * as a breach, starts (or continues) a breach; the stage fails once it has lasted `forMs`. An inconclusive answer
 * that counts as a pass ends it; one that is ignored leaves it as it was.
 */
export function judgeMetric(query: MetricQuery, answer: MetricAnswer, now: number, state: MetricState): MetricJudgement {
  const bound = boundText(query);
  const value = answer.kind === 'value' ? formatValue(answer.value) : answer.kind === 'no-data' ? 'no data' : `error: ${answer.message}`;
  let breach: boolean | undefined;
  if (answer.kind === 'value') {
    breach = (query.max !== undefined && answer.value > query.max) || (query.min !== undefined && answer.value < query.min) || Number.isNaN(answer.value);
  } else {
    const rule = answer.kind === 'no-data' ? query.noData : query.onError;
    breach = rule === 'fail' ? true : rule === 'pass' ? false : undefined;
  }
  const next: MetricState = breach === undefined ? state : breach ? {breachSince: state.breachSince ?? now} : {};
  const lasted = next.breachSince === undefined ? 0 : now - next.breachSince;
  const failed = breach === true && lasted >= query.forMs;
  const verdict: GateReading['verdict'] = failed ? 'fail' : answer.kind !== 'value' || breach === true ? 'inconclusive' : 'pass';
  const reading: GateReading = {gate: 'metric', name: query.name, value: value.slice(0, MAX_VALUE_CHARS), bound, verdict};
  if (!failed) return {state: next, reading};
  const node = answer.kind === 'value' ? answer.node : undefined;
  const why =
    answer.kind === 'value'
      ? `${value}${node !== undefined ? ` on node ${node}` : ''}, outside ${bound}`
      : answer.kind === 'no-data'
        ? 'no data (noData: fail)'
        : `${value} (onError: fail)`;
  return {
    state: next,
    reading,
    failure: {pod: '', node: node ?? '', gate: 'metric', reason: `metric ${query.name}: ${why}${query.forMs > 0 ? ` for ${durationText(query.forMs)}` : ''}`},
  };
}

/**
 * The longest readings `metrics` can leave in a record: a new rollout's record must fit its start budget with them
 * (MAX_START_RECORD_BYTES), so readings never push it past what failures leave room for.
 */
export function longestReadings(metrics: readonly MetricQuery[]): GateReading[] {
  return metrics.map((m) => ({gate: 'metric', name: m.name, value: 'x'.repeat(MAX_VALUE_CHARS), bound: boundText(m), verdict: 'inconclusive'}));
}

// ---------------------------------------------------------------------------------------------------------------
// The strategy file's `metrics:` and `prometheus:`

type Problem = {problem: StrategyProblem};
const problem = (path: StrategyPath, message: string): Problem => ({problem: {path, message}});

const METRIC_KEYS = ['name', 'query', 'max', 'min', 'for', 'interval', 'noData', 'onError'] as const;
const PROMETHEUS_KEYS = ['url', 'service', 'tokenFile', 'caFile'] as const;

/**
 * `metrics:` of a strategy document: a list of {name, query, max|min, for, interval, noData, onError}. `duration`
 * parses `30s` (throwing a one-line reason).
 */
export function metricsFromDocument(value: unknown, duration: (text: string) => number): {metrics: MetricQuery[]} | Problem {
  if (!Array.isArray(value) || value.length === 0) return problem(['metrics'], 'metrics: want a list of {name, query, max or min, for, interval}');
  if (value.length > MAX_METRIC_QUERIES) return problem(['metrics'], `metrics: at most ${MAX_METRIC_QUERIES} queries`);
  const metrics: MetricQuery[] = [];
  const names = new Set<string>();
  for (const [i, entry] of value.entries()) {
    const at = (key?: string): StrategyPath => (key === undefined ? ['metrics', i] : ['metrics', i, key]);
    const where = `metrics[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return problem(at(), `${where}: want {name, query, max or min, ...}`);
    const fields = entry as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      if (!(METRIC_KEYS as readonly string[]).includes(key))
        return problem(at(key), `${where}: unknown field "${key}" (want one of ${METRIC_KEYS.join(', ')})`);
    }
    const built = metricQueryOf(
      {
        name: fields['name'],
        query: fields['query'],
        max: fields['max'],
        min: fields['min'],
        for: fields['for'],
        interval: fields['interval'],
        noData: fields['noData'],
        onError: fields['onError'],
      },
      duration,
    );
    if ('problem' in built) return problem(at(built.problem.key), `${where}.${built.problem.key}: ${built.problem.message}`);
    if (names.has(built.metric.name)) return problem(at('name'), `${where}.name: "${built.metric.name}" is named twice`);
    names.add(built.metric.name);
    metrics.push(built.metric);
  }
  return {metrics};
}

/** One query's fields (from a strategy file or the flags) checked, or the field at fault and why. */
export function metricQueryOf(
  fields: Readonly<Record<(typeof METRIC_KEYS)[number], unknown>>,
  duration: (text: string) => number,
): {metric: MetricQuery} | {problem: {key: string; message: string}} {
  const fail = (key: string, message: string) => ({problem: {key, message}});
  const name = fields.name ?? 'metric';
  if (typeof name !== 'string' || !/^[A-Za-z0-9][-A-Za-z0-9_. ]*$/.test(name) || name.length > MAX_NAME_CHARS)
    return fail('name', `want a name of letters, digits, "-", "_", "." (at most ${MAX_NAME_CHARS})`);
  const query = fields.query;
  if (typeof query !== 'string' || query.trim() === '') return fail('query', 'want a PromQL expression');
  if (query.length > MAX_QUERY_CHARS) return fail('query', `at most ${MAX_QUERY_CHARS} characters (the record lives in an annotation)`);
  const bounds: {max?: number; min?: number} = {};
  for (const key of ['max', 'min'] as const) {
    const value = fields[key];
    if (value === undefined) continue;
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isFinite(number)) return fail(key, 'want a number');
    bounds[key] = number;
  }
  if (bounds.max === undefined && bounds.min === undefined) return fail('max', 'want a bound: max (a value above fails) or min (a value below fails)');
  if (bounds.max !== undefined && bounds.min !== undefined && bounds.min > bounds.max) return fail('min', `${bounds.min} is above max ${bounds.max}`);
  const ms = (key: 'for' | 'interval', fallback: number): number | {problem: {key: string; message: string}} => {
    const value = fields[key];
    if (value === undefined) return fallback;
    if (typeof value === 'number' && value >= 0) return value * 1000;
    if (typeof value !== 'string') return fail(key, 'want a duration such as 30s or 2m');
    try {
      return duration(value);
    } catch (error) {
      return fail(key, (error as Error).message.replace(/^invalid duration /, 'invalid '));
    }
  };
  const forMs = ms('for', 0);
  if (typeof forMs !== 'number') return forMs;
  const intervalMs = ms('interval', DEFAULT_METRIC_INTERVAL_MS);
  if (typeof intervalMs !== 'number') return intervalMs;
  if (intervalMs < 1000) return fail('interval', 'want at least 1s');
  const rules: {noData?: Inconclusive; onError?: Inconclusive} = {};
  for (const key of ['noData', 'onError'] as const) {
    const value = fields[key];
    if (value === undefined) continue;
    if (value !== 'fail' && value !== 'pass' && value !== 'ignore') return fail(key, 'want fail, pass or ignore');
    rules[key] = value;
  }
  return {metric: {name, query, ...bounds, forMs, intervalMs, noData: rules.noData ?? 'fail', onError: rules.onError ?? 'fail'}};
}

/** `prometheus:` of a strategy document: {url | service, tokenFile, caFile}. */
export function prometheusFromDocument(value: unknown): {prometheus: PrometheusTarget} | Problem {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return problem(['prometheus'], 'prometheus: want {url: URL} or {service: service/NAMESPACE/NAME:PORT}');
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!(PROMETHEUS_KEYS as readonly string[]).includes(key))
      return problem(['prometheus', key], `prometheus: unknown field "${key}" (want one of ${PROMETHEUS_KEYS.join(', ')})`);
  }
  const built = prometheusTargetOf({url: fields['url'], service: fields['service'], tokenFile: fields['tokenFile'], caFile: fields['caFile']});
  return 'problem' in built ? problem(['prometheus', built.problem.key], `prometheus.${built.problem.key}: ${built.problem.message}`) : built;
}

/**
 * The strategy file's `metrics:` that says `metrics` (durations in seconds, as the file takes them): what
 * metricsFromDocument reads back the same. How a fleet rollout hands its metric gate to a cluster's Job.
 */
export function metricsDocumentOf(metrics: readonly MetricQuery[]): Record<string, unknown>[] {
  return metrics.map((m) => ({
    name: m.name,
    query: m.query,
    ...(m.max !== undefined ? {max: m.max} : {}),
    ...(m.min !== undefined ? {min: m.min} : {}),
    for: m.forMs / 1000,
    interval: m.intervalMs / 1000,
    noData: m.noData,
    onError: m.onError,
  }));
}

/** The strategy file's `prometheus:` that says `target`: what prometheusFromDocument reads back the same. */
export function prometheusDocumentOf(target: PrometheusTarget): Record<string, unknown> {
  if (target.service !== undefined) return {service: `service/${target.service.namespace}/${target.service.name}:${target.service.port}`};
  return {
    url: target.url,
    ...(target.tokenFile !== undefined ? {tokenFile: target.tokenFile} : {}),
    ...(target.caFile !== undefined ? {caFile: target.caFile} : {}),
  };
}

/** Where Prometheus is (from a strategy file or the flags) checked, or the field at fault and why. */
export function prometheusTargetOf(
  fields: Readonly<Record<(typeof PROMETHEUS_KEYS)[number], unknown>>,
): {prometheus: PrometheusTarget} | {problem: {key: string; message: string}} {
  const fail = (key: string, message: string) => ({problem: {key, message}});
  for (const key of PROMETHEUS_KEYS) {
    if (fields[key] !== undefined && (typeof fields[key] !== 'string' || fields[key] === '')) return fail(key, 'want a string');
  }
  const {url, service, tokenFile, caFile} = fields as Record<string, string | undefined>;
  if ((url === undefined) === (service === undefined)) return fail(url === undefined ? 'url' : 'service', 'want one of url and service');
  if (url !== undefined) {
    const bad = checkPrometheusUrl(url);
    if (bad) return fail('url', bad);
    return {prometheus: {url, ...(tokenFile !== undefined ? {tokenFile} : {}), ...(caFile !== undefined ? {caFile} : {})}};
  }
  if (tokenFile !== undefined || caFile !== undefined)
    return fail(
      tokenFile !== undefined ? 'tokenFile' : 'caFile',
      "through the service proxy the kubeconfig's credentials are used: tokenFile and caFile go with url",
    );
  const ref = parseServiceRef(service!);
  return typeof ref === 'string' ? fail('service', ref) : {prometheus: {service: ref}};
}
