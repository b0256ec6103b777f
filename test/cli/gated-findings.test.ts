// Issue 26's findings, each as an operator met it, through the BUILT `kubectl ds-rollout` (run `npm run build`
// first) on a simulated cluster: sequences nobody had scripted, which the one state machine in core now answers
// (docs/gated/abort-and-record.md). Each test failed before that machine.
import {afterEach, expect, test, vi} from 'vitest';
import {GATED_ROLLOUT_ANNOTATION, type GatedRecord, computeTemplateHash} from '../../src/core/index.js';
import {runCli} from '../helpers/run-cli.js';
import {type ChildProcess} from 'node:child_process';
import {killAll, type RolloutSim, spawnRollout, startRolloutSim} from '../safety/rollout-sim.js';

vi.setConfig({testTimeout: 180_000});

const BIN = 'bin/kubectl-ds_rollout';
let sim: RolloutSim | undefined;

afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

function cli(s: RolloutSim, args: string[], env: Record<string, string> = {}) {
  return runCli([...args, '--kubeconfig', s.kubeconfig], {bin: BIN, env});
}

function record(s: RolloutSim): GatedRecord {
  return JSON.parse(s.daemonSet().metadata.annotations![GATED_ROLLOUT_ANNOTATION]!) as GatedRecord;
}

function image(s: RolloutSim): string {
  return s.daemonSet().spec.template.spec.containers[0]!.image!;
}

/** The reasons of the Events ds-rollout wrote on the DaemonSet, in order. */
function eventReasons(s: RolloutSim): string[] {
  return (s.test.cluster.store.list('events').items as unknown as {reason: string; source: {component?: string}}[])
    .filter((e) => e.source.component === 'ds-rollout')
    .map((e) => e.reason);
}

const allOn = (s: RolloutSim, wanted: string) => Object.values(s.images()).every((images) => images.length === 1 && images[0] === wanted);

test('finding 1: after --on-failure undo, rerunning the gated step records nothing and abort never rolls the failed release back out', async () => {
  sim = await startRolloutSim({nodes: 6, maxUnavailable: 2});
  const s = sim;
  s.test.cluster.kubelets!.injectFailure({image: 'agent:v2', mode: 'crash'});
  const failed = await cli(s, ['step', 'agent', '--until-complete', '--canary', '2', '--canary-bake', '20s', '--on-failure', 'undo', '--yes']);
  expect(failed.code).toBe(3);
  await s.until(() => allOn(s, 'agent:v1'), 20_000, 'v1 everywhere');
  const undone = record(s);
  expect(undone.phase).toBe('aborted');
  // The closing event, once (it used to be missing for --on-failure undo).
  expect(eventReasons(s).filter((r) => r === 'Aborted')).toHaveLength(1);

  const rerun = await cli(s, ['step', 'agent', '--until-complete', '--canary', '2', '--canary-bake', '5s', '--approve', '--on-failure', 'undo', '--yes']);
  expect({code: rerun.code, stderr: rerun.stderr}).toEqual({code: 0, stderr: ''});
  expect(rerun.stdout).toMatch(
    /^Nothing to roll out: every node of daemonset default\/agent runs its template already \(revision 3\); no gated rollout was recorded\.\n$/,
  );
  expect(record(s)).toEqual(undone);

  const dry = await cli(s, ['abort', 'agent', '--dry-run']);
  const abort = await cli(s, ['abort', 'agent', '--yes']);
  for (const run of [dry, abort]) {
    expect({code: run.code, stderr: run.stderr}).toEqual({code: 0, stderr: ''});
    expect(run.stdout).toContain('Gated rollout already aborted: every node of daemonset default/agent is on revision 3; nothing to do.');
  }
  expect(image(s)).toBe('agent:v1');
  expect(allOn(s, 'agent:v1')).toBe(true);
});

test('finding 2: abort after an ended abort leaves a later `kubectl set image` alone; its dry run says the same', async () => {
  sim = await startRolloutSim({nodes: 4, maxUnavailable: 1});
  const s = sim;
  s.test.cluster.kubelets!.injectFailure({image: 'agent:v2', node: 'node-1', mode: 'image-pull'});
  expect((await cli(s, ['step', 'agent', '--until-complete', '--canary-nodes', 'node-1', '--yes'])).code).toBe(3);
  expect((await cli(s, ['abort', 'agent', '--yes'])).code).toBe(0);
  s.setImage('agent:v3');
  await s.until(() => s.test.cluster.store.list('controllerrevisions', {namespace: 'default'}).items.length === 3, 5_000, 'revision of v3');
  for (const args of [
    ['abort', 'agent', '--yes'],
    ['abort', 'agent', '--dry-run'],
  ]) {
    const run = await cli(s, args);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      "error: daemonset default/agent's gated rollout was aborted, and its template has changed since to revision 4: abort rolls back only its own release; nothing was changed ('kubectl ds-rollout undo' rolls back that change)\n",
    );
  }
  expect(image(s)).toBe('agent:v3');
  expect(record(s).phase).toBe('aborted');
});

test('finding 3: a template changed while awaiting approval reads superseded on every face; only commands that work are named', async () => {
  sim = await startRolloutSim({nodes: 4, maxUnavailable: 1});
  const s = sim;
  expect((await cli(s, ['step', 'agent', '--until-complete', '--canary', '1', '--approve', '--yes'])).code).toBe(0);
  // A paused gated rollout names its own way on, never resume (which is refused).
  const held = await cli(s, ['status', 'agent']);
  expect(held.stdout).toContain('3 nodes run an old pod, held by the gated rollout (awaiting-approval)');
  expect(held.stdout).not.toMatch(/resume/);
  const waiting = await cli(s, ['resume', 'agent']);
  expect(waiting.code).toBe(1);
  expect(waiting.stderr).toContain("continue it with 'kubectl ds-rollout promote agent -n default'");
  // kubectl set env: someone else's template.
  s.setImage('agent:v2-debug');
  await s.until(() => s.test.cluster.store.list('controllerrevisions', {namespace: 'default'}).items.length === 3, 5_000, 'revision 3');
  const status = await cli(s, ['status', 'agent']);
  expect(status.stdout).toContain('gated rollout: stage 1/2 canary, superseded by revision 3, set by someone else');
  expect(status.stdout).not.toContain('awaiting approval');
  const promote = await cli(s, ['promote', 'agent', '--yes']);
  expect(promote.code).toBe(1);
  expect(promote.stderr).toMatch(
    /no gated rollout waiting for approval: its last one was superseded by revision 3; roll the new template out with a gated step/,
  );
  // Superseded is an end: nothing it left blocks the next command.
  const resume = await cli(s, ['resume', 'agent']);
  expect({code: resume.code, stderr: resume.stderr}).toEqual({code: 0, stderr: ''});
  expect(record(s).phase).toBe('superseded');
});

test('failed and aborting refusals name abort, never promote; a gated dry run meets the same refusal and exit code', async () => {
  sim = await startRolloutSim({nodes: 4, maxUnavailable: 1});
  const s = sim;
  s.test.cluster.kubelets!.injectFailure({image: 'agent:v2', node: 'node-1', mode: 'image-pull'});
  const args = ['step', 'agent', '--until-complete', '--canary-nodes', 'node-1'];
  expect((await cli(s, [...args, '--yes'])).code).toBe(3);
  const real = await cli(s, [...args, '--yes']);
  const dry = await cli(s, [...args, '--dry-run']);
  expect(real.code).toBe(3);
  expect(dry).toEqual({...real, stdout: ''});
  for (const command of [
    ['promote', 'agent', '--yes'],
    ['resume', 'agent'],
    ['undo', 'agent', '--yes'],
    ['step', 'agent', '--yes'],
  ]) {
    const run = await cli(s, command);
    expect(run.code, command.join(' ')).not.toBe(0);
    expect(run.stderr, command.join(' ')).toContain('kubectl ds-rollout abort agent -n default');
    expect(run.stderr, command.join(' ')).not.toMatch(/kubectl ds-rollout (promote|resume) agent/);
  }
  expect(record(s).phase).toBe('failed');
});

test('finding 4: resume --force during a bake stops the driver at once, truly; the record says abandoned; a restarted Job driver writes nothing', async () => {
  sim = await startRolloutSim({nodes: 4, maxUnavailable: 1, speed: 5});
  const s = sim;
  const children: ChildProcess[] = [];
  try {
    const run = spawnRollout(s, ['step', 'agent', '--until-complete', '--canary', '1', '--canary-bake', '1h', '--yes'], children);
    await s.until(() => s.daemonSet().metadata.annotations?.[GATED_ROLLOUT_ANNOTATION]?.includes('"phase":"baking"') === true, 60_000, 'baking');
    const resumed = await cli(s, ['resume', 'agent', '--force', '--max-unavailable', '1']);
    expect(resumed.code).toBe(0);
    const exit = await run.exited;
    expect(exit.code).toBe(3);
    expect(run.stderr()).toBe(
      'error: the gated rollout of daemonset default/agent was changed by someone else meanwhile: the DaemonSet was resumed, so the controller rolls it out and the rollout is abandoned; this run stops and changes nothing more\n',
    );
    expect(record(s).phase).toBe('abandoned');
    // Each transition once, and the closing event of the rollout resume --force ended.
    const reasons = eventReasons(s);
    expect(reasons.filter((r) => r === 'CanaryStarted')).toHaveLength(1);
    expect(reasons.at(-1)).toBe('Abandoned');
    expect(reasons.filter((r) => r === 'Abandoned')).toHaveLength(1);
    // The Job's driver restarted after that: the rollout it was made for is over, so it writes nothing.
    const template = record(s).template;
    expect(template).toBe(computeTemplateHash(s.daemonSet().spec.template));
    const restarted = await cli(s, ['step', 'agent', '--until-complete', '--canary', '1', '--canary-bake', '1h', '--yes'], {
      DS_ROLLOUT_DETACHED_TEMPLATE: template,
    });
    // It writes nothing and fails, so the Job's failure alerts fire (no Job named here: nothing to mark).
    expect({code: restarted.code, stdout: restarted.stdout, stderr: restarted.stderr}).toEqual({
      code: 3,
      stdout: '',
      stderr: 'error: the gated rollout of daemonset default/agent is abandoned\n',
    });
    expect(record(s).phase).toBe('abandoned');
  } finally {
    killAll(children);
  }
});

test('finding 8: 1,500 canary node names are refused before anything is written', async () => {
  sim = await startRolloutSim({nodes: 2, maxUnavailable: 1});
  const s = sim;
  const names = Array.from({length: 1500}, (_, i) => `ip-10-0-${Math.floor(i / 250)}-${i % 250}.eu-west-1.compute.internal`);
  const run = await cli(s, ['step', 'agent', '--until-complete', '--canary-nodes', names.join(','), '--yes']);
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(/^error: the gated rollout's record would start at \d+ bytes, over the 2048 it may .*--canary-selector/);
  expect(s.daemonSet().metadata.annotations?.[GATED_ROLLOUT_ANNOTATION]).toBeUndefined();
});
