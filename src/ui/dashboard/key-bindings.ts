// Keys are data: one pure function maps a key press, in the current input mode, to a reducer action.
// The container adds what only it knows (list sizes, the revision under the cursor, the time).
import type {DashboardAction, InputMode} from './dashboard-state.js';

/** The part of Ink's `Key` the dashboard reads (Ink's type is assignable to it). */
export interface KeyInfo {
  readonly upArrow?: boolean;
  readonly downArrow?: boolean;
  readonly leftArrow?: boolean;
  readonly rightArrow?: boolean;
  readonly pageUp?: boolean;
  readonly pageDown?: boolean;
  readonly home?: boolean;
  readonly end?: boolean;
  readonly return?: boolean;
  readonly escape?: boolean;
  readonly ctrl?: boolean;
  readonly meta?: boolean;
  readonly tab?: boolean;
  readonly backspace?: boolean;
  readonly delete?: boolean;
}

/** The keys the footer and the help overlay list, in this order; `short` is for the footer of a narrow screen. */
/** `helpOnly`: listed in the help overlay, not in the footer (keys for a gated rollout only, kept off a full footer). */
export const KEY_HELP: ReadonlyArray<{
  readonly keys: string;
  readonly label: string;
  readonly short: string;
  readonly mutating?: boolean;
  readonly helpOnly?: boolean;
}> = [
  {keys: '↑↓ j k', label: 'move', short: 'move'},
  {keys: 'enter', label: 'details', short: 'detail'},
  {keys: 's', label: 'step one wave', short: 'step', mutating: true},
  {keys: 'p', label: 'pause', short: 'pause', mutating: true},
  {keys: 'r', label: 'resume', short: 'resume', mutating: true},
  {keys: 'u', label: 'undo', short: 'undo', mutating: true},
  {keys: 'P', label: 'promote a gated rollout', short: 'promote', mutating: true, helpOnly: true},
  {keys: 'a', label: 'abort a gated rollout', short: 'abort', mutating: true, helpOnly: true},
  {keys: 'd', label: 'diff', short: 'diff'},
  {keys: 'tab', label: 'revisions', short: 'revs'},
  {keys: '/', label: 'filter', short: 'filter'},
  {keys: '?', label: 'help', short: 'help'},
  {keys: 'q', label: 'quit', short: 'quit'},
];

const MOVES: ReadonlyArray<[(input: string, key: KeyInfo) => boolean, DashboardAction]> = [
  [(i, k) => k.upArrow === true || i === 'k', {type: 'move', by: 'line', direction: -1}],
  [(i, k) => k.downArrow === true || i === 'j', {type: 'move', by: 'line', direction: 1}],
  [(_, k) => k.pageUp === true, {type: 'move', by: 'page', direction: -1}],
  [(_, k) => k.pageDown === true, {type: 'move', by: 'page', direction: 1}],
  [(i, k) => k.home === true || i === 'g', {type: 'move', by: 'edge', direction: -1}],
  [(i, k) => k.end === true || i === 'G', {type: 'move', by: 'edge', direction: 1}],
];

function arrowMove(key: KeyInfo): DashboardAction | undefined {
  if (key.upArrow) return {type: 'move', by: 'line', direction: -1};
  if (key.downArrow) return {type: 'move', by: 'line', direction: 1};
  if (key.pageUp) return {type: 'move', by: 'page', direction: -1};
  if (key.pageDown) return {type: 'move', by: 'page', direction: 1};
  return undefined;
}

// Printable text only: pasted text arrives as one input, control characters never belong in a filter.
const PRINTABLE = /^[^\u0000-\u001f\u007f]+$/;

export function keyToAction(input: string, key: KeyInfo, mode: InputMode): DashboardAction | undefined {
  if (key.ctrl && input === 'c') return {type: 'quit'};
  switch (mode) {
    case 'help':
      if (key.escape || key.return || input === '?' || input === 'q') return {type: 'toggle-help'};
      return undefined;
    case 'confirm':
      if (input === 'y' || input === 'Y') return {type: 'confirm'};
      if (input === 'n' || input === 'N' || input === 'q' || key.escape) return {type: 'cancel'};
      return undefined;
    case 'filter': {
      if (key.escape) return {type: 'filter-cancel'};
      if (key.return) return {type: 'filter-accept'};
      if (key.backspace || key.delete) return {type: 'filter-backspace'};
      const arrow = arrowMove(key);
      if (arrow) return arrow;
      if (key.ctrl || key.meta || key.tab) return undefined;
      return input !== '' && PRINTABLE.test(input) ? {type: 'filter-input', text: input} : undefined;
    }
    case 'normal': {
      // Ink reports a lone escape with meta set: look at it before ignoring modified keys.
      if (key.escape) return {type: 'close'};
      if (key.ctrl || key.meta) return undefined;
      for (const [matches, action] of MOVES) if (matches(input, key)) return action;
      if (key.return) return {type: 'select'};
      if (key.tab) return {type: 'switch-focus'};
      switch (input) {
        case 's':
          return {type: 'request', action: 'step'};
        case 'p':
          return {type: 'request', action: 'pause'};
        case 'r':
          return {type: 'request', action: 'resume'};
        case 'u':
          return {type: 'request', action: 'undo'};
        case 'P':
          return {type: 'request', action: 'promote'};
        case 'a':
          return {type: 'request', action: 'abort'};
        case 'd':
          return {type: 'toggle-diff'};
        case '/':
          return {type: 'filter-start'};
        case '?':
          return {type: 'toggle-help'};
        case 'q':
          return {type: 'quit'};
        default:
          return undefined;
      }
    }
  }
}
