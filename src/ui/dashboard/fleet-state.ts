// Interaction state of the fleet screen (`dashboard NAME --contexts`) and its reducer: which cluster the cursor is
// on, which one is open (the drill-in shows that cluster's usual screen), help, and a one-line notice. Keys map to
// actions in one pure function, as the one-cluster screen's do. Pure: times arrive in actions.
import type {KeyInfo} from './key-bindings.js';

export interface FleetState {
  /** Index in the fleet's rows (the view model clamps it). */
  readonly cursor: number;
  /** The context whose own screen is shown; undefined: the fleet. */
  readonly drilled?: string;
  readonly help: boolean;
  readonly notice?: {readonly text: string; readonly at?: number};
  readonly quit: boolean;
}

export function initialFleetState(): FleetState {
  return {cursor: 0, help: false, quit: false};
}

export type FleetAction =
  | {readonly type: 'move'; readonly by: 'line' | 'page' | 'edge'; readonly direction: 1 | -1; readonly rows?: number; readonly page?: number}
  /** Enter: the container adds the row under the cursor and whether that cluster has a screen to open. */
  | {readonly type: 'open'; readonly context?: string; readonly why?: string; readonly now?: number}
  | {readonly type: 'back'}
  | {readonly type: 'toggle-help'}
  | {readonly type: 'quit'};

/** The fleet screen's keys, for its footer and help. */
export const FLEET_KEY_HELP: ReadonlyArray<{readonly keys: string; readonly label: string}> = [
  {keys: '↑↓ j k', label: 'move'},
  {keys: 'enter', label: "open the cluster's screen"},
  {keys: 'esc', label: 'back to the fleet (from a cluster)'},
  {keys: '?', label: 'help'},
  {keys: 'q', label: 'quit'},
];

export function fleetKeyToAction(input: string, key: KeyInfo, state: Pick<FleetState, 'help'>): FleetAction | undefined {
  if (key.ctrl && input === 'c') return {type: 'quit'};
  if (state.help) return key.escape || key.return || input === '?' || input === 'q' ? {type: 'toggle-help'} : undefined;
  if (key.upArrow || input === 'k') return {type: 'move', by: 'line', direction: -1};
  if (key.downArrow || input === 'j') return {type: 'move', by: 'line', direction: 1};
  if (key.pageUp) return {type: 'move', by: 'page', direction: -1};
  if (key.pageDown) return {type: 'move', by: 'page', direction: 1};
  if (key.home || input === 'g') return {type: 'move', by: 'edge', direction: -1};
  if (key.end || input === 'G') return {type: 'move', by: 'edge', direction: 1};
  if (key.return) return {type: 'open'};
  if (input === '?') return {type: 'toggle-help'};
  if (input === 'q') return {type: 'quit'};
  return undefined;
}

function moved(cursor: number, action: Extract<FleetAction, {type: 'move'}>): number {
  const rows = action.rows ?? Number.POSITIVE_INFINITY;
  const step = action.by === 'line' ? 1 : action.by === 'page' ? Math.max(1, action.page ?? 10) : rows;
  const next = cursor + action.direction * (Number.isFinite(step) ? step : Number.MAX_SAFE_INTEGER);
  return Math.max(0, Math.min(next, Number.isFinite(rows) ? rows - 1 : next));
}

export function fleetReducer(state: FleetState, action: FleetAction): FleetState {
  switch (action.type) {
    case 'move':
      return {...state, cursor: moved(state.cursor, action), notice: undefined};
    case 'open':
      if (action.context === undefined) return state;
      if (action.why !== undefined) {
        return {...state, notice: {text: `${action.context}: ${action.why}`, ...(action.now === undefined ? {} : {at: action.now})}};
      }
      return {...state, drilled: action.context, notice: undefined};
    case 'back':
      return {...state, drilled: undefined};
    case 'toggle-help':
      return {...state, help: !state.help};
    case 'quit':
      return {...state, quit: true};
  }
}
