// The merge queue's job processors: each turns one job into one use case and receives only the
// services that use case needs. Processors are thin: the services load state and call the domain.
import type { JobProcessor, ProcessorRegistry } from '../../platform/jobs/job-catalogue.js';
import type { Logger } from '../../platform/logging.js';
import type { EngineService } from '../services/engine/engine-service.js';
import type { StatusWatchService } from '../services/status-watch-service.js';
import type { SyncService } from '../services/sync-service.js';
import type { MergeWindowService } from '../services/merge-window-service.js';
import type { ObjectiveService } from '../services/objective-service.js';
import type { DigestService } from '../services/digest-service.js';
import type { MergeQueueJobs, MergeQueueScheduler } from './merge-queue-jobs.js';

type Processor<K extends keyof MergeQueueJobs> = JobProcessor<MergeQueueJobs, K>;
type RequestPlan = Pick<MergeQueueScheduler, 'requestPlan'>;

/** plan: one planning pass over one merge queue. */
export const planProcessor =
  (engine: Pick<EngineService, 'planQueue'>, logger: Logger): Processor<'plan'> =>
  async (job) => {
    const summary = await engine.planQueue(job.data.queueId);
    logger.debug({ queueId: job.data.queueId, why: job.data.why, ...summary }, 'planning pass done');
  };

/** timeout: a run that has not concluded by its deadline fails with test_run_timeout. */
export const timeoutProcessor =
  (engine: Pick<EngineService, 'expireRun'>, scheduler: RequestPlan): Processor<'timeout'> =>
  async (job) => {
    if (await engine.expireRun(job.data.testRunId, job.data.deadlineAt)) {
      await scheduler.requestPlan(job.data.queueId, `test run ${job.data.testRunId} timed out`);
    }
  };

/** wake: a delayed planning pass, through the deduplicated plan queue (never concurrent with another pass). */
export const wakeProcessor =
  (scheduler: RequestPlan): Processor<'wake'> =>
  async (job) => {
    await scheduler.requestPlan(job.data.queueId, job.data.why);
  };

/** status-watch: the stall watchdog looks at a built run's required statuses. */
export const statusWatchProcessor =
  (statusWatch: Pick<StatusWatchService, 'check'>): Processor<'status-watch'> =>
  async (job) => {
    await statusWatch.check(job.data.testRunId);
  };

/** sync (periodic): notice pushes to queued pull requests, closes, merges elsewhere and target moves. */
export const syncProcessor =
  (sync: Pick<SyncService, 'poll'>, logger: Logger): Processor<'sync'> =>
  async () => {
    const outcome = await sync.poll();
    if (outcome.skipped > 0) logger.debug(outcome, 'provider poll: queues whose webhooks arrive were not due');
  };

/**
 * reconcile (periodic): plan every queue whose stored state may hold due work, so a lost job, a
 * crash between a write and its enqueue, or a missed wake-up never leaves a queue stuck.
 */
export const reconcileProcessor =
  (engine: Pick<EngineService, 'queuesWithWork'>, scheduler: RequestPlan, logger: Logger): Processor<'reconcile'> =>
  async () => {
    const queueIds = await engine.queuesWithWork();
    for (const id of queueIds) await scheduler.requestPlan(id, 'reconciler');
    if (queueIds.length > 0) logger.debug({ queues: queueIds.length }, 'reconciler requested planning passes');
  };

/** merge-windows (periodic): the schedule watcher's round (services/merge-window-service.ts). */
export const mergeWindowsProcessor =
  (mergeWindows: Pick<MergeWindowService, 'watchAll'>): Processor<'merge-windows'> =>
  async () => {
    await mergeWindows.watchAll();
  };

/** queue-objectives (periodic): the objective watcher's round (services/objective-service.ts). */
export const objectivesProcessor =
  (objectives: Pick<ObjectiveService, 'evaluateAll'>): Processor<'queue-objectives'> =>
  async () => {
    await objectives.evaluateAll();
  };

/** queue-digests (periodic): the digest sender's round (services/digest-service.ts). */
export const digestsProcessor =
  (digests: Pick<DigestService, 'sendDue'>): Processor<'queue-digests'> =>
  async () => {
    await digests.sendDue();
  };

export function mergeQueueProcessors(deps: {
  engine: EngineService;
  statusWatch: StatusWatchService;
  sync: SyncService;
  scheduler: MergeQueueScheduler;
  mergeWindows: MergeWindowService;
  objectives: ObjectiveService;
  digests: DigestService;
  logger: Logger;
}): ProcessorRegistry<MergeQueueJobs> {
  const { engine, scheduler, logger } = deps;
  return {
    plan: planProcessor(engine, logger),
    timeout: timeoutProcessor(engine, scheduler),
    wake: wakeProcessor(scheduler),
    'status-watch': statusWatchProcessor(deps.statusWatch),
    sync: syncProcessor(deps.sync, logger),
    reconcile: reconcileProcessor(engine, scheduler, logger),
    'merge-windows': mergeWindowsProcessor(deps.mergeWindows),
    'queue-objectives': objectivesProcessor(deps.objectives),
    'queue-digests': digestsProcessor(deps.digests),
  };
}
