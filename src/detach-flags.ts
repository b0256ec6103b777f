// `--detach` and `--image` of `step` and `promote` (docs/gated/detached.md): light to load (oclif only).
import * as Flags from '@oclif/core/flags';

export const detachFlags = {
  detach: Flags.boolean({
    summary:
      "Gated rollout: run it in the cluster as a Job in the DaemonSet's namespace (with its ServiceAccount and roles) instead of in this terminal; with --dry-run=client -o yaml, print those manifests.",
  }),
  image: Flags.string({
    summary: 'With --detach: the image the Job runs (default: the release image of this version).',
    helpValue: 'IMAGE',
    dependsOn: ['detach'],
  }),
};
