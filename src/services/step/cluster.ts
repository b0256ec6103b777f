// The step's view of a live cluster: reads, the two writes it makes, the watches it follows, the server's clock.
import type {LiveCluster} from '../../cluster/live/index.js';
import type {StepCluster} from './types.js';

export function stepClusterOf(live: LiveCluster): StepCluster {
  return {
    readState: (ref) => live.source.readState(ref),
    patchDaemonSet: (ref, build, options) => live.writer.patchDaemonSet(ref, build, options),
    deletePod: (namespace, name, preconditions) => live.writer.deletePod(namespace, name, preconditions),
    watch: (ref, options) => live.watch(ref, options),
    now: () => live.client.serverNow(),
    // GET /version: the answer's Date header is all a clock refresh needs, without reading an object.
    refreshClock: async () => {
      await live.client.probe(10_000);
    },
  };
}
