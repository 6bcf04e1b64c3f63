// What a GitHub webhook delivery triggers, by event. Nothing here decides anything about the
// queue: a change at the forge (pull request, push, installation) runs the existing sync of the
// queues of that repository, and a CI result on a commit (status, check run) is recorded through
// the same path as POST /v1/setCommitStatus (ci-results.ts). A lost delivery only delays: the
// poller and the read-back of CI results still run.
import type { Queue } from '../../merge-queue/domain/model.js';
import type { SyncService } from '../../merge-queue/services/sync-service.js';
import type { MergeQueueRepositories } from '../../merge-queue/store/store.js';
import { repoKey, type RepoRef } from '../../platform/repo-ref.js';
import type { GitHubCiResults } from './ci-results.js';
import { checkRunState, isStatusState } from '../../providers/github/commit-checks.js';
import type { GitHubClients } from '../../providers/github/github-client.js';
import type { CommandOutcome, GitHubPullRequestCommands } from './pull-request-commands.js';
import type { WebhookDelivery } from '../store/github-delivery-repository.js';
import type { PollStateRepository } from '../store/poll-state-repository.js';
import { COMMAND_MAX_AGE_MS, commandTimeOf } from '../domain/delivery-act-key.js';
import type { Logger } from '../../platform/logging.js';

/** The prefix of the queue's test branches: pushes to them are the queue's own. */
const TEST_BRANCH_REF = 'refs/heads/trunk-merge/';

/** Events whose only consequence is a sync of the repository's queues. */
const SYNC_EVENTS = new Set(['pull_request', 'push']);

/** Events about an installation: they name the repositories they concern in lists, not in `repository`. */
const INSTALLATION_EVENTS = new Set(['installation', 'installation_repositories']);
const INSTALLATION_LISTS = ['repositories', 'repositories_added', 'repositories_removed'] as const;

export interface WebhookEventDeps {
  store: { entries: Pick<MergeQueueRepositories['entries'], 'listActiveAll'>; queues: Pick<MergeQueueRepositories['queues'], 'findById'> };
  sync: Pick<SyncService, 'syncQueue'>;
  ciResults: Pick<GitHubCiResults, 'record' | 'readBack'>;
  clients: Pick<GitHubClients, 'forgetInstallation'>;
  /** Arrivals of deliveries: while they arrive, the poller polls the repository less often (poll-schedule.ts). */
  pollState: Pick<PollStateRepository, 'deliveryArrived'>;
  /** GITHUB_HOST: the `host` of the repositories named in payloads. */
  host: string;
  /** `/trunk` commands in pull request comments (issue_comment) and the enqueueing label (pull_request labeled / unlabeled). */
  commands: Pick<GitHubPullRequestCommands, 'comment' | 'label'>;
  logger: Logger;
}

interface RepositoryPayload {
  name?: unknown;
  owner?: { login?: unknown };
}

interface CheckRunPayload {
  id?: unknown;
  head_sha?: unknown;
  name?: unknown;
  status?: unknown;
  conclusion?: unknown;
  details_url?: unknown;
  html_url?: unknown;
  check_suite?: { id?: unknown } | null;
}

interface IssueCommentPayload {
  issue?: { number?: unknown; pull_request?: unknown };
  comment?: { id?: unknown; body?: unknown; user?: { login?: unknown; type?: unknown } | null };
}

interface LabelPayload {
  pull_request?: { number?: unknown; base?: { ref?: unknown } };
  label?: { name?: unknown };
  sender?: { login?: unknown; type?: unknown };
}

/** The outcome of one delivery, for logs and tests. */
export type WebhookOutcome = 'synced' | 'status_recorded' | CommandOutcome;

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
    const installationId = (payload.installation as { id?: unknown } | undefined)?.id;
    const repo = this.repoOf(payload);
    await this.deps.pollState.deliveryArrived(
      { repoKey: repo ? repoKey(repo) : null, installationId: typeof installationId === 'number' ? installationId : null },
      delivery.receivedAt,
    );
    if (INSTALLATION_EVENTS.has(delivery.event)) {
      // Repositories may have left (or joined) the installation: look them up again.
      if (typeof installationId === 'number') this.deps.clients.forgetInstallation(installationId);
      return this.syncInstallationRepositories(payload);
    }
    if (delivery.event === 'push' && typeof payload.ref === 'string' && payload.ref.startsWith(TEST_BRANCH_REF)) return 'ignored';
    const isLabel = delivery.event === 'pull_request' && (payload.action === 'labeled' || payload.action === 'unlabeled');
    if ((isLabel || delivery.event === 'issue_comment') && this.staleCommand(delivery, payload)) return 'ignored';
    if (isLabel && repo) return this.label(repo, payload.action as 'labeled' | 'unlabeled', payload as LabelPayload);
    if (SYNC_EVENTS.has(delivery.event) && repo) return this.syncRepository(repo);
    if (delivery.event === 'status' && repo) {
      const { sha, context, state, target_url: targetUrl, description } = payload;
      if (!isStatusState(state) || typeof sha !== 'string' || typeof context !== 'string') return 'ignored';
      const check = {
        context,
        state,
        targetUrl: typeof targetUrl === 'string' ? targetUrl : null,
        description: typeof description === 'string' ? description : null,
      };
      return this.recorded(await this.deps.ciResults.record(repo, sha, [check]));
    }
    if (delivery.event === 'check_run' && repo) {
      const run = payload.check_run as CheckRunPayload | undefined;
      if (!run || typeof run.head_sha !== 'string' || typeof run.name !== 'string' || typeof run.status !== 'string' || typeof run.id !== 'number')
        return 'ignored';
      const conclusion = typeof run.conclusion === 'string' ? run.conclusion : null;
      const state = checkRunState(run.status, conclusion);
      const detailsUrl = typeof run.details_url === 'string' ? run.details_url : null;
      const htmlUrl = typeof run.html_url === 'string' ? run.html_url : null;
      const suiteId = typeof run.check_suite?.id === 'number' ? run.check_suite.id : null;
      const checkRun = { checkRunId: run.id, suiteId, url: htmlUrl ?? detailsUrl ?? '', status: run.status, conclusion };
      return this.recorded(await this.deps.ciResults.record(repo, run.head_sha, [{ context: run.name, state, targetUrl: detailsUrl ?? htmlUrl, checkRun }]));
    }
    if (delivery.event === 'issue_comment' && repo) {
      const { issue, comment } = payload as IssueCommentPayload;
      const login = comment?.user?.login;
      if (typeof comment?.id !== 'number' || typeof comment.body !== 'string' || typeof login !== 'string') return 'ignored';
      // Comments on pull requests arrive as issue comments; `issue.pull_request` tells them apart.
      const prNumber = issue?.pull_request && typeof issue.number === 'number' ? issue.number : null;
      const userType = typeof comment.user?.type === 'string' ? comment.user.type : 'User';
      return this.deps.commands.comment({ repo, action: String(payload.action), prNumber, commentId: comment.id, body: comment.body, login, userType });
    }
    if (delivery.event === 'check_suite' && repo && payload.action === 'completed') {
      // A suite says its runs finished without naming them: read the commit's results back.
      const headSha = (payload.check_suite as { head_sha?: unknown } | undefined)?.head_sha;
      if (typeof headSha === 'string') return this.recorded(await this.deps.ciResults.readBack(repo, headSha));
    }
    return 'ignored';
  }

  /**
   * A command (comment or label) whose signed time is older than COMMAND_MAX_AGE_MS: a replay of
   * a captured body after its record expired, never something GitHub sends, so it does nothing.
   */
  private staleCommand(delivery: WebhookDelivery, payload: Record<string, unknown>): boolean {
    const at = commandTimeOf(delivery.event, payload);
    if (at === null || delivery.receivedAt.getTime() - at.getTime() <= COMMAND_MAX_AGE_MS) return false;
    this.deps.logger.warn(
      { deliveryId: delivery.id, event: delivery.event, signedAt: at.toISOString() },
      'GitHub command ignored: its event is older than a redelivery can be (a replay)',
    );
    return true;
  }

  /** The repositories an installation event names (added, removed or all of them): only their queues are synced. */
  private async syncInstallationRepositories(payload: Record<string, unknown>): Promise<WebhookOutcome> {
    const names = INSTALLATION_LISTS.flatMap((list) => (Array.isArray(payload[list]) ? (payload[list] as { full_name?: unknown }[]) : []))
      .map((r) => (typeof r.full_name === 'string' ? r.full_name.split('/') : []))
      .filter((parts): parts is [string, string] => parts.length === 2);
    let synced = false;
    for (const [owner, name] of names) synced = (await this.syncRepository({ host: this.deps.host, owner, name })) === 'synced' || synced;
    return synced ? 'synced' : 'ignored';
  }

  /**
   * The queue's enqueueing label is a command; any other label may be one of a schedule's
   * exception labels, so the repository's queued pull requests are read again.
   */
  private async label(repo: RepoRef, action: 'labeled' | 'unlabeled', payload: LabelPayload): Promise<WebhookOutcome> {
    const { pull_request: pull, label, sender } = payload;
    if (typeof pull?.number !== 'number' || typeof pull.base?.ref !== 'string' || typeof label?.name !== 'string' || typeof sender?.login !== 'string')
      return 'ignored';
    const userType = typeof sender.type === 'string' ? sender.type : 'User';
    const outcome = await this.deps.commands.label({
      repo,
      action,
      prNumber: pull.number,
      baseBranch: pull.base.ref,
      label: label.name,
      login: sender.login,
      userType,
    });
    return outcome === 'ignored' ? this.syncRepository(repo) : outcome;
  }

  private recorded(count: number): WebhookOutcome {
    return count > 0 ? 'status_recorded' : 'ignored';
  }

  private async syncRepository(repo: RepoRef): Promise<WebhookOutcome> {
    // SyncService has no entry point per repository: each of its queues is synced on its own.
    const queues = await this.activeQueuesOf(repo);
    for (const queue of queues) await this.deps.sync.syncQueue(queue);
    return queues.length > 0 ? 'synced' : 'ignored';
  }
}
