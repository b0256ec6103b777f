// A unified diff between two pod templates, images first (what people look for), then the rest of the
// template as YAML with sorted keys, so that a revision (stored with sorted keys) and a DaemonSet's template
// (in the API's field order) differ only where their values do.
import {structuredPatch} from 'diff';
import {dump} from 'js-yaml';
import {type PodTemplateSpec, stripNulls} from '../core/index.js';
import {palette, type Palette} from './color.js';

export interface DiffSide {
  /** `revision 2 (58bc6c9795)`, `current template`, `manifest.yaml` */
  readonly label: string;
  /** Undefined: nothing (a DaemonSet that does not exist yet): every line of the other side is new. */
  readonly template: PodTemplateSpec | undefined;
}

type Json = Record<string, unknown>;

/** `container: image` per container, init containers first as kubelet runs them. */
export function templateImages(template: PodTemplateSpec): string[] {
  const init = (template.spec.initContainers ?? []).map((c) => `${c.name} (init): ${c.image ?? '<none>'}`);
  return [...init, ...template.spec.containers.map((c) => `${c.name}: ${c.image ?? '<none>'}`)];
}

/** The template without images (shown on their own) and without nulls, as sorted YAML. */
export function templateYaml(template: PodTemplateSpec, withImages = false): string {
  const plain = stripNulls(template) as unknown as Json;
  const spec = (plain['spec'] ?? {}) as Json;
  const drop = (list: unknown) =>
    Array.isArray(list) ? list.map((c: Json) => Object.fromEntries(Object.entries(c).filter(([key]) => key !== 'image'))) : list;
  const shown = withImages
    ? plain
    : {...plain, spec: {...spec, containers: drop(spec['containers']), ...(spec['initContainers'] ? {initContainers: drop(spec['initContainers'])} : {})}};
  return dump(shown, {sortKeys: true, noRefs: true, lineWidth: -1});
}

function hunkLines(oldText: string, newText: string, context: number, c: Palette): string[] {
  const patch = structuredPatch('a', 'b', oldText, newText, '', '', {context});
  const out: string[] = [];
  for (const hunk of patch.hunks) {
    out.push(c.cyan(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`));
    for (const line of hunk.lines) {
      if (line.startsWith('\\')) continue; // "\ No newline at end of file": every text here ends with one
      out.push(line.startsWith('-') ? c.red(line) : line.startsWith('+') ? c.green(line) : line);
    }
  }
  return out;
}

/** Empty when the templates are the same (nulls and key order aside). */
export function renderTemplateDiff(from: DiffSide, to: DiffSide, options: {color: boolean}): string {
  const c = palette(options.color);
  // No images (a DaemonSet that does not exist yet) is no text, not one empty line.
  const indent = (lines: string[]) => lines.map((line) => `  ${line}\n`).join('');
  const imagesOf = (side: DiffSide) => (side.template ? indent(templateImages(side.template)) : '');
  const yamlOf = (side: DiffSide) => (side.template ? templateYaml(side.template) : '');
  const oldImages = imagesOf(from);
  const newImages = imagesOf(to);
  const images = oldImages === newImages ? [] : hunkLines(oldImages, newImages, 1000, c);
  const rest = hunkLines(yamlOf(from), yamlOf(to), 3, c);
  if (images.length === 0 && rest.length === 0) return '';
  const lines = [c.bold(`--- ${from.label}`), c.bold(`+++ ${to.label}`)];
  lines.push(c.bold('images:'), ...(images.length > 0 ? images.filter((line) => !line.includes('@@')) : ['  (unchanged)']));
  lines.push(c.bold('template:'), ...(rest.length > 0 ? rest : ['  (unchanged apart from images)']));
  return `${lines.join('\n')}\n`;
}

/**
 * The diff as lines without its `---`/`+++` header, uncoloured: for a face whose title already names the two sides
 * (the dashboard's revision pane and its undo preview).
 */
export function templateDiffLines(from: DiffSide, to: DiffSide): string[] {
  return renderTemplateDiff(from, to, {color: false})
    .split('\n')
    .filter((line, index) => line !== '' && !(index < 2 && /^(---|\+\+\+) /.test(line)));
}
