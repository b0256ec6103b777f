// What `ds-plan -f MANIFEST` prints above the plan: the template diff against the current revision and the
// warnings a person wants before applying.
import type {PodTemplateSpec, RolloutPlan} from '../core/index.js';
import {palette} from './color.js';
import {toPlanDocument} from './plan-json.js';
import {wrap} from './plan-text.js';
import {renderTemplateDiff} from './revision-diff.js';

export interface ManifestView {
  /** template undefined: the DaemonSet does not exist yet. */
  readonly from: {readonly label: string; readonly template: PodTemplateSpec | undefined};
  readonly to: {readonly label: string; readonly template: PodTemplateSpec};
  readonly warnings: readonly {readonly message: string}[];
}

export function renderManifestPreamble(view: ManifestView, options: {color: boolean; width?: number}): string {
  const c = palette(options.color);
  const diff = renderTemplateDiff(view.from, view.to, options);
  const sections = [`${c.bold('Template changes:')}\n${diff || '  none: the manifest has the current template (other fields may differ)\n'}`];
  if (view.warnings.length > 0) {
    sections.push(`${c.bold('Before you apply:')}\n${view.warnings.flatMap((w) => wrap(w.message, options.width, '  - ', '    ').map(c.yellow)).join('\n')}\n`);
  }
  return `${sections.join('\n')}\n`;
}

/** The same, for -o json/yaml: added to the plan document under `update`. */
export function manifestDocument(view: ManifestView): Record<string, unknown> {
  return {
    from: view.from.label,
    to: view.to.label,
    diff: renderTemplateDiff(view.from, view.to, {color: false}),
    warnings: view.warnings,
  };
}

/** `ds-plan -f -o json`'s document (also each context's with --contexts): the plan document grown by `update`. */
export function planManifestDocument(update: ManifestView & {readonly plan: RolloutPlan}): Record<string, unknown> {
  return {...toPlanDocument(update.plan), update: manifestDocument(update)};
}
