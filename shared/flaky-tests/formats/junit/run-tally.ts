// Per-file tallies of parsed runs, including the within-upload retry picture: which tests were
// attempted more than once and which both failed and passed (pass-on-retry evidence, notes §1.3).
// Memory grows with the number of distinct tests, so use it per file / per upload, not globally.
import { identityKeyOf } from './stream-parser.js';
import type { JUnitRun } from './types.js';
import type { RunOutcome } from '../../domain/model.js';

export interface JUnitTally {
  /** `<testcase>` elements (a testcase with rerun children counts once). */
  testcases: number;
  /** Attempts: every emitted run. */
  runs: number;
  passed: number;
  failed: number;
  skipped: number;
  /** Failed runs whose element was `<error>`/`rerunError`/`flakyError`. */
  errors: number;
  /** Runs that came from flakyFailure/flakyError/rerunFailure/rerunError children. */
  rerunElementRuns: number;
  /** Distinct test identities. */
  tests: number;
  /** Identities with more than one run in the file. */
  retriedTests: number;
  /** Identities with at least one failed and one passed run (flaky within this upload). */
  flakyTests: number;
  /** Identities whose last run (document order) failed. */
  failingTests: number;
}

interface TestState {
  runs: number;
  failed: boolean;
  passed: boolean;
  last: RunOutcome;
}

export class JUnitRunTally {
  private readonly tests = new Map<string, TestState>();
  private readonly totals = { testcases: 0, runs: 0, passed: 0, failed: 0, skipped: 0, errors: 0, rerunElementRuns: 0 };

  add(run: JUnitRun): void {
    const t = this.totals;
    t.runs++;
    if (run.attemptInTestcase === 0) t.testcases++;
    t[run.outcome]++;
    if (run.failureKind === 'error') t.errors++;
    if (run.rerunElement) t.rerunElementRuns++;
    const key = identityKeyOf(run);
    const state = this.tests.get(key) ?? { runs: 0, failed: false, passed: false, last: run.outcome };
    state.runs++;
    state.last = run.outcome;
    if (run.outcome === 'failed') state.failed = true;
    if (run.outcome === 'passed') state.passed = true;
    this.tests.set(key, state);
  }

  result(): JUnitTally {
    let retriedTests = 0;
    let flakyTests = 0;
    let failingTests = 0;
    for (const s of this.tests.values()) {
      if (s.runs > 1) retriedTests++;
      if (s.failed && s.passed) flakyTests++;
      if (s.last === 'failed') failingTests++;
    }
    return { ...this.totals, tests: this.tests.size, retriedTests, flakyTests, failingTests };
  }
}

export function tallyRuns(runs: Iterable<JUnitRun>): JUnitTally {
  const tally = new JUnitRunTally();
  for (const run of runs) tally.add(run);
  return tally.result();
}
