// Gated rollouts through the BUILT `kubectl ds-rollout` (run `npm run build` first) on the simulated cluster: a
// healthy release through canary, bake and waves; a crash-looping release stopped at the canary (paused, or
// rolled back); --approve then promote; strategy files with a line per problem. A watcher records every pod's node
// and image, so "no node outside the canary ever ran the new image" is checked on what happened, and a witness
// holds the budget (maxUnavailable 2) throughout.
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, expect, test, vi} from 'vitest';
import {GATED_ROLLOUT_ANNOTATION, type GatedRecord, type Pod, isPodReady} from '../../src/core/index.js';
import {runCli} from '../helpers/run-cli.js';
import {type ChildProcess} from 'node:child_process';
import {killAll, type RolloutSim, spawnRollout, startRolloutSim, Witness} from '../safety/rollout-sim.js';

vi.setConfig({testTimeout: 60_000});

const BIN = 'bin/kubectl-ds_rollout';
let sim: RolloutSim | undefined;
let dir: string | undefined;

afterEach(async () => {
  await sim?.stop();
  sim = undefined;
  if (dir) await rm(dir, {recursive: true, force: true});
  dir = undefined;
});

/** Every node that ever ran a pod of `image`, with the server time its first such pod turned Ready. */
class ImageWatcher {
  readonly nodes = new Map<string, number | undefined>();
  private readonly stop: () => void;
  constructor(
    s: RolloutSim,
    private readonly image: string,
  ) {
    this.stop = s.test.cluster.store.subscribe((event) => {
      if (event.resource !== 'pods') return;
      const pod = event.object as unknown as Pod;
      const node = pod.spec.nodeName;
      if (!node || !pod.spec.containers.some((c) => c.image === this.image)) return;
      if (!this.nodes.has(node)) this.nodes.set(node, undefined);
      if (isPodReady(pod) && this.nodes.get(node) === undefined) this.nodes.set(node, s.test.cluster.clock.now());
    });
  }
  close(): string[] {
    this.stop();
    return [...this.nodes.keys()].sort();
  }
}

function cli(s: RolloutSim, args: string[]) {
  return runCli([...args, '--kubeconfig', s.kubeconfig], {bin: BIN});
}

function record(s: RolloutSim): GatedRecord {
  return JSON.parse(s.daemonSet().metadata.annotations![GATED_ROLLOUT_ANNOTATION]!) as GatedRecord;
}

function everyNodeOn(s: RolloutSim, image: string): boolean {
  const images = s.images();
  return s.nodes.every((n) => images[n]?.length === 1 && images[n]![0] === image);
}

async function strategyFile(text: string): Promise<string> {
  dir ??= await mkdtemp(join(tmpdir(), 'ds-rollout-gated-'));
  const path = join(dir, 'strategy.yaml');
  await writeFile(path, text);
  return path;
}

/**
 * Nothing outside the canary (node-1) got the new image before the canary's bake of `bakeMs` had passed after it
 * turned Ready (server clock; creation times have one-second resolution).
 */
function expectCanaryFirst(s: RolloutSim, watcher: ImageWatcher, bakeMs: number): void {
  const canaryReady = watcher.nodes.get('node-1')!;
  watcher.close();
  for (const pod of s.pods().filter((p) => p.spec.nodeName !== 'node-1')) {
    expect(Date.parse(pod.metadata.creationTimestamp!)).toBeGreaterThanOrEqual(Math.floor(canaryReady / 1000) * 1000 + bakeMs - 1000);
  }
}

test('a healthy release: canary, bake, waves, complete; later nodes only after the canary baked', async () => {
  sim = await startRolloutSim({nodes: 6, maxUnavailable: 2});
  const watcher = new ImageWatcher(sim, 'agent:v2');
  const witness = new Witness(sim);
  const file = await strategyFile(['canary: 1', 'canaryBake: 30s', 'waves: [50%, 100%]', 'bake: 10s'].join('\n'));
  const {stdout, stderr, code} = await cli(sim, ['step', 'agent', '--until-complete', '--strategy', file, '--yes']);
  witness.stop();
  expect({code, stderr}).toEqual({code: 0, stderr: ''});
  expect(stdout).toContain(
    [
      'Gated rollout of daemonset default/agent in 3 stages:',
      '  1. canary: node-1, bake 30s',
      '  2. wave 1 (50%): node-1, node-2, node-3, bake 10s',
      '  3. wave 2 (100%): every node, bake 10s',
    ].join('\n'),
  );
  expect(stdout).toContain('Stage 1/3 canary: node-1');
  expect(stdout).toContain('  canary passed its gate');
  expect(stdout.trimEnd().split('\n').at(-1)).toBe(
    'Gated rollout complete: every stage passed. The DaemonSet stays paused: kubectl ds-rollout resume agent -n default',
  );
  expect(everyNodeOn(sim, 'agent:v2')).toBe(true);
  expect(record(sim)).toMatchObject({phase: 'complete', stage: 2, failures: []});
  expect(witness.max.count).toBeLessThanOrEqual(2);
  // No other node got the new image before the canary's 30 s bake had passed (server clock).
  const readyAt = watcher.nodes.get('node-1')!;
  watcher.close();
  const others = sim.pods().filter((p) => p.spec.nodeName !== 'node-1');
  for (const pod of others) expect(Date.parse(pod.metadata.creationTimestamp!)).toBeGreaterThanOrEqual(readyAt + 30_000);
});

test('a crash-looping release fails the canary gate and --on-failure undo rolls back only the canary nodes', async () => {
  sim = await startRolloutSim({nodes: 6, maxUnavailable: 2});
  sim.test.cluster.kubelets!.injectFailure({image: 'agent:v2', mode: 'crash'});
  const watcher = new ImageWatcher(sim, 'agent:v2');
  const witness = new Witness(sim);
  const {stdout, stderr, code} = await cli(sim, ['step', 'agent', '--until-complete', '--canary', '2', '--canary-bake', '1m', '--on-failure', 'undo', '--yes']);
  witness.stop();
  expect(code).toBe(3);
  expect(stderr).toMatch(
    /^error: gate failed at stage canary: pod agent-\w+ on node node-[12]: CrashLoopBackOff \(3 restarts\).*; rolled back to revision 3 on node-1, node-2; the DaemonSet stays paused\n$/,
  );
  // node-2's pod may show up on the watch only after node-1 was stepped back: then it is a second round.
  // Revision 1 renumbered by the rollback, as history shows it.
  expect(stdout).toMatch(/Rolling back to revision 3; stepping back node-1(, node-2)?\n/);
  await sim.until(() => everyNodeOn(sim!, 'agent:v1'), 20_000, 'v1 everywhere');
  expect(watcher.close()).toEqual(['node-1', 'node-2']);
  expect(sim.daemonSet().spec.template.spec.containers[0]!.image).toBe('agent:v1');
  expect(sim.daemonSet().spec.updateStrategy?.type).toBe('OnDelete');
  expect(record(sim)).toMatchObject({phase: 'aborted'});
  expect(witness.max.count).toBeLessThanOrEqual(2);
});

test('--on-failure pause: stays paused on the failed canary (a rerun says so); abort rolls it back', async () => {
  sim = await startRolloutSim({nodes: 6, maxUnavailable: 2});
  sim.test.cluster.kubelets!.injectFailure({image: 'agent:v2', node: 'node-1', mode: 'image-pull'});
  const watcher = new ImageWatcher(sim, 'agent:v2');
  const args = ['step', 'agent', '--until-complete', '--canary-nodes', 'node-1', '--yes'];
  const first = await cli(sim, args);
  expect(first.code).toBe(3);
  expect(first.stderr).toMatch(
    /^error: gate failed at stage canary: pod agent-\w+ on node node-1: ImagePullBackOff; the DaemonSet stays paused \(roll back: kubectl ds-rollout abort agent -n default\)\n$/,
  );
  expect(sim.daemonSet().spec.updateStrategy?.type).toBe('OnDelete');
  expect(record(sim)).toMatchObject({phase: 'failed', failures: [{node: 'node-1', reason: 'ImagePullBackOff'}]});
  const again = await cli(sim, args);
  expect(again.code).toBe(3);
  expect(again.stderr).toContain('gate failed at stage canary: pod');

  const aborted = await cli(sim, ['abort', 'agent', '--yes']);
  expect({code: aborted.code, stderr: aborted.stderr}).toEqual({code: 0, stderr: ''});
  expect(aborted.stdout).toContain('Gated rollout aborted: daemonset default/agent is back on revision 3 (stepped back: node-1); it stays paused.');
  await sim.until(() => everyNodeOn(sim!, 'agent:v1'), 20_000, 'v1 everywhere');
  expect(watcher.close()).toEqual(['node-1']);
  // A second abort changes nothing: it never goes "back" to the release it just left.
  const second = await cli(sim, ['abort', 'agent', '--yes']);
  expect(second).toEqual({
    code: 0,
    stderr: '',
    stdout: 'Gated rollout already aborted: every node of daemonset default/agent is on revision 3; nothing to do.\n',
  });
  expect(everyNodeOn(sim, 'agent:v1')).toBe(true);
});

test('--approve stops after the canary (exit 0, paused, stage recorded); promote runs the rest', async () => {
  sim = await startRolloutSim({nodes: 4, maxUnavailable: 1});
  const args = ['step', 'agent', '--until-complete', '--canary', '25%', '--canary-bake', '5s', '--approve', '--yes'];
  const first = await cli(sim, args);
  expect({code: first.code, stderr: first.stderr}).toEqual({code: 0, stderr: ''});
  expect(first.stdout.trimEnd().split('\n').at(-1)).toBe(
    'Stage canary passed; waiting for approval. Continue: kubectl ds-rollout promote agent -n default; roll back: kubectl ds-rollout abort agent -n default',
  );
  expect(record(sim)).toMatchObject({phase: 'awaiting-approval', stage: 0});
  expect(sim.daemonSet().spec.updateStrategy?.type).toBe('OnDelete');
  expect(sim.images()).toEqual({'node-1': ['agent:v2'], 'node-2': ['agent:v1'], 'node-3': ['agent:v1'], 'node-4': ['agent:v1']});
  // status and ds-plan show the stage.
  const status = await cli(sim, ['status', 'agent']);
  expect(status.stdout).toContain('gated rollout: stage 1/2 canary, awaiting approval (kubectl ds-rollout promote, or abort)');
  const plan = await runCli(['agent', '--kubeconfig', sim.kubeconfig]);
  expect(plan.stdout).toContain('Gated rollout: stage 1/2 canary, awaiting approval (kubectl ds-rollout promote, or abort)');
  expect(plan.stdout).not.toMatch(/gated rollout: gated rollout|Gated: gated/i);
  // A plain step would touch nodes outside the stage: refused, saying what to run instead.
  expect(await cli(sim, ['step', 'agent', '--until-complete', '--yes'])).toEqual({
    code: 1,
    stdout: '',
    stderr:
      "error: daemonset default/agent has a gated rollout under way (stage 1/2 canary, awaiting-approval): a plain step would touch nodes outside the stage; continue it with 'kubectl ds-rollout promote agent -n default', or roll it back with 'kubectl ds-rollout abort agent -n default'\n",
  });
  // A rerun of the same command does not go past the approval point.
  const rerun = await cli(sim, args);
  expect(rerun.code).toBe(0);
  expect(rerun.stdout).toContain('waiting for approval');
  expect(sim.images()['node-2']).toEqual(['agent:v1']);

  const witness = new Witness(sim);
  // Without a terminal, promote deletes nothing unless told to.
  expect(await cli(sim, ['promote', 'agent'])).toMatchObject({
    code: 1,
    stderr: 'error: refusing to promote without confirmation: there is no terminal to ask on; pass --yes, or --dry-run to only look\n',
  });
  const promoted = await cli(sim, ['promote', 'agent', '--yes']);
  witness.stop();
  expect({code: promoted.code, stderr: promoted.stderr}).toEqual({code: 0, stderr: ''});
  expect(promoted.stdout).toContain('Gated rollout of daemonset default/agent continues at stage 2/2:');
  expect(everyNodeOn(sim, 'agent:v2')).toBe(true);
  expect(record(sim)).toMatchObject({phase: 'complete', stage: 1});
  expect(witness.max.count).toBeLessThanOrEqual(1);
  expect((await cli(sim, ['promote', 'agent', '--yes'])).stderr).toBe('error: daemonset default/agent has no gated rollout waiting for approval\n');
});

test('a strategy file with a problem names its line; nothing is changed', async () => {
  sim = await startRolloutSim({nodes: 2, maxUnavailable: 1});
  const bad = await strategyFile(['canary: 1', 'waves:', '  - 50%', '  - 40%'].join('\n'));
  expect(await cli(sim, ['step', 'agent', '--strategy', bad, '--yes'])).toEqual({
    code: 1,
    stdout: '',
    stderr: `error: ${bad}:4: waves[1]: 40% does not grow on the wave before it (50%)\n`,
  });
  const broken = await strategyFile(['canary: 1', 'waves: [50%', 'bake: 1m'].join('\n'));
  const result = await cli(sim, ['step', 'agent', '--strategy', broken, '--yes']);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(new RegExp(`^error: ${broken}:\\d+: `));
  expect(await cli(sim, ['step', 'agent', '--canary', '2'])).toMatchObject({
    code: 1,
    stderr: 'error: a gated rollout runs its stages unattended: pass --yes (or --dry-run to only look)\n',
  });
  expect(sim.daemonSet().metadata.annotations?.[GATED_ROLLOUT_ANNOTATION]).toBeUndefined();
});

test('killed during the canary bake, a rerun continues the same bake (same deadline, no new wave); status counts it down', async () => {
  sim = await startRolloutSim({nodes: 4, maxUnavailable: 1});
  const s = sim;
  const children: ChildProcess[] = [];
  const args = ['step', 'agent', '--until-complete', '--canary', '1', '--canary-bake', '3m', '--yes'];
  try {
    const first = spawnRollout(s, args, children);
    await s.until(() => s.daemonSet().metadata.annotations?.[GATED_ROLLOUT_ANNOTATION]?.includes('"phase":"baking"') === true, 30_000, 'baking');
    const baking = record(s);
    // One look (status watches by default).
    const status = await cli(s, ['status', 'agent', '--watch=false']);
    // How much of the 3m is left depends on how long status took to start at 20x speed: any of it, never more.
    expect(status.stdout).toMatch(/gated rollout: stage 1\/2 canary, baking, ([0-2]m\d+s|\d+s|3m) left/);
    first.child.kill('SIGKILL');
    await first.exited;
    const deletionsBefore = s.test.cluster.requestLog.filter({verb: 'delete', resource: 'pods'}).length;
    const witness = new Witness(s);
    const rerun = await cli(s, args);
    witness.stop();
    expect({code: rerun.code, stderr: rerun.stderr}).toEqual({code: 0, stderr: ''});
    expect(rerun.stdout).toContain('Gated rollout of daemonset default/agent continues at stage 1/2:');
    // The canary stage is not stepped again: its first line after the plan is the bake.
    expect(rerun.stdout).not.toContain('Stage 1/2 canary');
    expect(rerun.stdout).toContain('Stage 2/2 wave 1 (100%): every node');
    // The wave after the canary started no earlier than the deadline the first run recorded.
    const laterPods = s.pods().filter((p) => p.spec.nodeName !== 'node-1');
    for (const pod of laterPods) expect(Date.parse(pod.metadata.creationTimestamp!)).toBeGreaterThanOrEqual(Math.floor(baking.bakeUntil! / 1000) * 1000);
    expect(s.test.cluster.requestLog.filter({verb: 'delete', resource: 'pods'}).length - deletionsBefore).toBe(3);
    expect(everyNodeOn(s, 'agent:v2')).toBe(true);
    expect(witness.max.count).toBeLessThanOrEqual(1);
  } finally {
    killAll(children);
  }
});

test('a template changed by someone else during the canary bake stops the gated rollout with a clear message', async () => {
  sim = await startRolloutSim({nodes: 4, maxUnavailable: 1});
  const s = sim;
  const children: ChildProcess[] = [];
  try {
    const run = spawnRollout(s, ['step', 'agent', '--until-complete', '--canary', '1', '--canary-bake', '5m', '--yes'], children);
    await s.until(() => s.daemonSet().metadata.annotations?.[GATED_ROLLOUT_ANNOTATION]?.includes('"phase":"baking"') === true, 30_000, 'baking');
    s.setImage('agent:v3');
    const exit = await run.exited;
    expect(exit.code).toBe(3);
    // The watch may show the template before the controller has written its revision.
    expect(run.stderr()).toMatch(
      /^error: the template of daemonset default\/agent was changed to (revision 3|another template) by someone else during its gated rollout \(stage canary\): the rollout is superseded and stops; the DaemonSet stays paused\n$/,
    );
    expect(s.daemonSet().spec.updateStrategy?.type).toBe('OnDelete');
    // Only the canary node was touched.
    expect(s.images()).toMatchObject({'node-2': ['agent:v1'], 'node-3': ['agent:v1'], 'node-4': ['agent:v1']});
    // Every face says superseded, naming the revision, with the way on; abort, which rolls back only its own
    // release, leaves someone else's template alone (issue 26, finding 3).
    expect(JSON.parse(s.daemonSet().metadata.annotations![GATED_ROLLOUT_ANNOTATION]!)).toMatchObject({phase: 'superseded'});
    const status = await cli(s, ['status', 'agent']);
    expect(status.stdout).toContain('gated rollout: stage 1/2 canary, superseded by revision 3, set by someone else');
    const plan = await runCli(['agent', '--kubeconfig', s.kubeconfig, '-o', 'json']);
    expect(JSON.parse(plan.stdout).gated).toMatchObject({phase: 'superseded', supersededBy: {revision: 3}});
    const abort = await cli(s, ['abort', 'agent', '--yes']);
    expect(abort.code).toBe(1);
    expect(abort.stderr).toMatch(
      /superseded: its template was changed to revision 3 by someone else, and abort rolls back only its own release; nothing was changed/,
    );
    expect(s.daemonSet().spec.template.spec.containers[0]!.image).toBe('agent:v3');
  } finally {
    killAll(children);
  }
});

test('kill -9 right after each record write through bakes and waves: every rerun continues one step, budget held, stages in order', async () => {
  sim = await startRolloutSim({nodes: 6, maxUnavailable: 2});
  const s = sim;
  const children: ChildProcess[] = [];
  const watcher = new ImageWatcher(s, 'agent:v2');
  const witness = new Witness(s);
  const file = await strategyFile(['canary: 1', 'canaryBake: 20s', 'waves: [50%, 100%]', 'bake: 10s'].join('\n'));
  const args = ['step', 'agent', '--until-complete', '--strategy', file, '--yes'];
  try {
    // Every run is killed right after its first record write (a chosen point, not a random millisecond): the
    // next run must pick up exactly there.
    const seen: string[] = [];
    for (let run = 0; run < 10 && (seen.at(-1) ?? '') !== 'complete'; run++) {
      const driver = spawnRollout(s, args, children, s.kubeconfig, {DS_ROLLOUT_TEST_KILL_AFTER_RECORD_WRITES: '1'});
      const exit = await driver.exited;
      expect(exit.signal, driver.stderr()).toBe('SIGKILL');
      const now = record(s);
      seen.push(`${now.stage}:${now.phase}`.replace(/^\d+:complete$/, 'complete'));
    }
    witness.stop();
    expect(seen).toEqual(['0:rolling', '0:baking', '1:rolling', '1:baking', '2:rolling', '2:baking', 'complete']);
    expect(everyNodeOn(s, 'agent:v2')).toBe(true);
    expect(witness.max.count).toBeLessThanOrEqual(2);
    // Nothing outside the canary got the new image before the canary's 20 s bake (server clock).
    expectCanaryFirst(s, watcher, 20_000);
  } finally {
    killAll(children);
  }
});

test('two operators run the same gated rollout at once: one stops (on the step lease or the changed record), the budget holds, the canary goes first', async () => {
  sim = await startRolloutSim({nodes: 6, maxUnavailable: 2});
  const s = sim;
  const children: ChildProcess[] = [];
  const watcher = new ImageWatcher(s, 'agent:v2');
  const witness = new Witness(s);
  const args = ['step', 'agent', '--until-complete', '--canary', '1', '--canary-bake', '20s', '--bake', '5s', '--yes'];
  try {
    const runs = [spawnRollout(s, args, children), spawnRollout(s, args, children)];
    const exits = await Promise.all(runs.map((r) => r.exited));
    const codes = exits.map((e) => e.code).sort();
    expect(codes[0]).toBe(0);
    const loser = runs.find((_, i) => exits[i]!.code !== 0);
    if (loser) {
      // Refused by step's lease while the winner holds it (exit 2), or, between two of its steps, stopped on the record
      // the winner changed (exit 3).
      const code = exits.find((e) => e.code !== 0)!.code;
      expect([2, 3]).toContain(code);
      expect(loser.stderr()).toMatch(
        code === 2
          ? /^error: another step of daemonset default\/agent is in progress: .* holds the step lease since .*; wait for it, or pass --force to take over\n$/
          : /^error: another ds-rollout changed the gated rollout of daemonset default\/agent meanwhile: stopped; the DaemonSet stays paused\n$/,
      );
    }
    witness.stop();
    expect(record(s)).toMatchObject({phase: 'complete'});
    expect(everyNodeOn(s, 'agent:v2')).toBe(true);
    expect(witness.max.count).toBeLessThanOrEqual(2);
    expectCanaryFirst(s, watcher, 20_000);
  } finally {
    killAll(children);
  }
});

test('a new pod that never turns Ready fails the gate at --progress-deadline (server clock); -o json keeps progress on stderr', async () => {
  sim = await startRolloutSim({nodes: 3, maxUnavailable: 1});
  sim.test.cluster.kubelets!.injectFailure({image: 'agent:v2', mode: 'never-ready'});
  const {stdout, stderr, code} = await cli(sim, ['step', 'agent', '--until-complete', '--canary', '1', '--progress-deadline', '20s', '-o', 'json', '--yes']);
  expect(code).toBe(3);
  expect(stdout).toBe('');
  expect(stderr).toContain('Stage 1/2 canary: node-1');
  expect(stderr.trimEnd().split('\n').at(-1)).toMatch(
    /^error: gate failed at stage canary: pod agent-\w+ on node node-1: not Ready past the progress deadline; the DaemonSet stays paused \(roll back: kubectl ds-rollout abort agent -n default\)$/,
  );
  expect(sim.images()).toMatchObject({'node-2': ['agent:v1'], 'node-3': ['agent:v1']});
});
