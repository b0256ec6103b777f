// What the revision pane shows about revisions: their images, and the template diff between two of them
// (unified diff of the templates as YAML, the form `kubectl rollout history --revision` prints).
import {structuredPatch} from 'diff';
import {dump} from 'js-yaml';
import type {PodTemplateSpec} from '../../core/index.js';
import type {RevisionEntry} from './feed.js';

/** `fluent/fluentd:v1.17.0`, or `name=image, name=image` when there are several containers. */
export function templateImages(template: PodTemplateSpec | undefined): string {
  const containers = template?.spec.containers ?? [];
  if (containers.length === 0) return '';
  if (containers.length === 1) return containers[0]!.image ?? '';
  return containers.map((c) => `${c.name}=${c.image ?? ''}`).join(', ');
}

function templateYaml(template: PodTemplateSpec | undefined): string {
  return template === undefined ? '' : dump(template, {lineWidth: -1, noRefs: true});
}

/**
 * Unified-diff lines (`@@` hunk headers, `-`, `+`, ` ` lines; no file headers) from one revision's template to
 * another's. Empty when the templates are equal.
 */
export function diffRevisionTemplates(from: RevisionEntry, to: RevisionEntry, context = 2): string[] {
  const patch = structuredPatch(`revision ${from.revision}`, `revision ${to.revision}`, templateYaml(from.template), templateYaml(to.template), undefined, undefined, {context});
  const lines: string[] = [];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) if (!line.startsWith('\\')) lines.push(line);
  }
  return lines;
}
