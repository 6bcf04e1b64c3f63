// getGitHubRepository / updateGitHubRepository: a GitHub repository's owning organisation and fork
// policy. Without GitHub configured there is no such repository: 404 like any other unknown one.
import type { OperationRoutes } from '../../routing/operation-router.js';
import { actorOf } from '../../middleware/auth.js';
import { repositoryNotFound } from '../../../shared/platform/errors.js';
import type { GitHubRepositoryService, GitHubRepositoryView } from '../../../shared/github/services/github-repository-service.js';
import { parseGitHubRepositoryRef, parseUpdateGitHubRepository } from '../schemas/github-repository-schemas.js';

export function registerGitHubRepositoryRoutes(routes: OperationRoutes, repositories: GitHubRepositoryService | null): void {
  routes.handle('getGitHubRepository', async (ctx) => {
    const { repo } = parseGitHubRepositoryRef(ctx.request.body);
    if (!repositories) throw repositoryNotFound(repo);
    ctx.body = serialize(await repositories.get(actorOf(ctx.state).orgId, repo));
  });

  routes.handle('updateGitHubRepository', async (ctx) => {
    const { repo, ...patch } = parseUpdateGitHubRepository(ctx.request.body);
    if (!repositories) throw repositoryNotFound(repo);
    ctx.body = serialize(await repositories.update(actorOf(ctx.state), repo, patch));
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
