// CI results on test branch heads, as GitHub knows them: commit statuses and check runs. They
// arrive as `status` / `check_run` webhooks; because GitHub never redelivers a lost delivery,
// they are also read back from GitHub — when a `check_suite` completes, and periodically for runs
// that have waited a while — and recorded through the same path as POST /v1/setCommitStatus.
import type { Queue, StatusState } from '../../merge-queue/domain/model.js';
import type { CommitCheck } from '../../providers/github/commit-checks.js';
import type { CommitStatusService } from '../../merge-queue/services/commit-status-service.js';
import type { MergeQueueRepositories } from '../../merge-queue/store/store.js';
import type { Logger } from '../../platform/logging.js';
import { repoKey, type RepoRef } from '../../platform/repo-ref.js';
import { httpLinkOrNull } from '../../platform/http-link.js';
import type { GitHubApi } from '../../providers/github/github-api.js';
import type { CheckRunRepository } from '../store/check-run-repository.js';

/** Runs waiting this long without a result are read back from GitHub. */
export const READ_BACK_AFTER_MS = 120_000;

export interface CiResultsDeps {
  store: Pick<MergeQueueRepositories, 'queues' | 'testRuns' | 'commitStatuses'>;
  checkRuns: CheckRunRepository;
  commitStatuses: CommitStatusService;
  api: GitHubApi;
  logger: Logger;
}

export class GitHubCiResults {
  constructor(private readonly deps: CiResultsDeps) {}

  /** The queues (with their organisations) whose runs in progress are testing this commit of this repository. */
  private async queuesTesting(repo: RepoRef, sha: string): Promise<Queue[]> {
    const key = repoKey(repo);
    const runs = await this.deps.store.testRuns.findInProgressBySha(sha.toLowerCase());
    const queues = await Promise.all([...new Set(runs.map((r) => r.queueId))].map((id) => this.deps.store.queues.findById(id)));
    return queues.filter((q): q is Queue => q !== null && repoKey(q.repo) === key);
  }

  /**
   * Records results on a commit for every organisation testing it, skipping those already
   * recorded with the same state. Returns how many were recorded.
   */
  async record(repo: RepoRef, sha: string, checks: readonly CommitCheck[]): Promise<number> {
    let recorded = 0;
    const orgIds = [...new Set((await this.queuesTesting(repo, sha)).map((q) => q.orgId))];
    if (orgIds.length > 0) {
      // GitHub relays what CI set (a status's target_url, a check run's details_url): only http(s) links are kept.
      for (const check of checks) {
        if (check.checkRun)
          await this.deps.checkRuns.record(repoKey(repo), sha.toLowerCase(), {
            ...check.checkRun,
            url: httpLinkOrNull(check.checkRun.url) ?? '',
            name: check.context,
          });
      }
    }
    for (const orgId of orgIds) {
      const known = new Map<string, StatusState>();
      for (const s of await this.deps.store.commitStatuses.forCommit(orgId, repoKey(repo), sha.toLowerCase())) known.set(s.context, s.state);
      for (const check of checks) {
        if (known.get(check.context) === check.state) continue;
        await this.deps.commitStatuses.record(orgId, {
          repo,
          sha,
          context: check.context,
          state: check.state,
          targetUrl: check.targetUrl ?? undefined,
          description: check.description?.slice(0, 1000) ?? undefined,
        });
        known.set(check.context, check.state);
        recorded++;
      }
    }
    return recorded;
  }

  /** Reads a commit's statuses and check runs from GitHub and records what is new. */
  async readBack(repo: RepoRef, sha: string): Promise<number> {
    if ((await this.queuesTesting(repo, sha)).length === 0) return 0;
    return this.record(repo, sha, await this.deps.api.commitChecks(repo, sha));
  }

  /** The fallback for lost deliveries: reads back every GitHub run that has waited READ_BACK_AFTER_MS. */
  async readBackWaitingRuns(now = new Date()): Promise<number> {
    let recorded = 0;
    for (const queueId of await this.deps.store.testRuns.queueIdsWithOpenRuns()) {
      const queue = await this.deps.store.queues.findById(queueId);
      if (!queue || !this.deps.api.serves(queue.repo)) continue;
      for (const run of await this.deps.store.testRuns.listOpen(queueId)) {
        if (run.status !== 'in_progress' || !run.sha || now.getTime() - run.createdAt.getTime() < READ_BACK_AFTER_MS) continue;
        try {
          recorded += await this.readBack(queue.repo, run.sha);
        } catch (err) {
          this.deps.logger.warn({ err, testRunId: run.id }, 'CI results could not be read back from GitHub; tried again next period');
        }
      }
    }
    return recorded;
  }
}
