// The GitHub integration's operations: its repositories' settings, and the webhook endpoint when a
// secret is configured (without GitHub, the repository operations answer that it is not configured).
import type { OperationRoutes } from '../routing/operation-router.js';
import type { GitHubModule } from '../../shared/github/github-module.js';
import { registerGitHubRepositoryRoutes } from './routes/github-repository-routes.js';
import { registerGitHubWebhookRoutes } from './routes/github-webhook-routes.js';

export function registerGitHubRoutes(routes: OperationRoutes, github: Pick<GitHubModule, 'repositories' | 'webhooks'> | null): void {
  if (github?.webhooks) registerGitHubWebhookRoutes(routes, github.webhooks);
  registerGitHubRepositoryRoutes(routes, github?.repositories ?? null);
}
