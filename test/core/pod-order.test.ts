import {describe, expect, test} from 'vitest';
import {comparePodsByCreationTimestampAndPhase} from '../../src/core/pod-order.js';
import type {Pod} from '../../src/core/types.js';
import {newDaemonSet, newPod} from '../helpers/builders.js';

const ds = newDaemonSet('foo');

function pod(name: string, created: string | undefined, options: {bound?: boolean; phase?: string} = {}): Pod {
  const p = newPod(name, 'node-0', ds, {bound: options.bound ?? true, ...(options.phase ? {phase: options.phase} : {})});
  const {creationTimestamp: _drop, ...metadata} = p.metadata;
  return {...p, metadata: created === undefined ? metadata : {...metadata, creationTimestamp: created}};
}

describe('comparePodsByCreationTimestampAndPhase', () => {
  const rows: {name: string; pods: Pod[]; want: string[]}[] = [
    {name: 'older first', pods: [pod('b', '2026-01-01T00:00:02Z'), pod('a', '2026-01-01T00:00:01Z')], want: ['a', 'b']},
    {
      name: 'bound before unbound, even if younger',
      pods: [pod('old-unbound', '2025-01-01T00:00:00Z', {bound: false}), pod('young-bound', '2026-01-01T00:00:00Z')],
      want: ['young-bound', 'old-unbound'],
    },
    {name: 'equal times by name', pods: [pod('pod-b', '2026-01-01T00:00:00Z'), pod('pod-a', '2026-01-01T00:00:00Z')], want: ['pod-a', 'pod-b']},
    {name: 'names in byte order (digits before letters)', pods: [pod('p-a', '2026-01-01T00:00:00Z'), pod('p-9', '2026-01-01T00:00:00Z')], want: ['p-9', 'p-a']},
    {name: 'missing timestamp is the oldest', pods: [pod('dated', '1970-01-01T00:00:00Z'), pod('undated', undefined)], want: ['undated', 'dated']},
    {
      name: 'phase is not compared',
      pods: [pod('running', '2026-01-01T00:00:02Z', {phase: 'Running'}), pod('failed', '2026-01-01T00:00:01Z', {phase: 'Failed'})],
      want: ['failed', 'running'],
    },
    {name: 'fractional seconds compare by time', pods: [pod('b', '2026-01-01T00:00:01Z'), pod('a', '2026-01-01T00:00:00.500Z')], want: ['a', 'b']},
    {name: 'offsets compare by instant, not text', pods: [pod('a', '2026-01-01T01:30:00+02:00'), pod('b', '2026-01-01T00:00:00Z')], want: ['a', 'b']},
    {name: 'same instant in two notations ties by name', pods: [pod('b', '2026-01-01T02:00:00+02:00'), pod('a', '2026-01-01T00:00:00Z')], want: ['a', 'b']},
  ];
  test.each(rows)('$name', ({pods, want}) => {
    expect([...pods].sort(comparePodsByCreationTimestampAndPhase).map((p) => p.metadata.name)).toEqual(want);
    expect(
      [...pods]
        .reverse()
        .sort(comparePodsByCreationTimestampAndPhase)
        .map((p) => p.metadata.name),
    ).toEqual(want);
  });

  test('a pod compares equal to itself', () => {
    const p = pod('a', '2026-01-01T00:00:00Z');
    expect(comparePodsByCreationTimestampAndPhase(p, p)).toBe(0);
  });

  test('sorts 50,000 pods consistently (speed: npm run bench)', () => {
    const pods: Pod[] = Array.from({length: 50_000}, (_, i) => ({
      metadata: {
        name: `pod-${String((i * 7919) % 50_000).padStart(5, '0')}`,
        creationTimestamp: `2026-01-01T${String(i % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00Z`,
      },
      spec: {containers: [], ...(i % 5 !== 0 ? {nodeName: 'node-0'} : {})},
    }));
    const sorted = [...pods].sort(comparePodsByCreationTimestampAndPhase);
    let outOfOrder = 0;
    for (let i = 1; i < sorted.length; i++) if (comparePodsByCreationTimestampAndPhase(sorted[i - 1]!, sorted[i]!) > 0) outOfOrder++;
    expect(outOfOrder).toBe(0);
  });
});
