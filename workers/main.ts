// The `worker` entry point, and startWorkers(service), which the all-in-one process uses too: one
// BullMQ worker per job queue the process serves (all of the catalogue's unless WORKER_QUEUES or
// WORKER_EXCLUDE_QUEUES say otherwise; docs/operations.md), at the configured concurrency, running
// the modules' processors, and a scheduler for each periodic job it serves.
import { pathToFileURL } from 'node:url';
import { Queue, Worker } from 'bullmq';
import type { Service } from '../shared/composition/service.js';
import { runEntryPoint } from '../shared/composition/entry-point.js';
import { startConfiguredOperatorServer } from '../shared/composition/operator-endpoint.js';
import { createRedis } from '../shared/platform/jobs/connection.js';
import { retentionOf } from '../shared/platform/jobs/job-catalogue.js';
import { withLogContext } from '../shared/platform/logging.js';
import { observeWorker } from '../shared/platform/metrics/job-metrics.js';
import { guardedProcessor } from './job-processor.js';

export async function startWorkers(service: Pick<Service, 'config' | 'logger' | 'jobs' | 'processors' | 'shutdown' | 'metrics'>): Promise<void> {
  const { config, logger } = service;
  const redisUrl = config.redisUrl;
  if (!redisUrl) throw new Error('REDIS_URL is required to run workers');
  const connection = createRedis(redisUrl, 'worker');
  connection.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis (workers) connection error'));
  const prefix = config.bullPrefix;
  const { catalogue } = service.jobs;
  const served = config.workerQueues;
  const names = served.map((q) => q.name as keyof typeof catalogue & string);

  const workers = served.map(({ concurrency }, i) => {
    const name = names[i]!;
    const spec = catalogue[name];
    const process = guardedProcessor(name, spec, service.processors[name], logger);
    const worker = new Worker(
      name,
      (job) =>
        withLogContext({ jobId: `${name}:${job.id ?? '?'}`, ...(typeof job.data?.requestId === 'string' ? { requestId: job.data.requestId } : {}) }, () =>
          process(job),
        ),
      { connection, prefix, concurrency, ...retentionOf(spec) },
    );
    worker.on('failed', (job, err) => logger.error({ queue: name, jobId: job?.id, attempt: job?.attemptsMade, err }, 'job failed'));
    worker.on('error', (err) => logger.error({ queue: name, err }, 'worker error'));
    observeWorker(worker, name, service.metrics);
    service.metrics.workerConcurrency.set({ queue: name }, concurrency);
    return worker;
  });

  // Periodic jobs: one scheduler each, upserted idempotently by every worker process serving it.
  const schedulerQueues: Queue[] = [];
  for (const name of names) {
    const spec = catalogue[name];
    if (!spec.everySeconds) continue;
    const q = new Queue(name, { connection, prefix });
    q.on('error', (err) => logger.warn({ queue: name, err: err.message }, 'scheduler queue error'));
    schedulerQueues.push(q);
    await q.upsertJobScheduler(name, { every: spec.everySeconds * 1000 }, { name, data: {}, opts: { ...retentionOf(spec), attempts: spec.attempts } });
  }

  service.shutdown.add({ name: 'workers', order: 10, close: async () => void (await Promise.all(workers.map((w) => w.close()))) });
  service.shutdown.add({ name: 'scheduler-queues', order: 20, close: async () => void (await Promise.all(schedulerQueues.map((q) => q.close()))) });
  service.shutdown.add({ name: 'redis-workers', order: 30, close: async () => void (await connection.quit()) });
  logger.info({ queues: Object.fromEntries(served.map((q) => [q.name, q.concurrency])) }, 'workers started');
  // A reconciliation right away, so work left by a previous process continues without waiting a period.
  await service.jobs.enqueue('reconcile', {});
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runEntryPoint('worker', async (service) => {
    await startWorkers(service);
    // A worker-only process has no API, but its job and database metrics are served here.
    await startConfiguredOperatorServer(service);
  });
}
