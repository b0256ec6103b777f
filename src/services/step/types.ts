// What a step takes and gives back: the options of the use case (services/step.ts) and its result. It acts through
// the command's live Session: its reads, writes, watches and the one clock every rule is judged on.
import type {DaemonSetRef} from '../../cluster/cluster-source.js';
import type {DeadlineClock} from '../../platform/clock.js';
import type {Follower} from '../../cluster/live/index.js';
import type {LiveSession} from '../../cluster/session.js';
import type {IntOrString, LabelSelector, NodeLanding, StepBudget, StepDeletion, StepEvent, StepLease, StepWave} from '../../core/index.js';

/** What a step uses of the command's live session: reads, writes with preconditions, watches, the server's clock. */
export type StepSession = Pick<LiveSession, 'source' | 'writer' | 'live' | 'clock'>;

export type Answer = 'yes' | 'no' | 'all';

/** Who runs this step, as the lease names it; `thisProcess()` by default. */
export interface StepHolder {
  readonly holderIdentity: string;
  readonly host: string;
  readonly pid: number;
  /** Whether the process holding `lease` still runs, as far as this machine can tell (another host: assume so). */
  isAlive(lease: StepLease): boolean;
}

export interface StepOptions {
  readonly session: StepSession;
  readonly ref: DaemonSetRef;
  /** `--max-unavailable`: this budget instead of the recorded one. */
  readonly maxUnavailable?: IntOrString;
  readonly nodes?: readonly string[];
  readonly selector?: LabelSelector;
  readonly untilComplete?: boolean;
  /** How long one wave may take to become available (and a wave may wait for budget); 0: no limit. */
  readonly timeoutMs: number;
  /** Show the next wave, change nothing. */
  readonly dryRun?: boolean;
  /** `--controller`: let the controller run one surge wave under the recorded strategy, then pause again. */
  readonly controller?: boolean;
  /** `--force`: take the step lease even from a step that still renews it. */
  readonly force?: boolean;
  readonly holder?: StepHolder;
  /** Asked before a wave's deletions (undefined: `--yes`). `all` stops asking. */
  readonly confirm?: (prompt: ConfirmRequest) => Promise<Answer>;
  readonly onEvent?: (event: StepEvent) => void;
  /** Ctrl-C: stop at the next safe point (with --controller: after pausing again). */
  readonly signal?: AbortSignal;
  /** How often a wait re-judges availability and refreshes the server's clock (default 250 ms). */
  readonly tickMs?: number;
  /** A follower of this DaemonSet's cluster to share (the gated rollout's); the caller stops it. */
  readonly follower?: Follower;
  /** The command a stuck step tells the user to rerun with a larger budget (default `step`; an abort's: `abort`). */
  readonly rerunAs?: 'step' | 'abort';
  /** The caller's asks of the server's time, to share (the gated rollout's): one clock, not one per use case. */
  readonly deadlines?: DeadlineClock;
}

export interface ConfirmRequest {
  readonly number: number;
  readonly total: number;
  readonly deletions: number;
  readonly controller: boolean;
}

export interface WaveReport {
  readonly number: number;
  readonly total: number;
  /** The old pods the wave set out to delete (for --controller: the nodes predicted to surge). */
  readonly planned: readonly StepDeletion[];
  /** `available`: the pod was available when it was deleted (the wave waits for its node). */
  readonly deleted: readonly {readonly pod: string; readonly node: string; readonly available: boolean}[];
  readonly kept: readonly {readonly pod: string; readonly node: string; readonly why: string}[];
  readonly nodes: readonly NodeLanding[];
  readonly landed: boolean;
  readonly seconds: number;
}

export interface StepResult {
  readonly kind: 'DaemonSetStep';
  readonly daemonSet: DaemonSetRef;
  /** `done`: nothing old left in scope; `stepped`: the waves ran, old pods remain; `dry-run`; `declined`. */
  readonly outcome: 'done' | 'stepped' | 'dry-run' | 'declined';
  readonly budget?: StepBudget;
  readonly waves: readonly WaveReport[];
  /** Nodes in scope still running an old pod. */
  readonly oldLeft: number;
  /** With --dry-run: the wave that would run. */
  readonly next?: StepWave;
  /** With --controller and --dry-run: the nodes the controller is expected to surge on. */
  readonly controllerNodes?: readonly string[];
}
