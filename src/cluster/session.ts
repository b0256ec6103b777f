// One command's view of the cluster, built once from its connection flags (as kubectl's cmdutil.Factory and
// argo-rollouts' ArgoRolloutsOptions are): where it reads, how it writes and follows, the one clock every rule is
// judged on, the label prompts and headers print, and close(). Services take (session, options) and return typed
// results; commands parse flags, open a session, call a service, render. The client library loads only for a live
// cluster.
import {type Clock, fixedClock, localClock, serverClock} from '../platform/clock.js';
import type {ClusterObjects, ClusterObjectsSource, ClusterSource, DaemonSetRef} from './cluster-source.js';
import type {ClusterWriter} from './cluster-writer.js';
import type {Follow, FollowHandlers} from './live/follower.js';
import type {LiveCluster} from './live/index.js';
import {chooseDaemonSet, openClusterSource, openLiveCluster, type OpenedSource, type SourceOptions} from './open-source.js';
import type {SnapshotClusterSource} from './snapshot/snapshot-source.js';
import type {DsRolloutError} from '../platform/errors.js';
import type {FleetSelection} from './fleet.js';

/** Which cluster a command acts on, as headers and prompts name it: `context prod-eu (https://10.0.0.1:6443)`. */
export function clusterLabel(cluster: {readonly context: string; readonly server: string}): string {
  return `context ${cluster.context || '(none)'} (${cluster.server})`;
}

/** Handlers for following every DaemonSet of a scope (status -A). */
export interface FollowObjectsHandlers extends Omit<FollowHandlers, 'onState'> {
  onObjects(objects: ClusterObjects): DsRolloutError | undefined;
}

export interface Session {
  readonly source: ClusterSource;
  /** The same cluster read a whole scope at a time (status -A). */
  readonly objects: ClusterObjectsSource;
  /** `-n`, else the context's namespace (a snapshot: "default"). */
  readonly namespace: string;
  /** "now" for every rule: --now, else the API server's clock, else (a snapshot) this machine's. */
  readonly clock: Clock;
  /** Which cluster, as headers and prompts name it: `context prod (https://...)`; undefined for a snapshot. */
  readonly label: string | undefined;
  /** A live cluster: writes, watches, the transport. Undefined for a snapshot. */
  readonly live?: LiveCluster;
  /** Writes with preconditions (live only). */
  readonly writer?: ClusterWriter;
  /** A snapshot: its DaemonSets, for commands run without NAME. */
  readonly snapshot?: SnapshotClusterSource;
  /** Follows one DaemonSet's scope: the live watches, or a snapshot's one fixed state. */
  follow(ref: DaemonSetRef): Follow;
  /** Follows every DaemonSet of a namespace (undefined: all); live only. */
  followObjects(namespace: string | undefined, handlers: FollowObjectsHandlers): {stop(): void};
  /** The DaemonSet a command names (or a snapshot's only one). */
  daemonSet(name: string | undefined, flagNamespace: string | undefined, usage: string): DaemonSetRef;
  /** Ends requests still waiting (a frozen server must not keep a finished command alive). Idempotent. */
  close(): void;
}

export interface SessionOptions extends SourceOptions {
  /** --now: one fixed instant instead of the server's clock. */
  readonly now?: number;
}

/** A session on a live cluster: it can write. */
export type LiveSession = Session & {readonly live: LiveCluster; readonly writer: ClusterWriter};

/** The session of a command's flags: a snapshot (offline) or a live cluster. */
export async function openSession(options: SessionOptions): Promise<Session> {
  return sessionOf(await openClusterSource(options), options.now);
}

/** A live cluster only: commands that write (a snapshot cannot be changed). */
export async function openLiveSession(options: SessionOptions, purpose: string): Promise<LiveSession> {
  return liveSession(await openLiveCluster(options, purpose), options.now);
}

/** One context of a fleet command: its own session (its own connection, clock and --request-timeout), or why it could not be opened. */
export type FleetSession = {readonly context: string; readonly session: LiveSession} | {readonly context: string; readonly error: DsRolloutError};

/** A session per context the selection names, from one read of the kubeconfig; no other context is read. */
export async function openFleetSessions(options: SessionOptions, selection: FleetSelection): Promise<FleetSession[]> {
  const {openFleetClusters} = await import('./fleet.js');
  const members = await openFleetClusters(options, selection);
  return members.map((member) => ('error' in member ? member : {context: member.context, session: liveSession(member.cluster, options.now)}));
}

/** The session of a connected live cluster (`now`: --now, or a clock of the caller's, as tests on a simulated clock). */
export function liveSession(live: LiveCluster, now?: number | Clock): LiveSession {
  return sessionOf({source: live.source, namespace: live.namespace, live, objects: live.source}, now) as LiveSession;
}

/** The live cluster's clock: the API server's, as its answers and the objects its watches deliver show it. */
export function liveClock(live: Pick<LiveCluster, 'client'>): Clock {
  return serverClock(
    () => live.client.serverNow(),
    () => live.client.probe(10_000),
  );
}

/** A session over an opened source (tests build one over the simulated cluster this way). */
export function sessionOf(opened: OpenedSource, now?: number | Clock): Session {
  const {live} = opened;
  const clock = typeof now === 'number' ? fixedClock(now) : (now ?? (live ? liveClock(live) : localClock()));
  let closed = false;
  return {
    source: opened.source,
    objects: opened.objects,
    namespace: opened.namespace,
    clock,
    label: live ? clusterLabel(live) : undefined,
    ...(live ? {live, writer: live.writer} : {}),
    ...(opened.snapshot ? {snapshot: opened.snapshot} : {}),
    follow: (ref) =>
      live
        ? (handlers) => live.watch(ref, handlers)
        : (handlers) => {
            // A snapshot never changes: one state, then nothing.
            opened.source.readState(ref).then(
              (state) => handlers.onState(state),
              (error: unknown) => handlers.onError(error as Error),
            );
            return {stop() {}};
          },
    followObjects(namespace, handlers) {
      if (!live) throw new Error('following a scope needs a live cluster');
      return live.watchObjects(namespace, handlers);
    },
    daemonSet: (name, flagNamespace, usage) => chooseDaemonSet(opened, name, flagNamespace, usage),
    close() {
      if (closed) return;
      closed = true;
      live?.client.close();
    },
  };
}
