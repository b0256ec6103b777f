// step --controller on a DaemonSet whose recorded strategy surges: the controller runs one wave under the recorded
// strategy and the DaemonSet is paused again, on success, on Ctrl-C; killed, `pause` recovers it. No node is ever
// left without an available pod (the recorded maxUnavailable is 0).
import type {ChildProcess} from 'node:child_process';
import {afterEach, expect, test, vi} from 'vitest';
import {PAUSED_STRATEGY_ANNOTATION, type StepEvent, pauseStateOf} from '../../src/core/index.js';
import {stepDaemonSet} from '../../src/services/step.js';
import {runCli} from '../helpers/run-cli.js';
import {killAll, REF, type RolloutSim, spawnRollout, startRolloutSim, Witness} from './rollout-sim.js';

vi.setConfig({testTimeout: 60_000});

let sim: RolloutSim | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  killAll(children);
  await sim?.stop();
  sim = undefined;
});

function twoPodNodes(s: RolloutSim): string[] {
  return Object.entries(s.images())
    .filter(([, images]) => images.length > 1)
    .map(([node]) => node);
}

function updated(s: RolloutSim): string[] {
  return Object.entries(s.images())
    .filter(([, images]) => images.length === 1 && images[0] === 'agent:v2')
    .map(([node]) => node)
    .sort();
}

function spawnStep(s: RolloutSim, ...args: string[]) {
  return spawnRollout(s, ['step', 'agent', '--yes', ...args], children);
}

test('one surge wave by the controller, then paused again; no node ever without an available pod', async () => {
  sim = await startRolloutSim({nodes: 5, maxSurge: 2, minReadySeconds: 4});
  const witness = new Witness(sim);
  const events: StepEvent[] = [];
  const result = await stepDaemonSet({session: sim.session, ref: REF, controller: true, timeoutMs: 15_000, tickMs: 50, onEvent: (e) => events.push(e)});

  expect(events.find((e) => e.kind === 'controller-plan')).toMatchObject({number: 1, nodes: ['node-1', 'node-2']});
  expect(events.map((e) => e.kind)).toEqual(expect.arrayContaining(['resumed', 'repaused', 'landed']));
  expect(result).toMatchObject({outcome: 'stepped', waves: [{number: 1, landed: true}]});
  const landed = result.waves[0]!.nodes;
  expect(landed).toHaveLength(2);
  expect(landed.every((n) => n.state === 'available')).toBe(true);
  for (const node of landed) expect(updated(sim)).toContain(node.node);
  // Paused again, with the same record (one more step), and the surge pods started meanwhile are gone.
  const ds = sim.daemonSet();
  expect(ds.spec.updateStrategy).toEqual({type: 'OnDelete'});
  expect(JSON.parse(ds.metadata.annotations![PAUSED_STRATEGY_ANNOTATION]!)).toMatchObject({rollingUpdate: {maxUnavailable: 0, maxSurge: 2}, steps: 1});
  expect(twoPodNodes(sim)).toEqual([]);

  // Again, to the end.
  await stepDaemonSet({session: sim.session, ref: REF, controller: true, timeoutMs: 15_000, tickMs: 50});
  const last = await stepDaemonSet({session: sim.session, ref: REF, controller: true, timeoutMs: 15_000, tickMs: 50});
  expect(last.outcome).toBe('done');
  witness.stop();
  expect(updated(sim)).toEqual(sim.nodes);
  expect(witness.maxWithoutPod.withoutPod).toEqual([]);
  expect(sim.daemonSet().spec.updateStrategy?.type).toBe('OnDelete');
});

test('a wave node that never gets ready: paused again before the controller finishes a node outside the wave', async () => {
  sim = await startRolloutSim({nodes: 5, maxSurge: 2, minReadySeconds: 4});
  // node-2's new pod never becomes ready: the controller finishes node-1 and surges on another node meanwhile.
  sim.test.cluster.kubelets!.injectFailure({node: 'node-2', image: 'agent:v2', mode: 'never-ready'});
  const witness = new Witness(sim);
  const events: StepEvent[] = [];
  const run = stepDaemonSet({session: sim.session, ref: REF, controller: true, timeoutMs: 60_000, tickMs: 50, onEvent: (e) => events.push(e)});
  await expect(run).rejects.toThrow(
    /^the controller moved on to node-\d before the wave landed \(node-2: .*\); the DaemonSet was paused again with node-1 updated/,
  );
  witness.stop();
  expect(events.find((e) => e.kind === 'controller-plan')).toMatchObject({nodes: ['node-1', 'node-2']});
  // One wave at most: node-1 only; the surge pods on node-2 and outside the wave are gone, paused with the record.
  expect(updated(sim)).toEqual(['node-1']);
  expect(twoPodNodes(sim)).toEqual([]);
  expect(JSON.parse(sim.daemonSet().metadata.annotations![PAUSED_STRATEGY_ANNOTATION]!)).toMatchObject({steps: 1});
  expect(sim.daemonSet().spec.updateStrategy).toEqual({type: 'OnDelete'});
  expect(witness.maxWithoutPod.withoutPod).toEqual([]);
});

test('Ctrl-C during the wave pauses again before exiting', async () => {
  sim = await startRolloutSim({nodes: 4, maxSurge: 1, minReadySeconds: 30});
  const witness = new Witness(sim);
  const run = spawnStep(sim, '--controller', '--timeout', '30s');
  await sim.until(() => run.stdout().includes('  resumed'), 20_000, 'the resume');
  expect(sim.daemonSet().spec.updateStrategy?.type).toBe('RollingUpdate');
  run.child.kill('SIGINT');
  const exit = await run.exited;
  witness.stop();
  expect(exit.code).toBe(130);
  expect(run.stdout()).toContain('  paused again');
  expect(run.stderr()).toBe('error: interrupted while waiting; the DaemonSet stays paused\n');
  expect(pauseStateOf(sim.daemonSet()).kind).toBe('paused');
  expect(witness.maxWithoutPod.withoutPod).toEqual([]);
  // The controller, paused again, removes the surge pod it had started.
  await sim.until(() => twoPodNodes(sim!).length === 0, 10_000, 'one pod per node');
});

test('killed during the wave, the DaemonSet runs RollingUpdate (not paused); pause again recovers it', async () => {
  sim = await startRolloutSim({nodes: 3, maxSurge: 1, minReadySeconds: 30});
  const run = spawnStep(sim, '--controller', '--timeout', '30s');
  await sim.until(() => run.stdout().includes('  resumed'), 20_000, 'the resume');
  run.child.kill('SIGKILL');
  await run.exited;
  expect(pauseStateOf(sim.daemonSet())).toMatchObject({kind: 'running', type: 'RollingUpdate'});
  expect(sim.daemonSet().spec.updateStrategy).toEqual({type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 0, maxSurge: 1}});
  const paused = await runCli(['pause', 'agent', '--kubeconfig', sim.kubeconfig], {bin: 'bin/kubectl-ds_rollout'});
  expect(paused.code).toBe(0);
  expect(pauseStateOf(sim.daemonSet())).toMatchObject({kind: 'paused', strategy: {rollingUpdate: {maxUnavailable: 0, maxSurge: 1}}});
});
