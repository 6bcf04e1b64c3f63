// The test results linked to the merge queue's test runs (issue 12 §1): JUnit uploads whose
// commit is the head of a run's test branch. The flaky-tests side answers through this port,
// which the composition root fills, so neither product reads the other's store.
import type { RepoRef } from '../../platform/repo-ref.js';
import type { RunTestEvidence } from '../domain/flaky-retest.js';
import type { Queue, TestRun } from '../domain/model.js';
import type { CommitFailedTest } from '../domain/target-health.js';

/** `new`: first seen in this run. */
export const LINKED_TEST_STATUSES = ['healthy', 'flaky', 'broken', 'new'] as const;
export type LinkedTestStatus = (typeof LINKED_TEST_STATUSES)[number];

export interface LinkedFailedTest {
  id: string;
  name: string;
  classname: string | null;
  file: string | null;
  /** Now. */
  status: LinkedTestStatus;
  quarantined: boolean;
  /** As things stood when the run started: a run's own failures never count for its decision. */
  before: { flaky: boolean; quarantined: boolean };
}

export interface RunTestResults {
  /** Linked uploads. */
  uploads: number;
  /** Test case runs in them, and how many failed. */
  runs: number;
  failed: number;
  failedTests: LinkedFailedTest[];
}

export interface RunTestResultsSource {
  /** Results linked to these runs, by run id; runs with nothing linked are absent. */
  resultsOf(orgId: string, repo: RepoRef, runs: readonly Pick<TestRun, 'id' | 'createdAt'>[]): Promise<Map<string, RunTestResults>>;
  /** Whether the repository uploads test results at all (only then does a failure wait for them). */
  uploadsResults(orgId: string, repo: RepoRef): Promise<boolean>;
  /** How each of these tests ended in the results uploaded for commit `sha`; absent: not run there, or no results. */
  outcomesAt(orgId: string, repo: RepoRef, sha: string, testIds: readonly string[]): Promise<Map<string, TestOutcome>>;
  /** The tests that failed in the results uploaded for commit `sha` (the target branch's head); null when none count for it. */
  failuresAt(orgId: string, repo: RepoRef, sha: string): Promise<CommitFailedTest[] | null>;
}

/** How a test ended on a commit: `passed` when an attempt passed (a pass on retry included). */
export type TestOutcome = 'passed' | 'failed';

/** No test results anywhere (a deployment without the flaky-tests side, unit tests). */
export const NO_TEST_RESULTS: RunTestResultsSource = {
  resultsOf: async () => new Map(),
  uploadsResults: async () => false,
  outcomesAt: async () => new Map(),
  failuresAt: async () => null,
};

/** How the failed tests of a run ended on other commits, by test id (absent: not run there). */
export interface OtherOutcomes {
  onTarget: ReadonlyMap<string, TestOutcome>;
  onHead: ReadonlyMap<string, TestOutcome>;
}

/** What the re-test decision and the verdict read of a run's results. */
function evidenceOf(results: RunTestResults | undefined, expected: boolean, outcomes: OtherOutcomes): RunTestEvidence {
  return {
    expected: expected || results !== undefined,
    uploads: results?.uploads ?? 0,
    runs: results?.runs ?? 0,
    failed: results?.failed ?? 0,
    failedTests: (results?.failedTests ?? []).map((t) => ({
      id: t.id,
      name: t.name,
      knownFlaky: t.before.flaky,
      quarantined: t.before.quarantined,
      onTarget: outcomes.onTarget.get(t.id) ?? null,
      onHead: outcomes.onHead.get(t.id) ?? null,
    })),
  };
}

/** The evidence of `run`: its linked results, and its failed tests' results on its target commit and on the head of `headSha` (a run of one pull request). */
export async function runEvidence(
  source: RunTestResultsSource,
  queue: Pick<Queue, 'orgId' | 'repo'>,
  run: Pick<TestRun, 'id' | 'createdAt' | 'targetSha'>,
  headSha: string | null,
  cache?: { results: Map<string, RunTestResults>; expected: boolean },
): Promise<RunTestEvidence> {
  const results = cache ? cache.results.get(run.id) : (await source.resultsOf(queue.orgId, queue.repo, [run])).get(run.id);
  const expected = cache ? cache.expected : await source.uploadsResults(queue.orgId, queue.repo);
  const ids = (results?.failedTests ?? []).map((t) => t.id);
  const [onTarget, onHead] = await Promise.all([
    source.outcomesAt(queue.orgId, queue.repo, run.targetSha, ids),
    headSha === null ? new Map<string, TestOutcome>() : source.outcomesAt(queue.orgId, queue.repo, headSha, ids),
  ]);
  return evidenceOf(results, expected, { onTarget, onHead });
}
