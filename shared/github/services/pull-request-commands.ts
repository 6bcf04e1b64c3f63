// What people ask of the queue on a GitHub pull request itself, through webhooks:
// - commandsEnabled: `/trunk merge [--priority=…]` and `/trunk cancel` in a new comment
//   (issue_comment); a command carried out gets a 👍 reaction;
// - enqueueingLabel: adding the queue's label submits the pull request, removing it cancels it
//   (pull_request labeled / unlabeled).
// Either acts on the queue of the pull request's base branch (for a stack member, of the branch at
// the bottom of its stack) in the repository's owning organisation, through the same use cases as
// submitPullRequest and cancelPullRequest, as the person with their permission on the repository
// (read from GitHub each time): the use cases' policy decides (write to submit or cancel, admin or maintain for urgent). A request that is not
// carried out gets a reply saying why (no permission, unknown command, no queue, or the use
// case's own error). Bots, edited comments and repositories no organisation has claimed are never
// heard, so the service cannot answer itself, an edit does not act twice, and a comment or label
// meant for another tool gets no answer.
import { byHeadBranch, stackBottomBranch } from '../../merge-queue/domain/stack.js';
import { AppError } from '../../platform/errors.js';
import type { Logger } from '../../platform/logging.js';
import type { Queue } from '../../merge-queue/domain/model.js';
import type { PullRequestService } from '../../merge-queue/services/pull-request-service.js';
import type { QueueRepository } from '../../merge-queue/store/queue-repository.js';
import type { RepoRef } from '../../platform/repo-ref.js';
import type { ForgeUserActor } from '../../platform/accounts/actor.js';
import { RoleRefused } from '../../platform/accounts/policy.js';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { codeSpan, COMMAND_USAGE, parseCommentCommand } from '../domain/comment-command.js';
import type { GitHubProvider } from '../../providers/github/github-provider.js';
import type { GitHubApi } from '../../providers/github/github-api.js';
import type { RepositoryOwners } from '../store/repository-owners.js';

export interface PullRequestCommandsDeps {
  owners: Pick<RepositoryOwners, 'find'>;
  queues: Pick<QueueRepository, 'find'>;
  pullRequests: Pick<PullRequestService, 'submit' | 'cancel'>;
  provider: Pick<GitHubProvider, 'getPullRequest' | 'listOpenPullRequests'>;
  api: Pick<GitHubApi, 'permissionOf' | 'reactToComment' | 'upsertComment'>;
  logger: Logger;
}

/** Who acted, and whether GitHub calls the account a `User`, a `Bot` or an `Organization`. */
interface Sender {
  login: string;
  userType: string;
}

/** What an issue_comment delivery carries that a command needs. */
export interface CommentDelivery extends Sender {
  repo: RepoRef;
  action: string;
  /** Null for a comment on an issue that is not a pull request. */
  prNumber: number | null;
  commentId: number;
  body: string;
}

/** What a pull_request labeled / unlabeled delivery carries. */
export interface LabelDelivery extends Sender {
  repo: RepoRef;
  action: 'labeled' | 'unlabeled';
  prNumber: number;
  baseBranch: string;
  label: string;
}

export type CommandOutcome = 'command_done' | 'command_refused' | 'ignored';

type QueueAction = { kind: 'merge'; priority: string | number | undefined } | { kind: 'cancel' };

/** A request on one pull request: `text` quotes it in replies, `via` names it in the entry's history. */
interface Request extends Sender {
  source: 'comment' | 'label';
  repo: RepoRef;
  prNumber: number;
  text: string;
  via: string;
}

/** Cancelling what is not queued any more: removing the label from a merged or failed pull request is no request. */
const NOT_QUEUED = ['pr_not_active', 'pull_request_not_submitted'];

/**
 * Replies one person gets on one pull request per REPLY_WINDOW_SECONDS (per worker process): each
 * refusal costs the installation API calls, and anyone may comment on a public repository.
 */
export const REPLIES_PER_WINDOW = 3;
export const REPLY_WINDOW_SECONDS = 600;

export class GitHubPullRequestCommands {
  private readonly replies = new RateLimiterMemory({ points: REPLIES_PER_WINDOW, duration: REPLY_WINDOW_SECONDS });

  constructor(private readonly deps: PullRequestCommandsDeps) {}

  async comment(delivery: CommentDelivery): Promise<CommandOutcome> {
    const { prNumber } = delivery;
    if (delivery.action !== 'created' || prNumber === null || delivery.userType === 'Bot') return 'ignored';
    const command = parseCommentCommand(delivery.body);
    if (!command) return 'ignored';
    const owner = await this.deps.owners.find(delivery.repo);
    if (!owner) return 'ignored';
    const pr = await this.deps.provider.getPullRequest(delivery.repo, prNumber);
    if (!pr) return 'ignored';
    const request: Request = { ...delivery, source: 'comment', prNumber, text: codeSpan(command.text), via: `comment ${delivery.commentId}` };
    const branch = pr.baseBranch ?? '';
    const queue = await this.queueOf(owner.orgId, delivery.repo, branch);
    if (!queue) return this.refuse(request, `${request.text}: there is no merge queue for ${codeSpan(branch)}, the base branch of #${prNumber}.`);
    if (!queue.commandsEnabled) return 'ignored';
    if (command.kind === 'unknown') return this.refuse(request, `${command.problem}. Use ${COMMAND_USAGE}.`);
    const outcome = await this.run(queue, request, command.kind === 'merge' ? { kind: 'merge', priority: command.priority } : { kind: 'cancel' });
    if (outcome === 'command_done') await this.deps.api.reactToComment(delivery.repo, delivery.commentId, '+1');
    return outcome;
  }

  async label(delivery: LabelDelivery): Promise<CommandOutcome> {
    if (delivery.userType === 'Bot') return 'ignored';
    const owner = await this.deps.owners.find(delivery.repo);
    if (!owner) return 'ignored';
    const queue = await this.queueOf(owner.orgId, delivery.repo, delivery.baseBranch);
    // GitHub's label names are unique regardless of letter case.
    if (!queue?.enqueueingLabel || queue.enqueueingLabel.toLowerCase() !== delivery.label.toLowerCase()) return 'ignored';
    const verb = delivery.action === 'labeled' ? 'adding' : 'removing';
    const request: Request = {
      ...delivery,
      source: 'label',
      text: `${verb} the label ${codeSpan(queue.enqueueingLabel)}`,
      via: `label ${queue.enqueueingLabel} ${delivery.action}`,
    };
    return this.run(queue, request, delivery.action === 'labeled' ? { kind: 'merge', priority: undefined } : { kind: 'cancel' });
  }

  /**
   * The queue of a pull request's base branch or, for a member of a stack (based on another open
   * pull request's head branch), the queue of the branch at the bottom of its stack.
   */
  private async queueOf(orgId: string, repo: RepoRef, base: string): Promise<Queue | null> {
    const direct = await this.deps.queues.find(orgId, repo, base);
    if (direct) return direct;
    const bottom = stackBottomBranch(base, byHeadBranch(await this.deps.provider.listOpenPullRequests(repo)));
    return bottom === base ? null : this.deps.queues.find(orgId, repo, bottom);
  }

  private async run(queue: Queue, r: Request, action: QueueAction): Promise<CommandOutcome> {
    const actor: ForgeUserActor = {
      kind: 'forge_user',
      orgId: queue.orgId,
      login: r.login,
      repositoryRole: await this.deps.api.permissionOf(r.repo, r.login),
      via: r.via,
    };
    try {
      if (action.kind === 'merge') {
        await this.deps.pullRequests.submit(actor, { repo: r.repo, branch: queue.branch, prNumber: r.prNumber, priority: action.priority, noBatch: undefined });
      } else {
        await this.deps.pullRequests.cancel(actor, r.repo, queue.branch, r.prNumber);
      }
    } catch (err) {
      if (err instanceof RoleRefused) return this.refuse(r, `${r.text} needs ${err.needs} on ${r.repo.owner}/${r.repo.name}; you have ${err.holds}.`);
      if (!(err instanceof AppError)) throw err;
      if (r.source === 'label' && NOT_QUEUED.includes(err.code)) return 'ignored';
      return this.refuse(r, `${r.text} was not carried out: ${err.message} (\`${err.code}\`).`);
    }
    this.deps.logger.info(
      { repo: `${r.repo.owner}/${r.repo.name}`, prNumber: r.prNumber, login: r.login, via: r.via, action: action.kind },
      'pull request command carried out',
    );
    return 'command_done';
  }

  private async refuse(r: Request, why: string): Promise<CommandOutcome> {
    const where = { repo: `${r.repo.owner}/${r.repo.name}`, prNumber: r.prNumber, login: r.login, why };
    const allowed = await this.replies.consume(`${r.repo.host}/${r.repo.owner}/${r.repo.name}#${r.prNumber}:${r.login.toLowerCase()}`).then(
      () => true,
      () => false,
    );
    if (!allowed) {
      this.deps.logger.info(where, 'pull request command refused; no reply: this person had their replies on this pull request for now');
      return 'command_refused';
    }
    await this.deps.api.upsertComment(r.repo, r.prNumber, null, `@${r.login}: ${why}`);
    this.deps.logger.info(where, 'pull request command refused');
    return 'command_refused';
  }
}
