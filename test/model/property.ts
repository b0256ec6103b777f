// The generated-sequence property, shared by the vitest files (fixed seeds) and scripts/gated-sequences.ts (any
// number of runs): every sequence runs on a fresh simulated cluster; the first one that breaks an invariant is
// shrunk by fast-check to its shortest reproduction.
import fc from 'fast-check';
import {sequence} from './arbitraries.js';
import {type Invariant, InvariantViolation, SequenceRun} from './sequence.js';

export interface SequenceOptions {
  readonly seed: number;
  readonly numRuns: number;
  /** Invariants only logged, not failed on: to look past a known failure for the next one (the script's --skip). */
  readonly skip?: ReadonlySet<Invariant>;
}

export function sequencesHold(skip: ReadonlySet<Invariant> = new Set()) {
  return fc.asyncProperty(sequence, async ({nodes, steps}) => {
    await SequenceRun.run(nodes, steps, skip);
  });
}

/** Runs the property; resolves with fast-check's report (failed, counterexample, shrunk reproduction). */
export function checkSequences(options: SequenceOptions): Promise<fc.RunDetails<[unknown]>> {
  return fc.check(sequencesHold(options.skip), {seed: options.seed, numRuns: options.numRuns, endOnFailure: false, includeErrorInReport: true}) as Promise<
    fc.RunDetails<[unknown]>
  >;
}

/** fast-check's report of a failed run, with the shrunk sequence as kubectl lines. */
export function describeFailure(details: fc.RunDetails<[unknown]>): string {
  return fc.defaultReportMessage(details) ?? '';
}

/**
 * The CI check of one fixed seed: throws with the shrunk reproduction when an invariant breaks. Returns without
 * throwing on a crash of the harness itself, so that, under test.fails (the current code breaks the invariants),
 * a broken harness turns CI red rather than passing as the expected failure.
 */
export async function expectSequencesHold(seed: number, numRuns = 100): Promise<void> {
  const details = await checkSequences({seed, numRuns});
  if (!details.failed) return;
  const report = describeFailure(details);
  console.log(report);
  if (details.errorInstance instanceof InvariantViolation) throw new Error(report);
}
