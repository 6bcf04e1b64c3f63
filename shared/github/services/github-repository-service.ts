// A GitHub repository's record in the service: which organisation owns it (the one whose first
// queue claimed it) and whether pull requests from forks may be queued. Forks are refused unless
// an admin of the owner allows them, because CI on a pushed test branch runs the fork's code with
// the repository's secrets. Only the owner sees the record; to anyone else it does not exist.
import { conflict, notFound, repositoryNotFound } from '../../platform/errors.js';
import { repoKey, type RepoRef } from '../../platform/repo-ref.js';
import type { Actor } from '../../platform/accounts/actor.js';
import { requireRole } from '../../platform/accounts/policy.js';
import { auditActorOf, type AuditTrail } from '../../platform/audit/audit-log.js';
import type { OrgRepository } from '../../platform/accounts/org-repository.js';
import type { QueueRepository } from '../../merge-queue/store/queue-repository.js';
import type { GitHubRepositoryRecord, RepositoryOwners } from '../store/repository-owners.js';

export interface GitHubRepositoryView {
  repo: RepoRef;
  organization: string;
  claimedAt: Date;
  allowForkPullRequests: boolean;
}

export interface GitHubRepositoryServiceDeps {
  owners: RepositoryOwners;
  orgs: Pick<OrgRepository, 'findById' | 'findBySlug'>;
  queues: Pick<QueueRepository, 'listRefs'>;
  audit: AuditTrail;
  /** Whether the GitHub provider serves this repository (its host is GITHUB_HOST). */
  serves: (repo: RepoRef) => boolean;
}

export class GitHubRepositoryService {
  constructor(private readonly deps: GitHubRepositoryServiceDeps) {}

  async get(orgId: string, repo: RepoRef): Promise<GitHubRepositoryView> {
    return this.view(repo, await this.owned(orgId, repo));
  }

  /**
   * Allows or refuses forks, or moves the repository to another organisation. A move needs the
   * current owner to have no queue on it left: its queues would otherwise stay where nobody can
   * reach their pull requests' statuses and webhooks.
   */
  async update(actor: Actor, repo: RepoRef, patch: { organization?: string; allowForkPullRequests?: boolean }): Promise<GitHubRepositoryView> {
    requireRole(actor, 'admin', 'changing a GitHub repository');
    const { orgId } = actor;
    await this.owned(orgId, repo);
    const set: { orgId?: string; allowForkPullRequests?: boolean } = {};
    if (patch.allowForkPullRequests !== undefined) set.allowForkPullRequests = patch.allowForkPullRequests;
    if (patch.organization !== undefined) {
      const target = await this.deps.orgs.findBySlug(patch.organization);
      if (!target) throw notFound('organization_not_found', `no organisation ${patch.organization}`);
      if (target.id !== orgId) {
        const queues = await this.deps.queues.listRefs(orgId, repo);
        if (queues.length > 0) {
          throw conflict(
            'repository_has_queues',
            `delete this organisation's queues on ${repo.owner}/${repo.name} first (${queues.map((q) => q.branch).join(', ')}): they cannot move with it`,
          );
        }
        set.orgId = target.id;
      }
    }
    const updated = await this.deps.owners.update(orgId, repo, set);
    if (!updated) throw repositoryNotFound(repo);
    await this.deps.audit.record({ orgId, actor: auditActorOf(actor), action: 'github_repository.updated', target: repoKey(repo), detail: patch });
    return this.view(repo, updated);
  }

  /** The submit path's fork policy: repositories GitHub does not serve have no forks to refuse. */
  async forksAllowed(repo: RepoRef): Promise<boolean> {
    if (!this.deps.serves(repo)) return true;
    return (await this.deps.owners.find(repo))?.allowForkPullRequests ?? false;
  }

  private async owned(orgId: string, repo: RepoRef): Promise<GitHubRepositoryRecord> {
    const record = this.deps.serves(repo) ? await this.deps.owners.find(repo) : null;
    if (!record || record.orgId !== orgId) throw repositoryNotFound(repo);
    return record;
  }

  private async view(repo: RepoRef, record: GitHubRepositoryRecord): Promise<GitHubRepositoryView> {
    const org = await this.deps.orgs.findById(record.orgId);
    return { repo, organization: org?.slug ?? record.orgId, claimedAt: record.claimedAt, allowForkPullRequests: record.allowForkPullRequests };
  }
}
