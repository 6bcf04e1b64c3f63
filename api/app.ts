// createApp(deps) → a Koa application, without listening. server.ts and the all-in-one entry
// point listen; tests drive the app over real HTTP on an ephemeral port.
import Koa from 'koa';
import type { Logger } from '../shared/logging.js';
import { AppError } from '../shared/errors.js';
import { DependencyHealth } from '../shared/runtime/dependency-health.js';
import type { Store } from '../shared/merge-queue/store/store.js';
import { requestId } from './middleware/request-id.js';
import { errorHandler } from './middleware/errors.js';
import { authenticate, type AuthenticationSettings } from './middleware/auth.js';
import { createOperationRouter } from './routing/operation-router.js';
import { canonicalPathOnly } from './routing/canonical-path.js';
import { registerHealthRoutes } from './health/health-routes.js';
import { registerOpenApiRoutes } from './openapi/openapi-routes.js';
import { registerFlakyUploadRoutes } from './flaky-tests/routes/upload-routes.js';
import { registerGitHubWebhookRoutes } from './webhooks/github-webhook-routes.js';
import { accessLog } from './middleware/access-log.js';
import { securityHeaders } from './middleware/security-headers.js';
import { registerGitHubRepositoryRoutes } from './github-repositories/github-repository-routes.js';
import type { GitHubRepositoryService } from '../shared/providers/github/github-repository-service.js';
import { registerAccountRoutes } from './accounts/routes/account-routes.js';
import { registerWebhookRoutes } from './events/routes/webhook-routes.js';
import type { WebhookEndpointService } from '../shared/events/webhook-endpoint-service.js';
import type { TimeToMergeService } from '../shared/merge-queue/services/time-to-merge-service.js';
import { registerQueueRoutes } from './merge-queue/routes/queue-routes.js';
import { QueueAnswerCache } from './merge-queue/queue-answer-cache.js';
import type { QueueService } from '../shared/merge-queue/services/queue-service.js';
import type { TokenService } from '../shared/accounts/token-service.js';
import type { PullRequestService } from '../shared/merge-queue/services/pull-request-service.js';
import { registerPullRequestRoutes } from './merge-queue/routes/pull-request-routes.js';
import { registerTestRunRoutes } from './merge-queue/routes/test-run-routes.js';
import type { CommitStatusService } from '../shared/merge-queue/services/commit-status-service.js';
import type { TestingDetailsService } from '../shared/merge-queue/services/testing-details-service.js';
import type { StatusWatchService } from '../shared/merge-queue/services/status-watch-service.js';
import type { CostReportService } from '../shared/merge-queue/services/cost-report-service.js';
import { registerCostReportRoutes } from './merge-queue/routes/cost-report-routes.js';
import type { MergeQueueMetricsService } from '../shared/merge-queue/services/metrics-service.js';
import type { QueueSimulationService } from '../shared/merge-queue/simulation/queue-simulation-service.js';
import { registerMetricsRoutes } from './merge-queue/routes/metrics-routes.js';
import { registerSimulationRoutes } from './merge-queue/routes/simulation-routes.js';
import { httpMetrics, type HttpInstruments } from '../shared/metrics/http-metrics.js';
import type { FlakyServices } from '../shared/flaky-tests/services/flaky-services.js';
import { registerFlakyRoutes } from './flaky-tests/routes/test-routes.js';
import { registerFlakyCliRoutes } from './flaky-tests/routes/cli-routes.js';
import { registerDashboardReadRoutes } from './dashboard-reads/dashboard-read-routes.js';
import type { QueueReadService } from '../shared/merge-queue/services/queue-read-service.js';
import { registerFlakyTestHistoryRoutes } from './dashboard-reads/flaky-test-history-routes.js';
import { serveDashboard } from './dashboard/serve-dashboard.js';
import { webBuildDir } from './dashboard/web-build-dir.js';
import type { GitHubWebhooks } from '../shared/providers/github/github-webhooks.js';

export interface AppDeps {
  logger: Logger;
  store: Store;
  services: {
    /** createToken, listTokens, revokeToken. */
    tokens: TokenService;
    queues: QueueService;
    pullRequests: PullRequestService;
    commitStatuses: CommitStatusService;
    testingDetails: TestingDetailsService;
    /** The stall watchdog's findings: getQueue's warnings. */
    statusWatch: StatusWatchService;
    /** POST /v1/getQueueCostReport. */
    costReport: CostReportService;
    /** GET /v1/getMergeQueueMetrics. */
    mergeQueueMetrics?: MergeQueueMetricsService;
    /** POST /v1/simulateQueue. */
    simulation?: QueueSimulationService;
    /** Flaky tests: ingestion, detection, quarantine and the flaky-tests API. */
    flaky?: FlakyServices;
    /** The dashboard's reads of queues, runs and health. */
    queueReads: QueueReadService;
    /** Outbound webhook endpoints. */
    webhooks?: WebhookEndpointService;
    /** Position and estimated time to merge (getSubmittedPullRequest). */
    timeToMerge: TimeToMergeService;
    /** getGitHubRepository / updateGitHubRepository; null unless GitHub is configured. */
    githubRepositories: GitHubRepositoryService | null;
  };
  /** POST /webhooks/github, when GitHub webhooks are configured. */
  githubWebhooks?: GitHubWebhooks | null;
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

  // Every operation is routed through the table: its one path, its access rule, then its handler.
  const routes = createOperationRouter(authenticate(deps.store.tokens, deps.logger, deps.authentication));
  registerHealthRoutes(routes, new DependencyHealth(deps.readiness, { lostAfterMs: deps.dependencyLostAfterMs, checkTimeoutMs: 2000 }));
  registerOpenApiRoutes(routes);
  if (deps.githubWebhooks) registerGitHubWebhookRoutes(routes, deps.githubWebhooks);
  registerAccountRoutes(routes, { tokens: deps.services.tokens, audit: deps.store.audit });
  registerGitHubRepositoryRoutes(routes, deps.services.githubRepositories);
  registerQueueRoutes(routes, { queues: deps.services.queues, statusWatch: deps.services.statusWatch, answers: new QueueAnswerCache(deps.store.queueRevisions) });
  if (deps.services.webhooks) registerWebhookRoutes(routes, deps.services.webhooks);
  registerPullRequestRoutes(routes, deps.services.pullRequests, { queues: deps.services.queues, timeToMerge: deps.services.timeToMerge });
  registerTestRunRoutes(routes, deps.services.commitStatuses, deps.services.testingDetails);
  registerCostReportRoutes(routes, deps.services.costReport);
  if (deps.services.mergeQueueMetrics) registerMetricsRoutes(routes, deps.services.mergeQueueMetrics);
  if (deps.services.simulation) registerSimulationRoutes(routes, deps.services.queues, deps.services.simulation);
  if (deps.services.flaky) {
    registerFlakyUploadRoutes(routes, deps.services.flaky);
    registerFlakyRoutes(routes, deps.services.flaky);
    registerFlakyCliRoutes(routes, deps.services.flaky);
    registerFlakyTestHistoryRoutes(routes, deps.services.flaky.history);
  }
  registerDashboardReadRoutes(routes, deps.services.queueReads);
  const [routed, otherMethods] = routes.middleware();
  app.use(routed);
  app.use(otherMethods);
  // Last: the dashboard answers only what no route above did (docs/dashboard.md).
  app.use(serveDashboard(deps.dashboardDir ?? webBuildDir()));
  return app;
}
