// Enqueues jobs. Every enqueue is awaited; when Redis is down the API answers 503.
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { unavailable } from '../errors.js';
import { currentRequestId } from '../logging.js';
import { JOB_QUEUES, type PlanJob, type TimeoutJob, type WakeJob } from './job-types.js';

export interface JobProducerOptions {
  connection: Redis;
  prefix: string;
}

/** Finished jobs kept for inspection (count / age in seconds). */
export const KEEP_FINISHED = { removeOnComplete: { count: 1000, age: 3600 }, removeOnFail: { count: 5000, age: 7 * 86400 } };

export class JobProducer {
  readonly planQueue: Queue<PlanJob>;
  readonly timeoutQueue: Queue<TimeoutJob>;
  readonly wakeQueue: Queue<WakeJob>;

  constructor(opts: JobProducerOptions) {
    const queueOpts = { connection: opts.connection, prefix: opts.prefix };
    this.planQueue = new Queue<PlanJob>(JOB_QUEUES.plan, queueOpts);
    this.timeoutQueue = new Queue<TimeoutJob>(JOB_QUEUES.timeout, queueOpts);
    this.wakeQueue = new Queue<WakeJob>(JOB_QUEUES.wake, queueOpts);
    for (const q of [this.planQueue, this.timeoutQueue, this.wakeQueue]) {
      // Connection errors surface on the awaited add() calls; the queue's event is only noise.
      q.on('error', () => undefined);
    }
  }

  /**
   * Asks for a planning pass of one merge queue. While a pass is running, at most one more is
   * kept (with the latest reason), so a burst of events costs at most two passes, and two passes
   * for one queue never run at once.
   */
  async requestPlan(queueId: string, why: string): Promise<void> {
    const data: PlanJob = { queueId, why };
    const requestId = currentRequestId();
    if (requestId) data.requestId = requestId;
    await enqueue(() =>
      this.planQueue.add('plan', data, { ...KEEP_FINISHED, deduplication: { id: `plan-${queueId}`, keepLastIfActive: true } }),
    );
  }

  /** A delayed check that run `testRunId` concluded before its deadline. */
  async scheduleTimeout(queueId: string, testRunId: string, deadlineAt: Date): Promise<void> {
    const attempt = deadlineAt.getTime();
    await enqueue(() =>
      this.timeoutQueue.add(
        'timeout',
        { queueId, testRunId, attempt },
        { ...KEEP_FINISHED, delay: Math.max(0, attempt - Date.now()), jobId: `timeout-${testRunId}-${attempt}` },
      ),
    );
  }

  /** A delayed planning pass (batch max-wait, deadlines); one per queue and instant. */
  async scheduleWake(queueId: string, at: Date, why: string): Promise<void> {
    const when = at.getTime();
    await enqueue(() =>
      this.wakeQueue.add('wake', { queueId, why }, { ...KEEP_FINISHED, delay: Math.max(0, when - Date.now()), jobId: `wake-${queueId}-${when}` }),
    );
  }

  async close(): Promise<void> {
    await Promise.all([this.planQueue.close(), this.timeoutQueue.close(), this.wakeQueue.close()]);
  }
}

async function enqueue(add: () => Promise<unknown>): Promise<void> {
  try {
    await add();
  } catch (err) {
    throw unavailable('queue_unavailable', `the job queue (Redis) is unavailable: ${err instanceof Error ? err.message : String(err)}`);
  }
}
