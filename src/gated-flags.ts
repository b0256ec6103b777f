// The flags of a gated rollout (`step --canary ...`, `promote`, `abort`): defined once, light to load (oclif only).
import * as Flags from '@oclif/core/flags';
import {durationFlag, integerFlag} from './flags.js';

export const gatedFlags = {
  canary: Flags.string({
    summary: 'Gated rollout: the first stage takes this many nodes (N) or this share of them (P%), then it is baked and the gate judged.',
    helpValue: 'N|P%',
    exclusive: ['canary-nodes', 'canary-selector'],
  }),
  'canary-nodes': Flags.string({summary: 'Gated rollout: the canary is these nodes (comma-separated).', helpValue: 'NODE,...', exclusive: ['canary-selector']}),
  'canary-selector': Flags.string({summary: 'Gated rollout: the canary is the nodes with these labels.', helpValue: 'SELECTOR'}),
  'canary-bake': durationFlag('canary-bake', {summary: "Gated rollout: watch the canary's new pods this long after they are available (server clock)."}),
  bake: durationFlag('bake', {summary: 'Gated rollout: watch each later wave this long after it is available.'}),
  approve: Flags.boolean({summary: 'Gated rollout: stop after the canary (exit 0, still paused) until `kubectl ds-rollout promote`.'}),
  'on-failure': Flags.option({
    options: ['pause', 'undo'] as const,
    summary: 'Gated rollout: when a gate fails, stay paused (exit 3) or roll back the nodes that got the new revision.',
  })(),
  'max-restarts': integerFlag('max-restarts', {min: 0, summary: 'Gated rollout: container restarts a new pod may have before the gate fails (default 0).'}),
  'progress-deadline': durationFlag('progress-deadline', {
    summary: 'Gated rollout: how long a new pod may stay Pending or not Ready before the gate fails (default 10m).',
  }),
  strategy: Flags.string({
    summary: 'Gated rollout: the stages in a YAML file (canary, canaryBake, approve, waves, bake, maxRestarts, progressDeadline, onFailure).',
    helpValue: 'FILE',
  }),
};

export const GATED_FLAG_NAMES = Object.keys(gatedFlags) as (keyof typeof gatedFlags)[];

/** Any gated flag given: the step is a gated rollout. */
export function isGated(flags: Readonly<Record<string, unknown>>): boolean {
  return GATED_FLAG_NAMES.some((name) => flags[name] !== undefined && flags[name] !== false);
}
