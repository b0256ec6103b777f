// Turns what `kubectl get nodes,pods,daemonsets,controllerrevisions -A -o yaml|json` prints into typed objects.
// Accepts a List (or any *List) with items, a multi-document YAML stream, or single objects; other kinds are ignored.
import {loadAll} from 'js-yaml';
import type {ControllerRevision, DaemonSet, Node, Pod} from '../../core/index.js';
import {InputError} from '../../errors.js';

export interface SnapshotObjects {
  readonly daemonSets: readonly DaemonSet[];
  readonly nodes: readonly Node[];
  readonly pods: readonly Pod[];
  readonly revisions: readonly ControllerRevision[];
}

type Json = Record<string, unknown>;

export function parseSnapshot(text: string, sourceName: string): SnapshotObjects {
  const body = text.replace(/^\uFEFF/, '');
  const documents = /^\s*[[{]/.test(body) ? [parseJson(body, sourceName)] : parseYaml(body, sourceName);
  const collected: Mutable = {daemonSets: [], nodes: [], pods: [], revisions: []};
  documents.forEach((document, index) => collectDocument(document, `document ${index + 1}`, sourceName, collected));
  return collected;
}

interface Mutable {
  daemonSets: DaemonSet[];
  nodes: Node[];
  pods: Pod[];
  revisions: ControllerRevision[];
}

function parseJson(text: string, sourceName: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // V8 reports a character offset ("... in JSON at position 123"); people want a line.
    const position = /at position (\d+)/.exec(message);
    const reason = message
      .replace(/\s*\(line \d+ column \d+\)/, '')
      .replace(/\s*in JSON at position \d+/, '')
      .replace(/^./, (first) => first.toLowerCase());
    if (!position) throw new InputError(`${sourceName}: invalid JSON: ${reason}`, {cause: error});
    const offset = Number(position[1]);
    const line = text.slice(0, offset).split('\n').length;
    throw new InputError(`${sourceName}: line ${line}: invalid JSON: ${reason}`, {cause: error});
  }
}

function parseYaml(text: string, sourceName: string): unknown[] {
  try {
    return loadAll(text);
  } catch (error) {
    const yamlError = error as {reason?: unknown; mark?: {line?: unknown}; message?: unknown};
    const reason = typeof yamlError.reason === 'string' ? yamlError.reason : String(yamlError.message ?? error);
    const line = typeof yamlError.mark?.line === 'number' ? `line ${yamlError.mark.line + 1}: ` : '';
    throw new InputError(`${sourceName}: ${line}${reason}`, {cause: error});
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  return `a ${typeof value}`;
}

function collectDocument(document: unknown, where: string, sourceName: string, into: Mutable): void {
  if (document === null || document === undefined) return; // an empty document in a stream
  if (Array.isArray(document)) {
    // A bare JSON array of objects is not what kubectl prints, but it is unambiguous.
    document.forEach((item, index) => collectObject(item, `${where}, item ${index + 1}`, undefined, sourceName, into));
    return;
  }
  if (!isObject(document)) {
    throw new InputError(`${sourceName}: ${where} is ${describe(document)}, not a Kubernetes object or List`);
  }
  const kind = document.kind;
  if (typeof kind === 'string' && kind.endsWith('List') && Array.isArray(document.items)) {
    // Raw API lists (PodList, NodeList) leave out each item's kind; kubectl's List fills it in.
    const itemKind = kind === 'List' ? undefined : kind.slice(0, -'List'.length);
    document.items.forEach((item, index) => collectObject(item, `${where}, item ${index + 1}`, itemKind, sourceName, into));
    return;
  }
  collectObject(document, where, undefined, sourceName, into);
}

function collectObject(value: unknown, where: string, impliedKind: string | undefined, sourceName: string, into: Mutable): void {
  if (!isObject(value)) throw new InputError(`${sourceName}: ${where} is ${describe(value)}, not a Kubernetes object`);
  const kind = typeof value.kind === 'string' ? value.kind : impliedKind;
  if (kind === undefined) throw new InputError(`${sourceName}: ${where} has no "kind", so it is not a Kubernetes object`);
  if (kind !== 'DaemonSet' && kind !== 'Node' && kind !== 'Pod' && kind !== 'ControllerRevision') return;

  const metadata = value.metadata;
  if (!isObject(metadata) || typeof metadata.name !== 'string' || metadata.name === '') {
    throw new InputError(`${sourceName}: ${where} is a ${kind} without metadata.name`);
  }
  const id = typeof metadata.namespace === 'string' ? `${metadata.namespace}/${metadata.name}` : metadata.name;
  const object = value.kind === kind ? value : {...value, kind};

  // Only the structure the core dereferences is checked here; field values are validated later.
  switch (kind) {
    case 'DaemonSet': {
      const spec = value.spec;
      if (!isObject(spec) || !isObject(spec.template) || !isObject(spec.template.spec)) {
        throw new InputError(`${sourceName}: DaemonSet ${id} has no spec.template.spec`);
      }
      into.daemonSets.push(object as unknown as DaemonSet);
      return;
    }
    case 'Pod':
      if (!isObject(value.spec)) throw new InputError(`${sourceName}: Pod ${id} has no spec`);
      into.pods.push(object as unknown as Pod);
      return;
    case 'ControllerRevision':
      if (typeof value.revision !== 'number' || !Number.isInteger(value.revision)) {
        throw new InputError(`${sourceName}: ControllerRevision ${id} has no integer "revision"`);
      }
      into.revisions.push(object as unknown as ControllerRevision);
      return;
    case 'Node':
      into.nodes.push(object as unknown as Node);
      return;
  }
}
