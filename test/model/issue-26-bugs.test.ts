// The four bugs issue 26 lists, as the sequences that showed them. Before the gated rollout's state machine each
// broke its invariant with the message kept beside it (proof that the invariants catch it); now each holds.
import {expect, test} from 'vitest';
import {SequenceRun, type Step} from './sequence.js';

const canaryThenApprove = (flags: Partial<Extract<Step, {kind: 'gated'}>> = {}): Step => ({
  kind: 'gated',
  canary: {count: 1},
  canaryBakeS: 0,
  waves: [],
  bakeS: 0,
  approve: true,
  onFailure: 'pause',
  ...flags,
});

const bugs: readonly {readonly name: string; readonly steps: readonly Step[]; readonly violation: RegExp}[] = [
  {
    name: 'abort after an --on-failure undo and a rerun of the same gated step rolls the failed release back out',
    steps: [{kind: 'set-image', image: 'agent:bad'}, canaryThenApprove({onFailure: 'undo'}), canaryThenApprove({onFailure: 'undo'}), {kind: 'abort'}],
    violation: /the template went from agent:v2 to agent:bad, which is not the rollout's origin/,
  },
  {
    name: "abort of an aborted rollout reverts someone else's later set image",
    steps: [canaryThenApprove(), {kind: 'abort'}, {kind: 'set-image', image: 'agent:v3'}, {kind: 'abort'}],
    violation: /abort changed a template it did not record as the release \(agent:v3/,
  },
  {
    name: "status and ds-plan keep saying baking after someone else's template change",
    steps: [canaryThenApprove({canaryBakeS: 20, kill: {after: 'record-write', n: 2}}), {kind: 'set-image', image: 'agent:v3'}],
    violation: /the rollout ended \(superseded\) but the views still show it: status baking/,
  },
  {
    name: 'a driver restarted after resume --force rewrites the abandoned record to rolling',
    steps: [canaryThenApprove({canaryBakeS: 20, kill: {after: 'record-write', n: 1}}), {kind: 'resume', force: true}, {kind: 'restart'}],
    violation: /the restarted driver revived its rollout, which had ended \(abandoned\): the record now says rolling/,
  },
];

for (const bug of bugs) {
  // `violation` is what the harness reported before the fix; a regression reports it again.
  test(`holds now: ${bug.name}`, {timeout: 120_000}, async () => {
    await expect(SequenceRun.run(4, bug.steps), String(bug.violation)).resolves.toBeUndefined();
  });
}

// Found by `npm run test:sequences -- --runs 1000 --seed 20261128` (shrunk to these four steps): the harness took
// the rerun for a revival of the aborted rollout. It is a new one: `kubectl rollout undo` set the aborted release
// again after the abort (a spec change, generation and all), and the same command then rolls out what was set.
test('holds: after an abort and a kubectl rollout undo back to the release, the killed command rerun starts anew', {timeout: 120_000}, async () => {
  const steps: Step[] = [
    canaryThenApprove({canary: {nodes: [1]}, kill: {after: 'record-write', n: 1}}),
    {kind: 'abort'},
    {kind: 'kubectl-undo'},
    {kind: 'restart'},
  ];
  await expect(SequenceRun.run(4, steps)).resolves.toBeUndefined();
});
