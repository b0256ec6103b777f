// Accept-header parsing with exact parameter matching. A substring test (`v=v2` inside `v=v2beta1`) serves
// the wrong discovery format to older kubectl builds (docs/design/sim-api.md §10, pitfall 1).

export interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly params: Readonly<Record<string, string>>;
  readonly q: number;
}

/** The Accept header's media ranges, highest q first (stable for equal q, i.e. in the client's order). */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (header === undefined || header.trim() === '') return [{type: '*', subtype: '*', params: {}, q: 1}];
  const out: MediaRange[] = [];
  for (const entry of header.split(',')) {
    const [mediaType, ...rawParams] = entry.split(';').map((s) => s.trim());
    if (!mediaType) continue;
    const [type = '', subtype = ''] = mediaType.toLowerCase().split('/');
    const params: Record<string, string> = {};
    let q = 1;
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq <= 0) continue;
      const key = p.slice(0, eq).trim().toLowerCase();
      const value = p
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
      if (key === 'q') q = Number(value);
      else params[key] = value;
    }
    if (!Number.isFinite(q)) q = 0;
    if (q > 0) out.push({type, subtype, params, q});
  }
  return out
    .map((r, i) => ({r, i}))
    .sort((a, b) => b.r.q - a.r.q || a.i - b.i)
    .map((x) => x.r);
}

/** True for `application/json`, `application/*` and `*\/*` (JSON is the only encoding the simulator speaks). */
export function acceptsJson(range: MediaRange): boolean {
  return (range.type === 'application' && (range.subtype === 'json' || range.subtype === '*')) || (range.type === '*' && range.subtype === '*');
}

/** Plain JSON: an acceptable range without the `as`/`g`/`v` conversion parameters. */
export function isPlainJson(range: MediaRange): boolean {
  return acceptsJson(range) && range.params['as'] === undefined;
}

export type ObjectFormat =
  {readonly kind: 'json'} | {readonly kind: 'table'; readonly version: 'v1' | 'v1beta1'} | {readonly kind: 'partial'; readonly version: 'v1' | 'v1beta1'};

/**
 * How to render a GET/LIST/WATCH answer: server-side Table, PartialObjectMetadata, or the object. The first
 * acceptable range wins. Nothing acceptable (e.g. protobuf only) still gets JSON: kubectl's typed clients send
 * `application/vnd.kubernetes.protobuf,application/json` and must never see a 406.
 */
export function negotiateObjectFormat(accept: string | undefined): ObjectFormat {
  for (const r of parseAccept(accept)) {
    if (!acceptsJson(r)) continue;
    const as = r.params['as'];
    if (as === undefined) return {kind: 'json'};
    const v = r.params['v'];
    if (r.params['g'] !== 'meta.k8s.io' || (v !== 'v1' && v !== 'v1beta1')) continue;
    if (as === 'Table') return {kind: 'table', version: v};
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return {kind: 'partial', version: v};
  }
  return {kind: 'json'};
}

export type DiscoveryFormat = 'v2' | 'v2beta1' | 'legacy';

/** Aggregated discovery only when `v=v2` (or `v=v2beta1`) is literally acceptable; otherwise legacy. */
export function negotiateDiscovery(accept: string | undefined): DiscoveryFormat {
  for (const r of parseAccept(accept)) {
    if (!acceptsJson(r)) continue;
    if (r.params['as'] === undefined) return 'legacy';
    if (r.params['as'] === 'APIGroupDiscoveryList' && r.params['g'] === 'apidiscovery.k8s.io') {
      if (r.params['v'] === 'v2') return 'v2';
      if (r.params['v'] === 'v2beta1') return 'v2beta1';
    }
  }
  return 'legacy';
}
