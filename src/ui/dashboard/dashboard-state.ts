// Interaction state of the dashboard and its reducer: selection, filter, panes, confirmation prompts and action
// results. Pure: no clock (times arrive in actions), no I/O (the container runs the actions the state asks for).
import type {Revision} from '../../core/index.js';
import type {ActionKind} from '../../services/dashboard/feed.js';

export type InputMode = 'normal' | 'filter' | 'confirm' | 'help';
export type Focus = 'nodes' | 'revisions';

export interface ConfirmPrompt {
  readonly action: ActionKind;
  /** Undo: the revision to go back to (undefined: the previous one). */
  readonly toRevision?: Revision;
  /** Undo: what the handler's preview said, once it answered. */
  readonly preview?: {readonly message: string; readonly diff?: readonly string[]};
}

export interface StatusMessage {
  readonly kind: 'info' | 'success' | 'error';
  readonly text: string;
  /** When it happened (ms since the epoch), shown as a time of day. */
  readonly at?: number;
}

export interface RunningAction {
  readonly id: number;
  readonly action: ActionKind;
  readonly toRevision?: Revision;
  /** An undo preview runs without asking; everything else runs after `y`. */
  readonly preview: boolean;
}

export interface DashboardState {
  readonly mode: InputMode;
  readonly readonly: boolean;
  readonly focus: Focus;
  /** Index in the filtered node list (the view model clamps it to the list). */
  readonly cursor: number;
  readonly filter: string;
  /** The filter before `/`, restored by esc. */
  readonly filterBefore: string;
  /** Enter: the selected node's detail takes the body. */
  readonly expanded: boolean;
  readonly showDiff: boolean;
  readonly revisionCursor: number;
  /** Revisions marked with enter in the revision pane; two marked ones are diffed. */
  readonly marked: readonly Revision[];
  readonly confirm?: ConfirmPrompt;
  /** The action the container should run (or is running); a new id means "run it". */
  readonly running?: RunningAction;
  readonly nextId: number;
  readonly status?: StatusMessage;
  readonly quit: boolean;
}

export function initialDashboardState(options: {readonly readonly?: boolean} = {}): DashboardState {
  return {
    mode: 'normal',
    readonly: options.readonly ?? false,
    focus: 'nodes',
    cursor: 0,
    filter: '',
    filterBefore: '',
    expanded: false,
    showDiff: false,
    revisionCursor: 0,
    marked: [],
    nextId: 1,
    quit: false,
  };
}

/** Esc has nothing left to peel (no help, detail, marks, revision focus, filter, prompt or action under way). */
export function atOutermostLayer(state: DashboardState): boolean {
  return state.mode === 'normal' && !state.expanded && state.marked.length === 0 && state.focus === 'nodes' && state.filter === '' && !state.running;
}

/** Bounds the container knows from the current view model. */
export interface MoveLimits {
  /** Nodes in the filtered list. */
  readonly nodes: number;
  readonly revisions: number;
  /** Rows a page moves. */
  readonly page: number;
}

export type DashboardAction =
  | {readonly type: 'move'; readonly by: 'line' | 'page' | 'edge'; readonly direction: 1 | -1; readonly limits?: MoveLimits}
  | {readonly type: 'select'; readonly revision?: Revision}
  | {readonly type: 'close'}
  | {readonly type: 'toggle-diff'}
  | {readonly type: 'toggle-help'}
  | {readonly type: 'switch-focus'}
  | {readonly type: 'filter-start'}
  | {readonly type: 'filter-input'; readonly text: string}
  | {readonly type: 'filter-backspace'}
  | {readonly type: 'filter-accept'}
  | {readonly type: 'filter-cancel'}
  | {readonly type: 'request'; readonly action: ActionKind; readonly toRevision?: Revision; readonly now?: number}
  | {readonly type: 'confirm'; readonly now?: number}
  | {readonly type: 'cancel'; readonly now?: number}
  | {readonly type: 'action-done'; readonly id: number; readonly message: string; readonly diff?: readonly string[]; readonly now?: number}
  | {readonly type: 'action-failed'; readonly id: number; readonly error: string; readonly now?: number}
  | {readonly type: 'progress'; readonly id: number; readonly text: string; readonly now?: number}
  | {readonly type: 'notice'; readonly kind: StatusMessage['kind']; readonly text: string; readonly now?: number}
  | {readonly type: 'quit'};

const VERBS: Readonly<Record<ActionKind, string>> = {step: 'step', pause: 'pause', resume: 'resume', undo: 'undo', promote: 'promote', abort: 'abort'};
const RUNNING: Readonly<Record<ActionKind, string>> = {
  step: 'Stepping one wave…',
  pause: 'Pausing…',
  resume: 'Resuming…',
  undo: 'Undoing…',
  promote: 'Promoting the gated rollout…',
  abort: 'Aborting the gated rollout…',
};

function clamp(value: number, count: number): number {
  return Math.max(0, Math.min(value, Math.max(0, count - 1)));
}

function status(kind: StatusMessage['kind'], text: string, at: number | undefined): StatusMessage {
  return at === undefined ? {kind, text} : {kind, text, at};
}

function move(position: number, action: Extract<DashboardAction, {type: 'move'}>, count: number | undefined, page: number): number {
  const step = action.by === 'line' ? 1 : action.by === 'page' ? Math.max(1, page) : Number.POSITIVE_INFINITY;
  const next = position + action.direction * step;
  if (count === undefined) return Math.max(0, Number.isFinite(next) ? next : 0);
  return clamp(Number.isFinite(next) ? next : action.direction > 0 ? count - 1 : 0, count);
}

export function dashboardReducer(state: DashboardState, action: DashboardAction): DashboardState {
  switch (action.type) {
    case 'move': {
      const page = action.limits?.page ?? 10;
      if (state.focus === 'revisions') return {...state, revisionCursor: move(state.revisionCursor, action, action.limits?.revisions, page)};
      return {...state, cursor: move(state.cursor, action, action.limits?.nodes, page)};
    }
    case 'select': {
      if (state.focus === 'revisions') {
        if (action.revision === undefined) return state;
        const marked = state.marked.includes(action.revision)
          ? state.marked.filter((r) => r !== action.revision)
          : [...state.marked, action.revision].slice(-2);
        return {...state, marked, showDiff: true};
      }
      return {...state, expanded: !state.expanded};
    }
    case 'close': {
      // Esc peels one layer at a time: help, expanded detail, revision marks, focus, filter.
      if (state.mode === 'help') return {...state, mode: 'normal'};
      if (state.expanded) return {...state, expanded: false};
      if (state.marked.length > 0) return {...state, marked: []};
      if (state.focus === 'revisions') return {...state, focus: 'nodes'};
      if (state.filter !== '') return {...state, filter: '', filterBefore: '', cursor: 0};
      return {...state, status: undefined};
    }
    case 'toggle-diff':
      return {...state, showDiff: !state.showDiff, focus: state.showDiff && state.focus === 'revisions' ? 'nodes' : state.focus};
    case 'toggle-help':
      return {...state, mode: state.mode === 'help' ? 'normal' : 'help'};
    case 'switch-focus':
      return {...state, focus: state.focus === 'nodes' ? 'revisions' : 'nodes', expanded: false};
    case 'filter-start':
      return {...state, mode: 'filter', filterBefore: state.filter, focus: 'nodes', expanded: false};
    case 'filter-input':
      return state.mode === 'filter' ? {...state, filter: state.filter + action.text, cursor: 0} : state;
    case 'filter-backspace':
      return state.mode === 'filter' ? {...state, filter: state.filter.slice(0, -1), cursor: 0} : state;
    case 'filter-accept':
      return {...state, mode: 'normal', filter: state.filter.trim()};
    case 'filter-cancel':
      return {...state, mode: 'normal', filter: state.filterBefore, cursor: 0};
    case 'request': {
      if (state.readonly) {
        return {...state, status: status('info', `read-only (--readonly): ${VERBS[action.action]} is disabled`, action.now)};
      }
      if (state.running) {
        return {...state, status: status('info', `${RUNNING[state.running.action]} wait for it to finish`, action.now)};
      }
      const confirm: ConfirmPrompt = action.toRevision === undefined ? {action: action.action} : {action: action.action, toRevision: action.toRevision};
      if (action.action === 'undo') {
        // Undo shows what it would change before asking: run the preview now, show the diff pane.
        const running: RunningAction = {
          id: state.nextId,
          action: 'undo',
          preview: true,
          ...(action.toRevision === undefined ? {} : {toRevision: action.toRevision}),
        };
        return {...state, mode: 'confirm', confirm, running, nextId: state.nextId + 1, showDiff: true, status: undefined};
      }
      return {...state, mode: 'confirm', confirm, status: undefined};
    }
    case 'confirm': {
      if (state.mode !== 'confirm' || !state.confirm) return state;
      if (state.running) return state; // the undo preview has not answered yet
      const {action: kind, toRevision} = state.confirm;
      const running: RunningAction = {id: state.nextId, action: kind, preview: false, ...(toRevision === undefined ? {} : {toRevision})};
      return {...state, mode: 'normal', confirm: undefined, running, nextId: state.nextId + 1, status: status('info', RUNNING[kind], action.now)};
    }
    case 'cancel': {
      if (state.mode !== 'confirm' || !state.confirm) return state;
      // A preview still running is dropped: its answer will not match `running` any more.
      const running = state.running?.preview ? undefined : state.running;
      return {...state, mode: 'normal', confirm: undefined, running, status: status('info', `${VERBS[state.confirm.action]} cancelled`, action.now)};
    }
    case 'action-done': {
      if (state.running?.id !== action.id) return state;
      if (state.running.preview) {
        if (!state.confirm) return {...state, running: undefined};
        const preview = action.diff === undefined ? {message: action.message} : {message: action.message, diff: action.diff};
        return {...state, running: undefined, confirm: {...state.confirm, preview}};
      }
      return {...state, running: undefined, status: status('success', action.message, action.now)};
    }
    case 'action-failed': {
      if (state.running?.id !== action.id) return state;
      if (state.running.preview) {
        // Nothing can be confirmed when the preview failed.
        return {...state, running: undefined, mode: 'normal', confirm: undefined, status: status('error', `undo: ${action.error}`, action.now)};
      }
      return {...state, running: undefined, status: status('error', `${VERBS[state.running.action]} failed: ${action.error}`, action.now)};
    }
    case 'progress':
      // A long action (a step) says what it is doing; a late line from a finished one is dropped.
      return state.running?.id === action.id && !state.running.preview ? {...state, status: status('info', action.text, action.now)} : state;
    case 'notice':
      return {...state, status: status(action.kind, action.text, action.now)};
    case 'quit':
      return {...state, quit: true};
  }
}
