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
      uploads,
      testIds.map((id) => caseIdOf(flakyRepo.id, id)),
    );
    for (const id of testIds) {
      const outcome = byCase.get(caseIdOf(flakyRepo.id, id));
      if (outcome) out.set(id, outcome);
    }
    return out;
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
