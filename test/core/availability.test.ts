import {describe, expect, test} from 'vitest';
import {isNodeReady, isPodAvailable, isPodReady, isPodTerminal, isPodTerminating, isTerminatingOnTime, podAvailableAt} from '../../src/core/availability.js';
import type {Pod, PodCondition} from '../../src/core/types.js';
import {NOW, T0, newDaemonSet, newPod} from '../helpers/builders.js';

const ds = newDaemonSet('foo');

function podWith(conditions: PodCondition[] | undefined, extra: Partial<NonNullable<Pod['status']>> = {}): Pod {
  const base = newPod('p', 'node-0', ds);
  return {...base, status: {...base.status, ...extra, conditions}};
}

const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

describe('isPodReady', () => {
  const rows: {name: string; pod: Pod; want: boolean}[] = [
    {name: 'Ready True', pod: podWith([{type: 'Ready', status: 'True'}]), want: true},
    {name: 'Ready False', pod: podWith([{type: 'Ready', status: 'False'}]), want: false},
    {name: 'Ready Unknown', pod: podWith([{type: 'Ready', status: 'Unknown'}]), want: false},
    {name: 'no conditions', pod: podWith(undefined), want: false},
    {name: 'only ContainersReady', pod: podWith([{type: 'ContainersReady', status: 'True'}]), want: false},
    {name: 'Running phase does not count', pod: podWith([], {phase: 'Running'}), want: false},
    {name: 'Failed phase with Ready True is still ready', pod: podWith([{type: 'Ready', status: 'True'}], {phase: 'Failed'}), want: true},
    {name: 'terminating but Ready', pod: {...podWith([{type: 'Ready', status: 'True'}]), metadata: {name: 'p', deletionTimestamp: T0}}, want: true},
    {
      name: 'first Ready condition wins',
      pod: podWith([
        {type: 'Ready', status: 'False'},
        {type: 'Ready', status: 'True'},
      ]),
      want: false,
    },
  ];
  test.each(rows)('$name', ({pod, want}) => {
    expect(isPodReady(pod)).toBe(want);
  });
});

describe('isPodAvailable / podAvailableAt', () => {
  // Edge cases of pod/util_test.go TestIsPodAvailable (incl. the inclusive edge of kubernetes#132122), plus our own.
  const rows: {name: string; pod: Pod; minReadySeconds: number; now: number; want: boolean; at: number | undefined}[] = [
    {name: 'not ready', pod: podWith([{type: 'Ready', status: 'False', lastTransitionTime: T0}]), minReadySeconds: 0, now: NOW, want: false, at: undefined},
    {
      name: 'ready, minReadySeconds 0',
      pod: podWith([{type: 'Ready', status: 'True', lastTransitionTime: iso(NOW)}]),
      minReadySeconds: 0,
      now: NOW,
      want: true,
      at: Number.NEGATIVE_INFINITY,
    },
    {
      name: 'ready, minReadySeconds 0, no transition time',
      pod: podWith([{type: 'Ready', status: 'True'}]),
      minReadySeconds: 0,
      now: NOW,
      want: true,
      at: Number.NEGATIVE_INFINITY,
    },
    {
      name: 'ready long enough',
      pod: podWith([{type: 'Ready', status: 'True', lastTransitionTime: iso(NOW - 2000)}]),
      minReadySeconds: 1,
      now: NOW,
      want: true,
      at: NOW - 1000,
    },
    {
      name: 'ready not long enough',
      pod: podWith([{type: 'Ready', status: 'True', lastTransitionTime: iso(NOW - 1000)}]),
      minReadySeconds: 2,
      now: NOW,
      want: false,
      at: NOW + 1000,
    },
    {
      name: 'exactly at the edge is available (1.34+)',
      pod: podWith([{type: 'Ready', status: 'True', lastTransitionTime: iso(NOW - 5000)}]),
      minReadySeconds: 5,
      now: NOW,
      want: true,
      at: NOW,
    },
    {
      name: 'one millisecond before the edge',
      pod: podWith([{type: 'Ready', status: 'True', lastTransitionTime: iso(NOW - 5000)}]),
      minReadySeconds: 5,
      now: NOW - 1,
      want: false,
      at: NOW,
    },
    {
      name: 'no transition time and minReadySeconds > 0: never',
      pod: podWith([{type: 'Ready', status: 'True'}]),
      minReadySeconds: 1,
      now: NOW,
      want: false,
      at: undefined,
    },
    {
      name: 'zero transition time and minReadySeconds > 0: never',
      pod: podWith([{type: 'Ready', status: 'True', lastTransitionTime: '0001-01-01T00:00:00Z'}]),
      minReadySeconds: 1,
      now: NOW,
      want: false,
      at: undefined,
    },
    {
      name: 'transition in the future',
      pod: podWith([{type: 'Ready', status: 'True', lastTransitionTime: iso(NOW + 60_000)}]),
      minReadySeconds: 10,
      now: NOW,
      want: false,
      at: NOW + 70_000,
    },
  ];
  test.each(rows)('$name', ({pod, minReadySeconds, now, want, at}) => {
    expect(isPodAvailable(pod, minReadySeconds, now)).toBe(want);
    expect(podAvailableAt(pod, minReadySeconds)).toBe(at);
  });
});

describe('isPodTerminating / isPodTerminal', () => {
  const rows: {name: string; pod: Pod; terminating: boolean; terminal: boolean}[] = [
    {name: 'running', pod: newPod('p', 'n', ds), terminating: false, terminal: false},
    {name: 'deleting', pod: newPod('p', 'n', ds, {deleting: T0}), terminating: true, terminal: false},
    {name: 'failed', pod: newPod('p', 'n', ds, {phase: 'Failed', ready: false}), terminating: false, terminal: true},
    {name: 'succeeded', pod: newPod('p', 'n', ds, {phase: 'Succeeded', ready: false}), terminating: false, terminal: true},
    {name: 'failed and deleting', pod: newPod('p', 'n', ds, {phase: 'Failed', deleting: T0}), terminating: true, terminal: true},
    {name: 'pending', pod: newPod('p', 'n', ds, {phase: 'Pending', ready: false}), terminating: false, terminal: false},
    {name: 'unknown phase', pod: newPod('p', 'n', ds, {phase: 'Unknown'}), terminating: false, terminal: false},
  ];
  test.each(rows)('$name', ({pod, terminating, terminal}) => {
    expect(isPodTerminating(pod)).toBe(terminating);
    expect(isPodTerminal(pod)).toBe(terminal);
  });
});

describe('node readiness and timely termination', () => {
  const ready = {metadata: {name: 'n'}, status: {conditions: [{type: 'Ready', status: 'True'}]}};
  const down = {metadata: {name: 'n'}, status: {conditions: [{type: 'Ready', status: 'Unknown'}]}};
  const deleting = (at: string) => ({metadata: {name: 'p', deletionTimestamp: at}, spec: {containers: []}});
  test.each([
    {name: 'due later on a Ready node', node: ready, at: '2026-11-21T12:00:30Z', expected: true},
    {name: 'due later on a NotReady node', node: down, at: '2026-11-21T12:00:30Z', expected: false},
    {name: 'due later, node gone (the pod GC finishes it)', node: undefined, at: '2026-11-21T12:00:30Z', expected: true},
    {name: 'overdue on a Ready node', node: ready, at: '2026-11-21T11:59:00Z', expected: false},
  ])('$name', ({node, at, expected}) => {
    expect(isTerminatingOnTime(deleting(at), node, Date.parse('2026-11-21T12:00:00Z'))).toBe(expected);
  });
  test('isNodeReady reads only the Ready condition', () => {
    expect([isNodeReady(ready), isNodeReady(down), isNodeReady(undefined), isNodeReady({metadata: {name: 'x'}})]).toEqual([true, false, false, false]);
  });
});
