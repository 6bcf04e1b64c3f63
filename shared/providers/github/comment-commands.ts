// commandsEnabled: `/trunk merge` and `/trunk cancel` in pull request comments (issue_comment
// deliveries). A command acts on the queue of the pull request's base branch in the repository's
// owning organisation, through the same use cases as submitPullRequest and cancelPullRequest, for
// a commenter with write permission on the repository. A command that is carried out gets a 👍
// reaction; one that is not gets a reply saying why (no permission, no queue, or the use case's
// own error). Comments of bots, edits and deletions are never commands, so the service cannot
// answer itself and an edited comment does not act twice.
import { AppError } from '../../errors.js';
import type { Logger } from '../../logging.js';
import type { Queue } from '../../merge-queue/domain/model.js';
import type { PullRequestService } from '../../merge-queue/services/pull-request-service.js';
import type { QueueRepository } from '../../merge-queue/store/queue-repository.js';
import type { RepoRef } from '../../repo-ref.js';
import { COMMAND_USAGE, parseCommentCommand, type CommentCommand } from './comment-command.js';
import type { GitHubProvider, RepositoryPermission } from './github-provider.js';
import type { RepositoryOwners } from './store/repository-owners.js';

export interface CommentCommandsDeps {
  owners: Pick<RepositoryOwners, 'find'>;
  queues: Pick<QueueRepository, 'find'>;
  pullRequests: Pick<PullRequestService, 'submit' | 'cancel'>;
  provider: Pick<GitHubProvider, 'getPullRequest' | 'permissionOf' | 'reactToComment' | 'upsertComment'>;
  logger: Logger;
}

/** What an issue_comment delivery carries that a command needs. */
export interface CommentDelivery {
  repo: RepoRef;
  action: string;
  prNumber: number | null;
  commentId: number;
  body: string;
  login: string;
  /** GitHub's account type of the commenter: `User`, `Bot` or `Organization`. */
  userType: string;
}

type OnPullRequest = CommentDelivery & { prNumber: number };

export type CommandOutcome = 'command_done' | 'command_refused' | 'ignored';

const WRITE: readonly RepositoryPermission[] = ['admin', 'write'];

export class GitHubCommentCommands {
  constructor(private readonly deps: CommentCommandsDeps) {}

  async handle(delivery: CommentDelivery): Promise<CommandOutcome> {
    const { prNumber } = delivery;
    if (delivery.action !== 'created' || prNumber === null || delivery.userType === 'Bot') return 'ignored';
    const c = { ...delivery, prNumber };
    const command = parseCommentCommand(c.body);
    if (!command) return 'ignored';
    // A repository no organisation of the service has claimed has no queues to command: stay
    // silent, the comment may be meant for another tool.
    const owner = await this.deps.owners.find(c.repo);
    if (!owner) return 'ignored';
    const pr = await this.deps.provider.getPullRequest(c.repo, c.prNumber);
    if (!pr) return 'ignored';
    const branch = pr.baseBranch ?? '';
    const queue = await this.deps.queues.find(owner.orgId, c.repo, branch);
    if (!queue) return this.refuse(c, `\`${command.text}\`: there is no merge queue for \`${branch}\`, the base branch of #${c.prNumber}.`);
    if (!queue.commandsEnabled) return 'ignored';
    if (command.kind === 'unknown') return this.refuse(c, `${command.problem}. Use ${COMMAND_USAGE}.`);
    const permission = await this.deps.provider.permissionOf(c.repo, c.login);
    if (!WRITE.includes(permission)) {
      return this.refuse(c, `\`${command.text}\` needs write permission on ${c.repo.owner}/${c.repo.name}; you have ${permission === 'none' ? 'no' : permission} permission.`);
    }
    try {
      await this.carryOut(command, queue, c);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return this.refuse(c, `\`${command.text}\` was not carried out: ${err.message} (\`${err.code}\`).`);
    }
    await this.deps.provider.reactToComment(c.repo, c.commentId, '+1');
    this.deps.logger.info({ repo: `${c.repo.owner}/${c.repo.name}`, prNumber: c.prNumber, login: c.login, command: command.kind }, 'comment command carried out');
    return 'command_done';
  }

  private async carryOut(command: Exclude<CommentCommand, { kind: 'unknown' }>, queue: Queue, c: OnPullRequest): Promise<void> {
    const by = `@${c.login} (comment ${c.commentId})`;
    if (command.kind === 'merge') {
      await this.deps.pullRequests.submit(queue.orgId, { repo: c.repo, branch: queue.branch, prNumber: c.prNumber, priority: command.priority, noBatch: undefined, requestedBy: by });
    } else {
      await this.deps.pullRequests.cancel(queue.orgId, c.repo, queue.branch, c.prNumber, by);
    }
  }

  private async refuse(c: OnPullRequest, why: string): Promise<CommandOutcome> {
    await this.deps.provider.upsertComment(c.repo, c.prNumber, null, `@${c.login}: ${why}`);
    this.deps.logger.info({ repo: `${c.repo.owner}/${c.repo.name}`, prNumber: c.prNumber, login: c.login, why }, 'comment command refused');
    return 'command_refused';
  }
}
