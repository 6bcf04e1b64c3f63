// The merge queue, wired: its use cases over its repositories, the verbs that ask for its jobs,
// its job processors, and how event delivery renders its events. The composition root gives it
// its store, a provider registry, the flaky-tests side's results (a port), a forge's hooks and
// the platform's accounts; nothing here knows which forge or which database.
import { ResourceService } from './services/resource-service.js';
import type { AuditTrail } from '../platform/audit/audit-log.js';
import type { OrgRepository } from '../platform/accounts/org-repository.js';
import type { EventFormat } from '../platform/events/event-types.js';
import type { OutboxSource } from '../platform/events/outbox.js';
import type { Enqueue, ProcessorRegistry } from '../platform/jobs/job-catalogue.js';
import type { Logger } from '../platform/logging.js';
import { mergeQueueEventFormat } from './events/event-format.js';
import { mergeQueueScheduler, type MergeQueueJobs, type MergeQueueScheduler } from './jobs/merge-queue-jobs.js';
import { mergeQueueProcessors } from './jobs/merge-queue-processors.js';
import { CommitStatusService } from './services/commit-status-service.js';
import { CostReportService } from './services/cost-report-service.js';
import { EngineService } from './services/engine/engine-service.js';
import type { ForgeHooks } from './services/forge-hooks.js';
import { MergeQueueMetricsService } from './services/metrics-service.js';
import type { ProviderRegistry } from './services/provider.js';
import { PullRequestService } from './services/pull-request-service.js';
import { QueueReadService } from './services/queue-read-service.js';
import { QueueService } from './services/queue-service.js';
import type { RunTestResultsSource } from './services/run-test-results.js';
import { StatusWatchService } from './services/status-watch-service.js';
import { SyncService } from './services/sync-service.js';
import { TestingDetailsService } from './services/testing-details-service.js';
import { VerdictService } from './services/verdict-service.js';
import { CommitVerificationService } from './services/commit-verification-service.js';
import { TestRunLinkService } from './services/test-run-link-service.js';
import { TimeToMergeService } from './services/time-to-merge-service.js';
import { MergeWindowService } from './services/merge-window-service.js';
import { ScheduleSource } from './services/schedule-source.js';
import { ChangedPathsSource } from './services/changed-paths-source.js';
import { ObjectiveService } from './services/objective-service.js';
import { DigestService } from './services/digest-service.js';
import { QueueSimulationService } from './simulation/queue-simulation-service.js';
import type { Replayer } from './simulation/what-if.js';
import { outboxSourcesOf, type MergeQueueStore } from './store/store.js';

export interface MergeQueueServices {
  queues: QueueService;
  pullRequests: PullRequestService;
  commitStatuses: CommitStatusService;
  testingDetails: TestingDetailsService;
  sync: SyncService;
  engine: EngineService;
  /** GET /v1/getMergeQueueMetrics. */
  metrics: MergeQueueMetricsService;
  /** The stall watchdog's findings (getQueue's warnings). */
  statusWatch: StatusWatchService;
  costReport: CostReportService;
  /** The dashboard's reads of queues, runs and health. */
  queueReads: QueueReadService;
  simulation: QueueSimulationService;
  /** Position and estimated time to merge (getSubmittedPullRequest). */
  timeToMerge: TimeToMergeService;
  /** "Was it mine?": the verdict on a failed pull request (getSubmittedPullRequest). */
  verdicts: VerdictService;
  /** Whether a target branch commit's tree was tested (verifyCommit). */
  commitVerification: CommitVerificationService;
  /** The v2 API's repositories and pull requests by id. */
  resources: ResourceService;
  /** The schedule watcher and the forecast before a freeze (docs/merge-windows.md). */
  mergeWindows: MergeWindowService;
  /** The objective watcher (docs/objectives.md). */
  objectives: ObjectiveService;
  /** The daily or weekly digest (docs/digests.md). */
  digests: DigestService;
}

export interface MergeQueueModule {
  store: MergeQueueStore;
  services: MergeQueueServices;
  /** How its use cases ask for its jobs. */
  scheduler: MergeQueueScheduler;
  processors: ProcessorRegistry<MergeQueueJobs>;
  /** Its events as event delivery renders them. */
  eventFormat: EventFormat;
  /** The documents whose outboxes hold its events. */
  outboxes: OutboxSource[];
}

export interface MergeQueueModuleDeps {
  store: MergeQueueStore;
  providers: ProviderRegistry;
  enqueue: Enqueue<MergeQueueJobs>;
  orgs: Pick<OrgRepository, 'findById'>;
  audit: AuditTrail;
  /** Test results linked to runs (the flaky-tests side). */
  testResults: RunTestResultsSource;
  /** What a forge integration adds (GitHub); none for local repositories alone. */
  forge: ForgeHooks;
  /** The base of links in events (PUBLIC_URL, or the service's own address). */
  baseUrl: string;
  logger: Logger;
  /** Where simulateQueue's replays play (replay threads, or the calling thread). */
  replayer: Replayer;
}

/** How the flaky-tests side links uploads to the merge queue's runs (its TestRunLinks port). */
export function testRunLinksOf(store: Pick<MergeQueueStore, 'testRuns' | 'queues'>, scheduler: Pick<MergeQueueScheduler, 'requestPlan'>): TestRunLinkService {
  return new TestRunLinkService({ store, requestPlan: (queueId, why) => scheduler.requestPlan(queueId, why) });
}

export function createMergeQueueModule(deps: MergeQueueModuleDeps): MergeQueueModule {
  const { store, providers, logger, forge } = deps;
  const scheduler = mergeQueueScheduler(deps.enqueue);
  const requestPlan = scheduler.requestPlan;
  const queues = new QueueService({
    store,
    providers,
    logger,
    audit: deps.audit,
    requestPlan,
    ...(forge.claimRepository ? { claimRepository: forge.claimRepository } : {}),
  });
  const statusWatch = new StatusWatchService({ store, logger });
  const commitStatuses = new CommitStatusService({ store, logger, requestPlan, statusWatch });
  const schedules = new ScheduleSource();
  const changedPaths = new ChangedPathsSource(logger);
  const engine = new EngineService({
    store,
    providers,
    schedules,
    changedPaths,
    logger,
    scheduleTimeout: (run) => (run.deadlineAt ? scheduler.scheduleTimeout(run.queueId, run.id, run.deadlineAt) : Promise.resolve()),
    scheduleStatusWatch: (run, at) => scheduler.scheduleStatusWatch(run.queueId, run.id, at),
    scheduleWake: (queueId, at, why) => scheduler.scheduleWake(queueId, at, why),
    evaluateRun: (run, repo) => commitStatuses.evaluateRun(run, repo),
    testResults: deps.testResults,
    ...(forge.afterPassApplied ? { afterPassApplied: forge.afterPassApplied } : {}),
  });
  const sync = new SyncService({ store, providers, logger, requestPlan, ...(forge.pollSchedule ? { pollSchedule: forge.pollSchedule } : {}) });
  const timeToMerge = new TimeToMergeService({ store });
  const verdicts = new VerdictService({ store, testResults: deps.testResults });
  const costReport = new CostReportService({ store, queues });
  const services: MergeQueueServices = {
    queues,
    pullRequests: new PullRequestService({
      store,
      providers,
      queues,
      logger,
      requestPlan,
      ...(forge.forksAllowed ? { forksAllowed: forge.forksAllowed } : {}),
    }),
    commitStatuses,
    testingDetails: new TestingDetailsService({ store, queues, testResults: deps.testResults, checkSuites: forge.checkSuites ?? (async () => []) }),
    sync,
    engine,
    metrics: new MergeQueueMetricsService({ store }),
    statusWatch,
    costReport,
    queueReads: new QueueReadService({ store, orgs: deps.orgs, queues }),
    simulation: new QueueSimulationService({ store, replayer: deps.replayer }),
    timeToMerge,
    mergeWindows: new MergeWindowService({ store, providers, schedules, changedPaths, timeToMerge, logger, requestPlan }),
    verdicts,
    objectives: new ObjectiveService({ store, verdicts, logger }),
    digests: new DigestService({ store, verdicts, costs: costReport, testResults: deps.testResults, queues, logger }),
    commitVerification: new CommitVerificationService({ store }),
    resources: new ResourceService({ store, providers }),
  };
  return {
    store,
    services,
    scheduler,
    processors: mergeQueueProcessors({
      engine,
      statusWatch,
      sync,
      scheduler,
      mergeWindows: services.mergeWindows,
      objectives: services.objectives,
      digests: services.digests,
      logger,
    }),
    eventFormat: mergeQueueEventFormat({ store, orgs: deps.orgs, baseUrl: deps.baseUrl, logger, verdicts: services.verdicts }),
    outboxes: outboxSourcesOf(store),
  };
}
