// getGitHubRepository / updateGitHubRepository: a GitHub repository's owning organisation and fork
// policy. Without GitHub configured there is no such repository: 404 like any other unknown one.
import type Router from '@koa/router';
import { auditActorOf, authOf } from '../middleware/auth.js';
import type { AuditTrail } from '../../shared/audit/store/audit-log.js';
import { repositoryNotFound } from '../../shared/errors.js';
import { repoKey } from '../../shared/repo-ref.js';
import type { GitHubRepositoryService, GitHubRepositoryView } from '../../shared/providers/github/github-repository-service.js';
import { parseGitHubRepositoryRef, parseUpdateGitHubRepository } from './github-repository-schemas.js';

export function registerGitHubRepositoryRoutes(router: Router, repositories: GitHubRepositoryService | null, audit: AuditTrail): void {
  router.post('/getGitHubRepository', async (ctx) => {
    const { repo } = parseGitHubRepositoryRef(ctx.request.body);
    if (!repositories) throw repositoryNotFound(repo);
    ctx.body = serialize(await repositories.get(authOf(ctx.state).orgId, repo));
  });

  router.post('/updateGitHubRepository', async (ctx) => {
    const { repo, ...patch } = parseUpdateGitHubRepository(ctx.request.body);
    if (!repositories) throw repositoryNotFound(repo);
    const { orgId } = authOf(ctx.state);
    const view = await repositories.update(orgId, repo, patch);
    await audit.record({ orgId, actor: auditActorOf(ctx.state), action: 'github_repository.updated', target: repoKey(repo), detail: patch });
    ctx.body = serialize(view);
  });
}

function serialize(v: GitHubRepositoryView) {
  return {
    repo: { host: v.repo.host, owner: v.repo.owner, name: v.repo.name },
    organization: v.organization,
    claimedAt: v.claimedAt.toISOString(),
    allowForkPullRequests: v.allowForkPullRequests,
  };
}
