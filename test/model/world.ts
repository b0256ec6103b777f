// The world a generated sequence runs in: the paused-release fixture (test/helpers/paused-release.ts) on a manual
// clock, the outside actions a person or another tool takes (kubectl set image / set env / rollout undo, a patch
// back to RollingUpdate, a node turning NotReady, pods crash-looping), and the clock driven in big steps while a
// command runs. Nothing here calls ds-rollout: that is commands.ts.
import {type DaemonSet, type Node, type Pod, type PodTemplateSpec, templateOfRevision} from '../../src/core/index.js';
import {controlledRevisions} from '../../src/services/history.js';
import {type PausedRelease, REF, startPausedRelease} from '../helpers/paused-release.js';
import {countUnavailable} from '../safety/rollout-sim.js';
import {connectDriver, type Driver} from './commands.js';

/** The image the kubelets fail (CrashLoopBackOff): a release that crash-loops. */
export const BAD_IMAGE = 'agent:bad';
/** Simulated ms the clock moves between two looks at the running command; doubled while it sends nothing. */
const STEP_MS = 500;
const MAX_STEP_MS = 8000;
/** Loop turns the clock waits for requests in flight before it moves anyway. */
const MAX_BUSY_TURNS = 200;
/** Simulated ms per step while no command runs (the kubelets' start and stop delays are 1,000 and 500 ms). */
const SETTLE_STEP_MS = 1000;

export {REF};

/** What a template or a pod runs, as a person names it: image, and env if any (`agent:v2 MODE=b`). */
export function keyOf(template: Pick<PodTemplateSpec, 'spec'> | Pod): string {
  const main = template.spec?.containers[0];
  const env = ((main?.['env'] ?? []) as readonly {name: string; value?: string}[]).map((e) => `${e.name}=${e.value ?? ''}`).join(',');
  return env ? `${main?.image} ${env}` : (main?.image ?? '');
}

const yieldLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
// The services re-judge their watched state on a timer (tickMs, real ms): one short timer turn per clock step
// lets them see a deadline the clock has passed before it moves on.
const timerTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

export class World {
  readonly nodes: readonly string[];
  private readonly drivers: Driver[] = [];

  private constructor(readonly release: PausedRelease) {
    this.nodes = release.tc.cluster.store.list('nodes').items.map((n) => n.metadata.name);
  }

  static async start(nodeCount: number): Promise<World> {
    const release = await startPausedRelease(Array.from({length: nodeCount}, (_, i) => `node-${i + 1}`));
    release.tc.cluster.kubelets!.injectFailure({image: BAD_IMAGE, mode: 'crash'});
    return new World(release);
  }

  get store() {
    return this.release.tc.cluster.store;
  }

  now(): number {
    return this.release.tc.cluster.clock.now();
  }

  daemonSet(): DaemonSet {
    return this.release.daemonSet();
  }

  pods(): Pod[] {
    return this.store.list('pods', {namespace: REF.namespace}).items as unknown as Pod[];
  }

  /** A fresh driver process: its own connection. */
  driver(): Driver {
    const driver = connectDriver(this.release.tc.kubeconfig, () => this.now());
    this.drivers.push(driver);
    return driver;
  }

  /** Requests the API server has not answered yet (watches aside): a driver is mid-way through something. */
  private busy(): boolean {
    const entries = this.release.tc.cluster.requestLog.entries;
    for (let i = entries.length - 1; i >= Math.max(0, entries.length - 64); i--) {
      const e = entries[i]!;
      if (e.status === 0 && e.verb !== 'watch') return true;
    }
    return false;
  }

  /**
   * Runs the clock while `work` runs, a step each time the drivers are idle (no request in flight), so they decide
   * on what the cluster shows. 'hang' when `limitMs` of simulated time pass first.
   */
  async drive<T>(work: Promise<T>, limitMs: number): Promise<T | 'hang'> {
    let settled = false;
    const done = work.finally(() => {
      settled = true;
    });
    done.catch(() => undefined);
    const until = this.now() + limitMs;
    const log = this.release.tc.cluster.requestLog;
    let step = STEP_MS;
    let seen = log.count;
    let waited = 0;
    while (!settled) {
      for (let i = 0; i < 3 && !settled; i++) await yieldLoop();
      if (settled) break;
      await timerTurn();
      if (settled) break;
      // A request the server never finishes (one a killed driver dropped) must not stop the clock for good.
      if (this.busy() && waited++ < MAX_BUSY_TURNS) continue;
      waited = 0;
      if (this.now() >= until) return 'hang';
      // A driver that sent nothing since the last step waits for the clock (a bake): longer steps, up to 8 s.
      step = log.count === seen ? Math.min(step * 2, MAX_STEP_MS) : STEP_MS;
      seen = log.count;
      this.release.tc.clock!.advance(step);
    }
    return done;
  }

  /** Lets the cluster act for `ms` of simulated time (pods start, stop, crash; the controller syncs). */
  async settle(ms: number): Promise<void> {
    for (let done = 0; done < ms; done += SETTLE_STEP_MS) {
      this.release.tc.clock!.advance(SETTLE_STEP_MS);
      await yieldLoop();
    }
    await timerTurn();
  }

  templateKey(): string {
    return keyOf(this.daemonSet().spec.template);
  }

  /** What each node runs: its one live daemon pod's key (undefined: none, or more than one). */
  nodeKeys(): Map<string, string | undefined> {
    const byNode = new Map<string, string[]>();
    for (const pod of this.pods()) {
      if (pod.metadata.deletionTimestamp || !pod.spec.nodeName) continue;
      byNode.set(pod.spec.nodeName, [...(byNode.get(pod.spec.nodeName) ?? []), keyOf(pod)]);
    }
    return new Map(this.nodes.map((node) => [node, byNode.get(node)?.length === 1 ? byNode.get(node)![0] : undefined]));
  }

  private modifyTemplate(change: (template: PodTemplateSpec) => PodTemplateSpec): void {
    this.store.modify('daemonsets', REF.namespace, REF.name, (ds) => {
      const d = ds as unknown as DaemonSet;
      return {...d, spec: {...d.spec, template: change(d.spec.template)}} as never;
    });
  }

  /** `kubectl set image ds/agent main=IMAGE`. */
  setImage(image: string): void {
    this.modifyTemplate((t) => ({...t, spec: {...t.spec, containers: t.spec.containers.map((c) => ({...c, image}))}}));
  }

  /** `kubectl set env ds/agent MODE=VALUE`. */
  setEnv(value: string): void {
    this.modifyTemplate((t) => ({...t, spec: {...t.spec, containers: t.spec.containers.map((c) => ({...c, env: [{name: 'MODE', value}]}))}}));
  }

  /** `kubectl rollout undo ds/agent`: the template of the newest revision that differs from the current one. */
  kubectlUndo(): boolean {
    const ds = this.daemonSet();
    const revisions = controlledRevisions(ds, this.store.list('controllerrevisions', {namespace: REF.namespace}).items as never);
    const current = keyOf(ds.spec.template);
    const target = [...revisions]
      .sort((a, b) => Number(b.revision) - Number(a.revision))
      .map((r) => templateOfRevision(r))
      .find((t) => t !== undefined && keyOf(t) !== current);
    if (!target) return false;
    this.modifyTemplate(() => target);
    return true;
  }

  /** `kubectl patch ds/agent -p '{"spec":{"updateStrategy":{"type":"RollingUpdate"}}}'`: the controller takes over. */
  patchRollingUpdate(): void {
    this.store.modify('daemonsets', REF.namespace, REF.name, (ds) => {
      const d = ds as unknown as DaemonSet;
      return {...d, spec: {...d.spec, updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 2, maxSurge: 0}}}} as never;
    });
  }

  setNodeReady(node: string, ready: boolean): void {
    this.release.tc.cluster.kubelets!.setNodeReady(node, ready);
  }

  /** Every pod started on `node` from now on crash-loops. */
  crashLoop(node: string): void {
    this.release.tc.cluster.kubelets!.injectFailure({node, mode: 'crash'});
  }

  /** Nodes unavailable as the budget witness counts them (test/safety/rollout-sim.ts). */
  unavailable(): readonly string[] {
    return countUnavailable(this.store.list('nodes').items as unknown as Node[], this.daemonSet(), this.pods(), this.now()).nodes;
  }

  async stop(): Promise<void> {
    for (const driver of this.drivers) driver.kill();
    await this.release.stop();
  }
}
