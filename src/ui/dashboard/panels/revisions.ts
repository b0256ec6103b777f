// The revisions pane and the revision lookups other panels share (the header's labels, undo's prompt): the
// history newest first, the diff of two revisions below it.
import {compareRevisions, higherRevision, type Revision, type RolloutPlan} from '../../../core/index.js';
import {formatDuration} from '../../../output/format.js';
import type {RevisionEntry} from '../../../services/dashboard/feed.js';
import type {DashboardState} from '../dashboard-state.js';
import type {DashboardLayout} from '../layout.js';
import {compactImages} from '../revision-diff.js';
import {fit, fitLine, type Line, seg, type Segment} from '../text.js';
import type {DashboardInput, TextPaneVm} from './input.js';

export interface RevisionPaneVm extends TextPaneVm {
  readonly focused: boolean;
  /** The diff shown: from and to revision numbers. */
  readonly diff?: {readonly from: Revision; readonly to: Revision; readonly lineCount: number};
}

/** The feed's revisions, or (without them) the two the plan names, so the header and the pane still say something. */
export function revisionEntries(input: DashboardInput): readonly RevisionEntry[] {
  if (input.revisions && input.revisions.length > 0) return input.revisions;
  const {current, update} = input.plan.revisions;
  const entries: RevisionEntry[] = [{revision: update.revision, hash: update.hash, name: update.name ?? `(${update.hash})`}];
  if (current.revision !== update.revision) entries.push({revision: current.revision, hash: current.hash, name: current.name ?? `(${current.hash})`});
  return entries;
}

export function findRevision(revisions: readonly RevisionEntry[], revision: Revision): RevisionEntry | undefined {
  return revisions.find((r) => r.revision === revision);
}

export function revisionLabel(revisions: readonly RevisionEntry[], ref: {revision: Revision; hash: string}): string {
  const images = compactImages(findRevision(revisions, ref.revision)?.template);
  return images ? `${ref.revision} (${images})` : `${ref.revision} (${ref.hash})`;
}

/** The revision `kubectl rollout undo` goes back to: the newest one older than the update revision. */
export function previousRevision(plan: RolloutPlan, revisions: readonly RevisionEntry[]): Revision | undefined {
  const older = revisions.filter((r) => r.revision < plan.revisions.update.revision).map((r) => r.revision);
  return older.length > 0 ? older.reduce(higherRevision) : undefined;
}

export interface DiffChoice {
  readonly from: Revision;
  readonly to: Revision;
  readonly why: string;
}

/**
 * Which two revisions the diff pane compares: the undo being confirmed (update -> target), two marked revisions,
 * one marked against the update revision, or by default current -> update (the previous one when they are equal).
 */
export function chooseRevisionDiff(plan: RolloutPlan, revisions: readonly RevisionEntry[], ui: DashboardState): DiffChoice | undefined {
  const update = plan.revisions.update.revision;
  if (ui.confirm?.action === 'undo') {
    const target = ui.confirm.toRevision ?? previousRevision(plan, revisions);
    return target === undefined ? undefined : {from: update, to: target, why: 'undo would apply'};
  }
  if (ui.marked.length === 2) {
    const [a, b] = [...ui.marked].sort(compareRevisions) as [Revision, Revision];
    return {from: a, to: b, why: 'marked'};
  }
  if (ui.marked.length === 1) return {from: ui.marked[0]!, to: update, why: 'marked -> update'};
  const current = plan.revisions.current.revision;
  if (current !== update) return {from: current, to: update, why: 'current -> update'};
  const previous = previousRevision(plan, revisions);
  return previous === undefined ? undefined : {from: previous, to: update, why: 'previous -> current'};
}

function age(createdAt: string | undefined, now: number): string {
  if (!createdAt) return '';
  const at = Date.parse(createdAt);
  return Number.isNaN(at) ? '' : formatDuration((now - at) / 1000);
}

export function revisionPane(
  input: DashboardInput,
  ordered: readonly RevisionEntry[],
  ui: DashboardState,
  cursor: number,
  layout: DashboardLayout,
  now: number,
): RevisionPaneVm {
  const box = layout.revisions!;
  const {plan} = input;
  const focused = ui.focus === 'revisions';
  const title: Line = fitLine(
    [
      seg(`Revisions ${ordered.length}`, focused ? 'title' : 'muted'),
      seg(focused ? '  ↑↓ move · enter mark two to diff · u undo to this one · esc back' : '  tab to choose', 'muted'),
    ],
    box.width,
  );
  const lines: Line[] = [];
  const historyRows = Math.min(layout.historyRows, box.height - 1);
  const first = Math.max(0, Math.min(cursor - Math.floor(historyRows / 2), ordered.length - historyRows));
  for (const entry of ordered.slice(first, first + historyRows)) {
    const roles = [
      entry.revision === plan.revisions.current.revision ? 'current' : '',
      entry.revision === plan.revisions.update.revision ? 'update' : '',
    ].filter(Boolean);
    const role = roles.length === 2 ? 'current=update' : (roles[0] ?? '');
    const atCursor = focused && ordered[cursor] === entry;
    const marked = ui.marked.includes(entry.revision);
    const images = compactImages(entry.template) || entry.hash;
    const line: Segment[] = [
      seg(atCursor ? '›' : ' ', 'accent'),
      seg(marked ? '*' : ' ', 'accent'),
      seg(` ${fit(String(entry.revision), 4)}`, 'text'),
      seg(fit(role, 15), role === 'update' || role === 'current=update' ? 'updated' : role === 'current' ? 'old' : 'muted'),
      seg(fit(entry.hash, 11), 'muted'),
      seg(fit(age(entry.createdAt, now), 7), 'muted'),
      seg(images, 'text'),
      seg(entry.changeCause ? `  ${entry.changeCause}` : '', 'muted'),
    ];
    lines.push(fitLine(atCursor ? line.map((s) => ({...s, token: 'selected' as const})) : line, box.width));
  }
  const showDiff = ui.showDiff || ui.confirm?.action === 'undo';
  let diffInfo: RevisionPaneVm['diff'];
  if (showDiff) {
    const room = box.height - 1 - lines.length - 1;
    const choice = chooseRevisionDiff(plan, ordered, ui);
    const preview = ui.confirm?.action === 'undo' ? ui.confirm.preview : undefined;
    if (!choice) {
      lines.push([seg('No other revision to compare with.', 'muted')]);
    } else {
      const from = findRevision(ordered, choice.from);
      const to = findRevision(ordered, choice.to);
      const diff = preview?.diff ?? (from && to && input.diff ? input.diff(from, to) : undefined);
      lines.push(fitLine([seg(`Diff revision ${choice.from} → ${choice.to}`, 'title'), seg(` (${choice.why})`, 'muted')], box.width));
      if (diff === undefined) {
        lines.push([
          seg(from && to ? "The revisions' templates are not available." : `Revision ${from ? choice.to : choice.from} is not in the history.`, 'muted'),
        ]);
      } else if (diff.length === 0) {
        lines.push([seg('The templates are identical.', 'muted')]);
      } else {
        // Short of room, the changed lines matter more than their context.
        const dense = diff.length > room ? diff.filter((text) => !text.startsWith(' ')) : diff;
        const shown = dense.length > room ? dense.slice(0, Math.max(0, room - 1)) : dense;
        for (const text of shown) lines.push(fitLine([seg(text, diffToken(text))], box.width));
        if (dense.length > shown.length && room > 0) lines.push([seg(`… ${dense.length - shown.length} more lines (d hides, esc clears marks)`, 'muted')]);
      }
      diffInfo = {from: choice.from, to: choice.to, lineCount: diff?.length ?? 0};
    }
  }
  return {title, lines: lines.slice(0, Math.max(0, box.height - 1)), width: box.width, height: box.height, focused, ...(diffInfo ? {diff: diffInfo} : {})};
}

function diffToken(line: string): Segment['token'] {
  if (line === 'images:' || line === 'template:') return 'title';
  if (line.startsWith('@@')) return 'diff-hunk';
  if (line.startsWith('+')) return 'diff-add';
  if (line.startsWith('-')) return 'diff-remove';
  return 'muted';
}
