// Every machine-readable output (-o json, yaml, name, jsonpath=...) goes through here, so that every document carries
// the same apiVersion and kind, and every command offers the same forms. JSON fields only ever grow.
import {jsonText} from '../core/index.js';
import {renderJsonPath} from './jsonpath.js';

const BIGINT_MARK = 'BIGINT_';
const BIGINT_MARKED = /\bBIGINT_(-?\d+)_(?![\w])/g;

/** The apiVersion of every document ds-rollout prints. */
export const API_VERSION = 'ds-rollout.io/v1alpha1';

/** A format that prints a document (json, yaml, name, jsonpath) rather than text or a table. */
export type DocumentFormat = 'json' | 'yaml' | 'name' | `jsonpath=${string}`;

interface Named {
  readonly daemonSet?: {readonly name: string};
}

export interface Document extends Named {
  readonly kind: string;
  readonly items?: readonly Named[];
}

/** `{apiVersion, kind, ...}`: apiVersion first, as Kubernetes objects print it. */
export function versioned<T extends {readonly kind: string}>(document: T): {apiVersion: string} & T {
  const {kind, ...rest} = document as T & {apiVersion?: string};
  return {apiVersion: API_VERSION, kind, ...rest} as {apiVersion: string} & T;
}

/** kubectl's `-o name` of the DaemonSet(s) a document is about: `daemonset.apps/fluentd`, one a line. */
export function documentNames(document: Document): string[] {
  const subjects = document.items ?? [document];
  return subjects.flatMap((item) => (item.daemonSet ? [`daemonset.apps/${item.daemonSet.name}`] : []));
}

/** A copy with each bigint as a marked plain string (js-yaml cannot dump a bigint); the marks are removed after. */
function markBigints(value: unknown): unknown {
  if (typeof value === 'bigint') return `${BIGINT_MARK}${value}_`;
  if (Array.isArray(value)) return value.map(markBigints);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, markBigints(v)]));
}

export async function renderDocument(document: Document, format: DocumentFormat): Promise<string> {
  const full = versioned(document);
  if (format === 'json') return `${jsonText(full, 2)}\n`;
  if (format === 'name')
    return documentNames(document)
      .map((name) => `${name}\n`)
      .join('');
  if (format === 'yaml') {
    const {dump} = await import('js-yaml');
    // js-yaml cannot dump a bigint (a revision past 2^53): it is written as a marked string, then unmarked.
    return dump(markBigints(full), {noRefs: true, lineWidth: -1}).replace(BIGINT_MARKED, '$1');
  }
  // Evaluated on what -o json prints (no undefined fields). A bad template throws JsonPathError (exit 1).
  return renderJsonPath(format.slice('jsonpath='.length), JSON.parse(jsonText(full)));
}
