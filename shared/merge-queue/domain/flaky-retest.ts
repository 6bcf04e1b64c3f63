// Re-test instead of eject (issue 12 §2): whether a failed run's group is tested again because
// every test that failed in its linked results was already known to be flaky, or is quarantined.
// Pure: the planner and the simulator both decide with it.

/** A test that failed in a run's linked results, as the decision sees it. */
export interface FailedTestEvidence {
  id: string;
  name: string;
  /** Classified flaky before the run started (the run's own failures never count). */
  knownFlaky: boolean;
  quarantined: boolean;
  /** How it ended on the target branch commit the run was built on, and on the pull request's head (a run of one pull request); null: not run there. */
  onTarget: 'passed' | 'failed' | null;
  onHead: 'passed' | 'failed' | null;
}

/** What is known about a failed run's test results. */
export interface RunTestEvidence {
  /** The repository uploads test results, so a failure may wait for them. */
  expected: boolean;
  /** Uploads linked to the run so far, the test case runs in them and how many failed. */
  uploads: number;
  runs: number;
  failed: number;
  failedTests: readonly FailedTestEvidence[];
}

export interface RetestInput {
  /** Null when nothing is known (no upload linked, none expected). */
  evidence: RunTestEvidence | null;
  /** Flaky re-tests the group already had. */
  retriesUsed: number;
  /** The queue's `flakyRetries`: 0 turns re-testing off. */
  flakyRetries: number;
  /** The run failed on its required statuses (not a timeout, not a build failure). */
  failedOnStatuses: boolean;
  /** When the run concluded (epoch ms), and how long its results may take to arrive. */
  concludedAt: number;
  waitSeconds: number;
  now: number;
}

export type RetestDecision =
  | { kind: 'retest'; detail: string }
  | { kind: 'wait'; until: number }
  /** `evidence`: what the test results said, for the timeline; null when they were not considered. */
  | { kind: 'fail'; evidence: string | null };

const MAX_NAMED = 5;

export function decideFailedRun(input: RetestInput): RetestDecision {
  const { evidence } = input;
  if (input.flakyRetries <= 0 || !input.failedOnStatuses) return { kind: 'fail', evidence: null };
  if (input.retriesUsed >= input.flakyRetries) {
    return { kind: 'fail', evidence: evidence && evidence.uploads > 0 ? `flaky re-tests used up (${input.retriesUsed} of ${input.flakyRetries})` : null };
  }
  const failed = evidence?.failedTests ?? [];
  if (!evidence || failed.length === 0) {
    if (!evidence?.expected) return { kind: 'fail', evidence: null };
    const until = input.concludedAt + input.waitSeconds * 1000;
    if (input.now < until) return { kind: 'wait', until };
    return {
      kind: 'fail',
      evidence: evidence.uploads === 0 ? `no test results within ${input.waitSeconds} s` : 'no failed test in its test results',
    };
  }
  const real = failed.filter((t) => !t.knownFlaky && !t.quarantined);
  if (real.length > 0) return { kind: 'fail', evidence: `failed tests not known as flaky: ${testNames(real)}` };
  const quarantined = failed.filter((t) => t.quarantined);
  const flaky = failed.filter((t) => !t.quarantined);
  const parts = [
    ...(flaky.length > 0 ? [`known flaky: ${testNames(flaky)}`] : []),
    ...(quarantined.length > 0 ? [`quarantined: ${testNames(quarantined)}`] : []),
  ];
  return {
    kind: 'retest',
    detail: `only tests known as flaky or quarantined failed (${parts.join('; ')}); testing again (re-test ${input.retriesUsed + 1} of ${input.flakyRetries})`,
  };
}

/** `a, b, c, d, e and 2 more`: the tests a timeline detail or a verdict names. */
export function testNames(tests: readonly { name: string }[]): string {
  const shown = tests.slice(0, MAX_NAMED).map((t) => t.name);
  return tests.length > MAX_NAMED ? `${shown.join(', ')} and ${tests.length - MAX_NAMED} more` : shown.join(', ');
}
