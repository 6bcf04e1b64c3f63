// setCommitStatus: records a CI status on a commit and concludes the test runs it decides.
import { randomUUID } from 'node:crypto';
import type { StatusState, TestRun } from '../domain/model.js';
import type { RepoRef } from '../../platform/repo-ref.js';
import type { CommitStatus } from '../store/commit-status-repository.js';
import { repoKey } from '../../platform/repo-ref.js';
import { evaluateRequiredStatuses } from '../domain/required-statuses.js';
import { repositoryNotFound } from '../../platform/errors.js';
import type { MergeQueueRepositories } from '../store/store.js';
import type { Logger } from '../../platform/logging.js';
import type { StatusWatchService } from './status-watch-service.js';
import { httpLinkOrNull } from '../../platform/http-link.js';

export interface CommitStatusInput {
  repo: RepoRef;
  sha: string;
  context: string;
  state: StatusState;
  targetUrl?: string | undefined;
  description?: string | undefined;
}

export interface CommitStatusServiceDeps {
  store: Pick<MergeQueueRepositories, 'queues' | 'testRuns' | 'commitStatuses'>;
  logger: Logger;
  requestPlan: (queueId: string, why: string) => Promise<void>;
  statusWatch: Pick<StatusWatchService, 'statusReported'>;
}

export class CommitStatusService {
  constructor(private readonly deps: CommitStatusServiceDeps) {}

  /**
   * Records the status and concludes the runs of this commit it decides. A repository is the
   * caller's when its organisation has a merge queue on it; any other (unknown, or another
   * organisation's) is a 404, like every other resource of another organisation.
   */
  async record(orgId: string, input: CommitStatusInput, now = new Date()): Promise<void> {
    const queues = await this.deps.store.queues.listRefs(orgId, input.repo);
    if (queues.length === 0) throw repositoryNotFound(input.repo);
    const key = repoKey(input.repo);
    const sha = input.sha.toLowerCase();
    await this.deps.store.commitStatuses.add({
      id: randomUUID(),
      orgId,
      repoKey: key,
      sha,
      context: input.context,
      state: input.state,
      targetUrl: httpLinkOrNull(input.targetUrl),
      description: input.description ?? null,
      createdAt: now,
    });
    this.deps.logger.info({ sha, context: input.context, state: input.state }, 'commit status recorded');
    const runs = (await this.deps.store.testRuns.findInProgressBySha(sha)).filter((r) => r.orgId === orgId);
    if (runs.length === 0) return;
    await this.deps.statusWatch.statusReported(runs, input.context);
    const statuses = await this.deps.store.commitStatuses.forCommit(orgId, key, sha);
    for (const run of runs) {
      const concluded = await this.conclude(run, statuses);
      if (concluded) await this.deps.requestPlan(run.queueId, `test run ${run.id} ${concluded.status}`);
    }
  }

  /**
   * Concludes a freshly built run at once when CI already reported on its commit. Called by the
   * planning pass that built it, which goes on with the verdict itself: no other pass is asked for.
   */
  async evaluateRun(run: TestRun, repo: RepoRef): Promise<TestRun | null> {
    if (!run.sha) return null;
    return this.conclude(run, await this.deps.store.commitStatuses.forCommit(run.orgId, repoKey(repo), run.sha));
  }

  private async conclude(run: TestRun, statuses: CommitStatus[]): Promise<TestRun | null> {
    const verdict = evaluateRequiredStatuses(
      run.requiredStatuses,
      statuses.map((s) => ({ context: s.context, state: s.state, at: s.createdAt })),
    );
    if (verdict === 'pending') return null;
    const concluded = await this.deps.store.testRuns.conclude(
      run.id,
      verdict === 'success' ? 'succeeded' : 'failed',
      verdict === 'success' ? 'test_run_passed' : 'test_run_failed',
    );
    if (concluded) this.deps.logger.info({ testRunId: run.id, status: concluded.status }, 'test run concluded by commit statuses');
    return concluded;
  }
}
