// `ds-plan -f MANIFEST --contexts`: the fleet's plan table, its last column what the manifest changes in each
// cluster (against that cluster's current template) in one line: the images that change, how many other template
// lines do, and the warnings to read before applying.
import type {PodTemplateSpec} from '../core/index.js';
import {type FleetTextOptions, type ContextResult, planCells, renderFleet, type PlanView} from './fleet-text.js';
import type {ManifestView} from './manifest-text.js';
import {templateDiffLines} from './revision-diff.js';

function images(template: PodTemplateSpec): Map<string, string> {
  const containers = [...(template.spec.initContainers ?? []), ...template.spec.containers];
  return new Map(containers.map((container) => [container.name, container.image ?? '<none>']));
}

/** The image changes, container by container: `main: fluentd:v1 -> fluentd:v2`, `+sidecar: x`, `-old`. */
function imageChanges(from: PodTemplateSpec, to: PodTemplateSpec): string[] {
  const before = images(from);
  const after = images(to);
  const changed = [...after].flatMap(([name, image]) => {
    const old = before.get(name);
    if (old === undefined) return [`+${name}: ${image}`];
    return old === image ? [] : [`${name}: ${old} -> ${image}`];
  });
  return [...changed, ...[...before.keys()].filter((name) => !after.has(name)).map((name) => `-${name}`)];
}

/** Lines of the template (images aside) the manifest adds and removes: `+3/-1 template lines`. */
function otherLines(view: ManifestView): string | undefined {
  const lines = templateDiffLines(view.from, view.to);
  const rest = lines.slice(lines.indexOf('template:') + 1);
  const added = rest.filter((line) => line.startsWith('+')).length;
  const removed = rest.filter((line) => line.startsWith('-')).length;
  return added + removed === 0 ? undefined : `+${added}/-${removed} template lines`;
}

/** What the manifest changes in one cluster, in one line. Pure. */
export function manifestChangeSummary(view: ManifestView): string {
  const warnings = view.warnings.length === 0 ? [] : [`${view.warnings.length} ${view.warnings.length === 1 ? 'warning' : 'warnings'}`];
  if (view.from.template === undefined) {
    return ['creates it', ...[...images(view.to.template)].map(([name, image]) => `${name}: ${image}`), ...warnings].join('; ');
  }
  const other = otherLines(view);
  const changes = [...imageChanges(view.from.template, view.to.template), ...(other === undefined ? [] : [other])];
  return [...(changes.length === 0 ? ['no template change'] : changes), ...warnings].join('; ');
}

type ManifestPlan = ManifestView & {readonly plan: PlanView};

export function renderPlanManifestFleetText(results: readonly ContextResult<ManifestPlan>[], options: FleetTextOptions): string {
  return renderFleet(
    ['CONTEXT', 'VERDICT', 'REVISION', 'BUDGET', 'WAVES', 'ETA', 'CHANGE'],
    results,
    (update) => ({cells: planCells(update.plan), last: manifestChangeSummary(update)}),
    options,
  );
}
