// status -A's summary of each DaemonSet (services/status-all.ts), on hand-made states.
import {describe, expect, test} from 'vitest';
import {planRollout} from '../../src/core/index.js';
import type {DaemonSet} from '../../src/core/types.js';
import {renderStatusListText} from '../../src/output/status-list-text.js';
import {statusList} from '../../src/services/status-all.js';
import {NOW, newDaemonSet, newNodes, newPod, newRevision, withTaints} from '../helpers/builders.js';

describe('status -A', () => {
  test('a complete DaemonSet spends no budget, even with a pod unavailable on a NotReady node', () => {
    const nodes = newNodes(3);
    nodes[0] = {
      ...withTaints(nodes[0]!, {key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule'}),
      status: {conditions: [{type: 'Ready', status: 'False'}]},
    };
    const base: DaemonSet = {...newDaemonSet('exporter', {maxUnavailable: 1}), metadata: {...newDaemonSet('exporter').metadata, generation: 1}};
    const pods = nodes.map((node, i) => newPod(`exporter-${i}`, node.metadata.name, base, {hash: 'h1', ready: i !== 0}));
    const revisions = [newRevision(base, 'h1', 1)];
    const plan = planRollout({daemonSet: base, nodes, pods, revisions}, {now: NOW});
    // As the controller writes it: the NotReady node no longer counts as desired.
    const ds: DaemonSet = {...base, status: {...plan.status, observedGeneration: 1}};
    const report = statusList({daemonSets: [ds], nodes, pods, revisions}, NOW, undefined);
    expect(report.items[0]).toMatchObject({verdict: 'complete'});
    expect(report.items[0]!.budget).toBeUndefined();
    const text = renderStatusListText(report, {color: false});
    expect(text).not.toContain('unavailable');
    expect(text).toMatch(/exporter +complete +1 +-\n/);
  });
});
