// A landing's words are the core's: step's progress line for a node and its timeout error say the same thing.
import {expect, test} from 'vitest';
import {type LandingState, landingWords, type NodeLanding} from '../../src/core/index.js';
import {oldPodsLeft, renderStepEvent} from '../../src/output/step-text.js';
import {describeLanding} from '../../src/services/step/words.js';

const REF = {namespace: 'default', name: 'agent'};

// A record, so that a new state fails to compile here until it has words.
const STATES: Record<LandingState, string> = {
  old: 'node-1: the old pod still runs',
  surging: 'node-1: new pod agent-x runs next to the old one',
  terminating: 'node-1: the old pod is still terminating',
  creating: 'node-1: no new pod yet (the controller creates it)',
  starting: 'node-1: new pod agent-x is not ready yet',
  failing: 'node-1: new pod agent-x is not ready (CrashLoopBackOff)',
  ready: 'node-1: new pod agent-x is ready, waiting out minReadySeconds',
  available: 'node-1: new pod agent-x is available',
  gone: 'node-1: the node no longer takes the daemon (its old pod is gone)',
  crowded: 'node-1: two new pods',
};

test.each(Object.entries(STATES))('%s: one wording for the progress line and the error', (state, expected) => {
  const landing: NodeLanding = {node: 'node-1', state: state as LandingState, pod: 'agent-x', ...(state === 'failing' ? {problem: 'CrashLoopBackOff'} : {})};
  expect(describeLanding(landing)).toBe(expected);
  expect(renderStepEvent({kind: 'node', landing}, REF, false)).toBe(`  ${expected}`);
  // The error joins landings with '; ': the words use none of their own.
  expect(landingWords(landing)).not.toContain(';');
});

test('the progress line colours by how the landing goes, around the same words', () => {
  const failing: NodeLanding = {node: 'node-1', state: 'failing', pod: 'agent-x', problem: 'ImagePullBackOff'};
  expect(renderStepEvent({kind: 'node', landing: failing}, REF, true)).toBe(`  node-1: \u001B[31m${landingWords(failing)}\u001B[39m`);
});

test("what a wave left: one wording for the step's landed line and the dashboard's status line", () => {
  expect([0, 1, 1500].map(oldPodsLeft)).toEqual(['no old pods left', '1 node still runs an old pod', '1,500 nodes still run old pods']);
  expect(renderStepEvent({kind: 'landed', number: 2, seconds: 9, oldLeft: 1}, REF, false)).toBe(`Wave 2 landed in 9s; ${oldPodsLeft(1)}.`);
});
