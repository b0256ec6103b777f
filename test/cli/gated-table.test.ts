// The gated record follows the cluster: every (phase x command) pair through the BUILT `kubectl ds-rollout` (run
// `npm run build` first) on one simulated cluster. Each row writes the record (and, where the phase implies it,
// the template and pause) directly, as the gated rollout would have left them, then runs one command and checks
// its exit status, its message and the record it leaves. Then the stale-record sequence of issue 20 (approve,
// resumed behind the rollout's back, rolled out by the controller) reads complete and blocks nothing.
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest';
import {
  GATED_ROLLOUT_ANNOTATION,
  PAUSED_STRATEGY_ANNOTATION,
  type ControllerRevision,
  type DaemonSet,
  type GatedPhase,
  type GatedRecord,
  computeTemplateHash,
  gatedProgressOf,
} from '../../src/core/index.js';
import {runCli} from '../helpers/run-cli.js';
import {type RolloutSim, startRolloutSim} from '../safety/rollout-sim.js';

vi.setConfig({testTimeout: 120_000});

const BIN = 'bin/kubectl-ds_rollout';
let sim: RolloutSim;
/** The DaemonSet as the sim leaves it: paused, template agent:v2, pods on agent:v1. */
let paused: DaemonSet;
let v1: {revision: number; hash: string};

beforeAll(async () => {
  sim = await startRolloutSim({nodes: 3, maxUnavailable: 1});
  paused = sim.daemonSet();
  const revisions = sim.test.cluster.store.list('controllerrevisions', {namespace: 'default'}).items as ControllerRevision[];
  const old = revisions.find((r) => r.revision === 1)!;
  v1 = {revision: 1, hash: old.metadata.labels!['controller-revision-hash']!};
});

afterAll(async () => {
  await sim?.stop();
});

function cli(args: string[]) {
  return runCli([...args, '--kubeconfig', sim.kubeconfig], {bin: BIN});
}

function recordFor(phase: GatedPhase): GatedRecord {
  return {
    template: computeTemplateHash(paused.spec.template),
    from: v1,
    stages: [
      {name: 'canary', count: 1, bakeMs: 60_000, approve: true},
      {name: 'wave 1 (100%)', bakeMs: 0, approve: false},
    ],
    stage: 0,
    phase,
    ...(phase === 'baking' ? {bakeUntil: sim.test.cluster.clock.now() + 3_600_000} : {}),
    failures: phase === 'failed' ? [{pod: 'agent-x', node: 'node-1', reason: 'CrashLoopBackOff'}] : [],
    maxRestarts: 0,
    progressDeadlineMs: 600_000,
    onFailure: 'pause',
  };
}

/** The DaemonSet as `phase` leaves it: paused on agent:v2 (aborted: back on agent:v1), with that record. */
function setUp(phase: GatedPhase | 'none'): void {
  sim.test.cluster.store.modify('daemonsets', 'default', 'agent', (current) => {
    const ds = current as DaemonSet;
    const annotations: Record<string, string> = {
      ...ds.metadata.annotations,
      [PAUSED_STRATEGY_ANNOTATION]: paused.metadata.annotations![PAUSED_STRATEGY_ANNOTATION]!,
    };
    delete annotations[GATED_ROLLOUT_ANNOTATION];
    if (phase !== 'none') annotations[GATED_ROLLOUT_ANNOTATION] = JSON.stringify(recordFor(phase));
    const image = phase === 'aborted' ? 'agent:v1' : 'agent:v2';
    const template = {...paused.spec.template, spec: {...paused.spec.template.spec, containers: [{name: 'main', image}]}};
    return {...ds, metadata: {...ds.metadata, annotations}, spec: {...ds.spec, template, updateStrategy: paused.spec.updateStrategy}} as never;
  });
}

function phaseNow(): string {
  const text = sim.daemonSet().metadata.annotations?.[GATED_ROLLOUT_ANNOTATION];
  return text === undefined ? 'none' : (JSON.parse(text) as GatedRecord).phase;
}

const ONGOING = ['rolling', 'baking', 'awaiting-approval', 'failed', 'aborting'] as const;
const FINISHED = ['complete', 'aborted', 'abandoned', 'none'] as const;
const PHASES = [...ONGOING, ...FINISHED];

interface Want {
  readonly code: number;
  /** A part of stderr (or stdout when the exit status is 0). */
  readonly says: string;
  /** The record's phase afterwards (default: unchanged). */
  readonly phase?: string;
}

const UNDER_WAY = 'has a gated rollout under way';

function want(phase: (typeof PHASES)[number], command: string): Want {
  const ongoing = (ONGOING as readonly string[]).includes(phase);
  switch (command) {
    case 'resume --dry-run':
      return ongoing ? {code: 1, says: `${UNDER_WAY}`} : {code: 0, says: 'would be resumed (dry run, nothing was changed)'};
    case 'resume --force --dry-run':
      return {code: 0, says: ongoing ? 'would end: abandoned' : 'would be resumed (dry run, nothing was changed)'};
    case 'undo --dry-run':
      return ongoing ? {code: 1, says: `${UNDER_WAY}`} : {code: 0, says: phase === 'aborted' ? '' : 'rolled back (dry run'};
    case 'step --dry-run':
      return ongoing ? {code: 1, says: `${UNDER_WAY}`} : {code: 0, says: ''};
    case 'promote --dry-run':
      if (phase === 'awaiting-approval') return {code: 0, says: 'Dry run: promote would continue the gated rollout at stage 2/2'};
      if (phase === 'failed') return {code: 3, says: 'gate failed at stage canary'};
      if (phase === 'aborting') return {code: 3, says: 'an abort is under way'};
      return {code: 1, says: 'has no gated rollout waiting for approval'};
    case 'abort --dry-run':
      if (ongoing) return {code: 0, says: 'Dry run: abort would bring daemonset default/agent back to revision 1'};
      if (phase === 'aborted') return {code: 0, says: 'Gated rollout already aborted'};
      return {code: 1, says: 'has no gated rollout to abort'};
    case 'pause':
      // As kubectl rollout pause of a paused Deployment: an error, and nothing is sent.
      return {code: 1, says: 'is already paused'};
  }
  throw new Error(command);
}

const COMMANDS = ['pause', 'resume --dry-run', 'resume --force --dry-run', 'undo --dry-run', 'step --dry-run', 'promote --dry-run', 'abort --dry-run'];

describe.each(PHASES)('phase %s', (phase) => {
  test.each(COMMANDS)('%s', async (command) => {
    setUp(phase);
    const [verb, ...flags] = command.split(' ');
    const result = await cli([verb!, 'agent', ...flags]);
    const expected = want(phase, command);
    expect(result.code, `${result.stdout}${result.stderr}`).toBe(expected.code);
    expect(expected.code === 0 ? result.stdout : result.stderr).toContain(expected.says);
    expect(phaseNow()).toBe(expected.phase ?? phase);
  });
});

test('a record resumed behind its back and rolled out by the controller reads complete and blocks nothing', async () => {
  setUp('awaiting-approval');
  // kubectl patch: RollingUpdate again, the pause record left behind.
  sim.test.cluster.store.modify('daemonsets', 'default', 'agent', (current) => {
    const ds = current as DaemonSet;
    return {...ds, spec: {...ds.spec, updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: 0}}}} as never;
  });
  await sim.until(() => Object.values(sim.images()).every((images) => images.join() === 'agent:v2'), 60_000, 'v2 everywhere');
  await sim.until(() => gatedProgressOf(sim.daemonSet(), 0) === undefined, 20_000, 'status caught up');
  const status = await cli(['status', 'agent', '--watch=false']);
  expect(status.stdout).not.toContain('gated rollout');
  expect((await cli(['promote', 'agent', '--yes'])).stderr).toBe('error: daemonset default/agent has no gated rollout waiting for approval\n');
  expect((await cli(['abort', 'agent', '--yes'])).stderr).toBe('error: daemonset default/agent has no gated rollout to abort (its last one is complete)\n');
  // The next release goes through: pause, a new template, a gated step.
  expect((await cli(['pause', 'agent'])).code).toBe(0);
  sim.setImage('agent:v3');
  await sim.until(() => sim.test.cluster.store.list('controllerrevisions', {namespace: 'default'}).items.length >= 3, 5_000, 'revision 3');
  const next = await cli(['step', 'agent', '--until-complete', '--canary', '1', '--approve', '--yes']);
  expect({code: next.code, stderr: next.stderr}).toEqual({code: 0, stderr: ''});
  expect(phaseNow()).toBe('awaiting-approval');
  // resume is refused while it waits; --force ends it (abandoned) and hands the rest to the controller.
  expect((await cli(['resume', 'agent'])).stderr).toContain(`error: daemonset default/agent ${UNDER_WAY} (stage 1/2 canary, awaiting-approval)`);
  const forced = await cli(['resume', 'agent', '--force']);
  expect({code: forced.code, stderr: forced.stderr}).toEqual({code: 0, stderr: ''});
  expect(forced.stdout).toContain('Its gated rollout (stage canary, awaiting-approval) ended: abandoned.');
  expect(phaseNow()).toBe('abandoned');
  expect(sim.daemonSet().spec.updateStrategy?.type).toBe('RollingUpdate');
});
