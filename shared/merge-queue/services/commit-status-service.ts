// setCommitStatus: records a CI status on a commit and concludes the test runs it decides.
import { randomUUID } from 'node:crypto';
import type { StatusState, TestRun } from '../domain/model.js';
import type { RepoRef } from '../../repo-ref.js';
import type { CommitStatus } from '../store/commit-status-repository.js';
import { repoKey } from '../../repo-ref.js';
import { evaluateRequiredStatuses } from '../domain/required-statuses.js';
import { notFound } from '../../errors.js';
import type { Store } from '../store/store.js';
import type { ProviderRegistry } from '../../providers/provider.js';
import type { Logger } from '../../logging.js';

export interface CommitStatusInput {
  repo: RepoRef;
  sha: string;
  context: string;
  state: StatusState;
  targetUrl?: string | undefined;
  description?: string | undefined;
}

export interface CommitStatusServiceDeps {
  store: Store;
  providers: ProviderRegistry;
  logger: Logger;
  requestPlan: (queueId: string, why: string) => Promise<void>;
}

export class CommitStatusService {
  constructor(private readonly deps: CommitStatusServiceDeps) {}

  async record(orgId: string, input: CommitStatusInput, now = new Date()): Promise<void> {
    const provider = await this.deps.providers.providerFor(input.repo);
    if (!provider) {
      throw notFound('repository_not_found', `repository ${input.repo.host}/${input.repo.owner}/${input.repo.name} was not found`);
    }
    const key = repoKey(input.repo);
    const sha = input.sha.toLowerCase();
    await this.deps.store.commitStatuses.add({
      id: randomUUID(),
      orgId,
      repoKey: key,
      sha,
      context: input.context,
      state: input.state,
      targetUrl: input.targetUrl ?? null,
      description: input.description ?? null,
      createdAt: now,
    });
    this.deps.logger.info({ sha, context: input.context, state: input.state }, 'commit status recorded');
    await this.evaluateRunsOf(orgId, key, sha);
  }

  /** Concludes every in-progress run of this commit that its statuses now decide. */
  async evaluateRunsOf(orgId: string, key: string, sha: string): Promise<void> {
    const runs = (await this.deps.store.testRuns.findInProgressBySha(sha)).filter((r) => r.orgId === orgId);
    if (runs.length === 0) return;
    const statuses = await this.deps.store.commitStatuses.forCommit(orgId, key, sha);
    for (const run of runs) await this.conclude(run, statuses);
  }

  /** Concludes a freshly built run at once when CI already reported on its commit. */
  async evaluateRun(run: TestRun): Promise<void> {
    if (!run.sha) return;
    const queue = await this.deps.store.queues.findById(run.queueId);
    if (!queue) return;
    await this.conclude(run, await this.deps.store.commitStatuses.forCommit(run.orgId, repoKey(queue.repo), run.sha));
  }

  private async conclude(run: TestRun, statuses: CommitStatus[]): Promise<void> {
    const verdict = evaluateRequiredStatuses(
      run.requiredStatuses,
      statuses.map((s) => ({ context: s.context, state: s.state, at: s.createdAt })),
    );
    if (verdict === 'pending') return;
    const concluded = await this.deps.store.testRuns.conclude(
      run.id,
      verdict === 'success' ? 'succeeded' : 'failed',
      verdict === 'success' ? 'test_run_passed' : 'test_run_failed',
    );
    if (concluded) {
      this.deps.logger.info({ testRunId: run.id, status: concluded.status }, 'test run concluded by commit statuses');
      await this.deps.requestPlan(run.queueId, `test run ${run.id} ${concluded.status}`);
    }
  }
}
