// What every panel of the dashboard reads: the feed's input and the session's context, and the shape of a pane
// of text lines (the detail, the help). The view model (../view-model.ts) re-exports them.
import type {RolloutPlan} from '../../../core/index.js';
import type {Connection, PausedInfo, RevisionEntry, RolloutVerdict, StepPreview} from '../../../services/dashboard/feed.js';
import type {Line} from '../text.js';

export interface DashboardContext {
  readonly name: string;
  readonly namespace: string;
  readonly kubeContext: string;
  /** The API server (live): confirmation prompts name the context and the server they act on. */
  readonly server?: string;
}

export interface DashboardInput {
  readonly plan: RolloutPlan;
  /** The core's verdict (the status report's): the dashboard derives none of its own. */
  readonly verdict: RolloutVerdict;
  readonly revisions?: readonly RevisionEntry[];
  readonly context: DashboardContext;
  readonly paused?: PausedInfo;
  /** While paused: what the next step wave deletes. */
  readonly step?: StepPreview;
  readonly connection: Connection;
  /** Observed updated pods per minute. */
  readonly pace?: number;
  /** A feed problem to show in the status line. */
  readonly error?: string;
  /** Template diff of two revisions (the container passes a memoised one). Without it, no diff is shown. */
  readonly diff?: (from: RevisionEntry, to: RevisionEntry) => readonly string[];
}

export interface TextPaneVm {
  readonly title: Line;
  readonly lines: readonly Line[];
  readonly width: number;
  readonly height: number;
}

/** The core's verdict, as `ds-rollout status` gives it. */
export function verdictOf(input: DashboardInput): RolloutVerdict['verdict'] {
  return input.verdict.verdict;
}
