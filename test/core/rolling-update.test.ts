// The tally's counters and the node-by-node predicate used for explanations must tell the same story.
import {expect, test} from 'vitest';
import {buildNodeSlots, updateTargetFor} from '../../src/core/daemon-pods.js';
import {RollingUpdateTally, classifyNodeForUpdate, countsAgainstBudget, tallyEntryFor} from '../../src/core/rolling-update.js';
import {NOW, newDaemonSet, newNodes, newPod} from '../helpers/builders.js';

test.each([
  {surge: false, budgets: {maxUnavailable: 100, maxSurge: 0}},
  {surge: true, budgets: {maxUnavailable: 0, maxSurge: 100}},
])('countsAgainstBudget agrees with the tally (surge: $surge)', ({surge, budgets}) => {
  const ds = newDaemonSet('foo');
  const nodes = newNodes(8);
  // One node per class: empty, new available, new unready, old available, old unready, both (new unready), both (new available), two old.
  const pods = [
    newPod('n1', 'node-1', ds, {hash: 'new'}),
    newPod('n2', 'node-2', ds, {hash: 'new', ready: false}),
    newPod('o3', 'node-3', ds, {hash: 'old'}),
    newPod('o4', 'node-4', ds, {hash: 'old', ready: false}),
    newPod('o5', 'node-5', ds, {hash: 'old'}),
    newPod('n5', 'node-5', ds, {hash: 'new', ready: false}),
    newPod('o6', 'node-6', ds, {hash: 'old'}),
    newPod('n6', 'node-6', ds, {hash: 'new'}),
    newPod('o7', 'node-7', ds, {hash: 'old'}),
    newPod('p7', 'node-7', ds, {hash: 'old'}),
  ];
  const slots = buildNodeSlots(ds, nodes, pods, updateTargetFor(ds, 'new'));
  const tally = new RollingUpdateTally(slots.length);
  slots.forEach((slot, i) => tally.set(i, tallyEntryFor({...slot, exists: true, pods: [...slot.pods]}, NOW)));
  const decision = tally.decide(budgets, slots.length);
  const counted = slots.filter((slot) => countsAgainstBudget(classifyNodeForUpdate(slot.pods, NOW), surge)).length;
  expect(counted).toBe(surge ? decision.numSurge : decision.numUnavailable);
  expect(counted).toBeGreaterThan(1);
});
