// `dashboard NAME --contexts ...`: the fleet dashboard's composition root. Opens a session per context (one read of
// the kubeconfig), follows each cluster with its own plan feed (services/dashboard/fleet-feed.ts), and draws the
// fleet screen; Enter opens a cluster's usual screen with that cluster's own actions. Without a terminal it prints
// what `status NAME --contexts` prints, with its exit code.
import type {FleetCommandFlags} from './fleet-command.js';
import type {DashboardOptions} from './dashboard-app.js';

export type FleetDashboardOptions = DashboardOptions & Pick<FleetCommandFlags, 'contexts' | 'all-contexts'>;

export async function fleetDashboardService(options: FleetDashboardOptions, usage: string): Promise<number> {
  const {shouldStartInk} = await import('./dashboard-app.js');
  if (!shouldStartInk(options)) {
    const {statusFleet} = await import('./fleet-command.js');
    // The same table, once: a fleet is followed live only on a screen.
    await statusFleet(options.name, {...options, 'all-namespaces': false}, usage);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  }
  return interactiveFleet(options);
}

async function interactiveFleet(options: FleetDashboardOptions): Promise<number> {
  const [{openFleetSessions}, {createPlanFeed, READ_ONLY_ACTIONS}, {createFleetFeed}, app] = await Promise.all([
    import('../cluster/session.js'),
    import('../services/dashboard.js'),
    import('../services/dashboard/fleet-feed.js'),
    import('./dashboard-app.js'),
  ]);
  const contexts = options.contexts?.map((word) => word.trim()).filter((word) => word !== '');
  const members = await openFleetSessions(options, {...(contexts === undefined ? {} : {contexts}), all: options['all-contexts'] === true});
  const sessions = new Map(members.flatMap((member) => ('session' in member ? [[member.context, member.session] as const] : [])));
  const refOf = (namespace: string) => ({namespace, name: options.name});
  const feed = createFleetFeed(
    members.map((member) => {
      if ('error' in member) return member;
      const {session} = member;
      const ref = refOf(session.namespace);
      return {context: member.context, server: session.live.server, open: () => createPlanFeed({follow: session.follow(ref), clock: session.clock})};
    }),
  );

  app.preferProductionReact();
  const [{default: React}, {FleetDashboard}, {themeFor}, modules] = await Promise.all([
    import('react'),
    import('../ui/dashboard/FleetDashboard.js'),
    import('../ui/dashboard/theme.js'),
    options.readonly ? undefined : app.loadLiveModules(),
  ]);
  const closing = new AbortController();
  const openCluster = (context: string) => {
    const session = sessions.get(context);
    const clusterFeed = feed.feedOf(context);
    if (!session || !clusterFeed) return undefined;
    const ref = refOf(session.namespace);
    return {
      feed: clusterFeed,
      actions: modules ? app.liveClusterActions(session, ref, closing.signal, modules) : READ_ONLY_ACTIONS,
      context: {name: options.name, namespace: session.namespace, kubeContext: context, server: session.live.server},
      readonly: options.readonly,
      clusterNow: () => session.clock.now(),
    };
  };
  await app.runFullScreen(
    options,
    React.createElement(FleetDashboard, {
      feed,
      name: options.name,
      ...(options.namespace === undefined ? {} : {namespace: options.namespace}),
      openCluster,
      theme: themeFor(options.env),
    }),
    () => {
      // A step still running in a cluster stops at its next safe point; that DaemonSet stays paused.
      closing.abort();
      feed.stop();
      for (const session of sessions.values()) session.close();
    },
  );
  return 0;
}
