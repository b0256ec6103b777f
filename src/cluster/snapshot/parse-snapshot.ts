// Turns what `kubectl get nodes,pods,daemonsets,controllerrevisions -A -o yaml|json` prints into typed objects.
// Accepts a List (or any *List) with items, a multi-document YAML stream, or single objects; other kinds are ignored.
import {type InputObject, isDecodedKind, readStoredObjects, restoreExactRevisions, type StoredObjects} from '../../core/index.js';
import {InputError} from '../../platform/errors.js';
import {checkDocumentShape, isStackOverflow, tooDeepMessage} from '../bounded-input.js';

export type SnapshotObjects = StoredObjects;

type Json = Record<string, unknown>;

export async function parseSnapshot(text: string, sourceName: string): Promise<SnapshotObjects> {
  const body = text.replace(/^\uFEFF/, '');
  // js-yaml is loaded only for YAML: what kubectl prints with -o json needs none of it.
  const json = /^\s*[[{]/.test(body);
  const documents = json ? [parseJson(body, sourceName)] : await parseYaml(body, sourceName);
  // YAML may alias: its whole tree is measured as it would expand. JSON cannot, and measuring every pod of a large
  // dump would cost a fifth of its parse: only the DaemonSets and revisions, which are printed and hashed whole,
  // are measured; a deep value elsewhere overflows the decoder's recursion, caught below as the same limit.
  if (!json) checkDocumentShape(documents, body.length, sourceName);
  const collected: InputObject[] = [];
  // Positions as field paths (items[12]); the document number only when there are several.
  documents.forEach((document, index) => collectDocument(document, documents.length > 1 ? `document ${index + 1}` : '', sourceName, collected));
  // Revisions past 2^53 were rounded by the parser: their digits are read again from the text.
  restoreExactRevisions(
    collected.map((object) => object.value),
    body,
  );
  if (json)
    for (const object of collected)
      if (object.kind === 'DaemonSet' || object.kind === 'ControllerRevision') checkDocumentShape(object.value, body.length, sourceName);
  let read: ReturnType<typeof readStoredObjects>;
  try {
    read = readStoredObjects(collected);
  } catch (error) {
    if (isStackOverflow(error)) throw new InputError(tooDeepMessage(sourceName), {cause: error});
    throw error;
  }
  const {objects, problems} = read;
  if (problems.length > 0) {
    const more = problems.length > 1 ? `; and ${problems.length - 1} more ${problems.length === 2 ? 'problem' : 'problems'}` : '';
    throw new InputError(`${sourceName}: ${problems[0]}${more}`);
  }
  return objects;
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

async function parseYaml(text: string, sourceName: string): Promise<unknown[]> {
  const {loadAll} = await import('js-yaml');
  try {
    return loadAll(text);
  } catch (error) {
    if (isStackOverflow(error)) throw new InputError(tooDeepMessage(sourceName), {cause: error});
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

function within(where: string, item: string): string {
  return where === '' ? item : `${where}, ${item}`;
}

/** `where` for messages about the whole document. */
function documentName(where: string): string {
  return where === '' ? 'document 1' : where;
}

function collectDocument(document: unknown, where: string, sourceName: string, into: InputObject[]): void {
  if (document === null || document === undefined) return; // an empty document in a stream
  if (Array.isArray(document)) {
    // A bare JSON array of objects is not what kubectl prints, but it is unambiguous.
    document.forEach((item, index) => collectObject(item, within(where, `[${index}]`), undefined, sourceName, into));
    return;
  }
  if (!isObject(document)) {
    throw new InputError(`${sourceName}: ${documentName(where)} is ${describe(document)}, not a Kubernetes object or List`);
  }
  const kind = document.kind;
  if (typeof kind === 'string' && kind.endsWith('List') && Array.isArray(document.items)) {
    // Raw API lists (PodList, NodeList) leave out each item's kind; kubectl's List fills it in.
    const itemKind = kind === 'List' ? undefined : kind.slice(0, -'List'.length);
    document.items.forEach((item, index) => collectObject(item, within(where, `items[${index}]`), itemKind, sourceName, into));
    return;
  }
  collectObject(document, where, undefined, sourceName, into);
}

function collectObject(value: unknown, where: string, impliedKind: string | undefined, sourceName: string, into: InputObject[]): void {
  if (!isObject(value)) throw new InputError(`${sourceName}: ${documentName(where)} is ${describe(value)}, not a Kubernetes object`);
  const kind = typeof value.kind === 'string' ? value.kind : impliedKind;
  if (kind === undefined) throw new InputError(`${sourceName}: ${documentName(where)} has no "kind", so it is not a Kubernetes object`);
  if (!isDecodedKind(kind)) return;
  // Types and values are checked by the core's one validation pass (readStoredObjects), with field paths.
  into.push({kind, value: value.kind === kind ? value : {...value, kind}, where});
}
