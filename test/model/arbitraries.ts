// fast-check arbitraries for the generated sequences: gated steps with random flags, the other commands, outside
// actions, kills and restarts. Node numbers stay within 1-4 (every World has at least 4 nodes). A sequence prints
// as the kubectl lines a person would type, so a shrunk failure reads as its reproduction.
import fc from 'fast-check';
import {describeSequence, type Kill, type Step} from './sequence.js';

const nodeNumber = fc.integer({min: 1, max: 4});
const nodeSet = fc.uniqueArray(nodeNumber, {minLength: 1, maxLength: 3}).map((nodes) => [...nodes].sort());
const kill: fc.Arbitrary<Kill | undefined> = fc.option(
  fc.record({after: fc.constantFrom<Kill['after']>('record-write', 'pod-delete'), n: fc.integer({min: 1, max: 4})}),
  {freq: 3, nil: undefined},
);
const budget = fc.option(fc.constantFrom(1, 2), {freq: 2, nil: undefined});

const gated: fc.Arbitrary<Step> = fc.record({
  kind: fc.constant('gated' as const),
  canary: fc.oneof(fc.record({count: fc.integer({min: 1, max: 2})}), fc.record({nodes: nodeSet}), fc.record({selector: nodeSet})),
  canaryBakeS: fc.constantFrom(0, 5, 20),
  waves: fc.constantFrom<readonly number[]>([], [50], [25, 50]),
  bakeS: fc.constantFrom(0, 5),
  approve: fc.boolean(),
  onFailure: fc.constantFrom('pause' as const, 'undo' as const),
  maxUnavailable: budget,
  kill,
});

export const step: fc.Arbitrary<Step> = fc.oneof(
  {weight: 6, arbitrary: gated},
  {weight: 3, arbitrary: fc.record({kind: fc.constant('promote' as const), kill})},
  {weight: 3, arbitrary: fc.record({kind: fc.constant('abort' as const), maxUnavailable: budget, kill})},
  {weight: 2, arbitrary: fc.record({kind: fc.constant('step' as const), kill})},
  {weight: 2, arbitrary: fc.record({kind: fc.constant('resume' as const), force: fc.boolean()})},
  {weight: 1, arbitrary: fc.constant({kind: 'pause' as const})},
  {weight: 1, arbitrary: fc.constant({kind: 'undo' as const})},
  {weight: 2, arbitrary: fc.constant({kind: 'restart' as const})},
  {weight: 2, arbitrary: fc.record({kind: fc.constant('set-image' as const), image: fc.constantFrom('agent:v3', 'agent:bad', 'agent:v1')})},
  {weight: 1, arbitrary: fc.record({kind: fc.constant('set-env' as const), value: fc.constantFrom('a', 'b')})},
  {weight: 1, arbitrary: fc.constant({kind: 'kubectl-undo' as const})},
  {weight: 1, arbitrary: fc.constant({kind: 'rolling-update' as const})},
  {weight: 1, arbitrary: fc.record({kind: fc.constant('node-ready' as const), node: nodeNumber, ready: fc.boolean()})},
  {weight: 1, arbitrary: fc.record({kind: fc.constant('crash-loop' as const), node: nodeNumber})},
  {weight: 1, arbitrary: fc.record({kind: fc.constant('wait' as const), seconds: fc.constantFrom(5, 30)})},
);

/** A sequence: the number of nodes and its steps, printed as kubectl lines. */
export interface Sequence {
  readonly nodes: number;
  readonly steps: readonly Step[];
}

export const sequence: fc.Arbitrary<Sequence> = fc
  .record({nodes: fc.integer({min: 4, max: 6}), steps: fc.array(step, {minLength: 1, maxLength: 8})})
  .map((s) => ({...s, [fc.toStringMethod]: () => `\n${describeSequence(s.nodes, s.steps)}\n`}));
