// The composition root: opens the database and Redis, builds repositories, providers, the job
// producer and the use cases. Entry points (api, worker, all-in-one) share it.
import type { Redis } from 'ioredis';
import { embeddedDbDir, type Config } from '../config.js';
import { createLogger, type Logger } from '../logging.js';
import type { Database } from '../database/collection.js';
import { openDatabase } from '../database/open-database.js';
import { createStore, ensureIndexes, type Store } from '../merge-queue/store/store.js';
import { createRedis, pingRedis } from '../jobs/connection.js';
import { JobProducer } from '../jobs/producer.js';
import { createProviderRegistry } from '../providers/registry.js';
import type { ProviderRegistry } from '../providers/provider.js';
import { QueueService } from '../merge-queue/services/queue-service.js';
import { PullRequestService } from '../merge-queue/services/pull-request-service.js';
import { CommitStatusService } from '../merge-queue/services/commit-status-service.js';
import { TestingDetailsService } from '../merge-queue/services/testing-details-service.js';
import { SyncService } from '../merge-queue/services/sync-service.js';
import { EngineService } from '../merge-queue/services/engine/engine-service.js';
import { Shutdown } from './shutdown.js';
import { OperatorMetrics } from '../metrics/operator-metrics.js';
import { instrumentDatabase } from '../metrics/instrumented-database.js';
import { jobCountsSource } from '../metrics/job-metrics.js';
import { MergeQueueMetricsService } from '../merge-queue/services/metrics-service.js';
import { createFlakyStore, ensureFlakyIndexes } from '../flaky-tests/store/flaky-store.js';
import { createFlakyServices, type FlakyServices } from '../flaky-tests/services/flaky-services.js';
import { createEventStore, ensureEventIndexes, type EventStore } from '../events/event-store.js';
import { EventOutbox } from '../events/event-outbox.js';
import { withDomainEvents } from '../events/emitting-repositories.js';
import { WebhookDispatcher } from '../events/webhook-dispatcher.js';
import { WebhookEndpointService } from '../events/webhook-endpoint-service.js';
import { TimeToMergeService } from '../merge-queue/services/time-to-merge-service.js';

export interface ServiceContext {
  config: Config;
  logger: Logger;
  db: Database;
  store: Store;
  /** Domain events, webhook endpoints and deliveries. */
  eventStore: EventStore;
  providers: ProviderRegistry;
  /** Fail-fast connection for enqueues made while serving requests. */
  producerRedis: Redis;
  jobs: JobProducer;
  services: {
    queues: QueueService;
    pullRequests: PullRequestService;
    commitStatuses: CommitStatusService;
    testingDetails: TestingDetailsService;
    sync: SyncService;
    engine: EngineService;
    mergeQueueMetrics: MergeQueueMetricsService;
    flaky: FlakyServices;
    webhooks: WebhookEndpointService;
    webhookDispatcher: WebhookDispatcher;
    timeToMerge: TimeToMergeService;
    /** Emits domain events that do not come from a merge-queue transition (flaky tests). */
    domainEvents: EventOutbox;
  };
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
  const store = createStore(db);
  await ensureIndexes(store);

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

  const providers = createProviderRegistry({ localGitRoot: config.localGitRoot });
  const requestPlan = (queueId: string, why: string) => jobs.requestPlan(queueId, why);
  const eventStore = createEventStore(db);
  await ensureEventIndexes(eventStore);
  const enqueuePublish = (eventId: string) => jobs.enqueue('publish-event', { eventId });
  const enqueueDelivery = (deliveryId: string, at?: Date) => jobs.enqueue('deliver-webhook', { deliveryId }, at ? { runAt: at } : {});
  // The services write through repositories that emit a domain event with every transition.
  const outbox = new EventOutbox({ events: eventStore.events, requestPublish: enqueuePublish, logger });
  const repositories = withDomainEvents(store, outbox);
  const queues = new QueueService({ store: repositories, providers, logger, requestPlan });
  const pullRequests = new PullRequestService({ store: repositories, providers, queues, logger, requestPlan });
  const commitStatuses = new CommitStatusService({ store: repositories, logger, requestPlan });
  const flakyStore = createFlakyStore(db);
  await ensureFlakyIndexes(flakyStore);
  const flaky = createFlakyServices({
    store: flakyStore,
    orgs: store.orgs,
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
    },
  });
  const services = {
    flaky,
    queues,
    pullRequests,
    commitStatuses,
    testingDetails: new TestingDetailsService({ store: repositories, queues }),
    sync: new SyncService({ store: repositories, providers, pullRequests, logger, requestPlan }),
    engine: new EngineService({
      store: repositories,
      providers,
      logger,
      scheduleTimeout: (run) => (run.deadlineAt ? jobs.scheduleTimeout(run.queueId, run.id, run.deadlineAt) : Promise.resolve()),
      scheduleWake: (queueId, at, why) => jobs.scheduleWake(queueId, at, why),
      evaluateRun: (run, repo) => commitStatuses.evaluateRun(run, repo),
    }),
    mergeQueueMetrics: new MergeQueueMetricsService({ store }),
    timeToMerge: new TimeToMergeService({ store }),
    domainEvents: outbox,
    webhooks: new WebhookEndpointService({ endpoints: eventStore.endpoints, deliveries: eventStore.deliveries, enqueueDelivery }),
    webhookDispatcher: new WebhookDispatcher({
      ...eventStore,
      store,
      enqueueDelivery,
      enqueuePublish,
      settings: {
        retryBaseMs: config.webhooks.retryBaseMs,
        maxAttempts: config.webhooks.maxAttempts,
        disableAfterMs: config.webhooks.disableAfterSeconds * 1000,
        timeoutMs: config.webhooks.timeoutMs,
      },
      baseUrl: config.publicUrl ?? `http://${config.host}:${config.port}`,
      logger,
    }),
  };
  logger.info({ database: db.kind, localGitRoot: config.localGitRoot }, 'service context ready');
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
    readiness: { mongodb: () => db.ping(), redis: () => pingRedis(producerRedis) },
    shutdown,
    metrics,
  };
}
