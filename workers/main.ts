// The `worker` entry point, and startWorkers(ctx), which the all-in-one process uses too.
// Processors are thin: they load state through the services, which call the pure domain.
import { pathToFileURL } from 'node:url';
import { Queue, Worker } from 'bullmq';
import type { ServiceContext } from '../shared/runtime/context.js';
import { runEntryPoint } from '../shared/runtime/entry-point.js';
import { createRedis } from '../shared/jobs/connection.js';
import { JOB_NAMES, JOB_SPECS, retentionOf, type JobName } from '../shared/jobs/job-catalogue.js';
import { withLogContext } from '../shared/logging.js';
import { observeWorker } from '../shared/metrics/job-metrics.js';
import { startConfiguredOperatorServer } from '../shared/metrics/operator-server.js';
import { withFailurePolicy, type ProcessorRegistry } from './job-processor.js';
import { planProcessor } from './processors/plan-processor.js';
import { timeoutProcessor } from './processors/timeout-processor.js';
import { wakeProcessor } from './processors/wake-processor.js';
import { statusWatchProcessor } from './processors/status-watch-processor.js';
import { syncProcessor } from './processors/sync-processor.js';
import { reconcileProcessor } from './processors/reconcile-processor.js';
import { githubWebhookProcessor } from './processors/github-webhook-processor.js';
import { githubCiResultsProcessor } from './processors/github-ci-results-processor.js';
import { githubTestBranchPullRequestsProcessor } from './processors/github-test-branch-prs-processor.js';
import { githubPullRequestFeedbackProcessor } from './processors/github-pull-request-feedback-processor.js';
import { flakyIngestProcessor } from './processors/flaky-ingest-processor.js';
import { flakyRefreshProcessor } from './processors/flaky-refresh-processor.js';
import { deliverWebhookProcessor, eventSweepProcessor, publishEventProcessor } from './processors/event-processors.js';

function processorsOf(ctx: ServiceContext): ProcessorRegistry {
  return {
    plan: planProcessor(ctx),
    timeout: timeoutProcessor(ctx),
    wake: wakeProcessor(ctx),
    'status-watch': statusWatchProcessor(ctx),
    sync: syncProcessor(ctx),
    reconcile: reconcileProcessor(ctx),
    'github-webhook': githubWebhookProcessor(ctx),
    'github-ci-results': githubCiResultsProcessor(ctx),
    'github-pr-feedback': githubPullRequestFeedbackProcessor(ctx),
    'github-test-branch-prs': githubTestBranchPullRequestsProcessor(ctx),
    'flaky-ingest': flakyIngestProcessor(ctx),
    'flaky-refresh': flakyRefreshProcessor(ctx),
    'publish-event': publishEventProcessor(ctx),
    'deliver-webhook': deliverWebhookProcessor(ctx),
    'event-sweep': eventSweepProcessor(ctx),
  };
}

export async function startWorkers(ctx: ServiceContext): Promise<void> {
  const redisUrl = ctx.config.redisUrl;
  if (!redisUrl) throw new Error('REDIS_URL is required to run workers');
  const connection = createRedis(redisUrl, 'worker');
  connection.on('error', (err: Error) => ctx.logger.warn({ err: err.message }, 'redis (workers) connection error'));
  const prefix = ctx.config.bullPrefix;
  const processors = processorsOf(ctx);

  function startWorker<K extends JobName>(name: K): Worker {
    const process = withFailurePolicy(name, processors[name], ctx.logger);
    const worker = new Worker(
      name,
      (job) => withLogContext({ jobId: `${name}:${job.id ?? '?'}`, ...(job.data?.requestId ? { requestId: String(job.data.requestId) } : {}) }, () => process(job)),
      { connection, prefix, concurrency: JOB_SPECS[name].concurrency, ...retentionOf(name) },
    );
    worker.on('failed', (job, err) => ctx.logger.error({ queue: name, jobId: job?.id, attempt: job?.attemptsMade, err }, 'job failed'));
    worker.on('error', (err) => ctx.logger.error({ queue: name, err }, 'worker error'));
    observeWorker(worker, name, ctx.metrics);
    return worker;
  }
  const workers = JOB_NAMES.map((name) => startWorker(name));

  // Periodic jobs: one scheduler each, upserted idempotently by every worker process.
  const schedulerQueues: Queue[] = [];
  for (const name of JOB_NAMES) {
    const setting = JOB_SPECS[name].every;
    if (!setting) continue;
    const q = new Queue(name, { connection, prefix });
    q.on('error', (err) => ctx.logger.warn({ queue: name, err: err.message }, 'scheduler queue error'));
    schedulerQueues.push(q);
    await q.upsertJobScheduler(name, { every: ctx.config[setting] * 1000 }, { name, data: {}, opts: { ...retentionOf(name), attempts: JOB_SPECS[name].attempts } });
  }

  ctx.shutdown.add({ name: 'workers', order: 10, close: async () => void (await Promise.all(workers.map((w) => w.close()))) });
  ctx.shutdown.add({ name: 'scheduler-queues', order: 20, close: async () => void (await Promise.all(schedulerQueues.map((q) => q.close()))) });
  ctx.shutdown.add({ name: 'redis-workers', order: 30, close: async () => void (await connection.quit()) });
  ctx.logger.info({ queues: JOB_NAMES }, 'workers started');
  // A reconciliation right away, so work left by a previous process continues without waiting a period.
  await ctx.jobs.enqueue('reconcile', {});
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runEntryPoint('worker', async (ctx) => {
    await startWorkers(ctx);
    // A worker-only process has no API, but its job and database metrics are served here.
    await startConfiguredOperatorServer(ctx);
  });
}
