import {describe, expect, test} from 'vitest';
import type {InputMode} from '../../src/ui/dashboard/dashboard-state.js';
import {type KeyInfo, keyToAction} from '../../src/ui/dashboard/key-bindings.js';

interface Case {
  name: string;
  input?: string;
  key?: KeyInfo;
  mode: InputMode;
  want: ReturnType<typeof keyToAction>;
}

const cases: Case[] = [
  {name: 'down arrow moves down', key: {downArrow: true}, mode: 'normal', want: {type: 'move', by: 'line', direction: 1}},
  {name: 'j moves down', input: 'j', mode: 'normal', want: {type: 'move', by: 'line', direction: 1}},
  {name: 'up arrow moves up', key: {upArrow: true}, mode: 'normal', want: {type: 'move', by: 'line', direction: -1}},
  {name: 'k moves up', input: 'k', mode: 'normal', want: {type: 'move', by: 'line', direction: -1}},
  {name: 'page down', key: {pageDown: true}, mode: 'normal', want: {type: 'move', by: 'page', direction: 1}},
  {name: 'page up', key: {pageUp: true}, mode: 'normal', want: {type: 'move', by: 'page', direction: -1}},
  {name: 'g goes to the first node', input: 'g', mode: 'normal', want: {type: 'move', by: 'edge', direction: -1}},
  {name: 'G goes to the last node', input: 'G', mode: 'normal', want: {type: 'move', by: 'edge', direction: 1}},
  {name: 'enter selects', key: {return: true}, mode: 'normal', want: {type: 'select'}},
  {name: 'esc closes', key: {escape: true}, mode: 'normal', want: {type: 'close'}},
  {name: 'esc closes although Ink sets meta with it', key: {escape: true, meta: true}, mode: 'normal', want: {type: 'close'}},
  {name: 'esc cancels a filter although Ink sets meta with it', key: {escape: true, meta: true}, mode: 'filter', want: {type: 'filter-cancel'}},
  {name: 'tab switches focus', key: {tab: true}, mode: 'normal', want: {type: 'switch-focus'}},
  {name: 's asks to step', input: 's', mode: 'normal', want: {type: 'request', action: 'step'}},
  {name: 'p asks to pause', input: 'p', mode: 'normal', want: {type: 'request', action: 'pause'}},
  {name: 'r asks to resume', input: 'r', mode: 'normal', want: {type: 'request', action: 'resume'}},
  {name: 'u asks to undo', input: 'u', mode: 'normal', want: {type: 'request', action: 'undo'}},
  {name: 'P asks to promote a gated rollout', input: 'P', mode: 'normal', want: {type: 'request', action: 'promote'}},
  {name: 'a asks to abort a gated rollout', input: 'a', mode: 'normal', want: {type: 'request', action: 'abort'}},
  {name: 'd toggles the diff', input: 'd', mode: 'normal', want: {type: 'toggle-diff'}},
  {name: '/ starts a filter', input: '/', mode: 'normal', want: {type: 'filter-start'}},
  {name: '? opens help', input: '?', mode: 'normal', want: {type: 'toggle-help'}},
  {name: 'q quits', input: 'q', mode: 'normal', want: {type: 'quit'}},
  {name: 'ctrl-c quits', input: 'c', key: {ctrl: true}, mode: 'normal', want: {type: 'quit'}},
  {name: 'an unbound letter does nothing', input: 'x', mode: 'normal', want: undefined},
  {name: 'ctrl-s is not s', input: 's', key: {ctrl: true}, mode: 'normal', want: undefined},
  {name: 'y confirms', input: 'y', mode: 'confirm', want: {type: 'confirm'}},
  {name: 'Y confirms', input: 'Y', mode: 'confirm', want: {type: 'confirm'}},
  {name: 'n cancels', input: 'n', mode: 'confirm', want: {type: 'cancel'}},
  {name: 'esc cancels', key: {escape: true}, mode: 'confirm', want: {type: 'cancel'}},
  {name: 'q cancels a prompt rather than quitting', input: 'q', mode: 'confirm', want: {type: 'cancel'}},
  {name: 'other keys wait in a prompt', input: 's', mode: 'confirm', want: undefined},
  {name: 'ctrl-c quits from a prompt', input: 'c', key: {ctrl: true}, mode: 'confirm', want: {type: 'quit'}},
  {name: 'letters type into the filter', input: 'o', mode: 'filter', want: {type: 'filter-input', text: 'o'}},
  {name: 'q types into the filter', input: 'q', mode: 'filter', want: {type: 'filter-input', text: 'q'}},
  {name: 'pasted text types into the filter', input: 'worker-1', mode: 'filter', want: {type: 'filter-input', text: 'worker-1'}},
  {name: 'backspace deletes', key: {backspace: true}, mode: 'filter', want: {type: 'filter-backspace'}},
  {name: 'delete (what many terminals send for backspace) deletes', key: {delete: true}, mode: 'filter', want: {type: 'filter-backspace'}},
  {name: 'enter keeps the filter', key: {return: true}, mode: 'filter', want: {type: 'filter-accept'}},
  {name: 'esc cancels the filter', key: {escape: true}, mode: 'filter', want: {type: 'filter-cancel'}},
  {name: 'arrows still move while filtering', key: {downArrow: true}, mode: 'filter', want: {type: 'move', by: 'line', direction: 1}},
  {name: 'control characters never reach the filter', input: '\u0007', mode: 'filter', want: undefined},
  {name: '? closes help', input: '?', mode: 'help', want: {type: 'toggle-help'}},
  {name: 'esc closes help', key: {escape: true}, mode: 'help', want: {type: 'toggle-help'}},
  {name: 'q closes help', input: 'q', mode: 'help', want: {type: 'toggle-help'}},
  {name: 'mutating keys do nothing under help', input: 'p', mode: 'help', want: undefined},
];

describe('keyToAction', () => {
  test.each(cases)('$mode: $name', ({input, key, mode, want}) => {
    expect(keyToAction(input ?? '', key ?? {}, mode)).toEqual(want);
  });
});
