// getMergeQueueTestingDetails: what one test run tests, on which branch, and what CI reported.
import type { Entry, Queue, TestRun } from '../domain/model.js';
import type { RepoRef } from '../../platform/repo-ref.js';
import { repoKey } from '../../platform/repo-ref.js';
import { runImpactedTargets, type RunImpactedTargets } from '../domain/run-impacted-targets.js';
import type { ImpactedTargetSet } from '../domain/planner/index.js';
import { notFound } from '../../platform/errors.js';
import type { MergeQueueRepositories } from '../store/store.js';
import { headKey } from '../store/impacted-targets-repository.js';
import type { CommitStatus } from '../store/commit-status-repository.js';
import type { QueueService } from './queue-service.js';
import type { RunTestResults, RunTestResultsSource } from './run-test-results.js';

/** One check run of a check suite, with the forge's own status and conclusion (lower case). */
export interface CheckRunReport {
  name: string;
  url: string;
  status: string;
  conclusion: string | null;
}

/** Check suites reported on a commit; forges without them (local repositories) report none. */
export type CheckSuiteSource = (repo: RepoRef, sha: string) => Promise<{ checkRuns: CheckRunReport[] }[]>;

export interface TestingDetails {
  queue: Queue;
  run: TestRun;
  tested: Entry[];
  base: Entry[];
  statuses: CommitStatus[];
  checkSuites: { checkRuns: CheckRunReport[] }[];
  /** Parallel-mode fields, present only when targets were uploaded for the run's entries. */
  targets: RunImpactedTargets;
  /** JUnit results linked to the run; null when none is. */
  testResults: RunTestResults | null;
}

export class TestingDetailsService {
  constructor(
    private readonly deps: {
      store: Pick<MergeQueueRepositories, 'testRuns' | 'entries' | 'commitStatuses' | 'impactedTargets'>;
      queues: QueueService;
      testResults: RunTestResultsSource;
      checkSuites: CheckSuiteSource;
    },
  ) {}

  async get(orgId: string, repo: RepoRef, branch: string, testRunId: string): Promise<TestingDetails> {
    const queue = await this.deps.queues.get(orgId, repo, branch);
    const run = await this.deps.store.testRuns.findById(testRunId);
    if (!run || run.queueId !== queue.id) throw notFound('test_run_not_found', `no test run ${testRunId} in this queue`);
    const entries = await this.deps.store.entries.findByIds([...run.entryIds, ...run.baseEntryIds]);
    const byId = new Map(entries.map((e) => [e.id, e]));
    const pick = (ids: string[]) => ids.map((id) => byId.get(id)).filter((e): e is Entry => e !== undefined);
    const statuses = run.sha ? await this.deps.store.commitStatuses.forCommit(orgId, repoKey(repo), run.sha) : [];
    const checkSuites = run.sha ? await this.deps.checkSuites(queue.repo, run.sha) : [];
    // Targets of the head each entry was tested at (an entry's prSha changes only when a stack
    // member is pushed to; its earlier, cancelled runs then show its new head's targets).
    const heads = new Map(entries.map((e) => [e.id, { prNumber: e.prNumber, sha: e.prSha }]));
    const uploads: ReadonlyMap<string, ImpactedTargetSet> = await this.deps.store.impactedTargets.getMany(queue.id, [...heads.values()]);
    const targets = runImpactedTargets(run.baseEntryIds, run.entryIds, (id) => {
      const head = heads.get(id);
      return (head && uploads.get(headKey(head))) ?? null;
    });
    const testResults = (await this.deps.testResults.resultsOf(orgId, repo, [run])).get(run.id) ?? null;
    return { queue, run, tested: pick(run.entryIds), base: pick(run.baseEntryIds), statuses, checkSuites, targets, testResults };
  }
}
