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
  // The metric gate, for one query (a strategy file's `metrics:` holds several): docs/gated/metric-gate.md.
  'metric-query': Flags.string({summary: 'A PromQL query gating each stage ($nodes: its nodes).', helpValue: 'PROMQL'}),
  'metric-max': Flags.string({summary: 'The query fails the stage above this.', helpValue: 'NUMBER'}),
  'metric-min': Flags.string({summary: 'The query fails the stage below this.', helpValue: 'NUMBER'}),
  'metric-for': durationFlag('metric-for', {summary: 'How long a breach must last (default 0).'}),
  'metric-interval': durationFlag('metric-interval', {summary: 'How often the query runs (default 10s).'}),
  'prometheus-url': Flags.string({summary: 'Prometheus by URL.', helpValue: 'URL', exclusive: ['prometheus-service']}),
  'prometheus-service': Flags.string({summary: 'Prometheus through the API server.', helpValue: 'service/NS/NAME:PORT'}),
  'prometheus-token-file': Flags.string({summary: 'A bearer token for --prometheus-url.', helpValue: 'FILE'}),
  'prometheus-ca-file': Flags.string({summary: "The CA of --prometheus-url's certificate.", helpValue: 'FILE'}),
};

// Listed under their own heading in --help (src/cli/help.ts), so each summary need not say "gated rollout".
for (const flag of Object.values(gatedFlags)) Object.assign(flag, {helpGroup: 'Gated rollout'});
// `step --help` stays one screen: the metric gate's flags are described in docs/gated/metric-gate.md instead
// (completion, which offers what help shows, leaves them out too).
for (const [name, flag] of Object.entries(gatedFlags)) if (/^(metric|prometheus)-/.test(name)) Object.assign(flag, {hidden: true});

export const GATED_FLAG_NAMES = Object.keys(gatedFlags) as (keyof typeof gatedFlags)[];

/** Any gated flag given: the step is a gated rollout. */
export function isGated(flags: Readonly<Record<string, unknown>>): boolean {
  return GATED_FLAG_NAMES.some((name) => flags[name] !== undefined && flags[name] !== false);
}
