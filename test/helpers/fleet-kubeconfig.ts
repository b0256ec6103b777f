// One kubeconfig holding several clusters, a context each, as a fleet operator has: the fleet view's tests (CLI,
// dashboard in tmux, the real control plane's e2e) merge their clusters' own kubeconfigs into one.
import {createServer} from 'node:net';
import {dump, load} from 'js-yaml';

interface Kubeconfig {
  clusters: Array<{name: string; cluster: Record<string, unknown>}>;
  users: Array<{name: string; user: Record<string, unknown>}>;
  contexts: Array<{name: string; context: Record<string, unknown>}>;
  'current-context'?: string;
}

/** A member: its name (cluster, user and context are all named so), a kubeconfig, and what to change in it. */
export interface FleetMemberConfig {
  readonly name: string;
  /** A kubeconfig's YAML: its current context's cluster and user are taken. */
  readonly kubeconfig: string;
  readonly user?: Record<string, unknown>;
  readonly server?: string;
  /** The context's namespace (default: the one the kubeconfig's context has). */
  readonly namespace?: string;
}

/** A port nothing listens on: bound, then closed. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const {port} = server.address() as {port: number};
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** One kubeconfig with a context per member, in order; the current context is the first. */
export function fleetKubeconfig(members: readonly FleetMemberConfig[]): string {
  const merged: Kubeconfig = {clusters: [], users: [], contexts: []};
  for (const member of members) {
    const one = load(member.kubeconfig) as Kubeconfig;
    const context = one.contexts.find((c) => c.name === one['current-context']) ?? one.contexts[0]!;
    const cluster = one.clusters.find((c) => c.name === context.context['cluster'])!.cluster;
    const user = one.users.find((u) => u.name === context.context['user'])!.user;
    const namespace = member.namespace ?? (context.context['namespace'] as string | undefined);
    merged.clusters.push({name: member.name, cluster: {...cluster, ...(member.server ? {server: member.server} : {})}});
    merged.users.push({name: member.name, user: member.user ?? user});
    merged.contexts.push({name: member.name, context: {cluster: member.name, user: member.name, ...(namespace ? {namespace} : {})}});
  }
  return dump({apiVersion: 'v1', kind: 'Config', ...merged, 'current-context': members[0]!.name});
}
