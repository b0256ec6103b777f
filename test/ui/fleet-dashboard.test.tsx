// The fleet dashboard's container with fake feeds: the fleet's rows, Enter into a cluster's usual screen (its own
// feed and actions), esc peeling that screen's layers and then back to the fleet, Enter on a cluster with no screen.
import {render} from 'ink-testing-library';
import {afterEach, describe, expect, test} from 'vitest';
import type {FleetListener, FleetMemberView, FleetSnapshot} from '../../src/services/dashboard/fleet-feed.js';
import {type ClusterScreen, FleetDashboard} from '../../src/ui/dashboard/FleetDashboard.js';
import {CONTEXT, FakeActions, FakeFeed, handMadeState, NOW, plain, snapshotOf} from './fixtures.js';
import {KEYS, press, type Rendered, waitForFrame, waitForText} from './render-helpers.js';

const SIZE = {columns: 110, rows: 24};

class FakeFleet {
  private readonly listeners = new Set<FleetListener>();
  constructor(private latest: FleetSnapshot) {}
  push(snapshot: FleetSnapshot): void {
    this.latest = snapshot;
    for (const listener of this.listeners) listener(snapshot);
  }
  subscribe(listener: FleetListener): () => void {
    this.listeners.add(listener);
    listener(this.latest);
    return () => this.listeners.delete(listener);
  }
}

const east = snapshotOf(handMadeState());
const MEMBERS: FleetMemberView[] = [
  {context: 'prod-east', phase: 'following', snapshot: east},
  {
    context: 'prod-down',
    phase: 'failed',
    state: 'unreachable',
    failure: {reason: 'Unreachable', message: 'cannot reach the cluster at https://10.0.3.4:6443: connection refused'},
    retrying: true,
  },
];

const mounted: Rendered[] = [];
afterEach(() => {
  for (const r of mounted.splice(0)) r.unmount();
});

function start() {
  const fleet = new FakeFleet({members: MEMBERS});
  const clusterFeed = new FakeFeed(east);
  const actions = new FakeActions();
  const opened: string[] = [];
  let quits = 0;
  const openCluster = (context: string): ClusterScreen | undefined => {
    opened.push(context);
    return context === 'prod-east'
      ? {feed: clusterFeed, actions, context: {...CONTEXT, kubeContext: context, server: 'https://east:6443'}, readonly: false}
      : undefined;
  };
  const rendered = render(
    <FleetDashboard
      feed={fleet}
      name="fluentd"
      namespace="kube-system"
      openCluster={openCluster}
      size={SIZE}
      clock={() => NOW}
      redrawIntervalMs={0}
      onQuit={() => quits++}
    />,
  );
  mounted.push(rendered);
  return {rendered, fleet, clusterFeed, actions, opened, quits: () => quits};
}

describe('FleetDashboard', () => {
  test('a row per cluster, live: a new snapshot of one cluster changes its row', async () => {
    const {rendered, fleet} = start();
    const frame = await waitForText(rendered, '2 clusters: 1 stuck, 1 unreachable');
    expect(frame).toMatch(/› ● prod-east +stuck +1->2 +2\/4 +1\/1 unavailable +pod fluentd-b/);
    expect(frame).toMatch(/ {2}✖ prod-down +unreachable +- +- +- +cannot reach the cluster/);
    expect(frame.split('\n')).toHaveLength(SIZE.rows - 1);
    const reconnecting: FleetMemberView = {
      context: 'prod-east',
      phase: 'following',
      snapshot: {...east, connection: 'reconnecting', error: 'not answering; still trying'},
    };
    fleet.push({members: [reconnecting, MEMBERS[1]!]});
    await waitForText(rendered, /○ prod-east .*not answering; still trying/);
  });

  test("enter opens the cluster's usual screen with its own actions; esc peels its layers, then returns to the fleet", async () => {
    const {rendered, actions, opened} = start();
    await waitForText(rendered, '2 clusters:');
    await press(rendered, KEYS.enter);
    const inside = await waitForFrame(rendered, (frame) => frame.includes('Fleet › prod-east') && frame.includes('Nodes 5'));
    expect(inside).toContain('DaemonSet kube-system/fluentd');
    expect(inside).toContain('context prod-east');
    expect(inside.split('\n')).toHaveLength(SIZE.rows - 1);
    expect(opened).toEqual(['prod-east']);
    // The cluster's keys act on that cluster: p asks, y pauses.
    await press(rendered, 'p');
    await waitForText(rendered, 'Pause the rollout of kube-system/fluentd on context prod-east (https://east:6443)');
    await press(rendered, 'y');
    await waitForText(rendered, 'pause done');
    expect(actions.calls.map((call) => call.action)).toEqual(['pause']);
    // Enter opens a node's detail: the first esc closes it, the next one leaves the cluster.
    await press(rendered, KEYS.enter);
    await waitForFrame(rendered, (frame) => frame.includes('Fleet › prod-east') && !frame.includes('Nodes 5'));
    await press(rendered, KEYS.escape);
    await waitForText(rendered, 'Nodes 5');
    await press(rendered, KEYS.escape);
    const back = await waitForText(rendered, 'DaemonSet kube-system/fluentd  on 2 clusters');
    expect(back).not.toContain('Fleet ›');
  });

  test('enter on a cluster with no screen says why and stays; q quits', async () => {
    const {rendered, quits} = start();
    await waitForText(rendered, '2 clusters:');
    await press(rendered, 'j', KEYS.enter);
    await waitForText(rendered, 'prod-down: unreachable: no screen to open (asked again shortly)');
    expect(plain(rendered.lastFrame())).not.toContain('Fleet ›');
    await press(rendered, '?');
    await waitForText(rendered, "open the cluster's screen");
    await press(rendered, '?', 'q');
    await waitForFrame(rendered, () => quits() === 1);
  });
});
