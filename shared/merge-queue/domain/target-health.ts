// A broken target branch as a queue state (issue 26 §2): when CI's results for the target branch's
// head show tests failing that were not known as flaky or quarantined, the branch is broken and
// no pull request failing only those tests is to blame. The queue records it (Queue.targetBroken),
// announces it (queue.target_broken / queue.target_recovered), warns in getQueue, exports it as a
// metric, and holds such failures instead of ejecting them until the branch is green again.
import { testNames, type FailedTestEvidence } from './flaky-retest.js';
import type { QueueWarning } from './status-watch.js';
import type { TargetBreak } from './model.js';

/** A test that failed (no attempt passed) in CI's results for a commit, with what was known of it before them. */
export interface CommitFailedTest {
  id: string;
  name: string;
  knownFlaky: boolean;
  quarantined: boolean;
}

/**
 * The target branch's state once its head's results are read. `failures` is null when no results
 * for the head exist yet: the state stays as it was (a branch broken at an earlier head is broken
 * until results show the new head green). Known flakes and quarantined tests never break it.
 */
export function targetHealthAfter(
  current: TargetBreak | null,
  head: { sha: string; failures: readonly CommitFailedTest[] | null },
  now: Date,
): TargetBreak | null {
  if (head.failures === null) return current;
  const tests = head.failures
    .filter((t) => !t.knownFlaky && !t.quarantined)
    .map((t) => ({ id: t.id, name: t.name }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (tests.length === 0) return null;
  if (current && current.sha === head.sha && sameTests(current.tests, tests)) return current;
  return { sha: head.sha, tests, since: current?.since ?? now };
}

function sameTests(a: readonly { id: string }[], b: readonly { id: string }[]): boolean {
  return a.length === b.length && a.every((t, i) => t.id === b[i]!.id);
}

/** Whether the branch broke or recovered between two states (null: neither, whatever else changed). */
export function targetHealthChange(before: TargetBreak | null, after: TargetBreak | null): 'broken' | 'recovered' | null {
  if ((before === null) === (after === null)) return null;
  return after ? 'broken' : 'recovered';
}

/** The queue history's line for a recorded state. */
export function targetHealthHistory(next: TargetBreak | null, headSha: string): string {
  return next ? `target branch broken at ${headSha.slice(0, 12)}, failing there: ${testNames(next.tests)}` : `target branch green at ${headSha.slice(0, 12)}`;
}

/** Whether two states differ (what makes the queue record the new one). */
export function targetHealthChanged(before: TargetBreak | null, after: TargetBreak | null): boolean {
  if (before === null || after === null) return before !== after;
  return before.sha !== after.sha || !sameTests(before.tests, after.tests) || before.since.getTime() !== after.since.getTime();
}

/**
 * Whether a run's failure is the broken branch's: at least one of the tests failing there failed,
 * and every other failed test was known flaky or quarantined. (A failure on a stable branch makes
 * a test flaky, so the broken tests themselves may be known flaky by now: membership decides.)
 */
export function explainedByBrokenTarget(broken: TargetBreak, failedTests: readonly FailedTestEvidence[]): boolean {
  const ids = new Set(broken.tests.map((t) => t.id));
  const onBranch = failedTests.filter((t) => ids.has(t.id));
  return onBranch.length > 0 && failedTests.every((t) => ids.has(t.id) || t.knownFlaky || t.quarantined);
}

export function targetBrokenWarning(broken: TargetBreak, branch: string): QueueWarning {
  return {
    code: 'target_branch_broken',
    message: `${branch} is broken at ${broken.sha.slice(0, 12)}, where tests fail without any queued change (${testNames(broken.tests)}); pull requests that fail only those tests wait in the queue instead of leaving it until ${branch} is green again`,
    contexts: [],
    testRunIds: [],
    since: broken.since,
  };
}
