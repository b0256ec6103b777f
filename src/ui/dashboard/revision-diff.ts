// What the revision pane shows about revisions: their images, and the template diff between two of them, in the
// same form as `ds-rollout history` and `undo` print it (images first, then the template as sorted YAML).
import type {PodTemplateSpec} from '../../core/index.js';
import {templateDiffLines} from '../../output/revision-diff.js';
import type {RevisionEntry} from '../../services/dashboard/feed.js';

/** `fluent/fluentd:v1.17.0`, or `name=image, name=image` when there are several containers. */
export function compactImages(template: PodTemplateSpec | undefined): string {
  const containers = template?.spec.containers ?? [];
  if (containers.length === 0) return '';
  if (containers.length === 1) return containers[0]!.image ?? '';
  return containers.map((c) => `${c.name}=${c.image ?? ''}`).join(', ');
}

/**
 * The diff lines from one revision's template to another's, without the `---`/`+++` header (the pane's title
 * names the revisions). Empty when the templates are equal or one of them is unknown.
 */
export function diffRevisionTemplates(from: RevisionEntry, to: RevisionEntry): string[] {
  if (!from.template || !to.template) return [];
  return templateDiffLines({label: `revision ${from.revision}`, template: from.template}, {label: `revision ${to.revision}`, template: to.template});
}
