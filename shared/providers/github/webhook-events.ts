// What a GitHub webhook delivery triggers, by event. Nothing here decides anything about the
// queue: a change at the forge (pull request, push, installation) runs the existing sync of the
// queues of that repository, and a CI result on a commit (status, check run) is recorded through
// the same path as POST /v1/setCommitStatus. A lost delivery only delays: the poller still runs.
import { STATUS_STATES, type Queue, type StatusState } from '../../merge-queue/domain/model.js';
import type { CommitStatusService } from '../../merge-queue/services/commit-status-service.js';
import type { SyncService } from '../../merge-queue/services/sync-service.js';
import type { Store } from '../../merge-queue/store/store.js';
import type { Logger } from '../../logging.js';
import { repoKey, type RepoRef } from '../../repo-ref.js';
import type { GitHubClients } from './github-client.js';
import type { WebhookDelivery } from './webhook-delivery-repository.js';

/** The prefix of the queue's test branches: pushes to them are the queue's own. */
const TEST_BRANCH_REF = 'refs/heads/trunk-merge/';

/** Events whose only consequence is a sync of the repository's queues. */
const SYNC_EVENTS = new Set(['pull_request', 'push', 'installation_repositories']);

export interface WebhookEventDeps {
  store: Store;
  sync: SyncService;
  commitStatuses: CommitStatusService;
  clients: GitHubClients;
  /** GITHUB_HOST: the `host` of the repositories named in payloads. */
  host: string;
  logger: Logger;
}

interface RepositoryPayload {
  name?: unknown;
  owner?: { login?: unknown };
}

/** The outcome of one delivery, for logs and tests. */
export type WebhookOutcome = 'synced' | 'status_recorded' | 'ignored';

/** A check run's conclusion as a commit status state (GitHub's own mapping for required checks). */
export function checkRunState(status: string, conclusion: string | null): StatusState {
  if (status !== 'completed') return 'pending';
  if (conclusion === 'success' || conclusion === 'neutral' || conclusion === 'skipped') return 'success';
  if (conclusion === 'cancelled' || conclusion === 'stale') return 'error';
  return 'failure';
}

export class GitHubWebhookEvents {
  constructor(private readonly deps: WebhookEventDeps) {}

  private repoOf(payload: Record<string, unknown>): RepoRef | null {
    const repository = payload.repository as RepositoryPayload | undefined;
    const owner = repository?.owner?.login;
    const name = repository?.name;
    if (typeof owner !== 'string' || typeof name !== 'string') return null;
    return { host: this.deps.host, owner, name };
  }

  /** Queues of this repository that have pull requests in them (of any organisation): the ones a change can affect. */
  private async activeQueuesOf(repo: RepoRef): Promise<Queue[]> {
    const key = repoKey(repo);
    const queueIds = [...new Set((await this.deps.store.entries.listActiveAll()).map((e) => e.queueId))];
    const queues = await Promise.all(queueIds.map((id) => this.deps.store.queues.findById(id)));
    return queues.filter((q): q is Queue => q !== null && repoKey(q.repo) === key);
  }

  async handle(delivery: WebhookDelivery): Promise<WebhookOutcome> {
    const payload = (delivery.payload ?? {}) as Record<string, unknown>;
    if (delivery.event === 'installation' || delivery.event === 'installation_repositories') {
      const id = (payload.installation as { id?: unknown } | undefined)?.id;
      // Repositories may have left (or joined) the installation: look them up again.
      if (typeof id === 'number') this.deps.clients.forgetInstallation(id);
    }
    const repo = this.repoOf(payload);
    if (delivery.event === 'push' && typeof payload.ref === 'string' && payload.ref.startsWith(TEST_BRANCH_REF)) return 'ignored';
    if (SYNC_EVENTS.has(delivery.event) && repo) return this.syncRepository(repo);
    if (delivery.event === 'installation') {
      await this.deps.sync.syncAll();
      return 'synced';
    }
    if (delivery.event === 'status' && repo) {
      const state = payload.state as StatusState;
      if (!(STATUS_STATES as readonly string[]).includes(state) || typeof payload.sha !== 'string' || typeof payload.context !== 'string') return 'ignored';
      return this.recordStatus(repo, payload.sha, payload.context, state, payload.target_url, payload.description);
    }
    if (delivery.event === 'check_run' && repo) {
      const run = payload.check_run as { head_sha?: unknown; name?: unknown; status?: unknown; conclusion?: unknown; html_url?: unknown } | undefined;
      if (!run || typeof run.head_sha !== 'string' || typeof run.name !== 'string' || typeof run.status !== 'string') return 'ignored';
      const state = checkRunState(run.status, typeof run.conclusion === 'string' ? run.conclusion : null);
      return this.recordStatus(repo, run.head_sha, run.name, state, run.html_url, undefined);
    }
    return 'ignored';
  }

  private async syncRepository(repo: RepoRef): Promise<WebhookOutcome> {
    // SyncService has no entry point per repository: each of its queues is synced on its own.
    const queues = await this.activeQueuesOf(repo);
    for (const queue of queues) await this.deps.sync.syncQueue(queue);
    return queues.length > 0 ? 'synced' : 'ignored';
  }

  /** Only commits that are the head of a test run in progress matter; anything else is CI on pull requests or branches. */
  private async recordStatus(repo: RepoRef, sha: string, context: string, state: StatusState, targetUrl: unknown, description: unknown): Promise<WebhookOutcome> {
    const key = repoKey(repo);
    const runs = await this.deps.store.testRuns.findInProgressBySha(sha.toLowerCase());
    const queues = await Promise.all([...new Set(runs.map((r) => r.queueId))].map((id) => this.deps.store.queues.findById(id)));
    const owners = [...new Set(queues.filter((q): q is Queue => q !== null && repoKey(q.repo) === key).map((q) => q.orgId))];
    for (const orgId of owners) {
      await this.deps.commitStatuses.record(orgId, {
        repo,
        sha,
        context,
        state,
        targetUrl: typeof targetUrl === 'string' ? targetUrl : undefined,
        description: typeof description === 'string' ? description.slice(0, 1000) : undefined,
      });
    }
    return owners.length > 0 ? 'status_recorded' : 'ignored';
  }
}
