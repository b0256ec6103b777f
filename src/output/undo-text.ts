// ds-rollout undo's preview for people: which revision, what renumbering, which nodes restart, the diff.
import type {Blocker, PodTemplateSpec, Revision, RolloutPlan} from '../core/index.js';
import {palette} from './color.js';
import {formatDuration, formatList, plural} from './format.js';
import {blockerText, wrap} from './plan-text.js';
import {renderTemplateDiff} from './revision-diff.js';

export interface UndoView {
  readonly ref: {readonly namespace: string; readonly name: string};
  readonly from?: {readonly revision: Revision; readonly hash: string};
  readonly to: {readonly revision: Revision; readonly hash: string};
  readonly skipped: boolean;
  readonly currentTemplate: PodTemplateSpec;
  readonly targetTemplate: PodTemplateSpec;
  readonly renumberedTo?: Revision;
  readonly restartNodes: readonly string[];
  readonly plan?: RolloutPlan;
  readonly changeCause: string;
}

/** kubectl's line when the template already matches the target. */
export function skippedLine(view: UndoView): string {
  return `daemonset.apps/${view.ref.name} skipped rollback (current template already matches revision ${view.to.revision})`;
}

function fromLabel(view: UndoView): string {
  return view.from ? `revision ${view.from.revision} (${view.from.hash})` : 'a template no revision records yet';
}

export function renderUndoPreview(view: UndoView, options: {color: boolean; width?: number}): string {
  const c = palette(options.color);
  if (view.skipped) return `${skippedLine(view)}\n`;
  const lines = [
    c.bold(`Roll back daemon set "${view.ref.name}" in ${view.ref.namespace} from ${fromLabel(view)} to revision ${view.to.revision} (${view.to.hash}).`),
  ];
  if (view.renumberedTo !== undefined) {
    const kept = view.from ? `; revision ${view.from.revision} stays in the history as the one before it` : '';
    lines.push(
      `Renumbering: revision ${view.to.revision} becomes revision ${view.renumberedTo} (the controller gives the restored template the next number)${kept}.`,
    );
  }
  const plan = view.plan;
  if (plan) {
    const desired = plan.status.desiredNumberScheduled;
    const how =
      plan.strategy.type === 'RollingUpdate'
        ? `RollingUpdate, maxUnavailable ${plan.strategy.maxUnavailable}, maxSurge ${plan.strategy.maxSurge}`
        : plan.strategy.type;
    const last = plan.waves[plan.waves.length - 1];
    const timing = last ? `, ${plural(plan.waves.length, 'sync')}, the last starting at +${formatDuration(last.at)}` : '';
    lines.push(
      view.restartNodes.length === 0
        ? `Restarts: none (${how})`
        : `Restarts: ${view.restartNodes.length} of ${plural(desired, 'node')} get a new daemon pod (${how}${timing}): ${formatList(view.restartNodes, 10)}`,
    );
    if (plan.strategy.type === 'OnDelete') lines.push(c.yellow('OnDelete: nothing restarts until the old pods are deleted.'));
  }
  lines.push(`Change-cause: ${view.changeCause}`);
  const diff = renderTemplateDiff(
    {label: `current template${view.from ? ` (revision ${view.from.revision}, ${view.from.hash})` : ''}`, template: view.currentTemplate},
    {label: `revision ${view.to.revision} (${view.to.hash})`, template: view.targetTemplate},
    {color: options.color},
  );
  const sections = [lines.join('\n'), diff.trimEnd()];
  const findings = (title: string, items: readonly Blocker[], tint: (text: string) => string) =>
    items.length === 0 ? '' : [c.bold(`${title}:`), ...items.flatMap((item) => wrap(blockerText(item), options.width, '  - ', '    ').map(tint))].join('\n');
  if (plan) sections.push(findings('Blockers', plan.blockers, c.red), findings('Warnings', plan.warnings, c.yellow));
  return `${sections.filter((section) => section !== '').join('\n\n')}\n`;
}

/** The machine-readable preview (and outcome) of an undo. */
export function undoDocument(view: UndoView, outcome: {applied: boolean; dryRun: boolean}): {kind: string} & Record<string, unknown> {
  return {
    kind: 'DaemonSetRollback',
    daemonSet: view.ref,
    ...(view.from ? {from: view.from} : {}),
    to: view.to,
    skipped: view.skipped,
    applied: outcome.applied,
    dryRun: outcome.dryRun,
    ...(view.renumberedTo === undefined ? {} : {renumberedTo: view.renumberedTo}),
    changeCause: view.changeCause,
    restartNodes: view.restartNodes,
    diff: view.skipped
      ? ''
      : renderTemplateDiff(
          {label: 'current template', template: view.currentTemplate},
          {label: `revision ${view.to.revision}`, template: view.targetTemplate},
          {color: false},
        ),
    ...(view.plan ? {waves: view.plan.waves.length, converges: view.plan.converges, blockers: view.plan.blockers, warnings: view.plan.warnings} : {}),
  };
}
