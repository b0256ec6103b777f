// The seven DaemonSetStatus counters (upstream daemon_controller.go updateDaemonSetStatus).
import {type NodeSlot, isDaemonPodAvailable} from './daemon-pods.js';
import type {DaemonSetStatusCounters} from './types.js';

// upstream: pkg/controller/daemon/daemon_controller.go updateDaemonSetStatus
// Only the oldest pod of each node is looked at, so during a surge the old pod is what counts; pods on
// nodes missing from the node list are not counted at all.
export function computeDaemonSetStatus(slots: readonly NodeSlot[], now: number): DaemonSetStatusCounters {
  let desiredNumberScheduled = 0;
  let currentNumberScheduled = 0;
  let numberMisscheduled = 0;
  let numberReady = 0;
  let updatedNumberScheduled = 0;
  let numberAvailable = 0;
  // Indexed: a CLI run makes this pass cold, and a cold for-of allocates at every step.
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i]!;
    if (!slot.node) continue;
    const oldest = slot.pods[0];
    if (slot.eligibility.shouldRun) {
      desiredNumberScheduled++;
      if (!oldest) continue;
      currentNumberScheduled++;
      if (oldest.ready) {
        numberReady++;
        if (isDaemonPodAvailable(oldest, now)) numberAvailable++;
      }
      if (oldest.updated) updatedNumberScheduled++;
    } else if (oldest) {
      numberMisscheduled++;
    }
  }
  return {
    desiredNumberScheduled,
    currentNumberScheduled,
    numberMisscheduled,
    numberReady,
    updatedNumberScheduled,
    numberAvailable,
    numberUnavailable: desiredNumberScheduled - numberAvailable,
  };
}
