// `npm run test:sequences -- --runs 5000 --seed 7`: the generated-sequence property of issue 26 (test/model) for
// as many sequences as asked, outside vitest. A failure is shrunk to its shortest reproduction and printed as
// kubectl lines; the exit status is 1 then. CI runs fixed seeds in test/model/gated-sequences-*.test.ts.
// `--fleet`: the fleet rollout's sequences instead (test/model/fleet-sequences.ts; pure, thousands a second).
import {parseArgs} from 'node:util';
import fc from 'fast-check';
import {fleetSequencesHold} from '../test/model/fleet-sequences.js';
import {checkSequences, describeFailure} from '../test/model/property.js';
import {type Invariant, INVARIANTS} from '../test/model/sequence.js';

const {values} = parseArgs({
  options: {runs: {type: 'string', default: '300'}, seed: {type: 'string'}, skip: {type: 'string', default: ''}, fleet: {type: 'boolean', default: false}},
});
const runs = Number(values.runs);
const seed = values.seed === undefined ? Date.now() % 2_147_483_647 : Number(values.seed);
// --skip views-agree,ended-shown: those invariants are logged, not failed on, to find what else breaks.
const skip = new Set(values.skip.split(',').filter((name) => name !== '')) as Set<Invariant>;
const unknown = [...skip].filter((name) => !(INVARIANTS as readonly string[]).includes(name));
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(seed) || unknown.length > 0) {
  process.stderr.write(`usage: npm run test:sequences -- [--runs N] [--seed N] [--skip ${INVARIANTS.join(',')}] [--fleet]\n`);
  process.exit(2);
}
if (values.fleet) {
  const details = fc.check(fleetSequencesHold(), {seed, numRuns: runs});
  process.stdout.write(details.failed ? `${fc.defaultReportMessage(details)}\n` : `every fleet invariant held: ${details.numRuns} sequences, seed ${seed}\n`);
  process.exit(details.failed ? 1 : 0);
}
process.stdout.write(`${runs} generated sequences, seed ${seed}${skip.size > 0 ? `, not failing on ${[...skip].join(', ')}` : ''}\n`);
const started = performance.now();
const details = await checkSequences({seed, numRuns: runs, skip});
const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (details.failed) {
  process.stdout.write(`${describeFailure(details)}\n(${details.numRuns} sequences and ${details.numShrinks} shrinks in ${seconds} s)\n`);
  process.exit(1);
}
process.stdout.write(`every invariant held: ${details.numRuns} sequences in ${seconds} s\n`);
process.exit(0);
