// Plugin-driven waves: the controller's own rolling-update rule decides each wave on a paused DaemonSet; each
// deletion is decided again on a fresh state and sent with the pod's uid and resourceVersion as preconditions,
// and only pods of the wave first shown are ever deleted, so a change in the cluster can make a wave smaller,
// never larger. Nothing here touches the strategy: killed at any moment, the DaemonSet stays paused.
import {type ClusterState, type StepWave, type WaveLanding, waveLanding} from '../../core/index.js';
import {ConflictError, NotFoundError, RolloutStuckError} from '../../platform/errors.js';
import {RETRY_ATTEMPTS} from '../../cluster/live/index.js';
import {earliest, stopwatch} from '../../platform/clock.js';
import {message, type StepRun} from './run.js';
import type {StepResult, WaveReport} from './types.js';
import {describeLanding, formatMs, stuckError, whyKept, withProgress} from './words.js';

export async function runWaves(run: StepRun, initial: ClusterState): Promise<StepResult> {
  let state = initial;
  const first = run.plan(state);
  if (run.options.dryRun) {
    const {number, total} = run.numbering(state.daemonSet, first);
    if (first.delete.length > 0) run.emit({kind: 'wave', number, total, wave: first, dryRun: true});
    else if (!first.done) run.emit({kind: 'waiting-for-budget', wave: first});
    return run.result(first.done && first.delete.length === 0 ? 'done' : 'dry-run', first, first);
  }
  let pending: StepWave | undefined = first;
  let emptyRounds = 0;
  for (;;) {
    const wave = await nextWave(run, state, pending);
    pending = undefined;
    if (wave.delete.length === 0) return run.result('done', wave);
    const {number, total} = run.numbering(state.daemonSet, wave);
    run.emit({kind: 'wave', number, total, wave, dryRun: false});
    if (!(await run.confirmed({number, total, deletions: wave.delete.length, controller: false}))) return run.result('declined', wave);
    run.checkAbort('before the wave started; nothing was deleted');
    await run.lease.acquire();
    run.started = true;
    const elapsed = stopwatch();
    const {deleted, kept} = await deleteWave(run, wave, number);
    if (deleted.length === 0) {
      // Everything changed under the wave: decide again from what is there now (and record nothing).
      if (++emptyRounds >= RETRY_ATTEMPTS)
        throw new RolloutStuckError(`the cluster kept changing under wave ${number}: nothing was deleted; the DaemonSet stays paused`);
      state = await run.read();
      continue;
    }
    emptyRounds = 0;
    await run.recordProgress(number, total, wave.template.hash);
    // The wave waits for the nodes it took an available pod from; a node whose old pod was unavailable already
    // (a NotReady node, a crashing pod) gets its replacement too, but stays counted against the budget until then.
    const landing = await waitLanded(
      run,
      deleted.filter((d) => d.available).map((d) => d.node),
      number,
      wave,
    );
    const seconds = Math.round(elapsed() / 1000);
    state = run.watched ?? (await run.read());
    const after = run.plan(state);
    run.reports.push({number, total, planned: wave.delete, deleted, kept, nodes: landing.nodes, landed: true, seconds});
    run.emit({kind: 'landed', number, seconds, oldLeft: after.allOldLeft, ...(after.scope ? {scopeOldLeft: after.oldLeft} : {})});
    if (!(run.options.untilComplete || run.allWaves) || after.done) return run.result(after.done ? 'done' : 'stepped', after);
    pending = after;
  }
}

/** A wave that can start now, waiting (within the timeout) while the budget is held by nodes that are settling. */
async function nextWave(run: StepRun, state: ClusterState, known: StepWave | undefined): Promise<StepWave> {
  const wave = known ?? run.plan(state);
  if (wave.delete.length > 0 || wave.done) return wave;
  if (!wave.unavailable.some((use) => use.settling)) throw stuckError(run.ref, wave, undefined, run.options.rerunAs);
  run.emit({kind: 'waiting-for-budget', wave});
  let latest = wave;
  const outcome = await run.follow().until(
    (current) => {
      const next = run.plan(current);
      latest = next;
      if (next.delete.length > 0 || next.done) return next;
      if (!next.unavailable.some((use) => use.settling)) throw stuckError(run.ref, next, undefined, run.options.rerunAs);
      return undefined;
    },
    run.waitOptions(() => earliest(latest.unavailable.map((use) => use.availableAt))),
  );
  if (outcome === 'timeout') throw stuckError(run.ref, latest, run.options.timeoutMs, run.options.rerunAs);
  return outcome;
}

/**
 * Deletes the wave's pods one by one. Before each: a fresh state and a fresh decision; the pod goes only if that
 * decision still takes it, and only in the version that decision saw (uid and resourceVersion preconditions).
 * The first decision of a wave, and every retry, reads the cluster; later ones use the step's watch once it
 * shows this wave's own deletions, so a 500-pod wave costs one read instead of five hundred.
 */
async function deleteWave(run: StepRun, wave: StepWave, number: number): Promise<{deleted: WaveReport['deleted']; kept: WaveReport['kept']}> {
  const deleted: {pod: string; node: string; available: boolean}[] = [];
  const kept: {pod: string; node: string; why: string}[] = [];
  for (const target of wave.delete) {
    let tries = 0;
    let deleteFailure: unknown;
    // A DELETE that failed on the way is tried again under the one retry policy (its backoff), a pod that changed
    // since the read (409) at once; either way decided again from a fresh read, never sent again blindly.
    const outcome = await run
      .retryingWrite(`delete pod ${target.pod}`, async (): Promise<{deleted: true} | {why: string}> => {
        for (;;) {
          run.checkAbort(`during wave ${number}: ${deleted.length} of ${wave.delete.length} pods deleted, the DaemonSet stays paused`);
          tries++;
          const state = tries === 1 && deleted.length > 0 ? await run.stateAfter(deleted.map((d) => d.pod)) : await run.read();
          const fresh = run.plan(state);
          const now = fresh.delete.find((d) => d.uid === target.uid && d.pod === target.pod);
          if (!now) return {why: whyKept(target, state, fresh)};
          try {
            await run.session.writer.deletePod(run.ref.namespace, now.pod, {
              uid: now.uid ?? '',
              ...(now.resourceVersion ? {resourceVersion: now.resourceVersion} : {}),
            });
            deleted.push({pod: now.pod, node: now.node, available: now.available});
            return {deleted: true};
          } catch (error) {
            if (error instanceof NotFoundError) return {why: 'it was gone already'};
            if (error instanceof ConflictError && tries < RETRY_ATTEMPTS) {
              run.emit({kind: 'retry', what: `delete pod ${target.pod}`, why: message(error)});
              continue;
            }
            deleteFailure = error;
            throw error;
          }
        }
      })
      .catch((error: unknown) => {
        throw error === deleteFailure
          ? withProgress(error, `wave ${number}: ${deleted.length} of ${wave.delete.length} pods deleted; the DaemonSet stays paused`)
          : error;
      });
    if ('deleted' in outcome) {
      run.emit({kind: 'deleted', pod: target.pod, node: target.node});
    } else {
      kept.push({pod: target.pod, node: target.node, why: outcome.why});
      run.emit({kind: 'kept', pod: target.pod, node: target.node, why: outcome.why});
    }
  }
  return {deleted, kept};
}

/** Waits until every node of the wave runs an available new pod, following the cluster through watches. */
async function waitLanded(run: StepRun, nodes: readonly string[], number: number, wave: StepWave): Promise<WaveLanding> {
  if (nodes.length === 0) return {nodes: [], landed: true, crowded: []};
  const seen = new Map<string, string>();
  let latest: WaveLanding | undefined;
  const outcome = await run.follow().until(
    (state) => {
      run.checkDaemonSet(state.daemonSet);
      const landing = waveLanding(state, nodes, run.session.clock.now());
      latest = landing;
      for (const node of landing.nodes) {
        // Just deleted: a watch that has not caught up yet still shows the old pod running; not news.
        if (node.state === 'old') continue;
        const key = `${node.state}/${node.pod ?? ''}/${node.problem ?? ''}`;
        if (seen.get(node.node) !== key) {
          seen.set(node.node, key);
          run.emit({kind: 'node', landing: node});
        }
      }
      return landing.landed ? landing : undefined;
    },
    run.waitOptions(() => earliest((latest?.nodes ?? []).filter((n) => n.state === 'ready').map((n) => n.availableAt ?? Number.NEGATIVE_INFINITY))),
  );
  if (outcome === 'timeout') {
    const pending = (latest?.nodes ?? []).filter((n) => n.state !== 'available' && n.state !== 'gone');
    throw new RolloutStuckError(
      `wave ${number} did not become available within ${formatMs(run.options.timeoutMs)}: ${pending.map(describeLanding).join('; ')}; the DaemonSet stays paused (${wave.oldLeft - nodes.length} old pods left)`,
    );
  }
  return outcome;
}
