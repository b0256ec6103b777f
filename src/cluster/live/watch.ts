// Following a cluster through watches: a small reflector per resource (list, then watch from the list's
// resourceVersion, resume from the last one seen when the stream ends, re-list when the server says the
// position expired (410)), and watchClusterState, which keeps the four caches a DaemonSet plan needs and
// reports a fresh ClusterState after each burst of changes. Collaborators (list, watch, delay) are injected
// the way client-node's ListWatch takes them, so retry and re-list paths are tested without sleeping.
import {Watch} from '@kubernetes/client-node';
import type {ClusterState, ControllerRevision, DaemonSet, Node, ObjectMeta, Pod} from '../../core/index.js';
import {ClusterUnreachableError, type DsRolloutError, NotFoundError} from '../../errors.js';
import type {ClusterObjects, DaemonSetRef} from '../cluster-source.js';
import type {KubeClient, ListResult} from './client.js';
import {ApiStatusError, errorFromResponse, errorFromWatch, isExpired, type RequestDescription} from './errors.js';
import {daemonSetsPath, describe, nodesPath, podsPath, revisionsPath} from './paths.js';
import {projectDaemonSet, projectNode, projectPod, projectRevision} from './project.js';
import {DEFAULT_PAGE_SIZE} from './live-source.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** Starts one watch stream from `resourceVersion`; `onDone` runs once when it ends (undefined: a normal end). */
export type StartWatch = (
  resourceVersion: string,
  onEvent: (type: WatchEventType, object: unknown) => void,
  onDone: (error: DsRolloutError | undefined) => void,
) => Promise<{abort(): void}>;

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
  readonly delay?: (ms: number) => Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

function keyOf(meta: ObjectMeta | undefined): string {
  return `${meta?.namespace ?? ''}/${meta?.name ?? ''}`;
}

/** Errors no retry can fix: refused credentials or RBAC, a missing resource type, a bad request. */
function isFatal(error: unknown): boolean {
  if (error instanceof ClusterUnreachableError) return false;
  if (error instanceof ApiStatusError) return !(error.status === 410 || error.status === 429 || error.status >= 500);
  return true;
}

export class Reflector<T extends {readonly metadata: ObjectMeta}> {
  readonly items = new Map<string, T>();
  synced = false;
  /** Lists made (the first one included), for tests. */
  lists = 0;
  private resourceVersion: string | undefined;
  private stopped = false;
  private current: {abort(): void} | undefined;
  private wake: (() => void) | undefined;
  private readonly delay: (ms: number) => Promise<void>;

  constructor(private readonly options: ReflectorOptions<T>) {
    this.delay = options.delay ?? sleep;
  }

  start(): void {
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.current?.abort();
    this.wake?.();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        if (this.resourceVersion === undefined) await this.relist();
        if (this.stopped) return;
        const ended = await this.watchOnce(this.resourceVersion!);
        if (ended === undefined) {
          failures = 0;
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
        failures++;
        this.options.onConnection?.(false);
        await this.delay(Math.min(5000, 250 * 2 ** (failures - 1)));
        // A dropped connection may have lost events: re-list after repeated failures rather than trust the position.
        if (failures >= 3) this.resourceVersion = undefined;
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
        this.wake = undefined;
        resolve(inStreamError ?? error);
      };
      this.wake = () => finish(undefined);
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
            const meta = (object as {metadata?: ObjectMeta} | undefined)?.metadata;
            if (meta?.resourceVersion) this.resourceVersion = meta.resourceVersion;
            if (type === 'BOOKMARK') return;
            const item = this.options.project(object);
            if (type === 'DELETED') this.items.delete(keyOf(item.metadata));
            else this.items.set(keyOf(item.metadata), item);
            this.options.onChange();
          },
          finish,
        )
        .then(
          (handle) => {
            this.current = handle;
            if (!settled) this.options.onConnection?.(true);
            if (settled || this.stopped) handle.abort();
          },
          (error: unknown) => finish(error as DsRolloutError),
        );
    });
  }
}

/** The client-node Watch, its end mapped to the project's errors. */
export function clientNodeWatch(client: KubeClient, path: string, request: RequestDescription, query: Readonly<Record<string, string>> = {}): StartWatch {
  const watcher = new Watch(client.kubeConfig);
  return async (resourceVersion, onEvent, onDone) =>
    watcher.watch(
      path,
      // The server ends the stream now and then; the reflector resumes from the last resourceVersion.
      {...query, resourceVersion, allowWatchBookmarks: true, timeoutSeconds: 300},
      (type, object) => onEvent(type as WatchEventType, object),
      (error) => onDone(errorFromWatch(error, request, client.server)),
    );
}

export interface ClusterWatchOptions {
  /** Reported after the first full read and after each burst of changes. */
  readonly onState: (state: ClusterState) => void;
  /** Reported once when following is no longer possible; the watch is stopped then. */
  readonly onError: (error: DsRolloutError) => void;
  /** `reconnecting` while any watch is retrying or re-listing, `live` again once all follow (for the dashboard). */
  readonly onConnection?: (connection: 'live' | 'reconnecting') => void;
  /** Changes within this many ms are reported together (default 100). */
  readonly throttleMs?: number;
  readonly pageSize?: number;
}

export interface ClusterWatch {
  stop(): void;
}

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
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const stop = () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    for (const reflector of reflectors) reflector.stop();
  };
  const fail = (error: DsRolloutError) => {
    if (stopped) return;
    stop();
    options.onError(error);
  };
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

  const broken = new Set<string>();
  let reported: 'live' | 'reconnecting' = 'live';
  const connection = (resource: string, connected: boolean) => {
    if (connected) broken.delete(resource);
    else broken.add(resource);
    const now = broken.size > 0 ? 'reconnecting' : 'live';
    if (now === reported || stopped) return;
    reported = now;
    options.onConnection?.(now);
  };

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
      watch: clientNodeWatch(client, path, describe('watch', resource, namespace), fieldSelector ? {fieldSelector} : {}),
      project,
      onChange,
      onError: fail,
      onConnection: (connected) => connection(resource, connected),
    });
  }

  const {namespace, daemonSetName} = scope;
  const byName = daemonSetName === undefined ? undefined : `metadata.name=${daemonSetName}`;
  const daemonSets = reflector<DaemonSet>(daemonSetsPath(namespace), 'daemonsets', namespace, projectDaemonSet, byName);
  const nodes = reflector<Node>(nodesPath(), 'nodes', undefined, projectNode);
  const pods = reflector<Pod>(podsPath(namespace), 'pods', namespace, projectPod);
  const revisions = reflector<ControllerRevision>(revisionsPath(namespace), 'controllerrevisions', namespace, projectRevision);
  const reflectors = [daemonSets, nodes, pods, revisions];
  for (const r of reflectors) r.start();
  return {stop};
}
