// The composition root: opens the database and Redis, then builds each module with what it needs
// — accounts, the event log, the merge queue, the flaky-tests side, GitHub when configured, and
// event delivery last (it renders the products' events). Entry points (api, worker, all-in-one)
// share it; each takes from the result only what it serves.
import type { Redis } from 'ioredis';
import { embeddedDbDir, type Config } from './config.js';
import { serviceJobs, type ServiceJobs } from './jobs.js';
import { createLogger, type Logger } from '../platform/logging.js';
import type { Database } from '../platform/database/collection.js';
import { openDatabase } from '../platform/database/open-database.js';
import { ensureIndexes } from '../platform/database/ensure-indexes.js';
import { runMigrations } from '../platform/database/migrations.js';
import { serviceMigrations } from './migrations.js';
import { createRedis, pingRedis } from '../platform/jobs/connection.js';
import { JobProducer } from '../platform/jobs/producer.js';
import type { ProcessorRegistry } from '../platform/jobs/job-catalogue.js';
import { Shutdown } from '../platform/runtime/shutdown.js';
import { OperatorMetrics } from '../platform/metrics/operator-metrics.js';
import { instrumentDatabase } from '../platform/metrics/instrumented-database.js';
import { jobCountsSource } from '../platform/metrics/job-metrics.js';
import { createAccountsModule, type AccountsModule } from '../platform/accounts/accounts-module.js';
import { createSignInModule, type SignInModule } from '../sign-in/sign-in-module.js';
import { createEventsModule, openEventLog, type EventsModule } from '../platform/events/events-module.js';
import { createProviderRegistry } from '../providers/registry.js';
import type { ProviderRegistry } from '../merge-queue/services/provider.js';
import { createGitHubAdapter } from '../providers/github/github-adapter.js';
import { createMergeQueueStore } from '../merge-queue/store/store.js';
import { mergeQueueScheduler } from '../merge-queue/jobs/merge-queue-jobs.js';
import { createMergeQueueModule, testRunLinksOf, type MergeQueueModule } from '../merge-queue/merge-queue-module.js';
import { PlayPool } from '../merge-queue/simulation/play-pool.js';
import { IN_THREAD } from '../merge-queue/simulation/what-if.js';
import { createFlakyStore } from '../flaky-tests/store/flaky-store.js';
import { openUploadBlobStore } from '../flaky-tests/store/open-upload-blob-store.js';
import { createFlakyTestsModule, type FlakyTestsModule } from '../flaky-tests/flaky-tests-module.js';
import { createGitHubStore } from '../github/store/github-store.js';
import { createGitHubForge, createGitHubIntake, type GitHubModule } from '../github/github-module.js';
import { gitHubProcessors } from '../github/jobs/github-processors.js';

export interface Service {
  config: Config;
  logger: Logger;
  db: Database;
  shutdown: Shutdown;
  /** Operator metrics of this process (served by the operator listener). */
  metrics: OperatorMetrics;
  /** Fail-fast connection for enqueues made while serving requests. */
  producerRedis: Redis;
  /** Enqueues the jobs of the service's catalogue. */
  jobs: JobProducer<ServiceJobs>;
  /** A processor for every job of the catalogue (workers run them). */
  processors: ProcessorRegistry<ServiceJobs>;
  /** Dependency checks for /readyz. */
  readiness: Record<string, () => Promise<void>>;
  /** The forge that serves each repository (GitHub's, or a local bare repository). */
  providers: ProviderRegistry;
  accounts: AccountsModule;
  events: EventsModule;
  mergeQueue: MergeQueueModule;
  flakyTests: FlakyTestsModule;
  /** Null unless GitHub is configured. */
  github: GitHubModule | null;
  /** Dashboard sessions and sign-in with an identity provider. */
  signIn: SignInModule;
}

export interface OpenServiceOptions {
  logger?: Logger;
  /** Use this database instead of opening one from the configuration (tests). */
  database?: Database;
}

export async function openService(config: Config, opts: OpenServiceOptions = {}): Promise<Service> {
  const logger = opts.logger ?? createLogger(config.logLevel);
  if (!config.redisUrl) throw new Error('REDIS_URL is required (npm start launches a private redis-server when it is unset)');
  const shutdown = new Shutdown(logger, config.shutdownGraceSeconds * 1000);
  const metrics = new OperatorMetrics();
  const rawDb = opts.database ?? (await openDatabase(config.mongoUrl ? { mongoUrl: config.mongoUrl } : { dataDir: embeddedDbDir(config) }));
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
  const catalogue = serviceJobs(config);
  const jobs = new JobProducer({ catalogue, connection: producerRedis, prefix: config.bullPrefix });
  shutdown.add({ name: 'job-producer', order: 20, close: () => jobs.close() });
  const jobCounts = jobCountsSource(Object.keys(catalogue), producerRedis, config.bullPrefix);
  metrics.setJobCountsReader(() => jobCounts.read());
  shutdown.add({ name: 'job-counts', order: 20, close: () => jobCounts.close() });
  const { enqueue, enqueueMany } = jobs;
  const baseUrl = config.publicUrl ?? `http://${config.host}:${config.port}`;

  // Before anything reads or writes: data an earlier release wrote is brought up to date once,
  // under a lock, and a database a newer release migrated is refused (SchemaTooNewError).
  await runMigrations(db, serviceMigrations, { logger });

  const accounts = createAccountsModule(db, { personalTokenDays: config.personalTokenDays });
  // Writes put their events into the outbox of the document they change; the relay moves them on.
  const eventLog = openEventLog(db, enqueueMany, logger);
  const mergeQueueStore = createMergeQueueStore(db, eventLog.relay);
  const flakyStore = createFlakyStore(db, eventLog.relay);
  const githubStore = config.github ? createGitHubStore(db) : null;
  const githubAdapter = config.github ? createGitHubAdapter({ config: config.github, dataDir: config.dataDir, logger }) : null;
  const signIn = createSignInModule(db, config.signIn, {
    orgs: accounts.store.orgs,
    tokens: accounts.store.tokens,
    tokenService: accounts.tokens,
    audit: accounts.store.audit,
    logger,
    orgsOfRepository: (repo) => mergeQueueStore.queues.orgsWithRepository(repo),
    gitHub: config.github && githubAdapter ? { host: config.github.host, permissionOf: (repo, login) => githubAdapter.api.permissionOf(repo, login) } : null,
  });
  await ensureIndexes(accounts.store, mergeQueueStore, flakyStore, eventLog.store, signIn.store, ...(githubStore ? [githubStore] : []));

  const providers = createProviderRegistry({ localGitRoot: config.localGitRoot, github: githubAdapter?.provider ?? null });
  const forge =
    config.github && githubAdapter && githubStore
      ? createGitHubForge({
          config: config.github,
          adapter: githubAdapter,
          store: githubStore,
          mergeQueueStore,
          orgs: accounts.store.orgs,
          audit: accounts.store.audit,
          baseUrl,
          providerPollSeconds: config.providerPollSeconds,
          logger,
        })
      : null;

  const blobs = await openUploadBlobStore({ mongoUrl: config.mongoUrl, dataDir: config.dataDir });
  shutdown.add({ name: 'flaky-upload-blobs', order: 40, close: () => blobs.close() });
  const flakyTests = createFlakyTestsModule({
    store: flakyStore,
    blobs,
    orgs: accounts.store.orgs,
    audit: accounts.store.audit,
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
    enqueue,
    // The products meet through ports: uploads find the merge queue's runs, runs read uploads' results.
    links: testRunLinksOf(mergeQueueStore, mergeQueueScheduler(enqueue)),
    logger,
  });
  const replayThreads = config.simulationThreads > 0 ? new PlayPool(config.simulationThreads) : null;
  if (replayThreads) shutdown.add({ name: 'replay-threads', order: 20, close: () => replayThreads.close() });
  const mergeQueue = createMergeQueueModule({
    replayer: replayThreads ?? IN_THREAD,
    store: mergeQueueStore,
    providers,
    enqueue,
    orgs: accounts.store.orgs,
    audit: accounts.store.audit,
    testResults: flakyTests.services.runResults,
    forge: forge?.hooks ?? {},
    baseUrl,
    logger,
  });
  const github: GitHubModule | null =
    config.github && forge
      ? {
          ...forge,
          ...createGitHubIntake(forge, {
            config: config.github,
            mergeQueueStore,
            mergeQueue: mergeQueue.services,
            enqueue,
            logger,
          }),
        }
      : null;
  const events = createEventsModule(eventLog, {
    formats: [mergeQueue.eventFormat, flakyTests.eventFormat],
    outboxes: [...mergeQueue.outboxes, ...flakyTests.outboxes],
    settings: config.webhooks,
    enqueue,
    audit: accounts.store.audit,
    shutdown,
    logger,
  });
  logger.info(
    {
      database: db.kind,
      localGitRoot: config.localGitRoot,
      github: config.github?.host ?? null,
      heapGrowingPercent: config.heapGrowingPercent,
      simulationThreads: config.simulationThreads,
    },
    'service ready',
  );
  return {
    config,
    logger,
    db,
    shutdown,
    metrics,
    producerRedis,
    jobs,
    processors: { ...mergeQueue.processors, ...flakyTests.processors, ...gitHubProcessors(github, logger), ...events.processors },
    readiness: { mongodb: () => db.ping(), redis: () => pingRedis(producerRedis) },
    providers,
    accounts,
    events,
    mergeQueue,
    flakyTests,
    github,
    signIn,
  };
}
