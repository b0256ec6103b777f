// What a `step` command line asks for, decided from its flags alone (pure: no cluster, no terminal I/O): a gated
// rollout run here or detached into the cluster, or plugin/controller waves with their node scope and whether to
// ask before each. Every contradiction is one UsageError line, before anything connects.
import {type LabelSelector, parseLabelSelector} from '../core/index.js';
import {UsageError} from '../platform/errors.js';
import {isGated} from './gated-flags.js';

export interface StepFlags {
  readonly nodes?: string | undefined;
  readonly selector?: string | undefined;
  readonly controller: boolean;
  readonly 'max-unavailable'?: number | string | undefined;
  readonly 'dry-run': 'none' | 'client' | 'server';
  readonly yes: boolean;
  readonly detach?: boolean | undefined;
  readonly [gated: string]: unknown;
}

export type StepRequest =
  | {readonly kind: 'gated-detached'}
  | {readonly kind: 'gated'}
  | {
      readonly kind: 'waves';
      readonly nodes?: readonly string[];
      readonly selector?: LabelSelector;
      /** Ask on the terminal before each wave (neither --yes nor a dry run). */
      readonly ask: boolean;
      readonly dryRun: boolean;
    };

/** `terminal`: whether stdin is one (asking needs it). */
export function stepRequest(flags: StepFlags, terminal: boolean): StepRequest {
  const dryRun = flags['dry-run'] !== 'none';
  const scoped = flags.controller || flags.nodes !== undefined || flags.selector !== undefined;
  if (isGated(flags)) {
    // A gated rollout (docs/gated-rollouts.md): its own service, which steps each stage with the step service.
    if (flags.detach) {
      if (scoped) throw new UsageError('a gated rollout (--canary, --strategy, ...) chooses its own nodes: it takes no --controller, --nodes or --selector');
      if (!flags.yes && !dryRun)
        throw new UsageError('a detached gated rollout runs its stages unattended: pass --yes (or --dry-run=client -o yaml to see the Job)');
      return {kind: 'gated-detached'};
    }
    if (scoped) throw new UsageError('a gated rollout (--canary, --strategy, ...) chooses its own nodes: it takes no --controller, --nodes or --selector');
    // A dry run shows the stages and the first wave, or meets the refusal the real run would: it asks nothing.
    if (!flags.yes && !dryRun) throw new UsageError('a gated rollout runs its stages unattended: pass --yes (or --dry-run to only look)');
    return {kind: 'gated'};
  }
  if (flags.detach) throw new UsageError('--detach runs a gated rollout in the cluster: give its stages (--canary, --canary-nodes, --strategy, ...)');
  if (flags.controller && (flags['max-unavailable'] !== undefined || flags.nodes !== undefined || flags.selector !== undefined)) {
    throw new UsageError('--controller runs the recorded strategy as the controller does: it takes no --max-unavailable, --nodes or --selector');
  }
  const nodes = flags.nodes?.split(',').flatMap((n) => (n.trim() === '' ? [] : [n.trim()]));
  if (nodes !== undefined && nodes.length === 0) throw new UsageError('--nodes needs at least one node name');
  const ask = !flags.yes && !dryRun;
  if (ask && !terminal) {
    throw new UsageError('refusing to delete pods without confirmation: there is no terminal to ask on; pass --yes, or --dry-run to only look');
  }
  let selector: LabelSelector | undefined;
  if (flags.selector !== undefined) {
    try {
      selector = parseLabelSelector(flags.selector);
    } catch (error) {
      throw new UsageError(`--selector: ${(error as Error).message}`);
    }
  }
  return {kind: 'waves', ...(nodes ? {nodes} : {}), ...(selector ? {selector} : {}), ask, dryRun};
}
