// The dashboard container, the only impure component: it subscribes to the plan feed, keeps the interaction
// state, maps keys to actions, runs the actions the state asks for, and recomputes the view model. Redraws
// from the feed are coalesced, and a view model equal to the previous one is not handed to React at all.
import {Text, useApp, useInput} from 'ink';
import {useEffect, useMemo, useReducer, useRef, useState} from 'react';
import {localNow} from '../../platform/clock.js';
import {deepEqualJson, type Revision} from '../../core/index.js';
import {atOutermostLayer, type DashboardAction, dashboardReducer, type DashboardState, initialDashboardState} from './dashboard-state.js';
import {DashboardScreen} from './DashboardScreen.js';
import {useCoalesced, useTerminalSize} from './hooks.js';
import type {ActionHandler, ActionOutcome, DashboardSnapshot, PlanFeed, RevisionEntry} from '../../services/dashboard/feed.js';
import {keyToAction} from './key-bindings.js';
import type {TerminalSize} from './layout.js';
import {observedPace, type ProgressSample, recordProgress} from './pace.js';
import {diffRevisionTemplates} from './revision-diff.js';
import {DEFAULT_THEME, type Theme} from './theme.js';
import {type DashboardContext, type DashboardViewModel, toDashboardViewModel} from './view-model.js';

export interface DashboardProps {
  readonly feed: PlanFeed;
  readonly actions: ActionHandler;
  readonly context: DashboardContext;
  readonly readonly?: boolean;
  readonly theme?: Theme;
  /** A fixed size (tests, benchmarks); by default the terminal's, following resizes. */
  readonly size?: TerminalSize;
  /** This machine's clock: redraw pacing and the observed pace (default: clock.ts's localNow). */
  readonly clock?: () => number;
  /** The cluster's clock (the session's): revision ages, judged as the plan was (default: clock). */
  readonly clusterNow?: () => number;
  /** Least time between two redraws caused by the feed. */
  readonly redrawIntervalMs?: number;
  /** Called with every view model that reaches the screen (benchmarks, tests). */
  readonly onFrame?: (vm: DashboardViewModel) => void;
  /** Called once when the user quits. */
  readonly onQuit?: () => void;
  /** Esc with nothing left to close: back to where this screen was opened from (the fleet). */
  readonly onBack?: () => void;
}

export const DEFAULT_REDRAW_INTERVAL_MS = 250;

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}

/** The diff of two revisions only changes when their hashes do: compute each pair once. */
function memoizedDiff(): (from: RevisionEntry, to: RevisionEntry) => readonly string[] {
  const cache = new Map<string, readonly string[]>();
  return (from, to) => {
    const key = `${from.revision}:${from.hash}>${to.revision}:${to.hash}`;
    let lines = cache.get(key);
    if (!lines) {
      if (cache.size > 32) cache.clear();
      lines = diffRevisionTemplates(from, to);
      cache.set(key, lines);
    }
    return lines;
  };
}

/** Adds to a key's action what only the screen knows: list sizes, the revision under the cursor, the time. */
/** The revision under the cursor, from the state the key sees (the last frame may predate a cursor move). */
function revisionAtCursor(ui: DashboardState, vm: DashboardViewModel | undefined): Revision | undefined {
  const order = vm?.nav.revisionOrder ?? [];
  return order[Math.max(0, Math.min(ui.revisionCursor, order.length - 1))];
}

function complete(action: DashboardAction, ui: DashboardState, vm: DashboardViewModel | undefined, now: number): DashboardAction {
  switch (action.type) {
    case 'move':
      return vm ? {...action, limits: {nodes: vm.nav.nodes, revisions: vm.nav.revisions, page: vm.nav.page}} : action;
    case 'select':
      return ui.focus === 'revisions' && revisionAtCursor(ui, vm) !== undefined ? {...action, revision: revisionAtCursor(ui, vm)} : action;
    case 'request': {
      const toRevision = action.action === 'undo' && ui.focus === 'revisions' ? revisionAtCursor(ui, vm) : undefined;
      return {...action, now, ...(toRevision === undefined ? {} : {toRevision})};
    }
    case 'confirm':
    case 'cancel':
      return {...action, now};
    default:
      return action;
  }
}

function runAction(actions: ActionHandler, running: NonNullable<DashboardState['running']>, progress: (text: string) => void): Promise<ActionOutcome> {
  switch (running.action) {
    case 'step':
      return actions.step(progress);
    case 'pause':
      return actions.pause();
    case 'resume':
      return actions.resume();
    case 'promote':
      return actions.promote(progress);
    case 'abort':
      return actions.abort(progress);
    case 'undo':
      return actions.undo({preview: running.preview, ...(running.toRevision === undefined ? {} : {toRevision: running.toRevision})});
  }
}

export function Dashboard(props: DashboardProps) {
  const {feed, actions, context} = props;
  const clock = props.clock ?? localNow;
  const interval = props.redrawIntervalMs ?? DEFAULT_REDRAW_INTERVAL_MS;
  const theme = props.theme ?? DEFAULT_THEME;
  const {exit} = useApp();

  const [ui, dispatch] = useReducer(dashboardReducer, {readonly: props.readonly ?? false}, initialDashboardState);
  const size = useTerminalSize(props.size);
  const [vm, setVm] = useState<DashboardViewModel>();
  const samples = useRef<ProgressSample[]>([]);
  const vmRef = useRef<DashboardViewModel | undefined>(undefined);
  const uiRef = useRef(ui);
  uiRef.current = ui;
  const diff = useMemo(memoizedDiff, []);

  // The first snapshot shows at once, later ones at most once per interval (the latest wins).
  const snapshot = useCoalesced(feed, clock, interval, (next: DashboardSnapshot) => {
    samples.current = recordProgress(samples.current, {at: clock(), updated: next.plan.status.updatedNumberScheduled});
  });

  // One view model per change of input; an equal one is dropped, so React and Ink do no work for it.
  useEffect(() => {
    if (!snapshot) return;
    const next = toDashboardViewModel({...snapshot, context, pace: observedPace(samples.current, clock()), diff}, ui, size, (props.clusterNow ?? clock)());
    if (vmRef.current !== undefined && deepEqualJson(vmRef.current, next)) return;
    vmRef.current = next;
    setVm(next);
    props.onFrame?.(next);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [snapshot, ui, size.columns, size.rows]);

  useInput((input, key) => {
    // Keys typed fast (or held down) can arrive as one chunk ("jjj"): outside the filter, one action per
    // character, each judged in the mode the previous one left (the reducer is pure, so it can be run ahead).
    const chunks = input.length > 1 && uiRef.current.mode !== 'filter' && !key.ctrl && !key.meta ? [...input] : [input];
    let state = uiRef.current;
    for (const chunk of chunks) {
      const intent = keyToAction(chunk, key, state.mode);
      if (!intent) continue;
      if (intent.type === 'close' && props.onBack && atOutermostLayer(state)) {
        props.onBack();
        break;
      }
      const action = complete(intent, state, vmRef.current, clock());
      state = dashboardReducer(state, action);
      dispatch(action);
    }
    // A key that arrives before React renders again must see what this one did (j then u: undo to the row j chose).
    uiRef.current = state;
  });

  useEffect(() => {
    if (!ui.quit) return;
    props.onQuit?.();
    exit();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ui.quit]);

  // Run what the state asks for; the answer comes back as an action tagged with the request's id.
  const runningId = ui.running?.id;
  useEffect(() => {
    const running = uiRef.current.running;
    if (!running) return;
    Promise.resolve()
      .then(() => runAction(actions, running, (text) => dispatch({type: 'progress', id: running.id, text, now: clock()})))
      .then(
        (outcome) => dispatch({type: 'action-done', id: running.id, message: outcome.message, ...(outcome.diff ? {diff: outcome.diff} : {}), now: clock()}),
        (error: unknown) => dispatch({type: 'action-failed', id: running.id, error: messageOf(error), now: clock()}),
      );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [runningId]);

  if (!vm) return <Text>{`Connecting to DaemonSet ${context.namespace}/${context.name} (context ${context.kubeContext})…`}</Text>;
  return <DashboardScreen vm={vm} theme={theme} />;
}
