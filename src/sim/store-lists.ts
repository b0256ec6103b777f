// The store's lists: selection by namespace, label and field selectors from the smallest candidate set the
// indexes give, in etcd key order, and paging with continue tokens served from a snapshot taken at the first
// page (as etcd serves later pages at the first page's revision; an evicted snapshot is 410 Expired).
import {labelSelectorMatches, parseLabelSelector, type LabelSelector} from '../core/index.js';
import {checkFieldSelector, fieldSelectorMatches, parseFieldSelector, pinnedValue, type FieldSelector} from './field-selectors.js';
import {RESOURCES, type ResourceName} from './resources.js';
import {badRequest, expired} from './status-errors.js';
import {byteCompare, isRecord, type ObjectTables, type StoredObject} from './store-tables.js';

export interface ListOptions {
  /** Only this namespace (namespaced resources); undefined or '' lists all namespaces. */
  readonly namespace?: string;
  /** `app=web,tier!=db` or a LabelSelector object. */
  readonly labelSelector?: string | LabelSelector;
  /** `spec.nodeName=n1,status.phase!=Failed` or a parsed FieldSelector. */
  readonly fieldSelector?: string | FieldSelector;
  /** Page size; 0 or undefined means everything. */
  readonly limit?: number;
  /** A token from a previous page's `continue`. */
  readonly continue?: string;
}

export interface ListResult<T> {
  readonly items: readonly T[];
  /** The store's resourceVersion when the (first page of the) list was taken. */
  readonly resourceVersion: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

interface ListSnapshot {
  readonly rv: number;
  readonly items: readonly StoredObject[];
}

interface ContinueToken {
  readonly rv: number;
  readonly snapshot: string;
  readonly offset: number;
}

/** A `labelSelector` query parameter: undefined when empty, a 400 as the API server words it when malformed. */
export function labelSelectorParam(text: string): LabelSelector | undefined {
  if (text.trim() === '') return undefined;
  try {
    return parseLabelSelector(text);
  } catch (err) {
    throw badRequest(`unable to parse requirement: ${(err as Error).message}`);
  }
}

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({v: 1, rv: token.rv, s: token.snapshot, o: token.offset})).toString('base64url');
}

function decodeContinue(text: string): ContinueToken {
  try {
    const raw: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (isRecord(raw) && raw['v'] === 1 && typeof raw['rv'] === 'number' && typeof raw['s'] === 'string' && typeof raw['o'] === 'number') {
      return {rv: raw['rv'], snapshot: raw['s'], offset: raw['o']};
    }
  } catch {
    // fall through to the 400 below
  }
  throw badRequest(`continue key is not valid: ${text}`);
}

/** The smallest set worth filtering: a pinned name, a node's pods, one namespace, or everything. */
function candidates(tables: ObjectTables, resource: ResourceName, namespace: string, fields: FieldSelector): StoredObject[] {
  const table = tables.table(resource);
  const name = pinnedValue(fields, 'metadata.name');
  if (name !== undefined) {
    if (namespace !== '' || !RESOURCES[resource].namespaced) {
      const one = table.get(namespace, name);
      return one === undefined ? [] : [one];
    }
  }
  const node = resource === 'pods' ? pinnedValue(fields, 'spec.nodeName') : undefined;
  if (node !== undefined) {
    const onNode = tables.podsOnNode(node);
    const filtered = namespace === '' ? onNode : onNode.filter((s) => s.namespace === namespace);
    return filtered.sort((a, b) => byteCompare(`${a.namespace}/${a.name}`, `${b.namespace}/${b.name}`));
  }
  if (namespace !== '' || !RESOURCES[resource].namespaced) return table.sorted(namespace);
  const out: StoredObject[] = [];
  for (const ns of table.namespaces()) for (const s of table.sorted(ns)) out.push(s);
  return out;
}

/** The objects of `resource` that `options` selects, in etcd key order (paging aside). */
function select(tables: ObjectTables, resource: ResourceName, options: ListOptions): StoredObject[] {
  const info = RESOURCES[resource];
  const labels = typeof options.labelSelector === 'string' ? labelSelectorParam(options.labelSelector) : options.labelSelector;
  const fields = typeof options.fieldSelector === 'string' ? parseFieldSelector(options.fieldSelector) : (options.fieldSelector ?? []);
  checkFieldSelector(resource, fields);
  const namespace = info.namespaced ? options.namespace || pinnedValue(fields, 'metadata.namespace') || '' : '';
  const items: StoredObject[] = [];
  for (const s of candidates(tables, resource, namespace, fields)) {
    if (labels !== undefined && !labelSelectorMatches(labels, s.object.metadata.labels)) continue;
    if (fields.length > 0 && !fieldSelectorMatches(resource, s.object, fields)) continue;
    items.push(s);
  }
  return items;
}

/** Lists, and the snapshots behind the continue tokens of paged ones. */
export class StoreLists {
  private readonly snapshots = new Map<string, ListSnapshot>();
  private snapshotSeq = 0;

  constructor(
    private readonly tables: ObjectTables,
    private readonly maxSnapshots: number,
  ) {}

  /** A list taken at resourceVersion `rv` (the store's newest). */
  list(resource: ResourceName, options: ListOptions, rv: number): ListResult<StoredObject> {
    if (options.continue !== undefined && options.continue !== '') return this.continueList(options.continue, options.limit);
    const items = select(this.tables, resource, options);
    const limit = options.limit ?? 0;
    if (limit <= 0 || items.length <= limit) return {items, resourceVersion: String(rv)};
    // A consistent paged list: later pages come from this snapshot, as etcd serves them at the first page's revision.
    const id = `${++this.snapshotSeq}`;
    this.snapshots.set(id, {rv, items});
    while (this.snapshots.size > this.maxSnapshots) this.snapshots.delete(this.snapshots.keys().next().value!);
    return this.page({rv, items}, id, 0, limit);
  }

  private continueList(text: string, limit: number | undefined): ListResult<StoredObject> {
    const token = decodeContinue(text);
    const snap = this.snapshots.get(token.snapshot);
    if (snap === undefined || snap.rv !== token.rv) {
      throw expired('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
    }
    return this.page(snap, token.snapshot, token.offset, limit ?? 0);
  }

  private page(snap: ListSnapshot, id: string, offset: number, limit: number): ListResult<StoredObject> {
    const end = limit > 0 ? Math.min(snap.items.length, offset + limit) : snap.items.length;
    const items = snap.items.slice(offset, end);
    const remaining = snap.items.length - end;
    if (remaining <= 0) {
      this.snapshots.delete(id);
      return {items, resourceVersion: String(snap.rv)};
    }
    return {
      items,
      resourceVersion: String(snap.rv),
      continue: encodeContinue({rv: snap.rv, snapshot: id, offset: end}),
      remainingItemCount: remaining,
    };
  }
}
