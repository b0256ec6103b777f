// Every machine-readable output (-o json, yaml, name, jsonpath=...) goes through here, so that every document carries
// the same apiVersion and kind, and every command offers the same forms. JSON fields only ever grow.
import {renderJsonPath} from './jsonpath.js';

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

export async function renderDocument(document: Document, format: DocumentFormat): Promise<string> {
  const full = versioned(document);
  if (format === 'json') return `${JSON.stringify(full, null, 2)}\n`;
  if (format === 'name')
    return documentNames(document)
      .map((name) => `${name}\n`)
      .join('');
  if (format === 'yaml') {
    const {dump} = await import('js-yaml');
    return dump(full, {noRefs: true, lineWidth: -1});
  }
  // Evaluated on what -o json prints (no undefined fields). A bad template throws JsonPathError (exit 1).
  return renderJsonPath(format.slice('jsonpath='.length), JSON.parse(JSON.stringify(full)));
}
