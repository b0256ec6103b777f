// `--detach` and `--image` of `step` and `promote` (docs/gated/detached.md): light to load (oclif only).
import * as Flags from '@oclif/core/flags';

export const detachFlags = {
  detach: Flags.boolean({
    summary: 'Run it in the cluster, as a Job.',
    helpGroup: 'Gated rollout',
  }),
  image: Flags.string({
    summary: "The Job's image (default: this release's).",
    helpGroup: 'Gated rollout',
    helpValue: 'IMAGE',
    dependsOn: ['detach'],
  }),
};
