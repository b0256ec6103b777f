// The server's clock as the objects a watch delivers show it: the newest time written on an object's way through
// the API (its creation, a managed-fields update, a condition's transition or heartbeat). Such a time has passed on
// the cluster's clock. deletionTimestamp is left out: it is the end of a grace period, in the future.

interface Written {
  readonly metadata?: {readonly creationTimestamp?: unknown; readonly managedFields?: readonly {readonly time?: unknown}[]};
  readonly status?: {readonly conditions?: readonly {readonly lastTransitionTime?: unknown; readonly lastHeartbeatTime?: unknown}[]};
}

/** Milliseconds since the epoch of the newest such time on `raw` (a watch event's object), or NaN without one. */
export function newestWrittenTime(raw: unknown): number {
  if (typeof raw !== 'object' || raw === null) return Number.NaN;
  const object = raw as Written;
  // RFC3339 in whole seconds and UTC, as the API server writes them, sorts as text: parse only the newest.
  let newest = '';
  const consider = (value: unknown) => {
    if (typeof value === 'string' && value > newest) newest = value;
  };
  consider(object.metadata?.creationTimestamp);
  const managed = object.metadata?.managedFields;
  if (Array.isArray(managed)) for (const entry of managed) consider(entry?.time);
  const conditions = object.status?.conditions;
  if (Array.isArray(conditions)) {
    for (const condition of conditions) {
      consider(condition?.lastTransitionTime);
      consider(condition?.lastHeartbeatTime);
    }
  }
  return newest === '' ? Number.NaN : Date.parse(newest);
}
