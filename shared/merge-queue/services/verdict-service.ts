// The verdict on a failed pull request (domain/verdict.ts): gathers the evidence — the run that
// failed it, that run's linked test results, and the failed tests' results on the target branch
// commit the run was built on and on the pull request's own head — and decides.
import type { Entry, Queue, TestRun } from '../domain/model.js';
import { decideVerdict, failureEnding, verdictInputOf, type Verdict, type VerdictInput } from '../domain/verdict.js';
import type { MergeQueueRepositories } from '../store/store.js';
import { runEvidence, type RunTestResultsSource } from './run-test-results.js';

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

  /**
   * The verdict on a failed entry's failure, or the provisional one on the failed run an entry in
   * pending failure waits on (held ones included); null for other states and for failures no run
   * decided (a stack member removed, a merge refused).
   */
  async of(queue: Queue, entry: Entry): Promise<FailureVerdict | null> {
    if (entry.state === 'pending_failure') {
      const run = entry.currentRunId ? await this.deps.store.testRuns.findById(entry.currentRunId) : null;
      return run ? this.ofRun(queue, entry, run) : null;
    }
    if (entry.state !== 'failed') return null;
    const failure = entry.history.findLast((h) => h.to === 'failed');
    const ended = failure ? failureEnding(failure.reason) : undefined;
    if (!failure || !ended || !failure.testRunId) return null;
    const run = await this.deps.store.testRuns.findById(failure.testRunId);
    return run ? this.judge(queue, entry, run, ended) : null;
  }

  /**
   * The verdict on a failed run an entry waits on in pending failure: provisional, since the
   * entry may yet be re-tested, cleared by a failure ahead, or bisected. Null when the run did
   * not fail.
   */
  async ofRun(queue: Queue, entry: Entry, run: TestRun): Promise<FailureVerdict | null> {
    const ended = run.conclusionReason ? failureEnding(run.conclusionReason) : undefined;
    return ended ? this.judge(queue, entry, run, ended) : null;
  }

  private async judge(queue: Queue, entry: Entry, run: TestRun, ended: VerdictInput['ended']): Promise<FailureVerdict> {
    // The pull request's own head tells only for a run of that pull request alone.
    const head = run.entryIds.length === 1 ? entry.prSha : null;
    const evidence = await runEvidence(this.deps.testResults, queue, run, head);
    const interaction = entry.interaction?.togetherRunId === run.id ? entry.interaction : null;
    return { ...decideVerdict(verdictInputOf(evidence, ended, { targetSha: run.targetSha, targetBranch: queue.branch, interaction })), testRunId: run.id };
  }
}
