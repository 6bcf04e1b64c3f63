// Links test results to test runs (issue 12 §1): the flaky-tests side asks which run of the
// uploading organisation and repository has the uploaded commit as its test branch head, and
// says when results for a run were stored, so a failed run waiting for them is decided at once,
// and when results for a target branch's commit were stored, so its queue reads its health.
import type { RepoRef } from '../../platform/repo-ref.js';
import { repoKey } from '../../platform/repo-ref.js';
import type { MergeQueueRepositories } from '../store/store.js';

export interface TestRunLinkServiceDeps {
  store: Pick<MergeQueueRepositories, 'testRuns' | 'queues'>;
  requestPlan: (queueId: string, why: string) => Promise<void>;
}

export class TestRunLinkService {
  constructor(private readonly deps: TestRunLinkServiceDeps) {}

  async find(orgId: string, repo: RepoRef, sha: string): Promise<{ testRunId: string; queueId: string; tree: string | null } | null> {
    for (const run of await this.deps.store.testRuns.findBySha(sha)) {
      if (run.orgId !== orgId) continue;
      const queue = await this.deps.store.queues.findById(run.queueId);
      if (queue && repoKey(queue.repo) === repoKey(repo)) return { testRunId: run.id, queueId: run.queueId, tree: run.tree ?? null };
    }
    return null;
  }

  async resultsStored(link: { testRunId: string; queueId: string }): Promise<void> {
    await this.deps.requestPlan(link.queueId, `test results of test run ${link.testRunId} stored`);
  }

  /** Results for the head of a queue's target branch may break it or make it green (domain/target-health.ts). */
  async branchResultsStored(orgId: string, repo: RepoRef, branch: string, sha: string): Promise<void> {
    const queue = await this.deps.store.queues.find(orgId, repo, branch);
    if (queue) {
      await this.deps.requestPlan(queue.id, `test results for ${branch} at ${sha.slice(0, 12)} stored`);
    }
  }
}
