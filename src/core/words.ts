// How the core's messages write counts (the core may not import output/, which has the same rule for renderers).

/** A count with thousands separators: 1,499. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** `1 node`, `1,499 nodes`. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

/** `a, b and 3 more` */
export function formatList(items: readonly string[], max: number): string {
  if (items.length <= max) return items.join(', ');
  return `${items.slice(0, max).join(', ')} and ${formatCount(items.length - max)} more`;
}
