// The simulated DaemonSet controller and kubelets on the in-process store, driven by a manual clock.
import {afterEach, describe, expect, test} from 'vitest';
import type {ControllerRevision, DaemonSet, Pod} from '../../src/core/types.js';
import {ManualClock} from '../../src/sim/clock.js';
import {DaemonSetController} from '../../src/sim/controller.js';
import {SimulatedKubelets} from '../../src/sim/kubelet.js';
import {loadScenario} from '../../src/sim/scenarios.js';
import {makeNode} from '../../src/sim/seed.js';
import {Store} from '../../src/sim/store.js';

interface Sim {
  store: Store;
  clock: ManualClock;
  controller: DaemonSetController;
  kubelets: SimulatedKubelets;
}

const running: Sim[] = [];

function newSim(nodes = 3, kubeletOptions = {}): Sim {
  const clock = new ManualClock();
  const store = new Store({clock});
  for (const ns of ['default', 'kube-system', 'kube-public']) store.create({apiVersion: 'v1', kind: 'Namespace', metadata: {name: ns}});
  for (let i = 1; i <= nodes; i++) store.create(makeNode(`node-${i}`, {index: i}));
  const controller = new DaemonSetController(store, clock);
  const kubelets = new SimulatedKubelets(store, clock, {startDelayMs: 1000, stopDelayMs: 200, ...kubeletOptions});
  controller.start();
  kubelets.start();
  const sim = {store, clock, controller, kubelets};
  running.push(sim);
  return sim;
}

afterEach(() => {
  for (const sim of running.splice(0)) {
    sim.controller.stop();
    sim.kubelets.stop();
    sim.store.close();
  }
});

function daemonSet(image = 'agent:1', extra: Partial<DaemonSet['spec']> = {}): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {name: 'agent', namespace: 'default'},
    spec: {
      selector: {matchLabels: {app: 'agent'}},
      template: {metadata: {labels: {app: 'agent'}}, spec: {containers: [{name: 'agent', image}]}},
      ...extra,
    },
  };
}

function pods(sim: Sim, namespace = 'default'): Pod[] {
  return sim.store.list('pods', {namespace}).items as Pod[];
}

function ds(sim: Sim, name = 'agent', namespace = 'default'): DaemonSet {
  return sim.store.get('daemonsets', namespace, name) as DaemonSet;
}

function revisions(sim: Sim): [number, string][] {
  return (sim.store.list('controllerrevisions', {namespace: 'default'}).items as ControllerRevision[])
    .map(
      (r) => [r.revision, (r.data as {spec: {template: {spec: {containers: {image: string}[]}}}}).spec.template.spec.containers[0]!.image] as [number, string],
    )
    .sort((a, b) => a[0] - b[0]);
}

function setImage(sim: Sim, image: string): void {
  sim.store.modify('daemonsets', 'default', 'agent', (current) => {
    const d = current as DaemonSet;
    return {...d, spec: {...d.spec, template: {...d.spec.template, spec: {...d.spec.template.spec, containers: [{name: 'agent', image}]}}}};
  });
}

describe('simulated DaemonSet controller', () => {
  test('creates a pod per node; kubelets bind and start them; status and revision follow', () => {
    const sim = newSim(3);
    sim.store.create(daemonSet());
    sim.clock.advance(5000);
    const ready = pods(sim).filter((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
    expect(ready.map((p) => p.spec.nodeName).sort()).toEqual(['node-1', 'node-2', 'node-3']);
    expect(pods(sim).every((p) => p.metadata.name.startsWith('agent-') && p.metadata.labels?.['controller-revision-hash'])).toBe(true);
    expect(ds(sim).status).toMatchObject({
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      numberReady: 3,
      updatedNumberScheduled: 3,
      numberAvailable: 3,
      observedGeneration: 1,
    });
    expect(revisions(sim)).toEqual([[1, 'agent:1']]);
    const events = sim.store.list('events', {namespace: 'default'}).items as unknown as {reason?: string}[];
    expect(events.filter((e) => e.reason === 'SuccessfulCreate')).toHaveLength(3);
  });

  test('rolls a new image out node by node and renumbers the old revision on rollback', () => {
    const sim = newSim(4);
    sim.store.create(daemonSet());
    sim.clock.advance(5000);
    setImage(sim, 'agent:2');
    sim.clock.advance(60_000);
    expect(pods(sim).map((p) => p.spec.containers[0]!.image)).toEqual(['agent:2', 'agent:2', 'agent:2', 'agent:2']);
    expect(ds(sim).status).toMatchObject({updatedNumberScheduled: 4, numberAvailable: 4, observedGeneration: 2});
    expect(revisions(sim)).toEqual([
      [1, 'agent:1'],
      [2, 'agent:2'],
    ]);

    setImage(sim, 'agent:1');
    sim.clock.advance(60_000);
    // Rolling back makes revision 1 current again: it becomes revision 3, no new revision is created.
    expect(revisions(sim)).toEqual([
      [2, 'agent:2'],
      [3, 'agent:1'],
    ]);
    expect(pods(sim).every((p) => p.spec.containers[0]!.image === 'agent:1')).toBe(true);
  });

  test('a surge rollout with minReadySeconds completes: the controller looks again minReadySeconds + 1s after a pod turns Ready (upstream updatePod)', () => {
    const sim = newSim(3);
    sim.store.create(daemonSet('agent:1', {minReadySeconds: 5, updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 0, maxSurge: 1}}}));
    sim.clock.advance(30_000);
    setImage(sim, 'agent:2');
    sim.clock.advance(120_000);
    expect(pods(sim).map((p) => p.spec.containers[0]!.image)).toEqual(['agent:2', 'agent:2', 'agent:2']);
    expect(ds(sim).status).toMatchObject({updatedNumberScheduled: 3, numberAvailable: 3});
  });

  test('never has more than maxUnavailable pods unavailable during a rollout', () => {
    const sim = newSim(6);
    sim.store.create(daemonSet('agent:1', {updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 2}}}));
    sim.clock.advance(5000);
    setImage(sim, 'agent:2');
    let worst = 0;
    for (let t = 0; t < 120; t++) {
      sim.clock.advance(250);
      const status = ds(sim).status!;
      worst = Math.max(worst, (status.desiredNumberScheduled ?? 0) - (status.numberAvailable ?? 0));
    }
    expect(worst).toBe(2);
    expect(ds(sim).status).toMatchObject({updatedNumberScheduled: 6, numberAvailable: 6});
  });

  test('a crashing image stalls the rollout within the budget', () => {
    const sim = newSim(4, {failures: [{image: 'agent:bad', mode: 'crash'}]});
    sim.store.create(daemonSet());
    sim.clock.advance(5000);
    setImage(sim, 'agent:bad');
    sim.clock.advance(60_000);
    const bad = pods(sim).filter((p) => p.spec.containers[0]!.image === 'agent:bad');
    expect(bad).toHaveLength(1);
    expect(bad[0]!.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('CrashLoopBackOff');
    expect(ds(sim).status).toMatchObject({numberAvailable: 3, updatedNumberScheduled: 1});
  });

  test('surge with a hostPort leaves the surge pod Pending next to the old one', () => {
    const sim = newSim(2);
    const withPort = (image: string): DaemonSet => {
      const d = daemonSet(image, {updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 0, maxSurge: 1}}});
      return {
        ...d,
        spec: {...d.spec, template: {...d.spec.template, spec: {containers: [{name: 'agent', image, ports: [{containerPort: 9100, hostPort: 9100}]}]}}},
      };
    };
    sim.store.create(withPort('agent:1'));
    sim.clock.advance(5000);
    sim.store.modify('daemonsets', 'default', 'agent', (current) => ({...(current as DaemonSet), spec: withPort('agent:2').spec}));
    sim.clock.advance(30_000);
    const surge = pods(sim).filter((p) => p.spec.containers[0]!.image === 'agent:2');
    expect(surge).toHaveLength(1);
    expect(surge[0]!.spec.nodeName).toBeUndefined();
    expect(surge[0]!.status?.conditions?.find((c) => c.type === 'PodScheduled')).toMatchObject({status: 'False', reason: 'Unschedulable'});
  });

  test('a NotReady node gets the not-ready taints and its pods go not ready; a cordoned node gets the unschedulable taint', () => {
    const sim = newSim(2);
    sim.store.create(daemonSet());
    sim.clock.advance(5000);
    sim.kubelets.setNodeReady('node-1', false);
    sim.store.modify('nodes', undefined, 'node-2', (n) => ({...n, spec: {...(n as {spec?: object}).spec, unschedulable: true}}));
    sim.clock.advance(1000);
    const node1 = sim.store.get('nodes', undefined, 'node-1') as {spec?: {taints?: {key: string; effect: string}[]}};
    expect(node1.spec?.taints?.map((t) => `${t.key}:${t.effect}`)).toEqual([
      'node.kubernetes.io/not-ready:NoSchedule',
      'node.kubernetes.io/not-ready:NoExecute',
    ]);
    const node2 = sim.store.get('nodes', undefined, 'node-2') as {spec?: {taints?: {key: string}[]}};
    expect(node2.spec?.taints?.map((t) => t.key)).toEqual(['node.kubernetes.io/unschedulable']);
    const onNode1 = pods(sim).find((p) => p.spec.nodeName === 'node-1')!;
    expect(onNode1.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
    expect(ds(sim).status).toMatchObject({desiredNumberScheduled: 1, numberMisscheduled: 1});
  });

  test('the demo scenario loads with a rollout in progress and the controller carries it as far as it can go', () => {
    const clock = new ManualClock();
    const store = new Store({clock});
    for (const ns of ['default', 'kube-system', 'kube-public']) store.create({apiVersion: 'v1', kind: 'Namespace', metadata: {name: ns}});
    const scenario = loadScenario(store, 'demo', clock.now());
    const controller = new DaemonSetController(store, clock);
    const kubelets = new SimulatedKubelets(store, clock, {failures: scenario.failures});
    controller.start();
    kubelets.start();
    running.push({store, clock, controller, kubelets});
    clock.advance(1000);
    const fluentd = store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet;
    expect(fluentd.metadata.generation).toBe(2);
    expect(fluentd.status).toMatchObject({desiredNumberScheduled: 18, observedGeneration: 2});
    clock.advance(10 * 60_000);
    const after = store.get('daemonsets', 'kube-system', 'fluentd') as DaemonSet;
    // worker-17's new pod crashes (unavailable); the NotReady worker-13 is not desired, its old pod was
    // deleted but its kubelet never confirms: stuck Terminating, the node counts as empty. Together they
    // hold the whole maxUnavailable budget of 2, so the rollout stops short.
    expect(after.status).toMatchObject({desiredNumberScheduled: 18, numberUnavailable: 1});
    expect(after.status!.updatedNumberScheduled).toBeLessThan(17);
    const stuck = (store.list('pods', {namespace: 'kube-system'}).items as Pod[]).find((p) => p.spec.nodeName === 'worker-13');
    expect(stuck?.metadata.deletionTimestamp).toBeDefined();
  });
});
