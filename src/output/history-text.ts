// ds-rollout history for people: one row per revision, kubectl's REVISION and CHANGE-CAUSE plus what it
// leaves out.
import type {Revision} from '../core/index.js';
import {palette} from './color.js';
import {formatCount, formatDuration} from './format.js';
import {renderTable} from './table.js';

export interface RevisionEntry {
  readonly revision: Revision;
  readonly name: string;
  readonly hash: string;
  /** creationTimestamp of the ControllerRevision (RFC3339). */
  readonly created?: string;
  readonly ageSeconds?: number;
  /** The revision's `kubernetes.io/change-cause` annotation (copied from the DaemonSet when it was created). */
  readonly changeCause?: string;
  /** Container images of the template, init containers first. */
  readonly images: readonly string[];
  /** Daemon pods (not terminating) that carry this revision's hash. */
  readonly pods: number;
  /** The revision matches the DaemonSet's template: the controller's update revision. */
  readonly current: boolean;
}

export interface HistoryReport {
  readonly kind: 'DaemonSetHistory';
  readonly daemonSet: {readonly namespace: string; readonly name: string};
  readonly revisions: readonly RevisionEntry[];
}

export function renderHistoryText(report: HistoryReport, options: {color: boolean}): string {
  if (report.revisions.length === 0) return 'No rollout history found.\n';
  const c = palette(options.color);
  const rows = report.revisions.map((entry) => [
    String(entry.revision),
    entry.hash,
    entry.ageSeconds === undefined ? '<unknown>' : formatDuration(entry.ageSeconds),
    entry.changeCause ?? '<none>',
    entry.images.join(',') || '<none>',
    formatCount(entry.pods),
    entry.current ? c.green('*') : '',
  ]);
  const header = ['REVISION', 'HASH', 'AGE', 'CHANGE-CAUSE', 'IMAGES', 'PODS', 'CURRENT'].map((title) => c.bold(title));
  return `${c.bold(`daemonset.apps/${report.daemonSet.name}`)}\n${renderTable(rows, {header}).join('\n')}\n`;
}
