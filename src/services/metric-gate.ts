// The metric gate at work: each query of a gated rollout asked of Prometheus (`/api/v1/query`) on its interval
// while a stage steps and bakes, judged by the core (core/metric-gate.ts) on the server's clock. Prometheus is
// reached by URL (a bearer token file and a CA file, read through the bounded reader) or through the API
// server's service proxy with the kubeconfig's credentials, so an operator with only a kubeconfig can use it.
import {request as httpRequest} from 'node:http';
import {request as httpsRequest} from 'node:https';
import {MAX_ANSWER_BYTES, MAX_CREDENTIAL_BYTES, readBoundedFile, readBoundedStream} from '../cluster/bounded-input.js';
import type {KubeClient} from '../cluster/live/client.js';
import {
  type GateFailure,
  type GateReading,
  type MetricQuery,
  type MetricState,
  type PrometheusTarget,
  type ServiceRef,
  judgeMetric,
  readMetricAnswer,
  templateMetricQuery,
} from '../core/index.js';
import {InputError} from '../platform/errors.js';

/** Runs one PromQL instant query; resolves with Prometheus's JSON answer (an error answer too), rejects when none came. */
export type PrometheusQuery = (promql: string, signal: AbortSignal) => Promise<unknown>;

/** How the gated rollout reaches Prometheus: given where it is, a way to query it (files are read here, once). */
export type PrometheusOpener = (target: PrometheusTarget) => Promise<PrometheusQuery>;

const DEFAULT_TIMEOUT_MS = 30_000;

/** The opener a command uses: by URL, or through `client`'s API server; each query within `timeoutMs`. */
export function prometheusOpener(client: KubeClient, timeoutMs: number | undefined): PrometheusOpener {
  return async (target) => {
    if (target.service) return viaServiceProxy(client, target.service, timeoutMs ?? client.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    return viaUrl(target, timeoutMs ?? DEFAULT_TIMEOUT_MS);
  };
}

/** The service proxy's path to Prometheus's query API (`/api/v1/namespaces/NS/services/NAME:PORT/proxy/api/v1/query`). */
export function serviceProxyPath(service: ServiceRef): string {
  return `/api/v1/namespaces/${encodeURIComponent(service.namespace)}/services/${encodeURIComponent(service.name)}:${encodeURIComponent(service.port)}/proxy/api/v1/query`;
}

function viaServiceProxy(client: KubeClient, service: ServiceRef, timeoutMs: number): PrometheusQuery {
  return (promql) =>
    client.getJson(
      serviceProxyPath(service),
      {verb: 'get', resource: 'services/proxy', namespace: service.namespace, name: service.name},
      {query: {query: promql}},
      timeoutMs,
    );
}

async function viaUrl(target: PrometheusTarget, timeoutMs: number): Promise<PrometheusQuery> {
  const url = target.url!;
  const token =
    target.tokenFile === undefined
      ? undefined
      : (await readBoundedFile(target.tokenFile, {what: `Prometheus token file "${target.tokenFile}"`, maxBytes: MAX_CREDENTIAL_BYTES})).trim();
  const ca =
    target.caFile === undefined
      ? undefined
      : await readBoundedFile(target.caFile, {what: `Prometheus CA file "${target.caFile}"`, maxBytes: MAX_CREDENTIAL_BYTES});
  if (token === '') throw new InputError(`Prometheus token file "${target.tokenFile}" is empty`);
  const base = new URL(url.endsWith('/') ? url : `${url}/`);
  return (promql, signal) => {
    const at = new URL('api/v1/query', base);
    at.searchParams.set('query', promql);
    const send = at.protocol === 'http:' ? httpRequest : httpsRequest;
    const limit = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
    return new Promise<unknown>((resolve, reject) => {
      const req = send(
        at,
        {
          method: 'GET',
          headers: {Accept: 'application/json', 'User-Agent': 'ds-rollout', ...(token !== undefined ? {Authorization: `Bearer ${token}`} : {})},
          ...(ca !== undefined ? {ca} : {}),
          signal: limit,
        },
        (res) => {
          readBoundedStream(res, {what: "Prometheus's answer", maxBytes: MAX_ANSWER_BYTES}).then((text) => {
            try {
              // Prometheus answers a bad query with a JSON error (400, 422): that is an answer, an error one.
              resolve(JSON.parse(text));
            } catch {
              reject(new Error(`HTTP ${res.statusCode ?? 0} from ${base.origin}, not JSON`));
            }
          }, reject);
        },
      );
      req.on('error', (error: Error) =>
        reject(limit.aborted && !signal.aborted ? new Error(`no answer from ${base.origin} within ${timeoutMs / 1000}s`) : error),
      );
      req.end();
    });
  };
}

export interface MetricGateOptions {
  readonly queries: readonly MetricQuery[];
  readonly prometheus: PrometheusQuery;
  /** The server's clock, epoch ms: intervals and breach durations are judged by it, as bakes are. */
  readonly now: () => number;
  /** How often (real ms) the gate looks for a query that is due (default 250). */
  readonly tickMs?: number;
}

interface Watched {
  readonly query: MetricQuery;
  state: MetricState;
  nextAt: number;
  running: boolean;
  reading?: GateReading;
  failure?: GateFailure;
}

/**
 * The queries of one rollout, watched for one stage at a time: `watch(stage, nodes)` starts (or keeps) asking
 * them with `$nodes` for that stage; `failures()` says which have breached for their `for`, `readings()` what each
 * read last. A failure stays until another stage is watched.
 */
export class MetricGate {
  private watched: Watched[] = [];
  private stage: string | undefined;
  private nodes: readonly string[] | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = new AbortController();

  constructor(private readonly options: MetricGateOptions) {}

  watch(stage: string, nodes: readonly string[] | undefined): void {
    if (this.stage === stage && this.timer !== undefined) return;
    this.stop();
    this.stopped = new AbortController();
    this.stage = stage;
    this.nodes = nodes;
    const now = this.options.now();
    this.watched = this.options.queries.map((query) => ({query, state: {}, nextAt: now, running: false}));
    this.tick();
  }

  failures(): GateFailure[] {
    return this.watched.flatMap((w) => (w.failure ? [w.failure] : []));
  }

  readings(): GateReading[] {
    return this.watched.flatMap((w) => (w.reading ? [w.reading] : []));
  }

  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.stopped.abort();
  }

  private tick(): void {
    const now = this.options.now();
    for (const watched of this.watched) {
      if (watched.running || watched.failure || now < watched.nextAt) continue;
      watched.nextAt = now + watched.query.intervalMs;
      watched.running = true;
      void this.ask(watched).finally(() => (watched.running = false));
    }
    this.timer = setTimeout(() => this.tick(), this.options.tickMs ?? 250);
  }

  private async ask(watched: Watched): Promise<void> {
    const signal = this.stopped.signal;
    const query = watched.query;
    let body: unknown;
    try {
      body = await this.options.prometheus(templateMetricQuery(query.query, this.nodes), signal);
    } catch (error) {
      if (signal.aborted) return;
      body = {status: 'error', errorType: 'unreachable', error: (error as Error).message};
    }
    if (signal.aborted) return;
    const judged = judgeMetric(query, readMetricAnswer(body, query), this.options.now(), watched.state);
    watched.state = judged.state;
    watched.reading = judged.reading;
    if (judged.failure) watched.failure = judged.failure;
  }
}
