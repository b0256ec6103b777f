// Issue 31's node gate on the real 1.20.2 control plane: a release whose pod is Ready but breaks its node (the
// kubelet agent's `node-not-ready`: it stops renewing that node's Lease while the pod runs). The REAL node lifecycle
// controller in kube-controller-manager marks the node Ready=Unknown and taints it unreachable, the gated rollout's
// node gate fails the canary, and --on-failure undo steps the canary back; no other node ever runs the release.
import type {V1Node, V1Pod} from '@kubernetes/client-node';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {agentDaemonSet, applyAgent, daemonPodNode, eventually, follow, kubectlJson, type List, startControlPlane, type ControlPlane} from './control-plane.js';

const NODES = 3;
const RELEASE = 'registry.example/agent:2.0-breaks-node';
let cp: ControlPlane;

beforeAll(async () => {
  cp = await startControlPlane({
    nodes: NODES,
    startDelayMs: 300,
    stopDelayMs: 300,
    failures: [{image: 'breaks-node', mode: 'node-not-ready'}],
    // The lifecycle controller takes a node as Unknown 20 s after its last Lease renewal (upstream: 40 s).
    nodeGraceSeconds: 20,
  });
  await applyAgent(cp, NODES, 'registry.example/agent:1.0');
});

afterAll(() => cp?.stop());

describe('the node gate on a real 1.20.2 control plane', () => {
  it('a release that stops its node reporting fails the canary by the node gate; undo steps it back', async () => {
    expect((await cp.kubectl(['ds-rollout', 'pause', 'agent'])).code).toBe(0);
    const set = await cp.kubectl(['set', 'image', 'daemonset/agent', `agent=${RELEASE}`]);
    expect(set.code, set.stderr).toBe(0);

    // Every node a pod of the release was ever for, and every state node-01 was ever seen in, from watches.
    const ran = new Set<string>();
    const canarySeen: {ready?: string; taints: string[]}[] = [];
    const stops = [
      await follow<V1Pod>(cp, '/api/v1/namespaces/default/pods', (_type, pod) => {
        if (pod.spec?.containers[0]?.image === RELEASE) ran.add(daemonPodNode(pod) ?? '?');
      }),
      await follow<V1Node>(cp, '/api/v1/nodes', (_type, node) => {
        if (node.metadata?.name !== 'node-01') return;
        const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
        canarySeen.push({...(ready ? {ready} : {}), taints: (node.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`)});
      }),
    ];
    try {
      const failed = await cp.kubectl([
        'ds-rollout',
        'step',
        'agent',
        '--until-complete',
        '--canary-nodes',
        'node-01',
        // Far longer than the lifecycle controller takes (20 s grace, 5 s monitor period): the gate fails it first.
        '--canary-bake',
        '3m',
        '--on-failure',
        'undo',
        '--yes',
      ]);
      expect(failed.code, failed.stdout + failed.stderr).toBe(3);
      expect(failed.stderr).toMatch(
        /^error: gate failed at stage canary: node gate: node node-01 \(pod agent-\w+\): Unknown \(Ready=Unknown: NodeStatusUnknown\)(, taint node\.kubernetes\.io\/unreachable)?(; [^\n]*)?; rolled back to revision \d+ on node-01; the DaemonSet stays paused\n$/,
      );
      // The real lifecycle controller tainted it: by the time the gate failed, or just after.
      await eventually(
        'the node lifecycle controller to taint node-01 unreachable',
        async () => (canarySeen.some((s) => s.taints.includes('node.kubernetes.io/unreachable:NoSchedule')) ? true : undefined),
        30_000,
      );
      expect(canarySeen.some((s) => s.ready === 'Unknown')).toBe(true);

      // The canary's pod gone, its node reports again: the controller lifts the taints and node-01 runs 1.0 again.
      await eventually(
        'node-01 Ready, untainted and back on 1.0',
        async () => {
          const node = await kubectlJson<V1Node>(cp, ['get', 'node', 'node-01']);
          const pods = (await kubectlJson<List<V1Pod>>(cp, ['get', 'pods', '-l', 'app=agent'])).items.filter(
            (p) => daemonPodNode(p) === 'node-01' && !p.metadata?.deletionTimestamp,
          );
          const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
          const untainted = !(node.spec?.taints ?? []).some((t) => t.key.startsWith('node.kubernetes.io/'));
          const onOrigin =
            pods.length === 1 &&
            pods[0]!.spec?.containers[0]?.image === 'registry.example/agent:1.0' &&
            pods[0]!.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
          return ready && untainted && onOrigin ? true : undefined;
        },
        120_000,
      );
    } finally {
      for (const stop of stops) stop();
    }
    // Only the canary ever ran the release; the template is back on the origin, still paused.
    expect([...ran]).toEqual(['node-01']);
    const ds = await agentDaemonSet(cp);
    expect(ds.spec?.template.spec?.containers[0]?.image).toBe('registry.example/agent:1.0');
    expect(ds.spec?.updateStrategy?.type).toBe('OnDelete');
    // The failure is an Event on the DaemonSet, naming the gate and the node.
    const events = await kubectlJson<List<{reason?: string; message?: string; involvedObject?: {name?: string}}>>(cp, [
      'get',
      'events',
      '--field-selector',
      'involvedObject.kind=DaemonSet,involvedObject.name=agent',
    ]);
    expect(events.items.some((e) => e.reason === 'GateFailed' && /node gate: node node-01 .*Unknown/.test(e.message ?? ''))).toBe(true);
  });
});
