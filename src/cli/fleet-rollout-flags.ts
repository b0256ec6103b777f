// The flags of `fleet rollout`, `fleet status`, `fleet promote` and `fleet abort`: defined once, light to load (oclif only).
import * as Flags from '@oclif/core/flags';
import {durationFlag, liveClusterFlags, outputFlagOf} from './flags.js';

/** What every fleet command takes: the clusters (in order), the connection, the output, --yes. */
export const fleetMemberFlags = {
  ...liveClusterFlags,
  contexts: Flags.string({
    summary: "The clusters, in the waves' order.",
    helpValue: 'A,B,...',
    multiple: true,
    delimiter: ',',
    required: true,
  }),
  output: outputFlagOf(['text', 'json', 'yaml']),
};

/** What moves clusters (rollout, promote, abort). */
export const fleetDriverFlags = {
  timeout: durationFlag('timeout', {summary: 'Time a wave of nodes may take (default 5m).'}),
  yes: Flags.boolean({char: 'y', summary: 'Do not ask (needed without a terminal).'}),
};

/** Where each cluster's gated rollout runs: a Job in it (default), or this process. */
export const fleetDetachFlags = {
  detach: Flags.boolean({
    summary: 'Run each gated rollout as a Job there.',
    allowNo: true,
    default: true,
  }),
  wait: Flags.boolean({summary: 'Run them in this process (--no-detach).'}),
  'job-image': Flags.string({summary: "The Jobs' image (default: this one's).", helpValue: 'IMAGE'}),
};
