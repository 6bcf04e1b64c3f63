// Which merge-queue test run an upload's commit belongs to (issue 12 §1): an upload whose commit
// is the head of a test branch is linked to that run; results for a target branch's commit tell
// its queue whether the branch is broken. Only this small interface is known here;
// the composition root fills it from the merge queue's test runs.
import type { RepoRef } from '../../platform/repo-ref.js';

export interface TestRunLink {
  testRunId: string;
  queueId: string;
  /**
   * Tree of the test branch head. A re-test pushes a new commit with the same tree, so results
   * on the same tree are retries of the same code for pass-on-retry detection.
   */
  tree: string | null;
}

export interface TestRunLinks {
  /** The test run of this organisation and repository whose test branch head is `sha`, if any. */
  find(orgId: string, repo: RepoRef, sha: string): Promise<TestRunLink | null>;
  /** Results were stored for the run: a decision of its queue may be waiting for them. */
  resultsStored(link: TestRunLink): Promise<void>;
  /** Results were stored for commit `sha` of `branch` (no run's): when it is a queue's target branch, whether it is broken may have changed. */
  branchResultsStored(orgId: string, repo: RepoRef, branch: string, sha: string): Promise<void>;
}

/** No merge queue to link to (unit tests, the flaky-tests side alone). */
export const NO_TEST_RUN_LINKS: TestRunLinks = {
  find: async () => null,
  resultsStored: async () => {},
  branchResultsStored: async () => {},
};
