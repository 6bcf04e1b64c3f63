// Enqueues jobs of a catalogue. Every enqueue is awaited; when Redis is down the API answers 503.
// Every job carries the id of the request (or job) that enqueued it, so its log lines join those.
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { unavailable } from '../errors.js';
import { currentRequestId } from '../logging.js';
import { retentionOf, type EnqueueOptions, type JobCatalogue, type PayloadOf } from './job-catalogue.js';

const queueUnavailable = (err: unknown) =>
  unavailable('queue_unavailable', `the job queue (Redis) is unavailable: ${err instanceof Error ? err.message : String(err)}`);

export interface JobProducerOptions<C extends JobCatalogue> {
  catalogue: C;
  connection: Redis;
  prefix: string;
}

export class JobProducer<C extends JobCatalogue> {
  private readonly queues: ReadonlyMap<string, Queue>;
  /** Every job this producer enqueues, with its options (workers run the same catalogue). */
  readonly catalogue: C;

  constructor(opts: JobProducerOptions<C>) {
    this.catalogue = opts.catalogue;
    this.queues = new Map(
      Object.keys(opts.catalogue).map((name) => {
        const q = new Queue(name, { connection: opts.connection, prefix: opts.prefix });
        // Connection errors surface on the awaited add() calls; the queue's event is only noise.
        q.on('error', () => undefined);
        return [name, q];
      }),
    );
  }

  /** The BullMQ queue of one job (for inspection: counts, a job by id). */
  queue(name: keyof C & string): Queue {
    const q = this.queues.get(name);
    if (!q) throw new Error(`no job ${name} in the catalogue`);
    return q;
  }

  /** Enqueues one job with the options the catalogue gives it. */
  readonly enqueue = async <K extends keyof C & string>(name: K, payload: PayloadOf<C, K>, opts: EnqueueOptions = {}): Promise<void> => {
    const job = this.jobOf(name, payload, opts);
    try {
      await this.queue(name).add(job.name, job.data, job.opts);
    } catch (err) {
      throw queueUnavailable(err);
    }
  };

  /** Enqueues jobs of one name, to run now, in one round trip. */
  readonly enqueueMany = async <K extends keyof C & string>(name: K, payloads: readonly PayloadOf<C, K>[]): Promise<void> => {
    if (payloads.length === 0) return;
    try {
      await this.queue(name).addBulk(payloads.map((p) => this.jobOf(name, p, {})));
    } catch (err) {
      throw queueUnavailable(err);
    }
  };

  private jobOf<K extends keyof C & string>(name: K, payload: PayloadOf<C, K>, opts: EnqueueOptions) {
    const spec = this.catalogue[name] as C[K];
    const runAt = opts.runAt?.getTime() ?? Date.now();
    const dedupId = spec.deduplicateBy?.(payload);
    const jobId = spec.jobId?.(payload, runAt);
    const requestId = currentRequestId();
    return {
      name,
      data: { ...payload, ...(requestId ? { requestId } : {}) },
      opts: {
        ...retentionOf(spec),
        attempts: spec.attempts,
        ...(spec.backoffMs > 0 ? { backoff: { type: 'exponential' as const, delay: spec.backoffMs } } : {}),
        ...(opts.runAt ? { delay: Math.max(0, runAt - Date.now()) } : {}),
        ...(dedupId ? { deduplication: { id: dedupId, keepLastIfActive: true } } : {}),
        ...(jobId ? { jobId } : {}),
      },
    };
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}
