// POST /v1/githubActionsLogin: no credential but the run's own token from GitHub. Tokens that do
// not verify spend the caller's failure budget, like unknown API tokens.
import type { OperationRoutes } from '../routing/operation-router.js';
import type { GitHubActionsLoginService } from '../../shared/sign-in/services/github-actions-login.js';
import { parseGitHubActionsLogin } from './github-actions-login-schemas.js';
import { FailureBudget } from '../middleware/failure-budget.js';
import { AppError } from '../../shared/platform/errors.js';
import type { ResourceService } from '../../shared/merge-queue/services/resource-service.js';

export function registerGitHubActionsLoginRoutes(
  routes: OperationRoutes,
  deps: { login: GitHubActionsLoginService; resources: Pick<ResourceService, 'rememberRepository'>; failuresPerMinute: number },
): void {
  const { login, resources, failuresPerMinute } = deps;
  const failures = new FailureBudget(failuresPerMinute);
  routes.handle('githubActionsLogin', async (ctx) => {
    await failures.check(ctx.ip);
    const { token } = parseGitHubActionsLogin(ctx.request.body);
    try {
      const done = await login.login(token);
      ctx.body = {
        token: done.token,
        expiresAt: done.expiresAt.toISOString(),
        repository: `${done.repository.owner}/${done.repository.name}`,
        repositoryId: await resources.rememberRepository(done.orgId, done.repository),
      };
    } catch (err) {
      if (err instanceof AppError && err.kind === 'unauthenticated') await failures.spend(ctx.ip);
      throw err;
    }
  });
}
