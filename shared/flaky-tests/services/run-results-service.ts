// The test results of merge-queue test runs (issue 12 §1): what the uploads linked to a run
// (test-run-links.ts) hold — counts, and each failed test with its status now and as it stood
// when the run started — and how given tests ended on a given commit (the target branch a run was
// built on, a pull request's own head), for the verdict on a failure. The merge queue reads it
// through its RunTestResultsSource port.
import { quarantineFactsOf } from './quarantine-facts.js';
import type { RepoRef } from '../../platform/repo-ref.js';
import { isQuarantined } from '../domain/detection/quarantine.js';
import type { HealthStatus } from '../domain/detection/types.js';
import type { CaseRunRepository } from '../store/case-run-repository.js';
import type { FlakyRepoRepository } from '../store/repo-settings-repository.js';
import type { TestCaseRepository } from '../store/test-case-repository.js';
import type { UploadRepository } from '../store/upload-repository.js';
import { caseIdOf, type FlakyRepo, type TestCase } from '../domain/model.js';

export interface RunFailedTest {
  id: string;
  name: string;
  classname: string | null;
  file: string | null;
  /** `new`: first seen by this run. */
  status: HealthStatus | 'new';
  quarantined: boolean;
  /** When the run started: the run's own failures never count for its re-test decision. */
  before: { flaky: boolean; quarantined: boolean };
}

export interface RunResults {
  uploads: number;
  runs: number;
  failed: number;
  failedTests: RunFailedTest[];
}

/** A test that failed in CI's results for a commit, and what was known of it before them. */
export interface CommitFailure {
  id: string;
  name: string;
  knownFlaky: boolean;
  quarantined: boolean;
}

export interface RunResultsRepositories {
  repos: Pick<FlakyRepoRepository, 'find'>;
  uploads: Pick<UploadRepository, 'linkedToRuns' | 'completeOfCommit'>;
  caseRuns: Pick<CaseRunRepository, 'failedIn' | 'outcomesIn'>;
  tests: Pick<TestCaseRepository, 'findByIds'>;
}

export class RunResultsService {
  constructor(private readonly deps: { store: RunResultsRepositories }) {}

  async resultsOf(orgId: string, repo: RepoRef, runs: readonly { id: string; createdAt: Date }[]): Promise<Map<string, RunResults>> {
    const out = new Map<string, RunResults>();
    const flakyRepo = await this.deps.store.repos.find(orgId, repo);
    if (!flakyRepo || runs.length === 0) return out;
    const uploads = (await this.deps.store.uploads.linkedToRuns(runs.map((r) => r.id))).filter((u) => u.repoId === flakyRepo.id);
    for (const run of runs) {
      const linked = uploads.filter((u) => u.testRunId === run.id);
      if (linked.length === 0) continue;
      const failed = await this.deps.store.caseRuns.failedIn(linked.map((u) => u.id));
      const tests = await this.deps.store.tests.findByIds(failed.map((f) => f.caseId));
      out.set(run.id, {
        uploads: linked.length,
        runs: linked.reduce((n, u) => n + u.counts.runs, 0),
        failed: linked.reduce((n, u) => n + u.counts.failed, 0),
        failedTests: tests.map((t) => failedTest(flakyRepo, t, run.createdAt)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      });
    }
    return out;
  }

  /** How each of these tests ended in the results CI uploaded for one commit; absent: not run there (or no results). */
  async outcomesAt(orgId: string, repo: RepoRef, sha: string, testIds: readonly string[]): Promise<Map<string, 'passed' | 'failed'>> {
    const out = new Map<string, 'passed' | 'failed'>();
    if (testIds.length === 0) return out;
    const flakyRepo = await this.deps.store.repos.find(orgId, repo);
    if (!flakyRepo) return out;
    const uploads = await this.deps.store.uploads.completeOfCommit(flakyRepo.id, sha);
    const byCase = await this.deps.store.caseRuns.outcomesIn(
      uploads.map((u) => u.id),
      testIds.map((id) => caseIdOf(flakyRepo.id, id)),
    );
    for (const id of testIds) {
      const outcome = byCase.get(caseIdOf(flakyRepo.id, id));
      if (outcome) out.set(id, outcome);
    }
    return out;
  }

  /**
   * The tests that failed (no attempt passed) in CI's results for one commit, each with whether
   * it was known flaky or quarantined before those results arrived (a failure on a stable branch
   * makes a test flaky: that failure must not excuse itself). Null when no results for the commit
   * count: none uploaded, or all excluded as an infrastructure failure.
   */
  async failuresAt(orgId: string, repo: RepoRef, sha: string): Promise<CommitFailure[] | null> {
    const flakyRepo = await this.deps.store.repos.find(orgId, repo);
    if (!flakyRepo) return null;
    const uploads = (await this.deps.store.uploads.completeOfCommit(flakyRepo.id, sha)).filter((u) => !u.excluded);
    if (uploads.length === 0) return null;
    const ids = uploads.map((u) => u.id);
    const failed = await this.deps.store.caseRuns.failedIn(ids);
    const outcomes = await this.deps.store.caseRuns.outcomesIn(
      ids,
      failed.map((f) => f.caseId),
    );
    const stillFailed = failed.filter((f) => outcomes.get(f.caseId) === 'failed');
    const firstResults = new Date(Math.min(...uploads.map((u) => u.receivedAt.getTime())));
    const tests = await this.deps.store.tests.findByIds(stillFailed.map((f) => f.caseId));
    return tests
      .map((t) => {
        const { before } = failedTest(flakyRepo, t, firstResults);
        return { id: t.testId, name: t.name, knownFlaky: before.flaky, quarantined: before.quarantined };
      })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Whether the repository has uploaded test results (its runs' failures wait for theirs). */
  async uploadsResults(orgId: string, repo: RepoRef): Promise<boolean> {
    return (await this.deps.store.repos.find(orgId, repo)) !== null;
  }
}

function failedTest(repo: FlakyRepo, t: TestCase, runStartedAt: Date): RunFailedTest {
  const before = statusAt(t, runStartedAt);
  return {
    id: t.testId,
    name: t.name,
    classname: t.classname,
    file: t.file,
    status: t.createdAt >= runStartedAt ? 'new' : t.status.value,
    quarantined: isQuarantined(repo.quarantine, quarantineFactsOf(t, new Date())),
    before: { flaky: before === 'flaky', quarantined: isQuarantined(repo.quarantine, quarantineFactsOf(t, runStartedAt, before ?? 'healthy')) },
  };
}

/** The test's status at `at` from its recorded changes; null when it was not known yet. */
function statusAt(t: TestCase, at: Date): HealthStatus | null {
  if (t.createdAt >= at) return null;
  const next = t.statusHistory.find((c) => c.at > at);
  return next ? next.from : t.status.value;
}
