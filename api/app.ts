// createApp(deps) → a Koa application, without listening. server.ts and the all-in-one entry
// point listen; tests drive the app over real HTTP on an ephemeral port.
import Koa from 'koa';
import Router from '@koa/router';
import bodyParser from 'koa-bodyparser';
import type { Logger } from '../shared/logging.js';
import createHttpError from 'http-errors';
import { AppError } from '../shared/errors.js';
import { serviceStatus } from '../shared/runtime/service-status.js';
import { DependencyHealth } from '../shared/runtime/dependency-health.js';
import type { Store } from '../shared/merge-queue/store/store.js';
import { requestId } from './middleware/request-id.js';
import { errorHandler } from './middleware/errors.js';
import { requireToken } from './middleware/auth.js';
import { authorizeBody, authorizeOperation } from './middleware/authorize.js';
import { accessLog } from './middleware/access-log.js';
import { registerGitHubRepositoryRoutes } from './github-repositories/github-repository-routes.js';
import type { GitHubRepositoryService } from '../shared/providers/github/github-repository-service.js';
import { registerAccountRoutes } from './accounts/routes/account-routes.js';
import { registerWebhookRoutes } from './events/routes/webhook-routes.js';
import type { WebhookEndpointService } from '../shared/events/webhook-endpoint-service.js';
import type { TimeToMergeService } from '../shared/merge-queue/services/time-to-merge-service.js';
import { registerQueueRoutes } from './merge-queue/routes/queue-routes.js';
import { QueueAnswerCache } from './merge-queue/queue-answer-cache.js';
import type { QueueService } from '../shared/merge-queue/services/queue-service.js';
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
import { createFlakyUploadRouter } from './flaky-tests/routes/upload-routes.js';
import { registerFlakyRoutes } from './flaky-tests/routes/test-routes.js';
import { registerFlakyCliRoutes } from './flaky-tests/routes/cli-routes.js';
import { createOpenApiRouter } from './openapi/openapi-routes.js';
import { PUBLIC_V1_PATHS } from './openapi/operations.js';
import { registerDashboardReadRoutes } from './dashboard-reads/dashboard-read-routes.js';
import type { QueueReadService } from '../shared/merge-queue/services/queue-read-service.js';
import { registerFlakyTestHistoryRoutes } from './dashboard-reads/flaky-test-history-routes.js';
import { serveDashboard } from './dashboard/serve-dashboard.js';
import { webBuildDir } from './dashboard/web-build-dir.js';
import type { GitHubWebhooks } from '../shared/providers/github/github-webhooks.js';
import { createGitHubWebhookRouter } from './webhooks/github-webhook-routes.js';

export interface AppDeps {
  logger: Logger;
  store: Store;
  services: {
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
  // Outside the error handler, so it records the status the client actually gets.
  if (deps.metrics) app.use(httpMetrics(deps.metrics));
  app.use(errorHandler(deps.logger));
  app.use(accessLog(deps.logger));
  // Runs after the routers: nothing answered, so the route does not exist. (A throwing last
  // middleware would pre-empt the routers' 405 handling, which runs on the way back up.)
  app.use(async (ctx, next) => {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      throw new AppError('not_found', 'route_not_found', 'no such endpoint');
    }
  });
  // Every /v1 request needs a token, known route or not, except the operations the API
  // description lists as public (/v1/status, the description and its reference page).
  const auth = requireToken(deps.store.tokens);
  const needsToken = (path: string) => (path === '/v1' || path.startsWith('/v1/')) && !PUBLIC_V1_PATHS.has(path);
  app.use((ctx, next) => (needsToken(ctx.path) ? auth(ctx, next) : next()));
  app.use(authorizeOperation());

  const dependencies = new DependencyHealth(deps.readiness, { lostAfterMs: deps.dependencyLostAfterMs, checkTimeoutMs: 2000 });
  const health = new Router();
  health.get('/healthz', (ctx) => {
    // Liveness never waits on a dependency: it answers from the checks so far and starts a round.
    void dependencies.check();
    const lost = dependencies.lost();
    if (lost.length === 0) {
      ctx.body = { status: 'ok' };
      return;
    }
    ctx.status = 503;
    ctx.body = { status: 'dependency_lost', lost: Object.fromEntries(lost.map((d) => [d.name, d.detail])) };
  });
  health.get('/readyz', async (ctx) => {
    const results = await dependencies.check();
    const ready = results.every((r) => r.ok);
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(results.map((r) => [r.name, r.detail])) };
  });
  // The compatible API's status endpoint: no token, like the hosted one.
  health.get('/v1/status', async (ctx) => {
    ctx.body = serviceStatus(await dependencies.check());
  });
  app.use(health.routes());
  app.use(health.allowedMethods(ROUTER_ERRORS));

  // This service's OpenAPI description and its reference page.
  const description = createOpenApiRouter();
  app.use(description.routes());
  app.use(description.allowedMethods(ROUTER_ERRORS));

  // Streamed uploads (multipart, CLI bundle PUT) are read by their handlers, never by the JSON
  // body parser, so they are routed before the /v1 JSON router.
  if (deps.services.flaky) {
    const uploads = createFlakyUploadRouter(deps.services.flaky);
    app.use(uploads.routes());
    app.use(uploads.allowedMethods(ROUTER_ERRORS));
  }

  if (deps.githubWebhooks) app.use(createGitHubWebhookRouter(deps.githubWebhooks).routes());

  const v1 = new Router({ prefix: '/v1' });
  v1.use(
    bodyParser({
      enableTypes: ['json'],
      // Bodies above 20 MiB are refused with 413 (spec §8).
      jsonLimit: '20mb',
      strict: true,
      onerror: (err) => {
        throw err;
      },
    }),
  );
  v1.use(authorizeBody());
  registerAccountRoutes(v1, { tokens: deps.store.tokens, audit: deps.store.audit });
  registerGitHubRepositoryRoutes(v1, deps.services.githubRepositories, deps.store.audit);
  registerQueueRoutes(v1, { queues: deps.services.queues, statusWatch: deps.services.statusWatch, answers: new QueueAnswerCache(deps.store.queueRevisions) }, deps.store.audit);
  if (deps.services.webhooks) registerWebhookRoutes(v1, deps.services.webhooks, deps.store.audit);
  registerPullRequestRoutes(v1, deps.services.pullRequests, { queues: deps.services.queues, timeToMerge: deps.services.timeToMerge });
  registerTestRunRoutes(v1, deps.services.commitStatuses, deps.services.testingDetails);
  registerCostReportRoutes(v1, deps.services.costReport);
  if (deps.services.mergeQueueMetrics) registerMetricsRoutes(v1, deps.services.mergeQueueMetrics);
  if (deps.services.simulation) registerSimulationRoutes(v1, deps.services.queues, deps.services.simulation);
  if (deps.services.flaky) {
    registerFlakyRoutes(v1, deps.services.flaky, { audit: deps.store.audit });
    registerFlakyCliRoutes(v1, deps.services.flaky);
    registerFlakyTestHistoryRoutes(v1, deps.services.flaky.history);
  }
  registerDashboardReadRoutes(v1, deps.services.queueReads);
  app.use(v1.routes());
  app.use(v1.allowedMethods(ROUTER_ERRORS));
  // Last: the dashboard answers only what no route above did (docs/dashboard.md).
  app.use(serveDashboard(deps.dashboardDir ?? webBuildDir()));
  return app;
}

// A method the routers do not implement at all is answered like any other wrong method.
const ROUTER_ERRORS = { throw: true, notImplemented: () => new createHttpError.MethodNotAllowed() };
