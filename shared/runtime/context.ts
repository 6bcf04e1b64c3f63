// The composition root: opens the database and Redis, builds repositories, providers, the job
// producer and the use cases. Entry points (api, worker, all-in-one) share it.
import type { Redis } from 'ioredis';
import { embeddedDbDir, type Config } from '../config.js';
import { createLogger, type Logger } from '../logging.js';
import type { Database } from '../database/collection.js';
import { openDatabase } from '../database/open-database.js';
import { createStore, outboxSourcesOf, type Store } from '../merge-queue/store/store.js';
import { ensureIndexes } from '../database/ensure-indexes.js';
import { createRedis, pingRedis } from '../jobs/connection.js';
import { JobProducer } from '../jobs/producer.js';
import { createProviderRegistry, type ServiceProviders } from '../providers/registry.js';
import { QueueService } from '../merge-queue/services/queue-service.js';
import { PullRequestService } from '../merge-queue/services/pull-request-service.js';
import { StatusWatchService } from '../merge-queue/services/status-watch-service.js';
import { CostReportService } from '../merge-queue/services/cost-report-service.js';
import { CommitStatusService } from '../merge-queue/services/commit-status-service.js';
import { TestingDetailsService } from '../merge-queue/services/testing-details-service.js';
import { TestRunLinkService } from '../merge-queue/services/test-run-link-service.js';
import { SyncService } from '../merge-queue/services/sync-service.js';
import { EngineService } from '../merge-queue/services/engine/engine-service.js';
import { Shutdown } from './shutdown.js';
import { OperatorMetrics } from '../metrics/operator-metrics.js';
import { instrumentDatabase } from '../metrics/instrumented-database.js';
import { jobCountsSource } from '../metrics/job-metrics.js';
import { MergeQueueMetricsService } from '../merge-queue/services/metrics-service.js';
import { QueueReadService } from '../merge-queue/services/queue-read-service.js';
import { QueueSimulationService } from '../merge-queue/simulation/queue-simulation-service.js';
import { createFlakyStore } from '../flaky-tests/store/flaky-store.js';
import { createFlakyServices, type FlakyServices } from '../flaky-tests/services/flaky-services.js';
import { GitHubRepositoryService } from '../providers/github/github-repository-service.js';
import type { RepoRef } from '../repo-ref.js';
import { claimGitHubRepository, createGitHubServices, type GitHubServices } from '../providers/github/github-services.js';
import type { CheckSuiteReport } from '../providers/github/ci-results.js';
import { GitHubPollSchedule } from '../providers/github/poll-schedule.js';
import { createGitHubStore } from '../providers/github/store/github-store.js';
import { openUploadBlobStore } from '../flaky-tests/store/open-upload-blob-store.js';
import { createEventStore, type EventStore } from '../events/store/event-store.js';
import { OutboxRelay } from '../events/outbox-relay.js';
import { WebhookDispatcher } from '../events/webhook-dispatcher.js';
import { WebhookEndpointService } from '../events/webhook-endpoint-service.js';
import { TimeToMergeService } from '../merge-queue/services/time-to-merge-service.js';
import { TokenService } from '../accounts/token-service.js';
import { DestinationPolicy } from '../events/egress/destination-policy.js';
import { WebhookSender } from '../events/egress/webhook-sender.js';

export interface ServiceContext {
  config: Config;
  logger: Logger;
  db: Database;
  store: Store;
  /** Domain events, webhook endpoints and deliveries. */
  eventStore: EventStore;
  providers: ServiceProviders;
  /** Fail-fast connection for enqueues made while serving requests. */
  producerRedis: Redis;
  jobs: JobProducer;
  services: {
    tokens: TokenService;
    queues: QueueService;
    pullRequests: PullRequestService;
    commitStatuses: CommitStatusService;
    testingDetails: TestingDetailsService;
    sync: SyncService;
    engine: EngineService;
    mergeQueueMetrics: MergeQueueMetricsService;
    statusWatch: StatusWatchService;
    costReport: CostReportService;
    queueReads: QueueReadService;
    simulation: QueueSimulationService;
    flaky: FlakyServices;
    webhooks: WebhookEndpointService;
    webhookDispatcher: WebhookDispatcher;
    timeToMerge: TimeToMergeService;
    /** GitHub repositories' owners and fork policy; null unless GitHub is configured. */
    githubRepositories: GitHubRepositoryService | null;
  };
  /** Webhooks and CI results of the GitHub provider; null unless GitHub is configured. */
  github: GitHubServices | null;
  readiness: Record<string, () => Promise<void>>;
  shutdown: Shutdown;
  /** Operator metrics of this context (served by shared/metrics/operator-server.ts). */
  metrics: OperatorMetrics;
}

export interface OpenContextOptions {
  logger?: Logger;
  /** Use this database instead of opening one from the configuration (tests). */
  database?: Database;
}

export async function openContext(config: Config, opts: OpenContextOptions = {}): Promise<ServiceContext> {
  const logger = opts.logger ?? createLogger(config.logLevel);
  if (!config.redisUrl) throw new Error('REDIS_URL is required (npm start launches a private redis-server when it is unset)');
  const shutdown = new Shutdown(logger, config.shutdownGraceSeconds * 1000);
  const metrics = new OperatorMetrics();
  const rawDb =
    opts.database ?? (await openDatabase(config.mongoUrl ? { mongoUrl: config.mongoUrl } : { dataDir: embeddedDbDir(config) }));
  // Every collection operation is timed for the operator metrics.
  const db = instrumentDatabase(rawDb, metrics);
  shutdown.add({ name: 'database', order: 40, close: () => db.close() });

  const producerRedis = createRedis(config.redisUrl, 'producer');
  producerRedis.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis (producer) connection error'));
  // quit() on a connection still connecting rejects ("Connection is closed"); a process stopped
  // right after start (or a short test) would report a failed shutdown, so it is disconnected.
  shutdown.add({
    name: 'redis-producer',
    order: 30,
    close: async () => (producerRedis.status === 'ready' ? void (await producerRedis.quit()) : producerRedis.disconnect()),
  });
  const jobs = new JobProducer({ connection: producerRedis, prefix: config.bullPrefix });
  shutdown.add({ name: 'job-producer', order: 20, close: () => jobs.close() });
  const jobCounts = jobCountsSource(producerRedis, config.bullPrefix);
  metrics.setJobCountsReader(() => jobCounts.read());
  shutdown.add({ name: 'job-counts', order: 20, close: () => jobCounts.close() });

  const enqueuePublish = (eventId: string, at?: Date) => jobs.enqueue('publish-event', { eventId }, at ? { runAt: at } : {});
  const eventStore = createEventStore(db);
  // Writes put their events into the outbox of the document they change; the relay moves them on.
  const relay = new OutboxRelay({ events: eventStore.events, requestPublish: enqueuePublish, logger });
  const store = createStore(db, relay);
  const flakyStore = createFlakyStore(db, relay);
  for (const source of [...outboxSourcesOf(store), flakyStore.tests.outbox]) relay.addSource(source);
  const githubStore = config.github ? createGitHubStore(db) : null;
  await ensureIndexes(store, flakyStore, eventStore, ...(githubStore ? [githubStore] : []));

  const providers = createProviderRegistry({
    localGitRoot: config.localGitRoot,
    github: config.github ? { config: config.github, dataDir: config.dataDir, logger } : null,
  });
  const requestPlan = (queueId: string, why: string) => jobs.requestPlan(queueId, why);
  const enqueueDelivery = (deliveryId: string, at?: Date) => jobs.enqueue('deliver-webhook', { deliveryId }, at ? { runAt: at } : {});
  const githubOwners = providers.github && githubStore ? githubStore.owners : null;
  const pollSchedule =
    config.github && providers.github && githubStore
      ? new GitHubPollSchedule({
          state: githubStore.pollState,
          provider: providers.github,
          intervals: { normalSeconds: config.providerPollSeconds, webhookSeconds: config.github.webhookPollSeconds, quietSeconds: config.github.webhookQuietSeconds },
        })
      : null;
  const queues = new QueueService({
    store,
    providers,
    logger,
    audit: store.audit,
    requestPlan,
    ...(githubOwners && providers.github ? { claimRepository: claimGitHubRepository(providers.github, githubOwners) } : {}),
  });
  const githubRepositories =
    githubOwners && providers.github
      ? new GitHubRepositoryService({ owners: githubOwners, orgs: store.orgs, queues: store.queues, audit: store.audit, serves: (repo) => providers.github?.serves(repo) ?? false })
      : null;
  const pullRequests = new PullRequestService({
    store,
    providers,
    queues,
    logger,
    requestPlan,
    ...(githubRepositories ? { forksAllowed: (repo: RepoRef) => githubRepositories.forksAllowed(repo) } : {}),
  });
  const statusWatch = new StatusWatchService({ store, logger });
  const commitStatuses = new CommitStatusService({ store, logger, requestPlan, statusWatch });
  const blobs = await openUploadBlobStore({ mongoUrl: config.mongoUrl, dataDir: config.dataDir });
  shutdown.add({ name: 'flaky-upload-blobs', order: 40, close: () => blobs.close() });
  const flaky = createFlakyServices({
    store: flakyStore,
    blobs,
    requestIngest: (job) => jobs.enqueue('flaky-ingest', job),
    orgs: store.orgs,
    audit: store.audit,
    links: new TestRunLinkService({ store, requestPlan }),
    logger,
    settings: {
      retentionDays: config.flakyRetentionDays,
      maxUploadBytes: config.flakyMaxUploadBytes,
      // A report may be larger than the (compressed) request that carried it.
      maxReportBytes: Math.max(config.flakyMaxUploadBytes * 8, 64 * 1024 * 1024),
      ticketUrlTemplate: config.flakyTicketUrlTemplate,
      infraFailureThreshold: config.flakyInfraFailureThreshold,
      bundleUrlTtlSeconds: config.flakyUploadUrlTtlSeconds,
      publicUrl: config.publicUrl,
      uploadWaitSeconds: config.flakyUploadWaitSeconds,
    },
  });
  const destinations = new DestinationPolicy(config.webhooks.allowedDestinations);
  const webhookSender = new WebhookSender(destinations, config.webhooks.timeoutMs);
  shutdown.add({ name: 'webhook-sender', order: 25, close: () => webhookSender.close() });
  const services = {
    tokens: new TokenService({ tokens: store.tokens, audit: store.audit }),
    flaky,
    queues,
    pullRequests,
    commitStatuses,
    testingDetails: new TestingDetailsService({
      store,
      queues,
      testResults: flaky.runResults,
      // Only GitHub reports check suites; `github` is built below, before anything is served.
      checkSuites: async (repo, sha): Promise<CheckSuiteReport[]> => (github ? github.ciResults.checkSuites(repo, sha) : []),
    }),
    sync: new SyncService({ store, providers, logger, requestPlan, ...(pollSchedule ? { pollSchedule } : {}) }),
    engine: new EngineService({
      store,
      providers,
      logger,
      scheduleTimeout: (run) => (run.deadlineAt ? jobs.scheduleTimeout(run.queueId, run.id, run.deadlineAt) : Promise.resolve()),
      scheduleStatusWatch: (run, at) => jobs.scheduleStatusWatch(run.queueId, run.id, at),
      scheduleWake: (queueId, at, why) => jobs.scheduleWake(queueId, at, why),
      evaluateRun: (run, repo) => commitStatuses.evaluateRun(run, repo),
      testResults: flaky.runResults,
    }),
    mergeQueueMetrics: new MergeQueueMetricsService({ store }),
    statusWatch,
    costReport: new CostReportService({ store, queues }),
    queueReads: new QueueReadService({ store, queues }),
    simulation: new QueueSimulationService({ store }),
    timeToMerge: new TimeToMergeService({ store }),
    githubRepositories,
    webhooks: new WebhookEndpointService({ endpoints: eventStore.endpoints, deliveries: eventStore.deliveries, enqueueDelivery, destinations, audit: store.audit }),
    webhookDispatcher: new WebhookDispatcher({
      ...eventStore,
      store,
      enqueueDelivery,
      enqueuePublish,
      outboxes: relay,
      sender: webhookSender,
      settings: {
        retryBaseMs: config.webhooks.retryBaseMs,
        maxAttempts: config.webhooks.maxAttempts,
        disableAfterMs: config.webhooks.disableAfterSeconds * 1000,
        endpointConcurrency: config.webhooks.endpointConcurrency,
      },
      baseUrl: config.publicUrl ?? `http://${config.host}:${config.port}`,
      logger,
    }),
  };
  const github: GitHubServices | null =
    config.github && providers.github && githubStore
      ? createGitHubServices({
          config: config.github,
          provider: providers.github,
          githubStore,
          store,
          sync: services.sync,
          commitStatuses,
          pullRequests,
          enqueueDelivery: (deliveryId) => jobs.enqueue('github-webhook', { deliveryId }),
          baseUrl: config.publicUrl ?? `http://${config.host}:${config.port}`,
          logger,
        })
      : null;
  logger.info({ database: db.kind, localGitRoot: config.localGitRoot, github: config.github?.host ?? null }, 'service context ready');
  return {
    config,
    logger,
    db,
    store,
    eventStore,
    providers,
    producerRedis,
    jobs,
    services,
    github,
    readiness: { mongodb: () => db.ping(), redis: () => pingRedis(producerRedis) },
    shutdown,
    metrics,
  };
}
