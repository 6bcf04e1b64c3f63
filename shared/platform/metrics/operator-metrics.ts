// The operator's view of one service context (GET /metrics on the operator listener): HTTP
// requests, database operations and BullMQ jobs, next to the process metrics. Each context owns
// its registry, so several contexts in one process (tests) never register a metric twice.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { processMetricsRegistry } from './process-metrics.js';
import { withTimeout } from '../runtime/with-timeout.js';

/** Job counts per queue and state, read from Redis at scrape time. */
export type JobCountsReader = () => Promise<Record<string, Record<string, number>>>;

/** Job counts are read at scrape time; a scrape must not hang on an unreachable Redis. */
const JOB_COUNTS_TIMEOUT_MS = 2_000;

export class OperatorMetrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'openmq_http_requests_total',
    help: 'HTTP requests answered by the API, by method, route template and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'openmq_http_request_duration_seconds',
    help: 'Time from receiving an HTTP request to answering it, by method, route template and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly dbDuration = new Histogram({
    name: 'openmq_db_operation_duration_seconds',
    help: 'Duration of database operations (MongoDB or the embedded database), by collection and operation.',
    labelNames: ['collection', 'operation'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  readonly dbErrors = new Counter({
    name: 'openmq_db_operation_errors_total',
    help: 'Database operations that failed, by collection and operation (duplicate-key rejections, an expected outcome of idempotent writes, are not counted).',
    labelNames: ['collection', 'operation'] as const,
    registers: [this.registry],
  });

  readonly jobDuration = new Histogram({
    name: 'openmq_job_duration_seconds',
    help: 'Time BullMQ jobs processed by this process took, by queue and outcome (completed or failed).',
    labelNames: ['queue', 'outcome'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });

  readonly jobsCompleted = new Counter({
    name: 'openmq_jobs_completed_total',
    help: 'BullMQ jobs this process completed, by queue.',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });

  readonly jobsFailed = new Counter({
    name: 'openmq_jobs_failed_total',
    help: 'BullMQ job attempts that failed in this process (errors and stalls), by queue.',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });

  readonly workerConcurrency = new Gauge({
    name: 'openmq_worker_queue_concurrency',
    help: 'Job queues this process serves, with the jobs of each it runs at once (no series for a queue it does not serve).',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });

  private readonly bullmqUp = new Gauge({
    name: 'openmq_bullmq_up',
    help: '1 when the job counts could be read from Redis during this scrape, else 0.',
    registers: [this.registry],
  });

  private readonly bullmqJobs = new Gauge({
    name: 'openmq_bullmq_jobs',
    help: 'BullMQ jobs per queue and state, read from Redis at scrape time (every process reports the same values).',
    labelNames: ['queue', 'state'] as const,
    registers: [this.registry],
  });

  private jobCountsReader: JobCountsReader | null = null;
  private inFlight: Promise<string> | null = null;

  /** Where job counts come from (the context's Redis); without one, `openmq_bullmq_up` is 0. */
  setJobCountsReader(reader: JobCountsReader): void {
    this.jobCountsReader = reader;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * The exposition of the process metrics followed by this context's. Scrapes arriving while one
   * is being rendered share it, so job counts are read from Redis once, not once per scraper.
   */
  render(): Promise<string> {
    this.inFlight ??= this.renderOnce().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async renderOnce(): Promise<string> {
    await this.refreshJobCounts();
    const [processText, own] = await Promise.all([processMetricsRegistry().metrics(), this.registry.metrics()]);
    return `${processText}${processText.endsWith('\n') ? '' : '\n'}${own}`;
  }

  /** Job counts live in Redis; they are read once per scrape, before rendering. */
  private async refreshJobCounts(): Promise<void> {
    this.bullmqJobs.reset();
    if (!this.jobCountsReader) return void this.bullmqUp.set(0);
    try {
      const counts = await withTimeout(this.jobCountsReader(), JOB_COUNTS_TIMEOUT_MS);
      for (const [queue, states] of Object.entries(counts)) {
        for (const [state, n] of Object.entries(states)) this.bullmqJobs.set({ queue, state }, n);
      }
      this.bullmqUp.set(1);
    } catch {
      this.bullmqUp.set(0);
    }
  }
}
