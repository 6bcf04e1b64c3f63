// Enqueues jobs of the catalogue. Every enqueue is awaited; when Redis is down the API answers 503.
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { unavailable } from '../errors.js';
import { currentRequestId } from '../logging.js';
import { JOB_NAMES, JOB_SPECS, retentionOf, type JobName, type JobPayloads } from './job-catalogue.js';

export interface JobProducerOptions {
  connection: Redis;
  prefix: string;
}

export interface EnqueueOptions {
  /** Run no earlier than this. */
  runAt?: Date;
}

export class JobProducer {
  private readonly queues: ReadonlyMap<JobName, Queue>;

  constructor(opts: JobProducerOptions) {
    this.queues = new Map(
      JOB_NAMES.map((name) => {
        const q = new Queue(name, { connection: opts.connection, prefix: opts.prefix });
        // Connection errors surface on the awaited add() calls; the queue's event is only noise.
        q.on('error', () => undefined);
        return [name, q];
      }),
    );
  }

  /** The BullMQ queue of one job (for inspection: counts, a job by id). */
  queue<K extends JobName>(name: K): Queue<JobPayloads[K]> {
    return this.queues.get(name) as Queue<JobPayloads[K]>;
  }

  /** Enqueues one job with the options the catalogue gives it. */
  async enqueue<K extends JobName>(name: K, payload: JobPayloads[K], opts: EnqueueOptions = {}): Promise<void> {
    const spec = JOB_SPECS[name];
    const runAt = opts.runAt?.getTime() ?? Date.now();
    const dedupId = spec.deduplicateBy?.(payload);
    const jobId = spec.jobId?.(payload, runAt);
    try {
      await this.queue(name).add(name as never, payload as never, {
        ...retentionOf(name),
        attempts: spec.attempts,
        ...(spec.backoffMs > 0 ? { backoff: { type: 'exponential', delay: spec.backoffMs } } : {}),
        ...(opts.runAt ? { delay: Math.max(0, runAt - Date.now()) } : {}),
        ...(dedupId ? { deduplication: { id: dedupId, keepLastIfActive: true } } : {}),
        ...(jobId ? { jobId } : {}),
      });
    } catch (err) {
      throw unavailable('queue_unavailable', `the job queue (Redis) is unavailable: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * Asks for a planning pass of one merge queue. While a pass is running, at most one more is
   * kept (with the latest reason), so a burst of events costs at most two passes, and two passes
   * for one queue never run at once.
   */
  async requestPlan(queueId: string, why: string): Promise<void> {
    const requestId = currentRequestId();
    await this.enqueue('plan', { queueId, why, ...(requestId ? { requestId } : {}) });
  }

  /** A delayed check that run `testRunId` concluded before its deadline. */
  async scheduleTimeout(queueId: string, testRunId: string, deadlineAt: Date): Promise<void> {
    await this.enqueue('timeout', { queueId, testRunId, deadlineAt: deadlineAt.getTime() }, { runAt: deadlineAt });
  }

  /** The stall watchdog's look at a built run, once statusWaitMinutes have passed. */
  async scheduleStatusWatch(queueId: string, testRunId: string, at: Date): Promise<void> {
    await this.enqueue('status-watch', { queueId, testRunId }, { runAt: at });
  }

  /** A delayed planning pass (batch max-wait, deadlines); one per queue and instant. */
  async scheduleWake(queueId: string, at: Date, why: string): Promise<void> {
    await this.enqueue('wake', { queueId, why }, { runAt: at });
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}
