// createApp(deps) → a Koa application, without listening. server.ts and the all-in-one entry
// point listen; tests drive the app over real HTTP on an ephemeral port.
import Koa from 'koa';
import type { Logger } from '../shared/platform/logging.js';
import { AppError } from '../shared/platform/errors.js';
import { DependencyHealth } from '../shared/platform/runtime/dependency-health.js';
import { requestId } from './middleware/request-id.js';
import { errorHandler } from './middleware/errors.js';
import { authenticate, type AuthenticationSettings } from './middleware/auth.js';
import { accessLog } from './middleware/access-log.js';
import { securityHeaders } from './middleware/security-headers.js';
import { createOperationRouter } from './routing/operation-router.js';
import { canonicalPathOnly } from './routing/canonical-path.js';
import { registerHealthRoutes } from './health/health-routes.js';
import { registerOpenApiRoutes } from './openapi/openapi-routes.js';
import { registerAccountRoutes } from './accounts/routes/account-routes.js';
import { registerWebhookRoutes } from './outbound-webhooks/routes/webhook-endpoint-routes.js';
import { registerMergeQueueRoutes } from './merge-queue/merge-queue-routes.js';
import { registerFlakyTestRoutes } from './flaky-tests/flaky-test-routes.js';
import { registerGitHubRoutes } from './github/github-routes.js';
import { serveDashboard } from './dashboard/serve-dashboard.js';
import { signInRoutes } from './sign-in/sign-in-routes.js';
import { registerGitHubActionsLoginRoutes } from './sign-in/github-actions-login-routes.js';
import { repositoryScope } from './middleware/repository-scope.js';
import type { SignInModule } from '../shared/sign-in/sign-in-module.js';
import { webBuildDir } from './dashboard/web-build-dir.js';
import { v2Routes } from './v2/v2-routes.js';
import type { V2RateLimitSettings } from './v2/v2-rate-limits.js';
import { httpMetrics, type HttpInstruments } from '../shared/platform/metrics/http-metrics.js';
import type { AccountsModule } from '../shared/platform/accounts/accounts-module.js';
import type { WebhookEndpointService } from '../shared/platform/events/webhook-endpoint-service.js';
import type { MergeQueueModule } from '../shared/merge-queue/merge-queue-module.js';
import type { FlakyServices } from '../shared/flaky-tests/services/flaky-services.js';
import type { GitHubModule } from '../shared/github/github-module.js';

export interface AppDeps {
  logger: Logger;
  /** Tokens (authentication, createToken…) and the audit trail. */
  accounts: AccountsModule;
  mergeQueue: Pick<MergeQueueModule, 'services' | 'store'>;
  flakyTests: FlakyServices;
  /** Outbound webhook endpoints. */
  webhookEndpoints: WebhookEndpointService;
  /** Null unless GitHub is configured. */
  github: Pick<GitHubModule, 'repositories' | 'webhooks'> | null;
  /** Dependency checks for /readyz: each resolves when the dependency answers. */
  readiness: Record<string, () => Promise<void>>;
  /** /healthz fails once a dependency has been unreachable this long (DEPENDENCY_LOST_SECONDS). */
  dependencyLostAfterMs: number;
  trustProxy?: boolean;
  /** The budget of unknown tokens per client address (AUTH_FAILURES_PER_MINUTE). */
  authentication: AuthenticationSettings;
  /** Request counts and latencies for the operator metrics. */
  metrics?: HttpInstruments;
  /** The dashboard's built assets (default: web/dist of the package). */
  dashboardDir?: string;
  /** Dashboard sessions and sign-in with an identity provider. */
  signIn: SignInModule;
  /** PUBLIC_URL: the address the identity provider redirects back to; null: the request's own. */
  publicUrl: string | null;
  /** The v2 API's rate limits (V2_*_PER_SECOND). */
  v2RateLimits: V2RateLimitSettings;
}

export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: deps.trustProxy ?? false });
  // Errors are answered by errorHandler; Koa's default handler would only log them twice.
  app.silent = true;

  app.use(requestId());
  app.use(securityHeaders());
  // Outside the error handler, so they record the status the client actually gets.
  if (deps.metrics) app.use(httpMetrics(deps.metrics));
  app.use(accessLog(deps.logger));
  app.use(errorHandler(deps.logger));
  // Runs after the routers: nothing answered, so the route does not exist. (A throwing last
  // middleware would pre-empt the routers' 405 handling, which runs on the way back up.)
  app.use(async (ctx, next) => {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      throw new AppError('not_found', 'route_not_found', 'no such endpoint');
    }
  });
  app.use(canonicalPathOnly());
  // /v2 answers in its own envelope and authenticates with Authorization: Bearer (docs/api-v2.md).
  app.use(
    v2Routes(deps.mergeQueue, {
      tokens: deps.accounts.store.tokens,
      logger: deps.logger,
      failuresPerMinute: deps.authentication.failuresPerMinute,
      rateLimits: deps.v2RateLimits,
    }),
  );

  // Every operation is routed through the table: its one path, its access rule, then its handler.
  const routes = createOperationRouter(
    authenticate(deps.accounts.store.tokens, deps.signIn.sessions, deps.logger, deps.authentication),
    repositoryScope(deps.signIn.repositoryAccess),
  );
  registerHealthRoutes(routes, new DependencyHealth(deps.readiness, { lostAfterMs: deps.dependencyLostAfterMs, checkTimeoutMs: 2000 }));
  registerOpenApiRoutes(routes);
  registerAccountRoutes(routes, { tokens: deps.accounts.tokens, apiKeys: deps.accounts.apiKeys, audit: deps.accounts.store.audit });
  registerWebhookRoutes(routes, deps.webhookEndpoints);
  registerMergeQueueRoutes(routes, deps.mergeQueue.services, deps.mergeQueue.store);
  registerFlakyTestRoutes(routes, deps.flakyTests);
  registerGitHubRoutes(routes, deps.github);
  registerGitHubActionsLoginRoutes(routes, {
    login: deps.signIn.githubActions,
    resources: deps.mergeQueue.services.resources,
    failuresPerMinute: deps.authentication.failuresPerMinute,
  });
  const [routed, otherMethods] = routes.middleware();
  app.use(routed);
  app.use(otherMethods);
  app.use(signInRoutes({ signIn: deps.signIn, orgs: deps.accounts.store.orgs, logger: deps.logger, publicUrl: deps.publicUrl }));
  // Last: the dashboard answers only what no route above did (docs/dashboard.md).
  app.use(serveDashboard(deps.dashboardDir ?? webBuildDir()));
  return app;
}
