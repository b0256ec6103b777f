// The flags of a gated rollout (`step --canary ...`, `promote`, `abort`): defined once, light to load (oclif only).
import * as Flags from '@oclif/core/flags';
import {durationFlag, integerFlag} from './flags.js';

export const gatedFlags = {
  canary: Flags.string({
    summary: 'The canary: N nodes, or P% of them.',
    helpValue: 'N|P%',
    exclusive: ['canary-nodes', 'canary-selector'],
  }),
  'canary-nodes': Flags.string({summary: 'The canary: these nodes.', helpValue: 'NODE,...', exclusive: ['canary-selector']}),
  'canary-selector': Flags.string({summary: 'The canary: the nodes with these labels.', helpValue: 'SELECTOR'}),
  'canary-bake': durationFlag('canary-bake', {summary: 'Watch the canary this long once available.'}),
  bake: durationFlag('bake', {summary: 'Watch each later wave this long.'}),
  approve: Flags.boolean({summary: 'Stop after the canary until promote.'}),
  'on-failure': Flags.option({
    options: ['pause', 'undo'] as const,
    summary: 'When a gate fails: pause or undo.',
  })(),
  'max-restarts': integerFlag('max-restarts', {min: 0, helpValue: 'N', summary: 'Restarts a new pod may have (default 0).'}),
  'progress-deadline': durationFlag('progress-deadline', {
    summary: 'Time a pod has to be Ready (default 10m).',
  }),
  'max-neighbour-failures': integerFlag('max-neighbour-failures', {min: 0, helpValue: 'N', summary: 'Neighbour pods that may fail (default 0).'}),
  'neighbour-selector': Flags.string({summary: 'Pods the neighbour gate leaves out.', helpValue: 'SEL'}),
  strategy: Flags.string({
    summary: 'The stages, from a YAML file.',
    helpValue: 'FILE',
  }),
};

// Listed under their own heading in --help (src/help.ts), so each summary need not say "gated rollout".
for (const flag of Object.values(gatedFlags)) Object.assign(flag, {helpGroup: 'Gated rollout'});

export const GATED_FLAG_NAMES = Object.keys(gatedFlags) as (keyof typeof gatedFlags)[];

/** Any gated flag given: the step is a gated rollout. */
export function isGated(flags: Readonly<Record<string, unknown>>): boolean {
  return GATED_FLAG_NAMES.some((name) => flags[name] !== undefined && flags[name] !== false);
}
