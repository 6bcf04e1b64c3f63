// The `worker` entry point, and startWorkers(ctx), which the all-in-one process uses too.
// Processors are thin: they load state through the services, which call the pure domain.
import { pathToFileURL } from 'node:url';
import { Queue, Worker, type Processor } from 'bullmq';
import type { ServiceContext } from '../shared/runtime/context.js';
import { runEntryPoint } from '../shared/runtime/entry-point.js';
import { createRedis } from '../shared/jobs/connection.js';
import { JOB_QUEUES, type JobQueueName } from '../shared/jobs/job-types.js';
import { KEEP_FINISHED } from '../shared/jobs/producer.js';
import { withLogContext } from '../shared/logging.js';
import { observeWorker } from '../shared/metrics/job-metrics.js';
import { startConfiguredOperatorServer } from '../shared/metrics/operator-server.js';
import { planProcessor } from './processors/plan-processor.js';
import { timeoutProcessor } from './processors/timeout-processor.js';
import { wakeProcessor } from './processors/wake-processor.js';
import { syncProcessor } from './processors/sync-processor.js';
import { reconcileProcessor } from './processors/reconcile-processor.js';

/** Jobs run at once per worker process, per queue. Planning passes of one merge queue never overlap (deduplication). */
const CONCURRENCY: Record<JobQueueName, number> = { plan: 8, timeout: 4, wake: 4, sync: 1, reconcile: 1 };

export async function startWorkers(ctx: ServiceContext): Promise<void> {
  const redisUrl = ctx.config.redisUrl;
  if (!redisUrl) throw new Error('REDIS_URL is required to run workers');
  const connection = createRedis(redisUrl, 'worker');
  connection.on('error', (err: Error) => ctx.logger.warn({ err: err.message }, 'redis (workers) connection error'));
  const prefix = ctx.config.bullPrefix;

  const processors: Record<JobQueueName, Processor> = {
    plan: planProcessor(ctx),
    timeout: timeoutProcessor(ctx),
    wake: wakeProcessor(ctx),
    sync: syncProcessor(ctx),
    reconcile: reconcileProcessor(ctx),
  };

  const workers = (Object.keys(processors) as JobQueueName[]).map((name) => {
    const process = processors[name];
    const worker = new Worker(
      JOB_QUEUES[name],
      (job, token) => withLogContext({ jobId: `${name}:${job.id ?? '?'}`, ...(job.data?.requestId ? { requestId: String(job.data.requestId) } : {}) }, () => process(job, token)),
      { connection, prefix, concurrency: CONCURRENCY[name], ...KEEP_FINISHED },
    );
    worker.on('failed', (job, err) => ctx.logger.error({ queue: name, jobId: job?.id, err }, 'job failed'));
    worker.on('error', (err) => ctx.logger.error({ queue: name, err }, 'worker error'));
    observeWorker(worker, JOB_QUEUES[name], ctx.metrics);
    return worker;
  });

  // Periodic jobs: one scheduler each, upserted idempotently by every worker process.
  const schedulers = [
    { queue: JOB_QUEUES.sync, every: ctx.config.providerPollSeconds * 1000 },
    { queue: JOB_QUEUES.reconcile, every: ctx.config.reconcileSeconds * 1000 },
  ];
  const schedulerQueues = schedulers.map(({ queue, every }) => {
    const q = new Queue(queue, { connection, prefix });
    q.on('error', (err) => ctx.logger.warn({ queue, err: err.message }, 'scheduler queue error'));
    return { q, every, queue };
  });
  for (const { q, every, queue } of schedulerQueues) {
    await q.upsertJobScheduler(queue, { every }, { name: queue, data: {}, opts: KEEP_FINISHED });
  }

  ctx.shutdown.add({ name: 'workers', order: 10, close: async () => void (await Promise.all(workers.map((w) => w.close()))) });
  ctx.shutdown.add({ name: 'scheduler-queues', order: 20, close: async () => void (await Promise.all(schedulerQueues.map(({ q }) => q.close()))) });
  ctx.shutdown.add({ name: 'redis-workers', order: 30, close: async () => void (await connection.quit()) });
  ctx.logger.info({ queues: Object.keys(processors) }, 'workers started');
  // A pass right away, so work left by a previous process continues without waiting a period.
  await reconcileProcessor(ctx)();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runEntryPoint('worker', async (ctx) => {
    await startWorkers(ctx);
    // A worker-only process has no API, but its job and database metrics are served here.
    await startConfiguredOperatorServer(ctx);
  });
}
