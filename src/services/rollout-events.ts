// A gated rollout's story as Kubernetes Events on its DaemonSet (`kubectl describe ds`): every stage transition
// and gate failure, whichever machine or Job drives it. Best effort, as client-go's recorder: an event that cannot
// be written (no RBAC to create events, a server that refuses) is reported once and never stops the rollout.
import {hostname} from 'node:os';
import type {DaemonSetRef} from '../cluster/cluster-source.js';
import {type DaemonSet, type GatedEvent, type GatedResult, type Manifest, type RolloutMilestone, kubernetesEvent, rolloutEventOf} from '../core/index.js';

export interface EventSink {
  readDaemonSet(ref: DaemonSetRef): Promise<DaemonSet>;
  createEvent(event: Manifest): Promise<void>;
  /** The server's clock, epoch ms. */
  now(): number;
}

export class RolloutEventRecorder {
  private sequence = 0;
  private daemonSet: Promise<DaemonSet> | undefined;
  private queue: Promise<void> = Promise.resolve();
  private warned = false;

  constructor(
    private readonly sink: EventSink,
    private readonly ref: DaemonSetRef,
    /** Told once, when the first event cannot be written. */
    private readonly onError: (message: string) => void,
    private readonly host: string = hostname(),
  ) {}

  /** Queues the event this progress makes, if any; events are sent one at a time, in order. */
  record(progress: GatedEvent | RolloutMilestone): void {
    const event = rolloutEventOf(progress);
    if (event === undefined) return;
    const now = this.sink.now();
    const sequence = this.sequence++;
    this.queue = this.queue.then(async () => {
      try {
        // The uid ties the event to this DaemonSet (kubectl describe selects on it); read once.
        this.daemonSet ??= this.sink.readDaemonSet(this.ref);
        const ds = await this.daemonSet;
        await this.sink.createEvent(
          kubernetesEvent({
            daemonSet: {namespace: this.ref.namespace, name: this.ref.name, uid: ds.metadata.uid ?? ''},
            event,
            now,
            sequence,
            host: this.host,
          }),
        );
      } catch (error) {
        this.daemonSet = undefined;
        if (!this.warned) {
          this.warned = true;
          this.onError(`warning: cannot record events on daemonset ${this.ref.namespace}/${this.ref.name}: ${(error as Error).message}`);
        }
      }
    });
  }

  /** Resolves when every queued event was sent (or given up). */
  flush(): Promise<void> {
    return this.queue;
  }
}

/**
 * What one run of the gated rollout service records, the same from the CLI and the dashboard: its progress as it
 * comes (a promote's resumption is the Promoted transition), then how it ended.
 */
export function gatedRunEvents(recorder: RolloutEventRecorder, mode: 'step' | 'promote' | 'abort') {
  return {
    progress: (event: GatedEvent) => recorder.record(mode === 'promote' && event.kind === 'plan' && event.resumed ? {kind: 'promoted'} : event),
    // How a run that ended well ended (an abort's closing event, `aborted`, comes with its progress).
    ended: (result: GatedResult) => {
      if (result.outcome === 'complete') recorder.record({kind: 'complete'});
      else if (result.outcome === 'awaiting-approval' && result.record)
        recorder.record({kind: 'awaiting-approval', stage: result.record.stages[result.record.stage]?.name ?? ''});
    },
    flush: () => recorder.flush(),
  };
}
