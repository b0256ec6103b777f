// The status line: the filter being typed, a prompt waiting for y/n, the last action's outcome, or the feed's state.
import {formatCount} from '../../../output/format.js';
import type {RevisionEntry} from '../../../services/dashboard/feed.js';
import type {DashboardState} from '../dashboard-state.js';
import {compactImages} from '../revision-diff.js';
import {fitLine, type Line, lineWidth, seg, width} from '../text.js';
import type {DashboardInput} from './input.js';
import {findRevision, previousRevision} from './revisions.js';

function clock(at: number): string {
  const d = new Date(at);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

function confirmPrompt(input: DashboardInput, ui: DashboardState, revisions: readonly RevisionEntry[]): Line {
  const confirm = ui.confirm!;
  const {plan, context} = input;
  const ds = `${context.namespace}/${context.name}${context.server === undefined ? '' : ` on context ${context.kubeContext} (${context.server})`}`;
  const yn = seg('  [y/n]', 'key');
  switch (confirm.action) {
    case 'step': {
      if (input.step) {
        const {deletions, blocked} = input.step;
        const listed = deletions.slice(0, 3).map((d) => `${d.pod} on ${d.node}`);
        const more = deletions.length > listed.length ? ` and ${formatCount(deletions.length - listed.length)} more` : '';
        const what = deletions.length === 0 ? `nothing to delete now: ${blocked ?? 'no old pod can go'}` : `deletes ${listed.join(', ')}${more}`;
        return [seg(`Step one wave of ${ds}? (${what})`, 'warn'), yn];
      }
      const n = plan.nextSync.delete.length + plan.nextSync.create.length;
      const what =
        n === 0 ? 'the next sync has nothing to do' : `the next sync deletes ${plan.nextSync.delete.length} and creates ${plan.nextSync.create.length} pods`;
      return [seg(`Step one wave of ${ds}? (${what})`, 'warn'), yn];
    }
    case 'pause':
      return [seg(`Pause the rollout of ${ds}? (no more old pods are replaced until resume)`, 'warn'), yn];
    case 'resume':
      return [seg(`Resume the rollout of ${ds}?`, 'warn'), yn];
    case 'promote':
      return [
        seg(
          `Promote the gated rollout of ${ds}? (${plan.gated ? `after stage ${plan.gated.stage}/${plan.gated.stages} ${plan.gated.name}: ` : ''}the rest of its stages)`,
          'warn',
        ),
        yn,
      ];
    case 'abort':
      return [seg(`Abort the gated rollout of ${ds}? (the previous template; the nodes on the new one stepped back)`, 'warn'), yn];
    case 'undo': {
      if (ui.running?.preview) return [seg('Undo: working out what would change…', 'muted')];
      const target = confirm.toRevision ?? previousRevision(plan, revisions);
      const images = target === undefined ? '' : compactImages(findRevision(revisions, target)?.template);
      const label = target === undefined ? 'the previous revision' : `revision ${target}${images ? ` (${images})` : ''}`;
      const said = confirm.preview?.message ? ` ${confirm.preview.message}` : ' The diff pane shows the change.';
      return [seg(`Undo ${ds} to ${label}?${said}`, 'warn'), yn];
    }
  }
}

export function statusLine(input: DashboardInput, ui: DashboardState, revisions: readonly RevisionEntry[], matching: number): Line {
  if (ui.mode === 'filter') {
    return [
      seg('/', 'key'),
      seg(ui.filter, 'text'),
      seg('▏', 'accent'),
      seg(`  ${formatCount(matching)} match · name, state (old, blocked, missing…), next, wave:N · enter keep · esc cancel`, 'muted'),
    ];
  }
  if (ui.mode === 'confirm' && ui.confirm) return confirmPrompt(input, ui, revisions);
  if (ui.status) {
    const token = ui.status.kind === 'error' ? 'error' : ui.status.kind === 'success' ? 'ok' : 'text';
    return [...(ui.status.at === undefined ? [] : [seg(`${clock(ui.status.at)} `, 'muted')]), seg(ui.status.text, token)];
  }
  if (input.error) return [seg(input.error, 'error')];
  if (input.connection === 'reconnecting') return [seg('Connection lost: re-listing and watching again…', 'warn')];
  return [seg('? for help', 'muted')];
}

/** Cuts the status line from the middle so that a prompt's `[y/n]` always shows. */
export function fitStatus(line: Line, columns: number): Line {
  const last = line[line.length - 1];
  if (!last || last.token !== 'key' || lineWidth(line) <= columns) return fitLine(line, columns);
  return [...fitLine(line.slice(0, -1), columns - width(last.text)), last];
}
