// Generated fleet sequences (issue 27 part 3), over the fleet's one state machine (core/fleet-machine.ts): a model
// of N clusters, each a DaemonSet whose annotations the model writes as the fleet service and the gated rollout
// would, and fast-check interleaving the driver's rounds with what the world does: a cluster unreachable mid-wave
// (and back), a driver killed between waves (the next round is another machine's rerun: nothing is remembered but
// the clusters), an abort while one cluster bakes, someone changing one cluster's template by hand, a release that
// fails in one cluster; the release an image or a manifest's whole template. After every step the invariants below hold; a failure is shrunk to its shortest sequence.
import fc from 'fast-check';
import {
  computeTemplateHash,
  type DaemonSet,
  FLEET_ROLLOUT_ANNOTATION,
  type FleetPlan,
  type FleetRecord,
  type FleetRelease,
  fleetRecordFor,
  fleetTemplateReleaseOf,
  fleetViewOf,
  type FleetView,
  formatGatedRecord,
  GATED_ROLLOUT_ANNOTATION,
  type GatedPhase,
  type GatedRecord,
  templateWithRelease,
} from '../../src/core/index.js';
import {newDaemonSet} from '../helpers/builders.js';

/** One cluster as the model keeps it: what its DaemonSet's annotations and template say. */
interface ModelCluster {
  readonly context: string;
  reachable: boolean;
  /** The fleet record is written (and the release set). */
  started: boolean;
  /** Its gated rollout's phase (undefined: none begun). */
  gated?: GatedPhase;
  aborted: boolean;
  /** Someone set another image by hand. */
  changed: boolean;
  /** The release crash-loops here: its gated rollout fails. */
  readonly fails: boolean;
}

export type FleetStep =
  | {readonly kind: 'round'}
  | {readonly kind: 'kill'}
  | {readonly kind: 'unreachable'; readonly cluster: number}
  | {readonly kind: 'reachable'; readonly cluster: number}
  | {readonly kind: 'abort'}
  | {readonly kind: 'hand-change'; readonly cluster: number};

const ORIGIN: DaemonSet = {
  ...newDaemonSet('agent', {maxUnavailable: 1}),
  status: {
    observedGeneration: 99,
    desiredNumberScheduled: 2,
    currentNumberScheduled: 2,
    numberMisscheduled: 0,
    numberReady: 2,
    updatedNumberScheduled: 0,
    numberAvailable: 2,
  },
};

/** The release: an image (`--image`), or a manifest's whole template (`-f`). */
function releaseOf(template: boolean): FleetRelease {
  if (!template) return {images: {main: 'agent:v2'}};
  return fleetTemplateReleaseOf({metadata: {labels: {app: 'agent', release: 'v2'}}, spec: {containers: [{name: 'main', image: 'agent:v2'}]}});
}

function planOf(count: number, waves: readonly number[], template = false): FleetPlan {
  return {
    namespace: 'default',
    name: 'agent',
    contexts: Array.from({length: count}, (_, i) => `c${i}`),
    waves,
    release: releaseOf(template),
    strategy: {
      canary: {kind: 'count', count: 1},
      canaryBakeMs: 60_000,
      waves: [],
      bakeMs: 0,
      approve: false,
      maxRestarts: 0,
      progressDeadlineMs: 600_000,
      onFailure: 'undo',
    },
  };
}

/** The DaemonSet the model's cluster stands for, written as the services write it. */
function daemonSetOf(plan: FleetPlan, cluster: ModelCluster): DaemonSet {
  if (!cluster.started) return ORIGIN;
  const released = templateWithRelease(ORIGIN.spec.template, plan.release);
  if (!('template' in released)) throw new Error('no container');
  const hash = computeTemplateHash(released.template);
  const undone = cluster.gated === 'aborted';
  const image = cluster.changed ? 'agent:by-hand' : undone ? 'main-origin' : 'agent:v2';
  const template = {...released.template, spec: {...released.template.spec, containers: [{name: 'main', image}]}};
  const record: FleetRecord = {...fleetRecordFor(plan, cluster.context), template: hash, ...(cluster.aborted ? {aborted: true} : {})};
  const gated: GatedRecord | undefined = cluster.gated && {
    template: hash,
    stages: [{name: 'canary', count: 1, bakeMs: 60_000, approve: false}],
    stage: 0,
    phase: cluster.gated,
    failures: cluster.fails ? [{pod: 'agent-x', node: 'node-1', reason: 'CrashLoopBackOff'}] : [],
    maxRestarts: 0,
    progressDeadlineMs: 600_000,
    onFailure: 'undo',
  };
  return {
    ...ORIGIN,
    metadata: {
      ...ORIGIN.metadata,
      annotations: {[FLEET_ROLLOUT_ANNOTATION]: JSON.stringify(record), ...(gated ? {[GATED_ROLLOUT_ANNOTATION]: formatGatedRecord(gated)} : {})},
    },
    spec: {...ORIGIN.spec, template, updateStrategy: {type: 'OnDelete'}},
  };
}

/** A property violated: which, and where the sequence stood. */
export class FleetInvariantViolation extends Error {}

export class FleetModel {
  readonly clusters: ModelCluster[];
  /** Set once abort is asked: the fleet never starts a cluster again. */
  private abortAsked = false;
  /** Set once the fleet saw a cluster failed or changed. */
  private stopped = false;

  constructor(
    readonly plan: FleetPlan,
    failing: ReadonlySet<number>,
  ) {
    this.clusters = plan.contexts.map((context, i) => ({context, reachable: true, started: false, aborted: false, changed: false, fails: failing.has(i)}));
  }

  view(): FleetView {
    return fleetViewOf(
      this.plan,
      this.clusters.map((c) => (c.reachable ? {context: c.context, ds: daemonSetOf(this.plan, c)} : {context: c.context, error: 'connection refused'})),
    );
  }

  private check(condition: boolean, message: string): void {
    if (!condition) throw new FleetInvariantViolation(message);
  }

  /** The driver's round: one action of the machine, applied as the services would. */
  private round(): void {
    const view = this.view();
    if (view.action.kind === 'failed') this.stopped = true;
    if (view.action.kind !== 'run') return;
    this.check(!this.abortAsked, 'a cluster is driven after abort was asked');
    this.check(!this.stopped, 'a cluster is driven after the fleet failed');
    const wave = view.action.wave;
    for (const context of view.action.start) {
      const cluster = this.clusters.find((c) => c.context === context)!;
      this.check(!cluster.started, `${context} started twice`);
      // Never a later wave while an earlier cluster is not complete.
      const earlier = this.clusters.filter((c) => view.clusters.find((v) => v.context === c.context)!.wave < wave);
      this.check(
        earlier.every((c) => c.started && c.gated === 'complete' && !c.changed),
        `${context} (wave ${wave + 1}) started before every earlier cluster completed`,
      );
      cluster.started = true;
    }
    for (const context of view.action.drive) {
      const cluster = this.clusters.find((c) => c.context === context)!;
      if (!cluster.reachable || cluster.changed) continue;
      // The gated rollout runs to its end: the release fails here (undone, --on-failure undo) or completes.
      cluster.gated = cluster.fails ? 'aborted' : 'complete';
    }
  }

  /** `fleet abort`: the touched clusters it can read are taken back (one it cannot read waits for the next abort). */
  private abort(): void {
    for (const cluster of this.clusters) {
      if (!cluster.started || !cluster.reachable) continue;
      cluster.aborted = true;
      cluster.gated = 'aborted';
      // Recorded in a cluster: from now on the fleet never starts one again.
      this.abortAsked = true;
    }
  }

  apply(step: FleetStep): void {
    const at = (i: number) => this.clusters[i % this.clusters.length]!;
    switch (step.kind) {
      case 'round':
        return this.round();
      case 'kill':
        // Nothing is kept between rounds but the clusters: a killed driver is a round never taken.
        return;
      case 'unreachable':
        at(step.cluster).reachable = false;
        return;
      case 'reachable':
        at(step.cluster).reachable = true;
        return;
      case 'abort':
        return this.abort();
      case 'hand-change': {
        const cluster = at(step.cluster);
        // Only a started cluster's change concerns the fleet (it sets the release there itself otherwise).
        if (cluster.started && !cluster.aborted) cluster.changed = true;
        return;
      }
    }
  }

  /** What must hold once the world settles: every cluster reachable, the driver rerun until it stops. */
  settle(): void {
    for (const cluster of this.clusters) cluster.reachable = true;
    for (let i = 0; i <= this.plan.waves.length + 1; i++) this.round();
    const view = this.view();
    const untouched = this.clusters.filter((c) => !c.started);
    if (this.abortAsked) {
      this.abort();
      const after = this.view();
      this.check(after.phase === 'aborted', `after abort the fleet is ${after.phase}`);
      return;
    }
    // Where a cluster may start, and that none starts after a failure, round() checks at every step.
    if (view.phase !== 'complete') {
      this.check(view.phase === 'failed', `a fleet that did not complete ends ${view.phase}`);
      this.check(
        this.clusters.some((c) => c.started && (c.fails || c.changed)),
        'the fleet failed with no cluster failing the release or changed by hand',
      );
      return;
    }
    this.check(!this.clusters.some((c) => c.fails), 'a fleet completed over a cluster whose release failed');
    this.check(view.phase === 'complete', `a healthy release ends ${view.phase}`);
    this.check(untouched.length === 0, 'a cluster of a complete fleet was never started');
  }
}

const step: fc.Arbitrary<FleetStep> = fc.oneof(
  {weight: 6, arbitrary: fc.constant({kind: 'round' as const})},
  {weight: 1, arbitrary: fc.constant({kind: 'kill' as const})},
  {weight: 2, arbitrary: fc.nat(7).map((cluster) => ({kind: 'unreachable' as const, cluster}))},
  {weight: 2, arbitrary: fc.nat(7).map((cluster) => ({kind: 'reachable' as const, cluster}))},
  {weight: 1, arbitrary: fc.constant({kind: 'abort' as const})},
  {weight: 1, arbitrary: fc.nat(7).map((cluster) => ({kind: 'hand-change' as const, cluster}))},
);

/** A fleet of 1 to 6 clusters in growing waves, some failing the release, and a sequence of steps. */
export const fleetSequence = fc.integer({min: 1, max: 6}).chain((count) =>
  fc.record({
    count: fc.constant(count),
    waves: fc.uniqueArray(fc.integer({min: 1, max: count}), {maxLength: count}).map((ends) => [...new Set([...ends, count])].sort((a, b) => a - b)),
    failing: fc.uniqueArray(fc.nat(count - 1), {maxLength: 2}),
    template: fc.boolean(),
    steps: fc.array(step, {maxLength: 30}),
  }),
);

export function fleetSequencesHold() {
  return fc.property(fleetSequence, ({count, waves, failing, template, steps}) => {
    const model = new FleetModel(planOf(count, waves, template), new Set(failing));
    for (const s of steps) model.apply(s);
    model.settle();
  });
}
