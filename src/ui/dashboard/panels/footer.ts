// The footer: the keys, in the longest form the terminal has room for.
import type {DashboardState} from '../dashboard-state.js';
import {KEY_HELP} from '../key-bindings.js';
import {fitLine, type Line, lineWidth, seg, type Segment} from '../text.js';

export function footerLine(ui: DashboardState, columns: number): Line {
  // Long labels, then short ones with single keys, then keys alone: whatever fits the terminal.
  const forms: Array<(entry: (typeof KEY_HELP)[number]) => [string, string]> = [
    (entry) => [entry.keys, ` ${entry.label}`],
    (entry) => [entry.keys.split(' ')[0]!, ` ${entry.short}`],
    (entry) => [entry.keys.split(' ')[0]!, ''],
  ];
  let line: Segment[] = [];
  for (const form of forms) {
    line = [];
    for (const entry of KEY_HELP) {
      if (entry.helpOnly) continue;
      if (line.length > 0) line.push(seg(form === forms[2] ? ' ' : '  ', 'muted'));
      const [keys, label] = form(entry);
      line.push(seg(keys, entry.mutating === true && ui.readonly ? 'muted' : 'key'), seg(label, 'muted'));
    }
    if (ui.readonly) line.push(seg(form === forms[2] ? ' read-only' : '  read-only', 'warn'));
    if (lineWidth(line) <= columns) return line;
  }
  return fitLine(line, columns);
}
