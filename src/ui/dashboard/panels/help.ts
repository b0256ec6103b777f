// The help pane (?): every key, what each node state means, the filter's terms and where the ETA comes from.
import {KEY_HELP} from '../key-bindings.js';
import {NEXT_WAVE_GLYPH, NODE_GLYPHS, NODE_LABELS, NODE_MEANINGS, NODE_TOKENS} from '../node-tokens.js';
import {fit, fitLine, type Line, seg} from '../text.js';
import type {TextPaneVm} from './input.js';

export function helpPane(columns: number, height: number, readonly: boolean): TextPaneVm {
  const lines: Line[] = [];
  for (const entry of KEY_HELP) {
    const note = entry.mutating ? (readonly ? '  (disabled: --readonly)' : '  (asks y/n first)') : '';
    lines.push([seg(`  ${fit(entry.keys, 10)}`, 'key'), seg(entry.label, 'text'), seg(note, 'muted')]);
  }
  lines.push([seg('  pgup pgdn g G  page, first, last    esc  close, clear marks or filter', 'muted')]);
  lines.push([]);
  lines.push([seg('  Node states', 'title')]);
  for (const token of NODE_TOKENS)
    lines.push([seg(`  ${NODE_GLYPHS[token]} `, token), seg(fit(NODE_LABELS[token], 14), token), seg(NODE_MEANINGS[token], 'muted')]);
  lines.push([seg(`  ${NEXT_WAVE_GLYPH} `, 'accent'), seg(fit('next wave', 14), 'accent'), seg('the next controller sync changes this node', 'muted')]);
  lines.push([]);
  lines.push([seg('  Filter terms: part of a name, a state (old, blocked, missing…), next, wave:N; all terms must match.', 'muted')]);
  lines.push([seg("  ETA: from the pace observed since the dashboard started; before any, the plan's (marked planned).", 'muted')]);
  return {
    title: [seg('Help', 'title'), seg('  (? or esc to close)', 'muted')],
    lines: lines.slice(0, Math.max(0, height - 1)).map((l) => fitLine(l, columns)),
    width: columns,
    height,
  };
}
