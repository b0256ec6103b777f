// Following a cluster through watches: a small reflector per resource (list, then watch from the list's
// resourceVersion, resume from the last one seen when the stream ends, re-list when the server says the position
// expired (410)), and watchClusterState, which keeps the four caches a DaemonSet plan needs, reports a fresh
// ClusterState after each burst of changes, and watches the cluster's health: passing trouble is retried under
// the retry policy, and a cluster that stays unreachable or frozen (no answer to a probe within the request
// timeout, tried as every read is) is reported to whoever waits (follower.ts). The streams are the project's client's
// (client.ts), as every other request. Collaborators (list, watch, delay) are injected the way client-go's ListWatch
// takes them, so retry and re-list paths are tested without sleeping.
import type {ControllerRevision, DaemonSet, Node, ObjectMeta, Pod} from '../../core/index.js';
import {ClusterUnreachableError, type DsRolloutError, NotFoundError} from '../../platform/errors.js';
import {sleep} from '../../platform/clock.js';
import type {ClusterObjects, DaemonSetRef} from '../cluster-source.js';
import type {KubeClient, ListResult} from './client.js';
import {errorFromResponse, isExpired, NoAnswerError, type RequestDescription} from './errors.js';
import type {Connection, FollowHandlers} from './follower.js';
import {DEFAULT_PAGE_SIZE} from './live-source.js';
import {daemonSetsPath, describe, nodesPath, podsPath, revisionsPath} from './paths.js';
import {projectDaemonSet, projectNode, projectPod, projectRevision} from './project.js';
import {isTransient, RETRY_ATTEMPTS, retryDelayMs} from './retry.js';
import {newestWrittenTime} from './server-time.js';
import type {WatchEventType} from './watch-stream.js';

export type {WatchEventType} from './watch-stream.js';

/**
 * Starts one watch stream from `resourceVersion`; `onDone` runs once when it ends (undefined: a normal end).
 * `signal` drops it also while it is still starting (a frozen server never answers the request).
 */
export type StartWatch = (
  resourceVersion: string,
  onEvent: (type: WatchEventType, object: unknown) => void,
  onDone: (error: DsRolloutError | undefined) => void,
  signal: AbortSignal,
) => Promise<{abort(): void}>;

/** A reflector waiting to reconnect keeps nothing alive by itself: whoever waits on it has its own timers. */
const sleepUnref = (ms: number) => sleep(ms, {unref: true});

export interface ReflectorOptions<T> {
  readonly list: () => Promise<ListResult<T>>;
  readonly watch: StartWatch;
  readonly project: (raw: unknown) => T;
  /** Called after the cache changed (a list, or an event). */
  readonly onChange: () => void;
  /** Called once when the reflector gives up (RBAC, a cluster that cannot be reached at the start). */
  readonly onError: (error: DsRolloutError) => void;
  /** Called with false when the stream broke or expired and the reflector retries or re-lists, true once it follows again. */
  readonly onConnection?: (connected: boolean) => void;
  /**
   * Called after each failure to follow (a watch that could not start or broke, a re-list that failed) with the
   * failures in a row, counted by the retry policy's tries: a failed list has used them all already.
   */
  readonly onTrouble?: (error: DsRolloutError, failures: number) => void;
  /** Called whenever the server showed it is alive: a list, an event or bookmark, a watch that started. */
  readonly onContact?: () => void;
  readonly delay?: (ms: number) => Promise<void>;
}

function keyOf(meta: ObjectMeta | undefined): string {
  return `${meta?.namespace ?? ''}/${meta?.name ?? ''}`;
}

/** Errors no retry can fix: refused credentials or RBAC, a missing resource type, a bad request. */
function isFatal(error: unknown): boolean {
  return !isTransient(error) && !isExpired(error);
}

export class Reflector<T extends {readonly metadata: ObjectMeta}> {
  readonly items = new Map<string, T>();
  synced = false;
  /** A stream is open: every change from the cache's resourceVersion on reaches onChange without a new request. */
  streaming = false;
  /** Lists made (the first one included), for tests. */
  lists = 0;
  private resourceVersion: string | undefined;
  /** Failures to follow in a row; a watch that starts, or a list that succeeds, ends the run. */
  private failures = 0;
  private stopped = false;
  private current: {abort(): void} | undefined;
  /** Aborts the stream being started, before it has a handle. */
  private starting: AbortController | undefined;
  private wake: (() => void) | undefined;
  private readonly delay: (ms: number) => Promise<void>;

  /** When this reflector last heard from the server (a list, an event or bookmark, a watch that started). */
  lastHeardAt = Date.now();

  constructor(private readonly options: ReflectorOptions<T>) {
    this.delay = options.delay ?? sleepUnref;
  }

  private heard(): void {
    this.lastHeardAt = Date.now();
    this.options.onContact?.();
  }

  start(): void {
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.starting?.abort();
    this.current?.abort();
    this.wake?.();
  }

  /** Drops the current stream and watches again from the last resourceVersion (a stream open through an outage may be dead). */
  reconnect(): void {
    this.starting?.abort();
    this.current?.abort();
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let listing = false;
      try {
        if (this.resourceVersion === undefined) {
          listing = true;
          await this.relist();
          listing = false;
        }
        if (this.stopped) return;
        const ended = await this.watchOnce(this.resourceVersion!);
        if (ended === undefined) {
          this.failures = 0;
          continue; // the server closed the stream (timeoutSeconds): resume from the last resourceVersion
        }
        if (isExpired(ended)) {
          this.resourceVersion = undefined;
          this.options.onConnection?.(false);
          continue;
        }
        throw ended;
      } catch (error) {
        if (this.stopped) return;
        // Before the first list succeeded there is nothing to follow: report at once rather than wait blind.
        if (isFatal(error) || !this.synced) {
          this.stopped = true;
          this.options.onError(error as DsRolloutError);
          return;
        }
        // A list is a read the client has tried under the retry policy already: it counts as every try.
        this.failures = listing ? Math.max(this.failures + 1, RETRY_ATTEMPTS) : this.failures + 1;
        this.options.onConnection?.(false);
        this.options.onTrouble?.(error as DsRolloutError, this.failures);
        await this.delay(retryDelayMs(this.failures));
        // A dropped connection may have lost events: re-list after repeated failures rather than trust the position.
        if (this.failures >= RETRY_ATTEMPTS - 1) this.resourceVersion = undefined;
      }
    }
  }

  private async relist(): Promise<void> {
    this.lists++;
    const {items, resourceVersion} = await this.options.list();
    if (this.stopped) return;
    this.items.clear();
    for (const item of items) this.items.set(keyOf(item.metadata), item);
    this.resourceVersion = resourceVersion;
    this.synced = true;
    this.failures = 0;
    this.heard();
    this.options.onConnection?.(true);
    this.options.onChange();
  }

  /** One stream; resolves with what ended it (undefined: a normal end). */
  private watchOnce(resourceVersion: string): Promise<DsRolloutError | undefined> {
    return new Promise((resolve) => {
      let settled = false;
      let inStreamError: DsRolloutError | undefined;
      const finish = (error: DsRolloutError | undefined) => {
        if (settled) return;
        settled = true;
        this.streaming = false;
        this.wake = undefined;
        resolve(inStreamError ?? error);
      };
      this.wake = () => finish(undefined);
      const starting = new AbortController();
      this.starting = starting;
      this.options
        .watch(
          resourceVersion,
          (type, object) => {
            if (settled) return;
            if (type === 'ERROR') {
              const status = object as {code?: number; message?: string};
              inStreamError = errorFromResponse(status.code ?? 500, JSON.stringify(object), {verb: 'watch', resource: 'objects'}, '');
              this.current?.abort();
              finish(undefined);
              return;
            }
            this.heard();
            const meta = (object as {metadata?: ObjectMeta} | undefined)?.metadata;
            if (meta?.resourceVersion) this.resourceVersion = meta.resourceVersion;
            if (type === 'BOOKMARK') return;
            const item = this.options.project(object);
            if (type === 'DELETED') this.items.delete(keyOf(item.metadata));
            else this.items.set(keyOf(item.metadata), item);
            this.options.onChange();
          },
          finish,
          starting.signal,
        )
        .then(
          (handle) => {
            if (this.starting === starting) this.starting = undefined;
            this.current = handle;
            if (!settled) {
              this.failures = 0;
              this.streaming = true;
              this.heard();
              this.options.onConnection?.(true);
            }
            if (settled || this.stopped) handle.abort();
          },
          (error: unknown) => finish(error as DsRolloutError),
        );
    });
  }
}

/** Watch streams of one collection on the project's client, from a resourceVersion on. */
export function clientWatch(client: KubeClient, path: string, request: RequestDescription, query: Readonly<Record<string, string>> = {}): StartWatch {
  return (resourceVersion, onEvent, onDone, signal) =>
    client.watch(
      path,
      request,
      // The server ends the stream now and then; the reflector resumes from the last resourceVersion.
      {...query, resourceVersion, allowWatchBookmarks: true, timeoutSeconds: 300},
      (type, object) => {
        // The stream's only news of the server's clock (its Date header is as old as the stream).
        if (type !== 'ERROR' && type !== 'BOOKMARK') client.noteServerTime(newestWrittenTime(object));
        onEvent(type, object);
      },
      onDone,
      signal,
    );
}

export interface ClusterWatchOptions extends FollowHandlers {
  /** Changes within this many ms are reported together (default 100). */
  readonly throttleMs?: number;
  readonly pageSize?: number;
  /** Without any sign of life from the server for this long, ask it whether it is there (default 5 s). */
  readonly probeEveryMs?: number;
  /**
   * The interval to probe at now, given probeEveryMs: a consumer that only waits on time (a bake) stretches it, as
   * a frozen server then matters only when the wait ends and the next request would meet it anyway.
   */
  readonly probePace?: (everyMs: number) => number;
  /** A stream silent this long is watched again (default WATCH_SILENCE_MS). */
  readonly watchSilenceMs?: number;
  /** How long the one try of a probe waits without --request-timeout (default 10 s). */
  readonly probeTimeoutMs?: number;
}

export interface ClusterWatch {
  stop(): void;
}

const DEFAULT_PROBE_EVERY_MS = 5_000;
/**
 * A watch stream silent this long, not even a bookmark, while the server answers: dropped and watched again from
 * its resourceVersion. A stream a proxy or load balancer left half-open never ends by itself; a quiet one costs one
 * new watch request.
 */
export const WATCH_SILENCE_MS = 90_000;
const DEFAULT_PROBE_TIMEOUT_MS = 10_000;

/** Follows the DaemonSet, the nodes, and the pods and revisions of its namespace until stopped. */
export function watchClusterState(client: KubeClient, ref: DaemonSetRef, options: ClusterWatchOptions): ClusterWatch {
  const {onState, ...rest} = options;
  return watchClusterObjects(
    client,
    {namespace: ref.namespace, daemonSetName: ref.name},
    {
      ...rest,
      onObjects: ({daemonSets, nodes, pods, revisions}) => {
        const daemonSet = daemonSets[0];
        if (!daemonSet) return new NotFoundError(`daemonset "${ref.name}" not found in namespace "${ref.namespace}"`);
        onState({daemonSet, nodes, pods, revisions});
        return undefined;
      },
    },
  );
}

export interface ClusterObjectsWatchOptions extends Omit<ClusterWatchOptions, 'onState'> {
  /** After the first full read and each burst of changes; an error returned ends the watch with it. */
  readonly onObjects: (objects: ClusterObjects) => DsRolloutError | undefined;
}

/** What the health checks and the connection report read of a reflector, whatever it holds. */
type FollowedStream = Pick<Reflector<{readonly metadata: ObjectMeta}>, 'synced' | 'streaming' | 'lastHeardAt' | 'reconnect'>;

/** What the follower is told of the watches' connection: live only while every stream follows and the server answers. */
function connectionReport(options: ClusterObjectsWatchOptions, isStopped: () => boolean) {
  const broken = new Set<string>();
  let reported: Connection = 'live';
  let unreachable = false;
  let allStreaming = false;
  const report = (now: Connection) => {
    if (now === reported || isStopped()) return;
    reported = now;
    options.onConnection?.(now);
  };
  return {
    /** A reflector's stream broke (false) or follows again (true). */
    stream(resource: string, connected: boolean, reflectors: readonly FollowedStream[]): void {
      if (connected) broken.delete(resource);
      else broken.add(resource);
      if (broken.size === 0) unreachable = false;
      report(broken.size > 0 || unreachable ? 'reconnecting' : 'live');
      const streaming = reflectors.every((r) => r.streaming);
      if (streaming && !allStreaming && !isStopped()) options.onStreaming?.();
      allStreaming = streaming;
    },
    /** The cluster is given up on for now; false when it was already. */
    lost(): boolean {
      if (unreachable) return false;
      unreachable = true;
      report('reconnecting');
      return true;
    },
    /** A probe was answered: live again, unless a stream is still broken. */
    answered(): void {
      if (unreachable && broken.size === 0) {
        unreachable = false;
        report('live');
      }
    },
  };
}

/** Why the cluster is reported unreachable: what failed last, and whether the streams were silent too. */
function unreachableError(client: KubeClient, error: DsRolloutError): ClusterUnreachableError {
  const why = error instanceof ClusterUnreachableError ? error.message : `the cluster at ${client.server} keeps failing: ${error.message}`;
  return new ClusterUnreachableError(
    error instanceof NoAnswerError ? `${why}; the watch streams were silent too` : `${why}; gave up following the rollout after ${RETRY_ATTEMPTS} tries`,
    {cause: error},
  );
}

interface HealthChecks {
  readonly reflectors: () => readonly FollowedStream[];
  readonly isStopped: () => boolean;
  /** When the server last showed it is alive; `contact` says it did just now. */
  readonly lastContact: () => number;
  readonly contact: () => void;
  readonly answered: () => void;
  readonly gaveUp: (error: DsRolloutError) => void;
}

/**
 * A frozen server keeps its watch streams open and silent: only a request can tell it from a quiet cluster. Every
 * so often, a stream silent too long is watched again, and a server silent for probeEveryMs is probed.
 */
function startHealthChecks(client: KubeClient, options: ClusterObjectsWatchOptions, probeEveryMs: number, checks: HealthChecks): NodeJS.Timeout {
  let probing = false;
  const health = setInterval(
    () => {
      if (checks.isStopped()) return;
      const now = Date.now();
      for (const r of checks.reflectors()) {
        if (r.synced && now - r.lastHeardAt > (options.watchSilenceMs ?? WATCH_SILENCE_MS)) {
          r.lastHeardAt = now;
          r.reconnect();
        }
      }
      if (probing || now - checks.lastContact() < (options.probePace?.(probeEveryMs) ?? probeEveryMs)) return;
      probing = true;
      // One try: the streams have been silent for probeEveryMs already, so a frozen server is reported within
      // probeEveryMs and one request timeout (at most 1.5 times --request-timeout), as a single read would be.
      client.probe(options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS, 1).then(
        () => {
          probing = false;
          checks.contact();
          checks.answered();
        },
        (error: unknown) => {
          probing = false;
          if (isTransient(error)) checks.gaveUp(error as DsRolloutError);
          else checks.contact(); // it answered, if oddly (a proxy that refuses /version): alive
        },
      );
    },
    Math.max(50, Math.min(1000, probeEveryMs / 2)),
  );
  health.unref();
  return health;
}

type ReflectorHandlers = Pick<ReflectorOptions<never>, 'onChange' | 'onError' | 'onTrouble' | 'onContact'> & {
  readonly onConnection: (resource: string, connected: boolean) => void;
};

/** The four reflectors of a scope, on the project's client: one list and one watch per resource. */
function scopeReflectors(
  client: KubeClient,
  scope: {readonly namespace: string | undefined; readonly daemonSetName?: string},
  pageSize: number,
  handlers: ReflectorHandlers,
) {
  function reflector<T extends {readonly metadata: ObjectMeta}>(
    path: string,
    resource: string,
    namespace: string | undefined,
    project: (raw: unknown) => T,
    fieldSelector?: string,
  ): Reflector<T> {
    const listRequest = describe('list', resource, namespace);
    return new Reflector<T>({
      list: () => client.list(path, listRequest, project, {pageSize, ...(fieldSelector ? {fieldSelector} : {})}),
      watch: clientWatch(client, path, describe('watch', resource, namespace), fieldSelector ? {fieldSelector} : {}),
      project,
      ...handlers,
      onConnection: (connected) => handlers.onConnection(resource, connected),
    });
  }

  const {namespace, daemonSetName} = scope;
  const byName = daemonSetName === undefined ? undefined : `metadata.name=${daemonSetName}`;
  return {
    daemonSets: reflector<DaemonSet>(daemonSetsPath(namespace), 'daemonsets', namespace, projectDaemonSet, byName),
    nodes: reflector<Node>(nodesPath(), 'nodes', undefined, projectNode),
    pods: reflector<Pod>(podsPath(namespace), 'pods', namespace, projectPod),
    revisions: reflector<ControllerRevision>(revisionsPath(namespace), 'controllerrevisions', namespace, projectRevision),
  };
}

/**
 * Follows daemonsets, pods and controllerrevisions of a namespace (undefined: all namespaces) and every node: one
 * list and one watch per resource, however many DaemonSets there are. `daemonSetName` narrows the DaemonSet watch.
 */
export function watchClusterObjects(
  client: KubeClient,
  scope: {readonly namespace: string | undefined; readonly daemonSetName?: string},
  options: ClusterObjectsWatchOptions,
): ClusterWatch {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const throttleMs = options.throttleMs ?? 100;
  // With a short --request-timeout, a frozen server is noticed as soon as one request of that length would be.
  const probeEveryMs = options.probeEveryMs ?? Math.min(DEFAULT_PROBE_EVERY_MS, (client.timeoutMs ?? 2 * DEFAULT_PROBE_EVERY_MS) / 2);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let lastContact = Date.now();

  const stop = () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    clearInterval(health);
    for (const reflector of reflectors) reflector.stop();
  };
  const fail = (error: DsRolloutError | Error) => {
    if (stopped) return;
    stop();
    options.onError(error);
  };
  // Changes within throttleMs are reported together, once every resource has been listed.
  const emit = () => {
    timer = undefined;
    if (stopped || !reflectors.every((r) => r.synced)) return;
    const error = options.onObjects({
      daemonSets: [...daemonSets.items.values()],
      nodes: [...nodes.items.values()],
      pods: [...pods.items.values()],
      revisions: [...revisions.items.values()],
    });
    if (error) fail(error);
  };
  const onChange = () => {
    if (!stopped && timer === undefined) timer = setTimeout(emit, throttleMs);
  };

  const connection = connectionReport(options, () => stopped);
  const contact = () => {
    lastContact = Date.now();
  };
  const gaveUp = (error: DsRolloutError) => {
    if (stopped || !connection.lost()) return;
    const failure = unreachableError(client, error);
    if (!options.onUnreachable) return fail(failure);
    options.onUnreachable(failure);
    for (const r of reflectors) r.reconnect();
  };

  const health = startHealthChecks(client, options, probeEveryMs, {
    reflectors: () => reflectors,
    isStopped: () => stopped,
    lastContact: () => lastContact,
    contact,
    answered: connection.answered,
    gaveUp,
  });

  const {daemonSets, nodes, pods, revisions} = scopeReflectors(client, scope, pageSize, {
    onChange,
    onError: fail,
    onConnection: (resource, connected) => connection.stream(resource, connected, reflectors),
    onTrouble: (error, failures) => {
      if (failures >= RETRY_ATTEMPTS) gaveUp(error);
    },
    onContact: contact,
  });
  const reflectors = [daemonSets, nodes, pods, revisions];
  for (const r of reflectors) r.start();
  return {stop};
}
