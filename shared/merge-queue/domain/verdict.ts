// "Was it mine?" (issue 26 §1): the verdict on a pull request's failed run, decided from what the
// service holds — the run's own test results, each failed test's history (flaky, quarantined),
// the same tests' results on the target branch commit the run was built on and on the pull
// request's own head, and how the run ended. Pure: the API, the CLI and the dashboard show it;
// docs/verdicts.md lists the kinds and rules, a stable vocabulary scripts may act on.

import { testNames, type RunTestEvidence } from './flaky-retest.js';
import type { Entry, EntryInteraction, Reason } from './model.js';
import type { VerdictKind } from './verdict-kinds.js';

/** Which rule decided, in the order they are tried (docs/verdicts.md). */
export const VERDICT_RULES = [
  'merge_conflict',
  'timeout',
  'no_results',
  'no_failed_test',
  'mass_failure',
  'fails_on_target',
  'only_known_flaky',
  'fails_only_together',
  'passes_on_target',
  'fails_on_own_head',
  'passes_apart',
  'no_evidence',
] as const;
export type VerdictRule = (typeof VERDICT_RULES)[number];

/** How a test ended on another commit; null when it was not run there (or nothing was uploaded for it). */
export type OtherOutcome = 'passed' | 'failed' | null;

/** A test that failed in the run, with what the verdict read about it. */
export interface VerdictTest {
  id: string;
  name: string;
  /** Classified flaky, or quarantined, before the run started (the run's own failure never counts). */
  knownFlaky: boolean;
  quarantined: boolean;
  /** On the target branch commit the run was built on. */
  onTarget: OtherOutcome;
  /** On the pull request's own head, where its CI uploaded results. */
  onHead: OtherOutcome;
}

export interface VerdictInput {
  /** How the run ended: its required statuses failed, it timed out, or its branch could not be built. */
  ended: 'failed' | 'timed_out' | 'merge_conflict';
  /** The repository uploads test results (else no verdict can rest on them). */
  expectsResults: boolean;
  /** Null when no results were linked to the run. */
  results: { runs: number; failed: number; failedTests: readonly VerdictTest[] } | null;
  /** The target branch commit the run was built on, and the pull request's head (for the evidence's words). */
  targetSha: string;
  targetBranch: string;
  /** What the interaction check found, when the judged run is the one with the member it fails with. */
  interaction?: EntryInteraction | null;
}

export interface Verdict {
  kind: VerdictKind;
  rule: VerdictRule;
  /** One sentence: what was decided and why. */
  summary: string;
  /** The failed tests, each with what was known of it (empty when none were reported). */
  tests: VerdictTest[];
  /** For `unknown`: what would have decided it. */
  missing?: string;
  /** For `interaction`: the pull request it fails with, and the run of it alone that passed. */
  interaction?: { withPrNumber: number | null; withEntryId: string; aloneRunId: string };
}

/** Entries a verdict may speak to: failed ones, and (provisionally) those waiting in pending failure. */
export function mayHaveVerdict(entry: Pick<Entry, 'state'>): boolean {
  return entry.state === 'failed' || entry.state === 'pending_failure';
}

/** How a run ended, by the reason it failed an entry with; undefined for failures no run of its own decided (a stack member removed, a merge refused). */
const FAILURE_ENDINGS: Partial<Record<Reason, VerdictInput['ended']>> = {
  test_run_required_status_failed: 'failed',
  test_run_failed: 'failed',
  test_run_timeout: 'timed_out',
  start_test_run_merge_conflict: 'merge_conflict',
};

export function failureEnding(reason: Reason): VerdictInput['ended'] | undefined {
  return FAILURE_ENDINGS[reason];
}

/** The verdict's input from a run's evidence (null: nothing loaded, as when no results are uploaded). */
export function verdictInputOf(
  evidence: RunTestEvidence | null,
  ended: VerdictInput['ended'],
  target: { targetSha: string; targetBranch: string; interaction?: EntryInteraction | null },
): VerdictInput {
  return {
    ended,
    expectsResults: evidence?.expected ?? false,
    results: evidence && evidence.uploads > 0 ? { runs: evidence.runs, failed: evidence.failed, failedTests: evidence.failedTests } : null,
    ...target,
  };
}

/** A run in which more than this share of tests failed (and at least MASS_FAILURE_MIN) failed as a whole: infrastructure. */
export const MASS_FAILURE_SHARE = 0.5;
export const MASS_FAILURE_MIN = 20;

export function decideVerdict(input: VerdictInput): Verdict {
  const tests = [...(input.results?.failedTests ?? [])];
  const at = `${input.targetBranch} at ${input.targetSha.slice(0, 12)}`;
  const verdict = (kind: VerdictKind, rule: VerdictRule, summary: string, missing?: string): Verdict => ({
    kind,
    rule,
    summary,
    tests,
    ...(missing ? { missing } : {}),
  });
  if (input.ended === 'merge_conflict') return verdict('yours', 'merge_conflict', 'its changes do not merge with the changes ahead of it in the queue');
  if (input.ended === 'timed_out') return verdict('infrastructure', 'timeout', 'the test run did not finish within the testing timeout');
  // The interaction check is an experiment on required statuses alone: it decides without test
  // results, and yields only to what the results show of another cause (a mass failure, known
  // flakes only, the target branch failing the same tests).
  const interaction = input.interaction ? interactionVerdict(input.interaction, at, tests) : null;
  const results = input.results;
  if (!results) {
    if (interaction) return interaction;
    if (!input.expectsResults) {
      return verdict(
        'unknown',
        'no_evidence',
        'a required status failed and the repository uploads no test results',
        'test results (JUnit) uploaded for the test branch, which would show which tests failed',
      );
    }
    return verdict('infrastructure', 'no_results', 'a required status failed but no test results were uploaded for the test run');
  }
  if (tests.length === 0) return verdict('infrastructure', 'no_failed_test', 'a required status failed but no test failed in the uploaded results');
  if (results.failed >= MASS_FAILURE_MIN && results.failed > results.runs * MASS_FAILURE_SHARE) {
    return verdict('infrastructure', 'mass_failure', `${results.failed} of ${results.runs} test runs failed: the environment, not a change, fails that many`);
  }
  // A failure is excused when the test also failed on the target commit without the change
  // (whatever its history says), or was known as flaky or quarantined before the run.
  const onTarget = tests.filter((t) => t.onTarget === 'failed');
  const real = tests.filter((t) => t.onTarget !== 'failed' && !t.knownFlaky && !t.quarantined);
  if (real.length === 0) {
    if (onTarget.length > 0) return verdict('target_branch', 'fails_on_target', `${testNames(onTarget)} failed on ${at} too, without this change`);
    return verdict('flaky', 'only_known_flaky', `only tests known as flaky or quarantined failed: ${testNames(tests)}`);
  }
  if (interaction) return interaction;
  const passOnTarget = real.filter((t) => t.onTarget === 'passed' && t.onHead !== 'passed');
  if (passOnTarget.length > 0) return verdict('yours', 'passes_on_target', `${testNames(passOnTarget)} failed here and passed on ${at}`);
  const ownHead = real.filter((t) => t.onHead === 'failed');
  if (ownHead.length > 0) return verdict('yours', 'fails_on_own_head', `${testNames(ownHead)} failed on the pull request's own head too`);
  const apart = real.filter((t) => t.onTarget === 'passed' && t.onHead === 'passed');
  if (apart.length > 0) {
    return verdict(
      'unknown',
      'passes_apart',
      `${testNames(apart)} passed on ${at} and on the pull request's own head: it fails only combined with the changes ahead of it, or flakily`,
      'a re-test of the pull request alone on the target branch (the interaction check)',
    );
  }
  return verdict(
    'unknown',
    'no_evidence',
    `${testNames(real)} failed, and neither ${at} nor the pull request's head has results that tell why`,
    `test results for ${at} (or for the pull request's head) that include ${real.length === 1 ? 'that test' : 'those tests'}`,
  );
}

function interactionVerdict(found: EntryInteraction, at: string, tests: VerdictTest[]): Verdict {
  const sibling = found.withPrNumber === null ? `entry ${found.withEntryId}` : `#${found.withPrNumber}`;
  return {
    kind: 'interaction',
    rule: 'fails_only_together',
    summary: `it passes alone on ${at} (test run ${found.aloneRunId}) and fails only together with ${sibling}, a pull request of its batch`,
    tests,
    interaction: { withPrNumber: found.withPrNumber, withEntryId: found.withEntryId, aloneRunId: found.aloneRunId },
  };
}
