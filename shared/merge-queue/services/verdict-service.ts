// The verdict on a failed pull request (domain/verdict.ts): gathers the evidence — the run that
// failed it, that run's linked test results, and the failed tests' results on the target branch
// commit the run was built on and on the pull request's own head — and decides.
import type { Entry, Queue, Reason, TestRun } from '../domain/model.js';
import { decideVerdict, type Verdict, type VerdictInput } from '../domain/verdict.js';
import type { MergeQueueRepositories } from '../store/store.js';
import type { RunTestResultsSource } from './run-test-results.js';

/** Failures a verdict speaks to: a run of the pull request failed, timed out or could not be built. */
const JUDGED: Partial<Record<Reason, VerdictInput['ended']>> = {
  test_run_required_status_failed: 'failed',
  test_run_failed: 'failed',
  test_run_timeout: 'timed_out',
  start_test_run_merge_conflict: 'merge_conflict',
};

/** A verdict and the run it judged. */
export interface FailureVerdict extends Verdict {
  testRunId: string;
}

export class VerdictService {
  constructor(
    private readonly deps: {
      store: Pick<MergeQueueRepositories, 'testRuns'>;
      testResults: RunTestResultsSource;
    },
  ) {}

  /** The verdict on a failed entry's failure; null for other states and for failures no run decided (a stack member removed, a merge refused). */
  async of(queue: Queue, entry: Entry): Promise<FailureVerdict | null> {
    if (entry.state !== 'failed') return null;
    const failure = entry.history.findLast((h) => h.to === 'failed');
    const ended = failure ? JUDGED[failure.reason] : undefined;
    if (!failure || !ended || !failure.testRunId) return null;
    const run = await this.deps.store.testRuns.findById(failure.testRunId);
    if (!run) return null;
    return { ...decideVerdict(await this.evidence(queue, entry, run, ended)), testRunId: run.id };
  }

  private async evidence(queue: Queue, entry: Entry, run: TestRun, ended: VerdictInput['ended']): Promise<VerdictInput> {
    const source = this.deps.testResults;
    const [linked, expectsResults] = await Promise.all([source.resultsOf(queue.orgId, queue.repo, [run]), source.uploadsResults(queue.orgId, queue.repo)]);
    const results = linked.get(run.id) ?? null;
    const ids = (results?.failedTests ?? []).map((t) => t.id);
    const [onTarget, onHead] = await Promise.all([
      source.outcomesAt(queue.orgId, queue.repo, run.targetSha, ids),
      source.outcomesAt(queue.orgId, queue.repo, entry.prSha, ids),
    ]);
    return {
      ended,
      expectsResults,
      targetSha: run.targetSha,
      targetBranch: queue.branch,
      results: results && {
        runs: results.runs,
        failed: results.failed,
        failedTests: results.failedTests.map((t) => ({
          id: t.id,
          name: t.name,
          knownFlaky: t.before.flaky,
          quarantined: t.before.quarantined,
          onTarget: onTarget.get(t.id) ?? null,
          onHead: onHead.get(t.id) ?? null,
        })),
      },
    };
  }
}
