// The two seams between the dashboard and the world. The container subscribes to a PlanFeed (snapshots of the
// planned rollout) and calls an ActionHandler (the same services as `ds-rollout step|pause|resume|undo`).
// Tests pass fakes; the dashboard service wires the live cluster. They are the service's typed results, so they live
// here, below the ui that renders them (services never import src/ui; ui imports these types only).
import type {PodTemplateSpec, Revision, RolloutPlan, RolloutVerdict as CoreVerdict} from '../../core/index.js';

/** One ControllerRevision of the DaemonSet, as the revision pane shows it. */
export interface RevisionEntry {
  readonly revision: Revision;
  readonly hash: string;
  readonly name: string;
  /** RFC3339, when known. */
  readonly createdAt?: string;
  /** The `kubernetes.io/change-cause` annotation, when set. */
  readonly changeCause?: string;
  /** The template the revision records (what undo would apply); missing when its data cannot be read. */
  readonly template?: PodTemplateSpec;
}

/** Set when ds-rollout paused the rollout; the budgets are the ones resume restores (as written). */
export interface PausedInfo {
  readonly by: 'ds-rollout';
  readonly maxUnavailable: number | string;
  readonly maxSurge: number | string;
  /** RFC3339. */
  readonly pausedAt?: string;
  /** Waves stepped since the pause. */
  readonly steps?: number;
}

export type Connection = 'live' | 'reconnecting';

/** `ds-rollout status`'s verdict, which knows a starting pod from a stuck one (the plan alone does not). */
export interface RolloutVerdict {
  readonly verdict: CoreVerdict;
  /** What is in flight, or why nothing can move. */
  readonly detail: string;
}

export interface DashboardSnapshot {
  readonly plan: RolloutPlan;
  /** The core's verdict (the status report's); the dashboard derives none of its own. */
  readonly verdict: RolloutVerdict;
  readonly revisions?: readonly RevisionEntry[];
  readonly paused?: PausedInfo;
  /** While paused: what the next `step` wave deletes (core's planStepWave), or why it cannot run. */
  readonly step?: StepPreview;
  readonly connection: Connection;
  /** Something the operator should see that did not stop the feed (e.g. a watch error before a retry). */
  readonly error?: string;
}

export interface StepPreview {
  readonly deletions: readonly {readonly pod: string; readonly node: string}[];
  /** Set when no wave can run now (e.g. the budget is in use), in one line. */
  readonly blocked?: string;
}

export type SnapshotListener = (snapshot: DashboardSnapshot) => void;

export interface PlanFeed {
  /** Starts delivering snapshots (the latest one first, if any); returns the unsubscribe function. */
  subscribe(listener: SnapshotListener): () => void;
}

export type ActionKind = 'step' | 'pause' | 'resume' | 'undo' | 'promote' | 'abort';

/** What an action did, in one line for the status line. */
export interface ActionOutcome {
  readonly message: string;
  /** Undo preview: the change the undo would make, as unified-diff lines. */
  readonly diff?: readonly string[];
}

export interface UndoRequest {
  /** The revision to go back to; undefined means the previous one (as `kubectl rollout undo`). */
  readonly toRevision?: Revision;
  /** Only say what would change; change nothing. */
  readonly preview: boolean;
}

/** Rejections carry the message to show (their `message`); the dashboard never crashes on them. */
export interface ActionHandler {
  /** One wave; `progress` gets one line per thing that happens while it runs (deleted, starting, landed). */
  step(progress?: (message: string) => void): Promise<ActionOutcome>;
  pause(): Promise<ActionOutcome>;
  resume(): Promise<ActionOutcome>;
  undo(request: UndoRequest): Promise<ActionOutcome>;
  /** A gated rollout waiting for approval: the rest of its stages (`ds-rollout promote`). */
  promote(progress?: (message: string) => void): Promise<ActionOutcome>;
  /** A gated rollout rolled back by hand (`ds-rollout abort`). */
  abort(progress?: (message: string) => void): Promise<ActionOutcome>;
}
