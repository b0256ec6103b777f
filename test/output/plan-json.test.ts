import {load} from 'js-yaml';
import {describe, expect, test} from 'vitest';
import {renderPlanJson, toPlanDocument} from '../../src/output/plan-json.js';
import {renderPlanYaml} from '../../src/output/plan-yaml.js';
import type {RolloutPlan} from '../../src/core/types.js';
import {samplePlan} from './sample-plan.js';

// The contract's key order (docs/design/plan-contract.md), level by level.
const TOP = ['kind', 'daemonSet', 'strategy', 'revisions', 'status', 'nodes', 'nextSync', 'waves', 'complete'];
const STATUS = [
  'desiredNumberScheduled',
  'currentNumberScheduled',
  'numberMisscheduled',
  'numberReady',
  'updatedNumberScheduled',
  'numberAvailable',
  'numberUnavailable',
];

/** The same plan with every object's keys reversed: the renderer must not depend on the input's order. */
function scrambled(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrambled);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, scrambled(v)]),
  );
}

describe('renderPlanJson', () => {
  const plan = scrambled(samplePlan()) as RolloutPlan;
  const json = JSON.parse(renderPlanJson(plan)) as Record<string, any>;

  test('puts the contract fields first, in the contract order, then the extra fields', () => {
    expect(Object.keys(json)).toEqual(['apiVersion', ...TOP, 'budget', 'notes', 'warnings', 'blockers', 'converges', 'controllerVersion']);
    expect(Object.keys(json.daemonSet)).toEqual(['namespace', 'name']);
    expect(Object.keys(json.strategy)).toEqual(['type', 'maxUnavailable', 'maxSurge']);
    expect(Object.keys(json.revisions)).toEqual(['current', 'update']);
    expect(Object.keys(json.revisions.current)).toEqual(['revision', 'hash', 'name']);
    expect(Object.keys(json.revisions.update)).toEqual(['revision', 'hash', 'exists', 'name']);
    expect(Object.keys(json.status)).toEqual(STATUS);
  });

  test('orders nodes, pods, actions and waves as the contract does', () => {
    expect(Object.keys(json.nodes[1])).toEqual(['name', 'shouldRun', 'shouldContinueRunning', 'reason', 'pods', 'wave', 'state']);
    expect(Object.keys(json.nodes[3].pods[0])).toEqual(['name', 'hash', 'updated', 'ready', 'available', 'terminating', 'phase', 'problem']);
    expect(Object.keys(json.nextSync)).toEqual(['create', 'delete']);
    expect(Object.keys(json.nextSync.delete[0])).toEqual(['pod', 'node', 'reason', 'resourceVersion', 'uid']);
    expect(Object.keys(json.waves[1])).toEqual(['create', 'delete', 'at']);
    expect(Object.keys(json.waves[1].create[0])).toEqual(['node']);
  });

  test('keeps every value', () => {
    expect(json).toEqual({apiVersion: 'ds-rollout.io/v1alpha1', ...JSON.parse(JSON.stringify(samplePlan()))});
  });

  test('is indented and ends with a newline', () => {
    const text = renderPlanJson(samplePlan());
    expect(text.startsWith('{\n  "apiVersion": "ds-rollout.io/v1alpha1",\n  "kind": "DaemonSetRolloutPlan",\n  "daemonSet": {\n')).toBe(true);
    expect(text.endsWith('}\n')).toBe(true);
  });

  test('leaves out undefined optional fields', () => {
    const document = toPlanDocument(samplePlan());
    const nodes = document.nodes as Array<Record<string, unknown>>;
    expect('wave' in nodes[0]!).toBe(false);
    expect('blocker' in nodes[0]!).toBe(false);
  });
});

describe('renderPlanYaml', () => {
  test('is the JSON document as YAML, in the same order', () => {
    const yaml = renderPlanYaml(scrambled(samplePlan()) as RolloutPlan);
    expect(load(yaml)).toEqual(JSON.parse(renderPlanJson(samplePlan())));
    expect(yaml.split('\n').slice(0, 4)).toEqual([
      'apiVersion: ds-rollout.io/v1alpha1',
      'kind: DaemonSetRolloutPlan',
      'daemonSet:',
      '  namespace: kube-system',
    ]);
  });

  test('does not fold long messages', () => {
    const message = `${'word '.repeat(40)}end`;
    const yaml = renderPlanYaml(samplePlan({notes: [message]}));
    expect(yaml).toContain(`  - ${message}\n`);
  });
});
